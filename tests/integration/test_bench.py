"""The benchmark works end to end on a tiny corpus (the numbers themselves are not tested: see README)."""

from __future__ import annotations

import json
import subprocess
import sys

from support.common import REPO


def test_the_benchmark_runs_on_a_tiny_corpus(tmp_path):
    corpus, out = tmp_path / "corpus", tmp_path / "results.json"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "generate.py"),
            "--submissions",
            "3",
            "--results-kb",
            "200",
            "--out",
            str(corpus),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "run.py"),
            "--corpus",
            str(corpus),
            "--repeat",
            "1",
            "--jobs",
            "1",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    rows = {(m["scenario"], m["tool"]): m for m in report["measurements"]}
    # the generated submissions are honest, so lbnorm passes them; every peer ran too
    assert rows[("one pull request", "lbnorm check")]["exit_code"] == 0
    assert rows[("re-audit (3 submissions)", "lbnorm check --jobs 1")]["exit_code"] == 0
    assert rows[("normalize (3 results files)", "lbnorm normalize")]["exit_code"] == 0
    assert all(
        m["exit_code"] == 0 and m["seconds"] > 0 and m["peak_mib"] > 0
        for m in report["measurements"]
    )
    assert {
        "bare json parse",
        "notebook-style script",
        "python -c pass",
        "the same imports as lbnorm check, no work",
    } <= {tool for _, tool in rows}
    assert "| one pull request | lbnorm check |" in proc.stdout


def test_the_start_up_benchmark_times_every_row(tmp_path):
    out = tmp_path / "startup.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "startup.py"), "--repeat", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    medians = json.loads(out.read_text())
    assert {
        "lbnorm --version",
        "lbnorm check (one submission)",
        "Action entrypoint (one submission)",
    } <= set(medians)
    assert all(seconds > 0 for seconds in medians.values())
    assert "| lbnorm check (one submission) |" in proc.stdout


def test_the_audit_shapes_benchmark_measures_every_shape(tmp_path):
    """Every shape is measured, and the audit reads each of its logs whole (none is left out)."""
    out = tmp_path / "shapes.json"
    proc = subprocess.run(
        [
            *(sys.executable, str(REPO / "bench" / "audit_shapes.py")),
            *("--scale", "0.01", "--repeat", "1", "--process-repeat", "1", "--json", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert len(report["shapes"]) == 10
    assert report["shapes"]["a few samples per log: 60 logs in one run"][0]["files"] == 60
    for rows in report["shapes"].values():
        assert rows[0]["files"] >= 1 and not rows[0].get("left_out")
        assert rows[0]["ratio_line_floor"] > 0
    # Each shape's runs audited by fresh processes too, which exit 0: the shapes are honest
    assert report["processes"].keys() == report["shapes"].keys()
    assert all(row["runs"] >= 1 and row["ratio"] > 0 for row in report["processes"].values())
    assert [row["factor"] for row in report["memory"]] == [1, 10]
