"""GitHub Actions formats: annotations, the job summary, step outputs.

Pure formatting of a CheckResult; `validator/action/` decides where things go.
Escaping follows the runner (docs/reference/workflow-commands.md):
message data escapes % CR LF; property values also escape : and ,. The
runner has no escape for `#`, yet reads `##[cmd]` anywhere in a line, so
`##[` from a pull request is broken up as in safe_text.
"""

from __future__ import annotations

import math
import os
from typing import TypeGuard

from ..check.checker import CheckResult, FileReport
from ..findings import ERROR, WARNING, Finding
from ..io.safe_text import annotation_data, annotation_property
from ..io.safe_text import markdown_cell as _md

ANNOTATIONS_PER_SEVERITY = 10  # what GitHub shows per step, per severity
SUMMARY_LIMIT = 1024 * 1024  # GitHub refuses a step summary over 1 MiB
SUMMARY_BUDGET = SUMMARY_LIMIT - 16 * 1024  # room for the truncation note and totals
# Which findings are most worth one of the few annotations: unreadable files
# first (nothing else can be judged), then wrong numbers, then the rest.
FAMILY_PRIORITY = {"1": 0, "2": 1, "6": 2, "3": 3, "5": 4, "4": 5}
DIVERGENCE_RULES = {"LB601": "fail", "LB602": "fail", "LB606": "fail", "LB607": "warn"}
# An annotation is a small box on the diff: the numbers fit, a formula with 24 choice
# counts does not. The whole message stays in the job summary and the JSON report.
ANNOTATION_CHARS = 300


def escape_data(text: str) -> str:
    """A message: safe_text.annotation_data (a file name that is not UTF-8 carries surrogates: shown as \\udcff)."""
    return annotation_data(text)


def escape_property(text: str) -> str:
    """file= and title=: safe_text.annotation_property."""
    return annotation_property(text)


# --- annotations ------------------------------------------------------------------------


def annotation_lines(result: CheckResult, details: str) -> list[str]:
    """At most 10 per severity: the 9 most important, then one saying how many more and where."""
    lines: list[str] = []
    for severity in (ERROR, WARNING):
        findings = sorted((f for f in result.findings if f.severity == severity), key=_importance)
        shown = (
            findings
            if len(findings) <= ANNOTATIONS_PER_SEVERITY
            else findings[: ANNOTATIONS_PER_SEVERITY - 1]
        )
        lines.extend(annotation(f, details) for f in shown)
        hidden = len(findings) - len(shown)
        if hidden:
            lines.append(
                f"::{severity} title={escape_property('lbnorm: more findings')}::"
                + escape_data(
                    f"{hidden} more {severity}s are not annotated (GitHub shows "
                    f"{ANNOTATIONS_PER_SEVERITY} per step); {details}"
                )
            )
    return lines


def annotation(finding: Finding, details: str = "see the job summary") -> str:
    """One annotation; `details` says where the complete message is (the summary, the report)."""
    props = []
    if finding.rule not in ("LB100", "LB107"):  # their "file" is the globs, not a file
        props.append(f"file={escape_property(finding.file)}")
    if finding.line:
        props.append(f"line={finding.line}")
        if finding.column:
            props.append(f"col={finding.column}")
    props.append(f"title={escape_property(f'{finding.rule} {finding.name}')}")
    return f"::{finding.severity} {','.join(props)}::{escape_data(short_message(finding, details))}"


def short_message(finding: Finding, details: str) -> str:
    """At most ANNOTATION_CHARS: a divergence keeps its numbers (reported, recomputed, |diff|,
    tolerance: the first clause) and points to the formula; any other long message is cut."""
    if finding.rule in DIVERGENCE_RULES:
        return _fit(finding.message.split("; ", 1)[0], f"; formula and details: {details}")
    if len(finding.message) <= ANNOTATION_CHARS:
        return finding.message
    return _fit(finding.message, f" (cut; the whole message: {details})")


def _fit(head: str, tail: str) -> str:
    if (
        len(tail) > ANNOTATION_CHARS // 2
    ):  # a long report path from the workflow: point to the summary only
        tail = (
            tail[: tail.index(":") + 1]
            + " see the job summary"
            + (")" if tail.endswith(")") else "")
        )
    room = ANNOTATION_CHARS - len(tail)
    return (head if len(head) <= room else head[: room - 1] + "…") + tail


def _importance(finding: Finding) -> tuple:
    return (FAMILY_PRIORITY.get(finding.rule[2], 9), finding.sort_key())


# --- job summary --------------------------------------------------------------------------


def summary_markdown(result: CheckResult, strict: bool, tolerance: float) -> str:
    errors, warnings = result.count(ERROR), result.count(WARNING)
    verdict = "passed" if result.ok(strict) else "failed"
    icon = "✅" if verdict == "passed" else "❌"
    parts = [
        f"## {icon} lbnorm {verdict}: {result.files_checked()} file(s), {errors} error(s), {warnings} warning(s)\n",
        f"Tolerance {tolerance:g} normalized points"
        + (", warnings fail (strict)" if strict else "")
        + ".\n",
    ]
    size = sum(len(p.encode()) for p in parts)
    omitted = 0
    for block in [_file_block(f, result) for f in result.files] + [
        _findings_block(result.findings)
    ]:
        block_size = len(block.encode())
        if size + block_size > SUMMARY_BUDGET:
            omitted += 1
            continue
        parts.append(block)
        size += block_size
    if omitted:
        parts.append(
            f"\n> **Truncated:** {omitted} section(s) did not fit in GitHub's 1 MiB summary limit; "
            "the complete findings are in the step log and the JSON report.\n"
        )
    return "".join(parts)


