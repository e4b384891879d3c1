"""A manifest that cannot be read as the maintainer meant it is a usage error (exit 2) naming the file, the entry or
column, and the fix: never an internal error, never a score read other than as written.

Published scores are JSON numbers or decimal strings (an optional sign, digits, an optional fraction and exponent).
Python's float() reads more than that: `true` as 1.0, "0_6_2_5" as 625.0, a 400-digit integer not at all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import harness_logs as hl
from support.survey_corpus import make_corpus

from validator.survey.tables import read_jsonl

FIX = (
    "not a score; write a number such as 12.31 or 1.2e-1 (no underscores, booleans, inf or nan), or leave it "
    "empty when no score is published"
)


def lbnorm(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "validator", *args], capture_output=True, text=True, timeout=60
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, str, dict]:
    """A folder with one clean run: (the folder, the results file relative to it, its DROP scores)."""
    root = tmp_path_factory.mktemp("runs")
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    results = next(root.glob("*/results_*.json"))
    return (
        root,
        results.relative_to(root).as_posix(),
        json.loads(results.read_text(encoding="utf-8"))["results"]["drop"],
    )


def survey(manifest: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    return lbnorm(
        "survey", str(manifest), "--out", str(tmp_path / "out"), "--workers", "1", "--no-plots"
    )


@pytest.mark.parametrize(
    "score, shown",
    [
        ("true", "true"),  # was 1.0
        ('"0_6_2_5"', '"0_6_2_5"'),  # was 625.0
        ("9" * 400, "9" * 30 + "... (400 characters)"),  # was an internal error (OverflowError)
        ("1e400", "Infinity"),  # JSON's own overflow: inf
        ('"Infinity"', '"Infinity"'),
        ('" 0.5"', '" 0.5"'),
        ('"\\u0663"', '"\\u0663"'),  # an Arabic-Indic 3, which float() reads as 3.0
        ("[0.5]", "[0.5]"),
    ],
    ids=[
        "boolean",
        "underscores",
        "400 digits",
        "1e400",
        "infinity",
        "spaces",
        "non-ASCII digit",
        "list",
    ],
)
def test_a_json_score_that_is_not_a_number_is_refused_naming_entry_and_column(
    run, tmp_path, score, shown
):
    root, results, _ = run
    manifest = root / f"m{abs(hash(score))}.json"
    manifest.write_text(
        f'[{{"results": "{results}", "published": {{"arc_easy/acc": 0.5, "drop/f1": {score}}}}}]',
        encoding="utf-8",
    )
    result = survey(manifest, tmp_path)
    assert result.returncode == 2, result.stderr
    assert f"Error: {manifest}: entry 1: drop/f1 is {shown}, {FIX}\n" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "cell",
    ["0_6_2_5", "1e999", "nan", "0x10", "1,5"],
    ids=["underscores", "1e999", "nan", "hex", "decimal comma"],
)
def test_a_csv_score_that_is_not_a_decimal_is_refused_naming_entry_and_column(run, tmp_path, cell):
    root, results, _ = run
    manifest = root / "m.csv"
    manifest.write_text(f'results,arc_easy/acc,drop/f1\n{results},0.5,"{cell}"\n', encoding="utf-8")
    result = survey(manifest, tmp_path)
    assert result.returncode == 2, result.stderr
    assert f'Error: {manifest}: entry 1: drop/f1 is "{cell}", {FIX}\n' in result.stderr


def test_scores_written_as_json_numbers_or_decimal_strings_are_compared(run, tmp_path):
    root, results, drop = run
    manifest = root / "good.json"
    manifest.write_text(
        json.dumps(
            [
                {
                    "results": results,
                    "drop/f1": f"+{drop['f1,none'] * 10:.6f}E-1",
                    "drop/em": drop["em,none"],
                    "published": {"arc_easy/acc": "", "x/y": None},
                }
            ]
        ),
        encoding="utf-8",
    )
    result = survey(manifest, tmp_path)
    assert result.returncode == 0, result.stderr
    row = next(
        row for row in read_jsonl(tmp_path / "out" / "survey.jsonl") if row["task"] == "drop"
    )
    assert row["reproduced"] is True and set(row["metrics"]) >= {"f1,none", "em,none"}
    assert row["metrics"]["f1,none"]["published"] == pytest.approx(drop["f1,none"])


def test_a_json_manifest_nested_past_max_depth_is_a_usage_error_not_a_recursion_error(
    run, tmp_path
):
    manifest = run[0] / "deep.json"
    manifest.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = survey(manifest, tmp_path)
    assert result.returncode == 2, result.stderr
    assert (
        f"Error: {manifest}: the manifest nests arrays and objects more than 64 levels deep (line 1); a "
        "manifest is a list of flat objects, one per run\n"
    ) in result.stderr


def test_a_json_manifest_over_max_values_is_a_usage_error(run, tmp_path):
    manifest = run[0] / "many.json"
    manifest.write_text(json.dumps([{"results": run[1]}] * 30), encoding="utf-8")
    result = lbnorm("survey", str(manifest), "--out", str(tmp_path / "out"), "--max-values", "50")
    assert result.returncode == 2, result.stderr
    assert (
        f"Error: {manifest}: the manifest holds more than 50 values; survey its runs in several manifests "
        "(or raise --max-values)\n"
    ) in result.stderr


def test_a_csv_cell_over_the_csv_field_limit_is_a_usage_error_naming_its_entry(run, tmp_path):
    root, results, _ = run
    manifest = root / "bigcell.csv"
    manifest.write_text(
        f"results,model,drop/f1\n{results},m,0.5\n{results},{'m' * 200_000},0.5\n", encoding="utf-8"
    )
    result = survey(manifest, tmp_path)
    assert result.returncode == 2, result.stderr
    assert (
        f"Error: {manifest}: entry 2 (line 3) is not CSV that can be read (field larger than field limit "
        "(131072)); a cell holds a path, a model name or a score, never 131,072 characters\n"
    ) in result.stderr


def test_a_published_metric_the_results_file_lacks_is_told_with_the_metrics_it_has(tmp_path):
    """gsm8k/exact_match is what a maintainer of the v1 leaderboard writes first; the harness reports it under
    its two filters."""
    correct = {"strict-match": [True, False, True], "flexible-extract": [True, True, True]}
    task = hl.two_filter_task(correct)
    paths = hl.write_run(
        tmp_path / "runs" / "org__model", [task], hl.two_filter_results(task, correct)
    )
    manifest = tmp_path / "runs" / "m.csv"
    manifest.write_text(
        f"results,gsm8k/exact_match\n{paths['results'].relative_to(manifest.parent).as_posix()},66.67\n",
        encoding="utf-8",
    )
    assert (
        lbnorm(
            "survey",
            str(manifest),
            "--out",
            str(tmp_path / "out"),
            "--workers",
            "1",
            "--no-plots",
            "--published-scale",
            "100",
        ).returncode
        == 1
    )
    [row] = [row for row in read_jsonl(tmp_path / "out" / "survey.jsonl") if row["task"] == "gsm8k"]
    assert row["error"] == (
        "the manifest publishes gsm8k/exact_match, but the results file has no metric "
        "exact_match,none for gsm8k (it has: exact_match,flexible-extract, exact_match,strict-match); "
        "fix the manifest's column name (a metric under another filter is <task>/<metric>,<filter>)"
    )
