"""Each "how to add" recipe of docs/architecture.md, followed in a copy of the package.

For each kind of extension (an audit check, a check rule, a built-in profile, a report format,
a results reader) the test writes what the recipe says into a fresh copy of validator/, counts
the files of the package that changed, and runs the copy to show the extension is found and
used: nothing else has to be listed or registered by hand.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.common import REPO

HONEST = REPO / "tests" / "examples" / "positive" / "samples_honest"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A copy of validator/ (and the schemas its symlink points at) under tmp_path."""
    shutil.copytree(
        REPO / "validator",
        tmp_path / "validator",
        symlinks=True,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copytree(REPO / "schemas", tmp_path / "schemas")
    return tmp_path


def tree(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted((root / "validator").rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(
        name for name in after.keys() | before.keys() if before.get(name) != after.get(name)
    )


def run(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m validator ARGS` (or `python -c CODE`) with the copy first on the path."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd or root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def rule_ids(report: str) -> set[str]:
    return {finding["rule"] for finding in json.loads(report)["findings"]}


AUDIT_CHECK = '''"""Doc ids: every logged doc_id is below a bound (an example check)."""

from __future__ import annotations

from ...findings import WARNING
from ...findings.registry import rule
from .base import AuditCheck, Sample, audit_check


@rule("LB790", "doc-id-bound", WARNING, runs=False)
def doc_id_bound(ctx):
    """A sample's doc_id is past the bound this example sets."""


@audit_check(order=95)
class DocIdBound(AuditCheck):
    """LB790: a doc_id past the bound."""

    def add(self, sample: Sample) -> None:
        if sample.doc_id >= 0:
            self.log.at_record("LB790", sample.record, ("doc_id",), "doc_id is past the bound")
'''


def test_an_audit_check_is_one_new_module(package):
    before = tree(package)
    (package / "validator" / "audit" / "checks" / "doc_id_bound.py").write_text(AUDIT_CHECK)
    assert changed(before, tree(package)) == ["validator/audit/checks/doc_id_bound.py"]
    work = package / "run"
    shutil.copytree(HONEST, work)
    audited = run(
        package, "-m", "validator", "audit", "--output-format", "json", "results.json", cwd=work
    )
    assert "LB790" in rule_ids(audited.stdout), audited.stderr
    assert "doc-id-bound" in run(package, "-m", "validator", "rules", "LB790").stdout


CHECK_RULE = '''"""An example family: one rule that reports every submission."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings import WARNING
from ...findings.registry import rule
from ..context import CheckContext, Hit


@rule("LB690", "example-rule", WARNING)
def example_rule(ctx: CheckContext) -> Iterator[Hit]:
    """Every submission is reported: this example shows where a rule goes."""
    if ctx.submission is not None:
        yield Hit(ctx.submission, ("model",), "an example finding")
'''


def test_a_check_rule_is_one_function_in_a_rules_module(package):
    before = tree(package)
    (package / "validator" / "check" / "rules" / "example.py").write_text(CHECK_RULE)
    assert changed(before, tree(package)) == ["validator/check/rules/example.py"]
    checked = run(
        package,
        "-m",
        "validator",
        "check",
        "--output-format",
        "json",
        "--root",
        str(HONEST),
        str(HONEST / "submission.json"),
    )
    assert "LB690" in rule_ids(checked.stdout), checked.stderr
    assert "example-rule" in run(package, "-m", "validator", "rules", "LB690").stdout


def test_a_built_in_profile_is_one_yaml_file(package):
    before = tree(package)
    profiles = package / "validator" / "profiles"
    text = (profiles / "open-llm-leaderboard-v2.yaml").read_text()
    (profiles / "my-board.yaml").write_text(text.replace("open-llm-leaderboard-v2", "my-board", 1))
    assert changed(before, tree(package)) == ["validator/profiles/my-board.yaml"]
    checked = run(
        package,
        "-m",
        "validator",
        "check",
        "--profile",
        "my-board",
        "--output-format",
        "json",
        "--root",
        str(HONEST),
        str(HONEST / "submission.json"),
    )
    assert checked.returncode in (0, 1), checked.stderr
    listed = run(
        package, "-c", "from validator.io.loaders import builtin_profile_names as n; print(n())"
    )
    assert "my-board" in listed.stdout, listed.stderr


REPORTER = '''"""An example report format: one line per finding, rule and file."""

from __future__ import annotations

from typing import Any, TextIO

from .text_style import ReportOptions


def report_lines(result: Any, out: TextIO, options: ReportOptions) -> None:
    for finding in result.findings:
        out.write(f"{finding.rule} {finding.file}\\n")
'''


def test_a_report_format_is_a_module_and_two_lines_in_formats(package):
    before = tree(package)
    report = package / "validator" / "report"
    (report / "lines.py").write_text(REPORTER)
    formats = (report / "formats.py").read_text()
    formats = re.sub(r"FORMATS = \(([^)]*)\)", r'FORMATS = (\1, "lines")', formats, count=1)
    formats = formats.replace("    return {", '    return {"lines": report_lines, ', 1)
    formats = formats.replace(
        "from .text_style import ReportOptions\n",
        "from .lines import report_lines\nfrom .text_style import ReportOptions\n",
        1,
    )
    (report / "formats.py").write_text(formats)
    assert changed(before, tree(package)) == [
        "validator/report/formats.py",
        "validator/report/lines.py",
    ]
    checked = run(
        package,
        "-m",
        "validator",
        "check",
        "--output-format",
        "lines",
        "--root",
        str(HONEST),
        str(HONEST / "submission.json"),
    )
    assert checked.stdout.startswith("LB7"), checked.stderr


READER = '''

def _is_flat(doc: dict, results: dict) -> bool:
    return doc.get("format") == "flat"


def _read_flat(doc: dict, results: dict) -> HarnessResults:
    """An example format: {"format": "flat", "results": {task: {metric: value}}} read as lm-eval 0.3's."""
    return _read_lm_eval_03({**doc, "versions": {task: 0 for task in results}}, results)


_READERS = (("flat", _is_flat, _read_flat), *_READERS)
'''


def test_a_results_reader_is_two_functions_in_readers(package):
    before = tree(package)
    readers = package / "validator" / "io" / "readers.py"
    readers.write_text(readers.read_text() + READER)
    assert changed(before, tree(package)) == ["validator/io/readers.py"]
    read = run(
        package,
        "-c",
        "from validator.io.readers import read_results\n"
        "r = read_results({'format': 'flat', 'results': {'arc': {'acc': 0.5}}})\n"
        "print(sorted(r.entries))",
    )
    assert "arc" in read.stdout, read.stderr