def _file_block(report: FileReport, result: CheckResult) -> str:
    title = (
        f"\n### {_md(report.path)}"
        + (f" ({_md(report.profile)})" if report.profile else "")
        + "\n\n"
    )
    notes = "".join(f"> {_md(note)}\n\n" for note in report.notes)
    if not report.recomputed and not report.reported:
        return title + notes + "No score could be recomputed; see the findings.\n"
    status = _statuses(report, result)
    rows = ["| benchmark | reported | recomputed | Δ | status |", "|---|---:|---:|---:|---|"]
    for key in list(report.recomputed) + [k for k in report.reported if k not in report.recomputed]:
        reported, recomputed = report.reported.get(key), report.recomputed.get(key)
        delta = f"{reported - recomputed:+.4f}" if _num(reported) and _num(recomputed) else ""
        rows.append(
            f"| {_md(key)} | {_fmt(reported, 2)} | {_fmt(recomputed, 4)} | {delta} | "
            f"{status.get(key, '✅' if delta else '–')} |"
        )
    return title + notes + "\n".join(rows) + "\n" + _audit_block(report)


def _audit_block(report: FileReport) -> str:
    """The sample logs a submission listed: what the audit re-derived (findings are listed below)."""
    if not report.audit:
        return ""
    rows = [
        "\n| sample log task | samples | hashes | aggregates | DROP F1 as scored / split at \\n |",
        "|---|---:|---|---|---|",
    ]
    for task in report.audit:
        checked = [m for m in task.metrics if m.note is None]
        drop = task.drop.as_dict() if task.drop else None
        drop_cell = f"{_fmt(drop['f1_recomputed'], 4)} / {_fmt(drop['f1_nl'], 4)}" if drop else "–"
        rows.append(
            f"| {_md(task.task)} | {task.samples:,} | {task.hashes_checked - task.hash_mismatches:,}"
            f"/{task.hashes_checked:,} ok, task hash {_md(task.task_hash)} | {len(checked)} recomputed | "
            f"{drop_cell} |"
        )
    return "\n".join(rows) + "\n"


def _statuses(report: FileReport, result: CheckResult) -> dict[str, str]:
    marks = {}
    for finding in result.findings:
        outcome = DIVERGENCE_RULES.get(finding.rule)
        if finding.file == report.path and outcome and finding.json_path:
            key = finding.json_path.rsplit(".", 1)[-1]
            marks[key] = "❌ diverges" if outcome == "fail" else "⚠️ older scorer"
    return marks


def _findings_block(findings: list[Finding]) -> str:
    if not findings:
        return "\n### Findings\n\nNone.\n"
    rows = ["\n### Findings\n", "| where | severity | rule | message |", "|---|---|---|---|"]
    size = 0
    for index, finding in enumerate(findings):
        where = f"{finding.file}:{finding.line}" if finding.line else finding.file
        # the annotation sends readers here for the formula: a finding's details follow its message
        details = f"<br>{_md(finding.details, 1500)}" if finding.details else ""
        row = (
            f"| {_md(where)} | {finding.severity} | {finding.rule} {finding.name} | "
            f"{_md(finding.message, 1000)}{details} |"
        )
        size += len(row.encode()) + 1
        if size > SUMMARY_BUDGET // 2:
            rows.append(
                f"\n> **Truncated:** {len(findings) - index} more finding(s); see the step log "
                "and the JSON report."
            )
            break
        rows.append(row)
    return "\n".join(rows) + "\n"


def _num(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _fmt(value: object, decimals: int) -> str:
    return f"{value:.{decimals}f}" if _num(value) else "–"


# --- step outputs -------------------------------------------------------------------------


def failure_annotation(
    title: str, message: str, file: str | None = None, line: int | None = None
) -> str:
    """The one ::error of a run that could not start (or broke), on the file to blame when there is one."""
    props = [f"title={escape_property(title)}"]
    if file:
        props.append(f"file={escape_property(file)}")
        if line:
            props.append(f"line={line}")
    return f"::error {','.join(props)}::{escape_data(message)}"


def failure_summary(title: str, message: str, code: int) -> str:
    """The job summary of a run that could not start or broke: the error in one line, and that nothing passed."""
    heading = title.removeprefix("lbnorm ")
    heading += "" if heading.endswith("error") else " error"
    return (
        f"## ❌ lbnorm failed: {_md(heading)} (exit {code})\n\n"
        f"{_md(message)}\n\n"
        "No file was judged, so nothing passed; fix the cause above and run again.\n"
    )


def failure_outputs() -> dict[str, str]:
    """Step outputs of such a run: the failure is counted, never errors=0 beside passed=false."""
    return {"passed": "false", "files_checked": "0", "errors": "1", "warnings": "0", "report": ""}


def output_block(outputs: dict[str, str]) -> str:
    """The $GITHUB_OUTPUT format; multi-line values use a heredoc with a random delimiter."""
    text = []
    for name, value in outputs.items():
        if "\n" in value or "\r" in value:
            # os.urandom is what secrets.token_hex reads; secrets would load hmac and OpenSSL at start-up.
            delimiter = f"ghadelimiter_{os.urandom(16).hex()}"
            while delimiter in value:
                delimiter = f"ghadelimiter_{os.urandom(16).hex()}"
            text.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            text.append(f"{name}={value}\n")
    return "".join(text)
