"""A finding: one rule broken at one place of one file."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ERROR = "error"
WARNING = "warning"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1}
# A hostile file can hold a million NaNs; past this many findings of one rule
# in one file, a single finding says how many more there are.
MAX_FINDINGS_PER_RULE = 50

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Finding:
    rule: str
    name: str
    severity: str
    file: str
    message: str
    json_path: str | None = None
    line: int | None = None
    column: int | None = None

    def sort_key(self) -> tuple:
        """File, line, column, rule, then the rest: a total order, so reports diff cleanly run to run."""
        return (
            self.file,
            self.line or 0,
            self.column or 0,
            self.rule,
            SEVERITY_ORDER[self.severity],
            self.json_path or "",
            self.message,
        )

    def as_dict(self) -> dict:
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "json_path": self.json_path,
            "message": self.message,
        }


def format_json_path(path: tuple) -> str:
    """('results', 'acc_norm,none', 0) -> $.results['acc_norm,none'][0]"""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.match(part):
            out += f".{part}"
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out += f"['{escaped}']"
    return out


@dataclass
class Findings:
    """Findings of a run, at most MAX_FINDINGS_PER_RULE per (file, rule); the rest are counted."""

    findings: list[Finding] = field(default_factory=list)
    overflow: dict[tuple[str, str], int] = field(default_factory=dict)  # (file, rule) -> not kept
    shown: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)

    def has_room(self, file: str, rule_id: str) -> bool:
        """Count one more finding of `rule_id` in `file`; False once past the cap (it is only counted)."""
        key = (file, rule_id)
        self.shown[key] = self.shown.get(key, 0) + 1
        if self.shown[key] > MAX_FINDINGS_PER_RULE:
            self.overflow[key] = self.overflow.get(key, 0) + 1
            return False
        return True

    def merge(self, other: Findings) -> None:
        self.findings.extend(other.findings)
        for key, count in other.overflow.items():
            self.overflow[key] = self.overflow.get(key, 0) + count

    def close(self) -> None:
        """Say how many findings each cap left out, drop repeats, and sort."""
        from .registry import make_finding

        for (file, rule_id), count in self.overflow.items():
            self.findings.append(
                make_finding(
                    rule_id,
                    file,
                    f"{count:,} more {rule_id} findings in this file are "
                    "not listed; fix the ones above and run again",
                )
            )
        self.overflow = {}
        self.findings = sorted(set(self.findings), key=Finding.sort_key)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def ok(self, strict: bool = False) -> bool:
        return not self.findings if strict else self.count(ERROR) == 0
