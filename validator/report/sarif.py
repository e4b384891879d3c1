"""SARIF 2.1.0 for code scanning: every finding on the pull request's diff, past GitHub's 10 annotations.

One run, tool `lbnorm` with every rule (id, name, documentation, default
level); each result has its rule, level, message, a location (the file
relative to the workspace, its line and column) and a partial fingerprint
that stays the same while the finding does: the rule, the file and the
JSON path, not the line (lines move when a file is edited above).

Code scanning drops a result without a location with a region, so every
result has one: a finding of a whole file points at its line 1, and one
that names no file (a glob that matched nothing, too many files) points at
the workflow that named the glob (GITHUB_WORKFLOW_REF), at the line that
holds it, else line 1. Code scanning shows 5,000 results of a run and
refuses more than 25,000: past MAX_RESULTS the errors are listed first and
a notification of the run says how many were left out.
tests/unit/test_output_formats.py validates the output against the OASIS schema.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO
from urllib.parse import quote

from ..check.rules import all_rules
from ..core.version import __version__, semantic_version
from ..findings import ERROR, Finding, Rule
from ..io.safe_text import neutralize_json, one_line
from .text_style import ReportOptions

if TYPE_CHECKING:
    from ..findings import Findings

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
NOT_A_FILE = ("LB100", "LB107")  # their "file" is the command line's globs
MAX_RESULTS = 5_000  # what code scanning shows of one run
WORKFLOW_REF = re.compile(r"[^/]+/[^/]+/(\.github/workflows/[^@/]+\.ya?ml)@.*")
WORKFLOW_BYTES = 1 << 20  # the part of a workflow searched for a glob


def sarif_log(findings: Iterable[Finding], options: ReportOptions) -> dict:
    rules = all_rules()
    index = {r.id: i for i, r in enumerate(rules)}
    findings = list(findings)
    listed = findings
    if len(findings) > MAX_RESULTS:
        listed = [f for f in findings if f.severity == ERROR]
        listed = (listed + [f for f in findings if f.severity != ERROR])[:MAX_RESULTS]
    workflow = _workflow(options)
    run: dict = {
        "tool": {
            "driver": {
                "name": "lbnorm",
                "version": __version__,
                "semanticVersion": semantic_version(__version__),
                "rules": [_rule(r) for r in rules],
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, index[f.rule], options, workflow) for f in listed],
    }
    if len(listed) < len(findings):
        left_out = len(findings) - len(listed)
        note = (
            f"{left_out} more finding(s) are not listed: code scanning shows {MAX_RESULTS} "
            "results of a run. `--output-format json` or text lists them all."
        )
        run["invocations"] = [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [{"level": "warning", "message": {"text": note}}],
            }
        ]
    if options.root:
        run["originalUriBaseIds"] = {
            "SRCROOT": {"uri": Path(options.root).resolve().as_uri() + "/"}
        }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def report_sarif(result: Findings, out: TextIO, options: ReportOptions) -> None:
    out.write(
        neutralize_json(
            json.dumps(sarif_log(result.findings, options), indent=2, ensure_ascii=True)
        )
        + "\n"
    )


def fingerprint(finding: Finding) -> str:
    key = "\x1f".join((finding.rule, finding.file, finding.json_path or ""))
    return hashlib.sha256(key.encode("utf-8", "backslashreplace")).hexdigest()


def _rule(rule: Rule) -> dict:
    return {
        "id": rule.id,
        "name": _camel(rule.name),
        "shortDescription": {"text": rule.summary or rule.name},
        "fullDescription": {"text": " ".join(rule.doc.split()) or rule.name},
        "help": {"text": rule.doc or rule.name, "markdown": rule.doc or rule.name},
        "defaultConfiguration": {"level": "error" if rule.severity == ERROR else "warning"},
        "properties": {"tags": [rule.name]},
    }


def _workflow(options: ReportOptions) -> tuple[str, str] | None:
    """(path, text) of the workflow running this command, which names its globs; None outside Actions."""
    match = WORKFLOW_REF.fullmatch(os.environ.get("GITHUB_WORKFLOW_REF", ""))
    if not match:
        return None
    path = match[1]
    try:
        with open(Path(options.root or ".") / path, "rb") as handle:
            text = handle.read(WORKFLOW_BYTES).decode("utf-8", "replace")
    except OSError:
        text = ""
    return path, text


def _location(finding: Finding, options: ReportOptions, workflow: tuple[str, str] | None) -> dict:
    """A physical location with a region; one that names no file points at the workflow that named it."""
    path, line, column = finding.file, finding.line or 1, finding.column or 1
    if finding.rule in NOT_A_FILE:
        line, column = 1, 1
        if workflow:
            path, text = workflow
            lines = text.splitlines()
            line = next((n for n, row in enumerate(lines, 1) if finding.file in row), 1)
    location: dict = {"artifactLocation": {"uri": _uri(path)}}
    if options.root:
        location["artifactLocation"]["uriBaseId"] = "SRCROOT"
    location["region"] = {"startLine": line, "startColumn": max(1, column)}
    return {"physicalLocation": location}


def _result(
    finding: Finding, rule_index: int, options: ReportOptions, workflow: tuple[str, str] | None
) -> dict:
    level = "error" if finding.severity == ERROR else "warning"
    message = one_line(finding.message, 2000)
    if finding.json_path and finding.json_path != "$":
        message += f" (at {finding.json_path})"
    result: dict = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": level,
        "message": {"text": message},
        "partialFingerprints": {"lbnormFinding/v1": fingerprint(finding)},
    }
    result["locations"] = [_location(finding, options, workflow)]
    if finding.json_path:
        result["properties"] = {"jsonPath": finding.json_path}
    if finding.details:  # the rest of a long message; the rule's help text explains the rule
        result.setdefault("properties", {})["details"] = one_line(finding.details, 4000)
    return result


def _uri(path: str) -> str:
    """A relative URI reference: forward slashes, every unsafe character percent-encoded."""
    return quote(
        path.encode("utf-8", "backslashreplace").decode("utf-8").replace("\\", "/"), safe="/"
    )


def _camel(name: str) -> str:
    """SARIF rule names are identifiers in PascalCase (score-divergence -> ScoreDivergence)."""
    return "".join(part.capitalize() for part in name.split("-"))
