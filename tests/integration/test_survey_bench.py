"""bench/survey_bench.py runs end to end on a tiny corpus (the numbers themselves live in docs/survey.md)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_audit_benchmark_measures_audit_and_floor(tmp_path):
    corpus, report = tmp_path / "corpus", tmp_path / "report.json"
    subprocess.run(
        [
            sys.executable,
            str(BENCH / "survey_corpus.py"),
            str(corpus),
            "--runs",
            "1",
            "--mc-docs",
            "10",
            "--drop-docs",
            "10",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    subprocess.run(
        [
            sys.executable,
            str(BENCH / "survey_bench.py"),
            str(corpus),
            "--audit-only",
            "--repeat",
            "1",
            "--json",
            str(report),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    result = json.loads(report.read_text(encoding="utf-8"))
    assert [row["logs"] for row in result["audit"]] == ["all logs", "multiple choice", "DROP"]
    assert all(
        row["audit_cpu_s"] > 0 and row["floor_cpu_s"] > 0 and row["MB"] > 0
        for row in result["audit"]
    )
    assert all(row["ratio_same_reads"] > 0 for row in result["audit"])
    assert result["extrapolated"]["workers_for_one_hour"] >= 1


def test_the_audit_benchmark_reads_what_the_survey_reads_a_manifest_of_runs_with_faults_among_them(
    tmp_path,
):
    """Any source `lbnorm survey` takes (here a manifest of nested runs, cut and missing logs among them) is
    measured log by log, each sorted by what the audit made of it."""
    from support.survey_corpus import MANIFEST, make_corpus

    corpus, report = tmp_path / "a" / "b", tmp_path / "report.json"
    expected = make_corpus(corpus, runs=12, seed=3)
    assert {"LB701"} in [
        row["rules"] for row in expected.values()
    ]  # a log cut mid-line is measured too
    subprocess.run(
        [
            sys.executable,
            str(BENCH / "survey_bench.py"),
            str(corpus / MANIFEST),
            "--audit-only",
            "--repeat",
            "1",
            "--json",
            str(report),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    rows = {row["logs"]: row for row in json.loads(report.read_text(encoding="utf-8"))["audit"]}
    cut = {run.split("/")[0] for (run, _), want in expected.items() if "LB701" in want["rules"]}
    logs = sorted(
        log
        for log in corpus.rglob("samples_*.jsonl")
        if log.parent.name not in cut or log.name.startswith("samples_drop_")
    )  # a cut log is read in part: left out, and said so
    assert list(rows) == ["all logs", "multiple choice", "DROP"]
    assert rows["all logs"]["files"] == len(logs) and rows["all logs"]["left_out"] == len(cut) > 0
    assert rows["DROP"]["files"] == len(
        [log for log in logs if log.name.startswith("samples_drop_")]
    )
    assert rows["all logs"]["MB"] == sum(log.stat().st_size for log in logs) / 1e6


def test_the_survey_benchmark_measures_each_configuration_in_its_own_process(tmp_path):
    pytest.importorskip(
        "distributed", reason="the Dask rows need the `dask` extra (dask[distributed])"
    )
    corpus, report = tmp_path / "corpus", tmp_path / "report.json"
    subprocess.run(
        [
            sys.executable,
            str(BENCH / "survey_corpus.py"),
            str(corpus),
            "--runs",
            "1",
            "--mc-docs",
            "10",
            "--drop-docs",
            "10",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    table = subprocess.run(
        [
            sys.executable,
            str(BENCH / "survey_bench.py"),
            str(corpus),
            "--repeat",
            "2",
            "--json",
            str(report),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    result = json.loads(report.read_text(encoding="utf-8"))
    rows = {row["configuration"]: row for row in result["survey"]}
    assert list(rows) == ["pool:1", "pool:2", "dask:1", "dask:2"]
    for row in rows.values():
        assert len(row["survey_times"]) == 2 and all(t > 0 for t in row["survey_times"])
        assert row["seconds"] == statistics.median(row["survey_times"])
        times = row["survey_times"]
        assert (
            f"| {row['executor']} |" in table and f"| {min(times):.2f}–{max(times):.2f} |" in table
        )
    assert (
        rows["dask:1"]["start_s"] > 0 and rows["dask:2"]["start_s"] > 0
    )  # the clusters' start, timed apart
    seconds = {name: row["seconds"] for name, row in rows.items()}
    assert result["survey_ratios"] == {
        "dask_over_pool_1": seconds["dask:1"] / seconds["pool:1"] - 1,
        "dask_over_pool_2": seconds["dask:2"] / seconds["pool:2"] - 1,
        "pool_2_over_1": seconds["pool:1"] / seconds["pool:2"],
        "dask_2_over_1": seconds["dask:1"] / seconds["dask:2"],
    }
    ratios = result["survey_ratios"]
    assert (
        f"{100 * ratios['dask_over_pool_1']:+.1f}% with 1 worker, "
        f"{100 * ratios['dask_over_pool_2']:+.1f}% with 2 workers"
    ) in table
    assert (
        f"local pool {ratios['pool_2_over_1']:.2f}×, Dask {ratios['dask_2_over_1']:.2f}×" in table
    )
