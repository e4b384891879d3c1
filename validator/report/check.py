"""Reporters for `check`. A reporter only formats a CheckResult; it decides nothing.

JSON contract (stable; keys are only ever added), schemas/report.schema.json:
    {"ok": bool, "files_checked": int,
     "findings": [{"rule", "name", "severity", "file", "line", "column", "json_path", "message"}],
     "scores": {file: {"reported": {id: float}, "recomputed": {id: float}}},
     "notes": [{"file": str, "message": str}],
     "audits": {file: {task: the task entry of `audit`'s JSON report}},  # listed `samples`, logs beside results
     "suppressed_findings": int,  # consequences of a root cause, not listed (see check/root_causes.py)
     "lbnorm_version": str}
"""

from __future__ import annotations

import math
from typing import TextIO

from ..check.checker import CheckResult, FileReport
from ..core.version import __version__
from ..findings import ERROR, WARNING
from ..io.safe_text import one_line
from . import json_report
from .audit import task_text
from .formats import Reporter, reporters
from .text_style import Painter, ReportOptions, finding_line, use_color  # noqa: F401  (re-exported for the CLI)


def report_json(result: CheckResult, out: TextIO, options: ReportOptions) -> None:
    doc = {
        "ok": result.ok(options.strict),
        "files_checked": result.files_checked(),
        "findings": [f.as_dict() for f in result.findings],
        "scores": {
            f.path: {"reported": _finite(f.reported), "recomputed": _finite(f.recomputed)}
            for f in result.files
        },
        "notes": [{"file": f.path, "message": note} for f in result.files for note in f.notes],
        "audits": {
            f.path: {task.task: task.as_dict() for task in f.audit} for f in result.files if f.audit
        },
        "suppressed_findings": result.suppressed,
        "lbnorm_version": __version__,
    }
    json_report.write_report(doc, out)


def _finite(scores: dict[str, float]) -> dict[str, float | None]:
    return {k: (v if math.isfinite(v) else None) for k, v in scores.items()}


def report_text(result: CheckResult, out: TextIO, options: ReportOptions) -> None:
    paint = Painter(options.color)
    shown = [f for f in result.findings if options.verbosity >= 0 or f.severity == ERROR]
    for finding in shown:
        out.write(finding_line(finding, paint))
    if options.verbosity > 0:
        for report in sorted(result.files, key=lambda f: f.path):
            out.write(paint.bold(one_line(report.path)) + "\n")
            out.write(_score_table(report))
            out.write("".join(task_text(task) for task in report.audit))
    errors, warnings = result.count(ERROR), result.count(WARNING)
    verdict = "ok" if result.ok(options.strict) else "failed"
    suppressed = (
        f", {result.suppressed} suppressed (they follow from a root cause above)"
        if result.suppressed
        else ""
    )
    out.write(
        f"{paint.verdict(verdict)}: {result.files_checked()} file(s) checked, "
        f"{errors} error(s), {warnings} warning(s){suppressed}"
        + (" (--strict: warnings fail)" if options.strict else "")
        + "\n"
    )


def _score_table(report: FileReport) -> str:
    lines = [f"  note: {note}" for note in report.notes]
    if report.recomputed:
        lines.append(f"  {'benchmark':<12}{'reported':>10}{'recomputed':>12}{'diff':>9}")
        for key, value in report.recomputed.items():
            reported = report.reported.get(key)
            diff = f"{reported - value:+.4f}" if reported is not None else ""
            shown = f"{reported:.2f}" if reported is not None else "-"
            lines.append(f"  {key:<12}{shown:>10}{value:>12.4f}{diff:>9}")
    return "\n".join(lines) + ("\n" if lines else "")


REPORTERS: dict[str, Reporter] = reporters(report_text, report_json)
