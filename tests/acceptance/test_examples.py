"""Data-driven examples: tests/examples/{positive,negative}/<case>/case.yaml.

A positive case must exit 0 and a negative case 1, each with exactly the
findings (rule id, file, line) its case.yaml lists. The folders are data a
person writes: copy a neighbour and change one thing.
"""

from __future__ import annotations

import contextlib
import functools
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from support.common import REPO

from validator.check.rules import all_rules
from validator.cli import cli

EXAMPLES = REPO / "tests" / "examples"
CASES = sorted(
    p for kind in ("positive", "negative") for p in (EXAMPLES / kind).iterdir() if p.is_dir()
)


def run_case(case: Path, reuse: bool = False):
    """The case's check: exit code, findings found and expected, JSON report.

    `reuse=True` takes the check this process already ran on the case (the case folders are data
    and the check reads nothing else); a test that patches lbnorm runs its own."""
    config = yaml.safe_load((case / "case.yaml").read_text())
    prefix = case.relative_to(EXAMPLES).as_posix() + "/"
    exit_code, output = (checked_once if reuse else checked)(case, prefix, tuple(config["options"]))
    report = json.loads(output)
    found = sorted(
        (f["rule"], f["file"].removeprefix(prefix), f["line"]) for f in report["findings"]
    )
    expected = sorted((f["rule"], f["file"], f["line"]) for f in config["findings"])
    return exit_code, found, expected, report


def checked(case: Path, prefix: str, options: tuple[str, ...]) -> tuple[int, str]:
    config = yaml.safe_load((case / "case.yaml").read_text())
    args = [
        "check",
        "--root",
        str(EXAMPLES),
        "--output-format",
        "json",
        *options,
        *(prefix + a for a in config["args"]),
    ]  # arguments are relative to cwd, and so are the paths findings name
    with contextlib.chdir(EXAMPLES):
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
    return result.exit_code, result.output


checked_once = functools.cache(checked)


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_example(case: Path):
    exit_code, found, expected, report = run_case(case, reuse=True)
    assert found == expected, json.dumps(report["findings"], indent=1)
    assert exit_code == (0 if case.parent.name == "positive" else 1)


def test_every_rule_has_a_negative_example():
    covered = {
        f["rule"]
        for case in CASES
        if case.parent.name == "negative"
        for f in yaml.safe_load((case / "case.yaml").read_text())["findings"]
    }
    # LB110 has no input that triggers it (each known one is fixed); test_hostile.py injects the fault.
    assert covered == {r.id for r in all_rules()} - {"LB110"}


def test_honest_submissions_carry_the_recomputed_scores():
    _, _, _, report = run_case(EXAMPLES / "positive" / "pythia_two_decimals")
    scores = report["scores"]["positive/pythia_two_decimals/submission.json"]
    assert scores["reported"]["bbh"] == 2.29
    assert abs(scores["recomputed"]["bbh"] - 2.2939863995762866) < 1e-12


def test_the_wrong_methods_table_in_the_readme_matches_the_examples():
    """docs/cli.md's table of which common mistakes the default tolerance catches."""
    readme = (REPO / "docs" / "cli.md").read_text()
    for case in CASES:
        if case.name.startswith("wrong_"):
            caught = "caught" if case.parent.name == "negative" else "not caught"
            assert f"| `{case.name}` | {caught} |" in readme, case.name


def test_a_score_no_rule_explains_is_never_passed(monkeypatch):
    """LB600, the safety net: a benchmark that cannot be recomputed for a reason no rule reports fails the file,
    at its first line, naming the benchmark and the reason. Every known cause has a rule of its own, so one is
    injected into an honest example."""
    from validator.check import checker
    from validator.core.errors import DataError

    scored = checker.score_benchmark

    def unforeseen(bench, *args, **kwargs):
        if bench.id == "gpqa":
            raise DataError("an unforeseen shape of the file")
        return scored(bench, *args, **kwargs)

    monkeypatch.setattr(checker, "score_benchmark", unforeseen)
    exit_code, found, _, report = run_case(EXAMPLES / "positive" / "pythia_two_decimals")
    assert exit_code == 1
    assert found == [("LB600", "common/pythia-1b.json", 1)]
    assert (
        report["findings"][0]["message"]
        == "gpqa cannot be recomputed: an unforeseen shape of the file"
    )
