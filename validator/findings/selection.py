"""Which rules run and how severe they are: --select/--ignore, --warn/--error, per-file ignores.

The semantics are ruff's: a code is a rule id (LB301) or a prefix (LB3, LB);
among the select and ignore codes that match a rule, the most specific one
decides, and on a tie ignoring wins. --warn and --error change a rule's
severity the same way (on a tie, error wins).

Fail closed: a finding that means "this file could not be judged" (no file
matched, unreadable, too large, unparsable results, a score that cannot be
recomputed) is never removed or demoted. Naming one of them exactly is a
usage error; a prefix such as LB1 simply leaves them in place.
"""

import fnmatch
import posixpath
from collections.abc import Iterable
from typing import NamedTuple, Self

from .model import ERROR, WARNING, Finding
from .registry import RULES

ALWAYS_REPORTED = frozenset(
    {
        "LB100",
        "LB101",
        "LB102",
        "LB103",
        "LB106",
        "LB107",
        "LB108",
        "LB109",
        "LB110",
        "LB112",
        "LB202",
        "LB203",
        "LB600",
        "LB701",
    }
)


class SelectionError(ValueError):
    """A code that names no rule, or that would hide a file that could not be judged."""


class RuleSelection(NamedTuple):
    """Which rules run and at which severity: --select, --ignore, --warn, --error and per-file ignores."""

    select: tuple[str, ...] = ("LB",)
    ignore: tuple[str, ...] = ()
    warn: tuple[str, ...] = ()
    error: tuple[str, ...] = ()
    per_file_ignores: tuple[
        tuple[str, tuple[str, ...]], ...
    ] = ()  # (glob on the path relative to the workspace, codes)
    shown_from: str = (
        ""  # the current directory relative to the workspace: reported paths start there
    )

    def validate(self) -> Self:
        """Raise SelectionError for a code that matches no rule, or an exact id that must always be reported."""
        for code in (
            *self.select,
            *self.ignore,
            *self.warn,
            *self.error,
            *(c for _, codes in self.per_file_ignores for c in codes),
        ):
            if not any(rule_id.startswith(code) for rule_id in RULES):
                raise SelectionError(f"{code} matches no rule; `lbnorm rules` lists them")
        for code in (
            *self.ignore,
            *self.warn,
            *(c for _, codes in self.per_file_ignores for c in codes),
        ):
            if code in ALWAYS_REPORTED:
                raise SelectionError(
                    f"{code} cannot be ignored or made a warning: a file that could not be "
                    "judged never passes"
                )
        return self

    def _in_workspace(self, file: str) -> str:
        if not self.shown_from or not file or posixpath.isabs(file):
            return file
        return posixpath.normpath(posixpath.join(self.shown_from, file))

    def enabled(self, rule_id: str, file: str = "") -> bool:
        if rule_id in ALWAYS_REPORTED:
            return True
        if any(
            _matches(self._in_workspace(file), glob) and _best(rule_id, codes) is not None
            for glob, codes in self.per_file_ignores
        ):
            return False
        chosen, ignored = _best(rule_id, self.select), _best(rule_id, self.ignore)
        if chosen is None:
            return False
        return ignored is None or len(chosen) > len(ignored)

    def severity(self, rule_id: str, default: str) -> str:
        if rule_id in ALWAYS_REPORTED:
            return default
        to_warn, to_error = _best(rule_id, self.warn), _best(rule_id, self.error)
        if to_error is not None and (to_warn is None or len(to_error) >= len(to_warn)):
            return ERROR
        return WARNING if to_warn is not None else default

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        """The findings these settings keep, with their severities changed."""
        kept = []
        for finding in findings:
            if not self.enabled(finding.rule, finding.file):
                continue
            severity = self.severity(finding.rule, finding.severity)
            kept.append(
                finding if severity == finding.severity else finding._replace(severity=severity)
            )
        return kept

    def is_default(self) -> bool:
        return self == RuleSelection()


def _best(rule_id: str, codes: Iterable[str]) -> str | None:
    """The longest code that is a prefix of rule_id."""
    matching = [code for code in codes if rule_id.startswith(code)]
    return max(matching, key=len) if matching else None


def _matches(file: str, glob: str) -> bool:
    return fnmatch.fnmatchcase(file, glob) or fnmatch.fnmatchcase(file, glob.rstrip("/") + "/*")
