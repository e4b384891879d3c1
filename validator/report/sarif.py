"""SARIF 2.1.0 for code scanning: every finding on the pull request's diff, past GitHub's 10 annotations.

One run, tool `lbnorm` with every rule (id, name, documentation, default
level); each result has its rule, level, message, a location (the file
relative to the workspace, its line and column) and a partial fingerprint
that stays the same while the finding does: the rule, the file and the
JSON path, not the line (lines move when a file is edited above).
tests/unit/test_output_formats.py validates the output against the OASIS schema.
"""

from __future__ import annotations

import hashlib
import json
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


def sarif_log(findings: Iterable[Finding], options: ReportOptions) -> dict:
    rules = all_rules()
    index = {r.id: i for i, r in enumerate(rules)}
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
        "results": [_result(f, index[f.rule], options) for f in findings],
    }
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


def _result(finding: Finding, rule_index: int, options: ReportOptions) -> dict:
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
    if finding.rule not in NOT_A_FILE:
        location: dict = {"artifactLocation": {"uri": _uri(finding.file)}}
        if options.root:
            location["artifactLocation"]["uriBaseId"] = "SRCROOT"
        if finding.line:
            location["region"] = {
                "startLine": finding.line,
                "startColumn": max(1, finding.column or 1),
            }
        result["locations"] = [{"physicalLocation": location}]
    if finding.json_path:
        result["properties"] = {"jsonPath": finding.json_path}
    return result


def _uri(path: str) -> str:
    """A relative URI reference: forward slashes, every unsafe character percent-encoded."""
    return quote(
        path.encode("utf-8", "backslashreplace").decode("utf-8").replace("\\", "/"), safe="/"
    )


def _camel(name: str) -> str:
    """SARIF rule names are identifiers in PascalCase (score-divergence -> ScoreDivergence)."""
    return "".join(part.capitalize() for part in name.split("-"))
