"""The pull request comment: a check report rendered as one sticky Markdown comment.

The comment is posted by a workflow with a write token from a report that a
pull request's run produced, so every byte of the report is untrusted: the
report must pass schemas/report.schema.json; every string from it goes through
markdown_cell (no HTML, no links, images, table breaks or mentions) and is
shortened; issue references (#12, GH-12) and commit-like hex strings are broken
up too; and the whole body stays under GitHub's 65,536 characters. The only
link is the run's, which the workflow gives, never the report.

The verdict fails closed: the comment says passed only when the report says
ok, lists no error and the run that made it succeeded.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..io.safe_text import markdown_cell

MARKER = "<!-- lbnorm-verdict -->"
COMMENT_LIMIT = 65_536  # characters GitHub accepts in a comment body
BUDGET = 60_000  # what the tables may use, leaving room for the head and the truncation notes
RUN_URL = re.compile(
    r"https://[A-Za-z0-9.-]+(?::[0-9]+)?/[\w.-]+/[\w.-]+/actions/runs/[0-9]+(?:/attempts/[0-9]+)?"
)
# GitHub links #12 and GH-12 to issues, and 7 to 40 hex digits to commits.
_ISSUE = re.compile(r"(?i)(#|gh-)(?=[0-9])")
_HEX = re.compile(r"\b[0-9a-fA-F]{7,}\b")


def comment_markdown(report: dict[str, Any], run_url: str | None, conclusion: str | None) -> str:
    """The comment for a report that passed its schema."""
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    warnings = [f for f in report["findings"] if f["severity"] != "error"]
    passed = report["ok"] is True and not errors and conclusion in (None, "success")
    head = [
        MARKER,
        f"## {'✅ lbnorm passed' if passed else '❌ lbnorm failed'}",
        "",
        f"{report['files_checked']} file(s) checked, {len(errors)} error(s), "
        f"{len(warnings)} warning(s); lbnorm {_cell(report['lbnorm_version'], 40)}."
        + (f" [The run]({run_url}) has the details." if run_url else ""),
    ]
    if conclusion not in (None, "success"):
        head.append(f"\nThe run that made the report ended in `{_cell(conclusion, 20)}`.")
    if report["ok"] is True and errors:
        head.append("\nThe report says ok but lists errors: it is not taken as a pass.")
    blocks = [_scores_block(report["scores"]), _findings_block(errors, "Failing findings")]
    if warnings:
        blocks.append(_findings_block(warnings, "Warnings"))
    body = "\n".join(head) + "\n"
    for block in blocks:
        if len(body) + len(block) > BUDGET:
            block = _cut(block, BUDGET - len(body))
        body += block
    return body[:COMMENT_LIMIT]


def unreadable_comment(reason: str, run_url: str | None) -> str:
    """The comment when the artifact is no report lbnorm wrote: no verdict can be read from it."""
    return (
        f"{MARKER}\n## ❌ lbnorm: no verdict\n\nThe report of the run is not a valid lbnorm report "
        f"({_cell(reason, 300)}), so nothing in it is shown."
        + (f" [The run]({run_url}) has the details." if run_url else "")
        + "\n"
    )


def safe_run_url(url: str | None) -> str | None:
    """The run's address if it is one (https, .../OWNER/REPO/actions/runs/ID), else None."""
    return url if url and RUN_URL.fullmatch(url) else None


def _scores_block(scores: dict[str, Any]) -> str:
    rows = [
        "\n### Reported and recomputed scores\n",
        "| file | benchmark | reported | recomputed | Δ |",
    ]
    rows.append("|---|---|---:|---:|---:|")
    for path, pair in scores.items():
        reported, recomputed = pair["reported"], pair["recomputed"]
        for key in list(recomputed) + [k for k in reported if k not in recomputed]:
            mine, theirs = reported.get(key), recomputed.get(key)
            delta = f"{mine - theirs:+.4f}" if _num(mine) and _num(theirs) else "–"
            rows.append(
                f"| {_cell(path)} | {_cell(key, 80)} | {_fmt(mine, 2)} | {_fmt(theirs, 4)} | {delta} |"
            )
    if len(rows) == 3:
        rows.append("| – | no score could be recomputed | | | |")
    return "\n".join(rows) + "\n"


def _findings_block(findings: list[dict[str, Any]], title: str) -> str:
    if not findings:
        return f"\n### {title}\n\nNone.\n"
    rows = [f"\n### {title}\n", "| where | rule | message |", "|---|---|---|"]
    for finding in findings:
        where = finding["file"] + (f":{finding['line']}" if finding["line"] else "")
        rows.append(
            f"| {_cell(where)} | {_cell(finding['rule'], 10)} {_cell(finding['name'], 60)} | "
            f"{_cell(finding['message'], 400)} |"
        )
    return "\n".join(rows) + "\n"


def _cut(block: str, room: int) -> str:
    """Whole rows of the block that fit in `room` characters, then a note of how many were left out."""
    lines = block.splitlines(keepends=True)
    kept, size = [], 0
    for line in lines:
        if size + len(line) > room - 200:
            break
        kept.append(line)
        size += len(line)
    left_out = len(lines) - len(kept)
    return "".join(kept) + (
        f"\n> {left_out} more row(s) left out: a comment holds {COMMENT_LIMIT:,} characters; "
        "the run's report has them all.\n"
    )


def _cell(value: Any, limit: int = 200) -> str:
    """markdown_cell, and no issue or commit reference: a zero-width space after # and GH-, and
    within every run of hex digits after each sixth."""
    text = _ISSUE.sub(lambda m: m[0] + "\u200b", markdown_cell(value, limit))
    return _HEX.sub(lambda m: "\u200b".join(re.findall(".{1,6}", m[0])), text)


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _fmt(value: Any, decimals: int) -> str:
    return f"{value:.{decimals}f}" if _num(value) else "–"
