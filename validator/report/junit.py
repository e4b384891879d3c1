"""JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure): one test suite per file.

As ruff's junit output: each finding is a test case; a file without
findings is one passing case, so the report counts every file checked.
Errors are failures; a warning is a failure only with --strict, otherwise
a passing case that carries its message in system-out.

A test case is named by the rule and the JSON path (`LB601 score-divergence
at $.reported.gpqa`), never the line: CI systems track a test by its name
across runs, and lines move when a file is edited above. The output is
valid against the JUnit schema pytest's own output is tested against
(junit-10.xsd), which has no attribute for a line: the failure's text
starts with `file:line:column`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO
from xml.etree import ElementTree as ET

from ..findings import ERROR, Finding
from ..io.safe_text import one_line
from .text_style import ReportOptions

if TYPE_CHECKING:
    from ..findings import Findings


def junit_tree(
    findings: list[Finding], files: Iterable[str], options: ReportOptions
) -> ET.ElementTree:
    by_file: dict[str, list[Finding]] = {path: [] for path in files}
    for finding in findings:
        by_file.setdefault(finding.file, []).append(finding)
    suites = ET.Element("testsuites", name="lbnorm")
    total = failed = 0
    for path in sorted(by_file):
        suite = ET.SubElement(suites, "testsuite", name=_text(path))
        names: dict[str, int] = {}
        cases = [_case(suite, path, f, options.strict, names) for f in by_file[path]] or [
            _passing(suite, path)
        ]
        failures = sum(cases)
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        total, failed = total + len(cases), failed + failures
    suites.set("tests", str(total))
    suites.set("failures", str(failed))
    suites.set("errors", "0")
    return ET.ElementTree(suites)


def report_junit(
    result: Findings, out: TextIO, options: ReportOptions, files: Iterable[str] = ()
) -> None:
    files = files or [f.path for f in getattr(result, "files", [])]
    tree = junit_tree(result.findings, files, options)
    ET.indent(tree)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = tree.getroot()
    assert root is not None  # junit_tree builds its tree on a <testsuites> root
    out.write(ET.tostring(root, encoding="unicode") + "\n")


def _case(
    suite: ET.Element, path: str, finding: Finding, strict: bool, names: dict[str, int]
) -> bool:
    """One finding as a test case; True when it fails."""
    where = f"{finding.line}:{finding.column}" if finding.line else "-"
    name = f"{finding.rule} {finding.name}"
    if finding.json_path:
        name += f" at {finding.json_path}"
    names[name] = names.get(name, 0) + 1
    if names[name] > 1:  # the same rule twice at one place: numbered in the order found
        name += f" ({names[name]})"
    case = ET.SubElement(suite, "testcase", classname=_text(path), name=_text(name))
    message = _text(
        one_line(finding.message, 2000)
        + (f" (at {finding.json_path})" if finding.json_path else "")
    )
    if finding.severity == ERROR or strict:
        failure = ET.SubElement(case, "failure", message=message, type=finding.severity)
        failure.text = f"{_text(path)}:{where}: {finding.rule} {message}"
        return True
    ET.SubElement(case, "system-out").text = f"warning: {message}"
    return False


def _passing(suite: ET.Element, path: str) -> bool:
    ET.SubElement(suite, "testcase", classname=_text(path), name="lbnorm")
    return False


def _text(value: str) -> str:
    """XML 1.0 cannot carry control characters or lone surrogates; one_line escapes them (and `##[`)."""
    return one_line(value, 2000)
