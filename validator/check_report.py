"""Reporters for `check`. A reporter only formats a CheckResult; it decides nothing.

JSON contract (stable; keys are only ever added):
    {"ok": bool, "files_checked": int,
     "findings": [{"rule", "name", "severity", "file", "line", "column", "json_path", "message"}],
     "scores": {file: {"reported": {id: float}, "recomputed": {id: float}}},
     "notes": [{"file": str, "message": str}], "lbnorm_version": str}
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Callable, TextIO

from . import __version__
from .checker import CheckResult, FileReport
from .findings import ERROR, WARNING, Finding
from .safe_text import neutralize_json, one_line


@dataclass(frozen=True)
class ReportOptions:
    strict: bool = False
    verbosity: int = 0  # -1 quiet, 0 normal, 1 verbose
    color: bool = False


def report_json(result: CheckResult, out: TextIO, options: ReportOptions) -> None:
    doc = {
        "ok": result.ok(options.strict),
        "files_checked": len(result.files),
        "findings": [f.as_dict() for f in result.findings],
        "scores": {f.path: {"reported": _finite(f.reported), "recomputed": _finite(f.recomputed)}
                   for f in result.files},
        "notes": [{"file": f.path, "message": note} for f in result.files for note in f.notes],
        "lbnorm_version": __version__,
    }
    out.write(neutralize_json(json.dumps(doc, indent=2, ensure_ascii=True, allow_nan=False)) + "\n")


def _finite(scores: dict[str, float]) -> dict[str, float | None]:
    return {k: (v if math.isfinite(v) else None) for k, v in scores.items()}


def report_text(result: CheckResult, out: TextIO, options: ReportOptions) -> None:
    paint = _Painter(options.color)
    shown = [f for f in result.findings if options.verbosity >= 0 or f.severity == ERROR]
    by_file: dict[str, list[Finding]] = {}
    for finding in shown:
        by_file.setdefault(finding.file, []).append(finding)
    files = {f.path: f for f in result.files}
    for path in sorted(set(by_file) | (set(files) if options.verbosity > 0 else set())):
        out.write(paint.bold(one_line(path)) + "\n")
        for finding in by_file.get(path, []):
            where = f"{finding.line}:{finding.column}" if finding.line else "-"
            severity = paint.severity(finding.severity)
            out.write(f"  {where:<8} {severity} {finding.rule} {finding.name}  {one_line(finding.message, 2000)}\n")
        if options.verbosity > 0 and path in files:
            out.write(_score_table(files[path]))
    errors, warnings = result.count(ERROR), result.count(WARNING)
    verdict = "ok" if result.ok(options.strict) else "failed"
    out.write(f"{paint.verdict(verdict)}: {len(result.files)} file(s) checked, "
              f"{errors} error(s), {warnings} warning(s)" + (" (--strict: warnings fail)" if options.strict else "") + "\n")


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


class _Painter:
    COLORS = {ERROR: "31", WARNING: "33", "ok": "32", "failed": "31"}

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def severity(self, severity: str) -> str:
        return self._wrap(self.COLORS[severity], f"{severity:<7}")

    def verdict(self, verdict: str) -> str:
        return self._wrap(self.COLORS[verdict], verdict)

    def bold(self, text: str) -> str:
        return self._wrap("1", text)


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


REPORTERS: dict[str, Callable[[CheckResult, TextIO, ReportOptions], None]] = {
    "text": report_text,
    "json": report_json,
}
