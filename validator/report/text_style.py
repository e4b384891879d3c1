"""How findings look in a terminal: one line each, colour only where it helps."""

import os
from typing import NamedTuple, TextIO

from ..findings import ERROR, WARNING, Finding
from ..io.safe_text import one_line


class ReportOptions(NamedTuple):
    """How a report is written: strictness, verbosity, colour, the workspace, and normalize's formulas."""

    strict: bool = False
    verbosity: int = 0  # -1 quiet, 0 normal, 1 verbose
    color: bool = False
    root: str | None = None  # the workspace, for formats that record it (SARIF)
    explain: bool = False  # normalize: each benchmark's formula with its numbers


def finding_line(finding: Finding, paint: "Painter") -> str:
    """`path:line:col: RULE name [severity] message (at $.json.path)`: the same line in every command, the
    location clickable in a terminal or editor; a finding about a whole file has no line and column."""
    where = one_line(finding.file) + (
        f":{finding.line}:{finding.column or 1}" if finding.line else ""
    )
    at = (
        f" (at {one_line(finding.json_path, 300)})"
        if finding.json_path and finding.json_path != "$"
        else ""
    )
    message = finding.message.removeprefix(f"{finding.file}: ")  # the path is already in front
    return (
        f"{paint.bold(where)}: {finding.rule} {finding.name} [{paint.severity(finding.severity)}] "
        f"{one_line(message, 2000)}{at}\n"
    )


class Painter:
    COLORS = {ERROR: "31", WARNING: "33", "ok": "32", "failed": "31"}

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def severity(self, severity: str) -> str:
        return self._wrap(self.COLORS[severity], severity)

    def verdict(self, verdict: str) -> str:
        return self._wrap(self.COLORS[verdict], verdict)

    def bold(self, text: str) -> str:
        return self._wrap("1", text)


COLOR_CHOICES = ("auto", "always", "never")


def use_color(stream: TextIO, mode: str = "auto") -> bool:
    """--color: always, never, or auto = only on a terminal and never when NO_COLOR is set (no-color.org)."""
    if mode != "auto":
        return mode == "always"
    return not os.environ.get("NO_COLOR") and hasattr(stream, "isatty") and stream.isatty()
