"""Findings of a run: at most MAX_FINDINGS_PER_RULE per file and rule, the rest counted in one finding."""

from __future__ import annotations

from .model import ERROR, Finding
from .registry import make_finding

# A hostile file can hold a million NaNs; past this many findings of one rule
# in one file, a single finding says how many more there are.
MAX_FINDINGS_PER_RULE = 50


class Findings:
    """Findings of a run, at most MAX_FINDINGS_PER_RULE per (file, rule); the rest are counted."""

    def __init__(self, findings: list[Finding] | None = None) -> None:
        self.findings: list[Finding] = [] if findings is None else findings
        self.overflow: dict[tuple[str, str], int] = {}  # (file, rule) -> not kept
        self.shown: dict[tuple[str, str], int] = {}

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
