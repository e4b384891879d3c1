"""The submission checks: one module per rule family, one function per rule.

A rule is a function `check(ctx) -> Iterable[Hit]` registered with
findings.registry.rule; its docstring is its documentation (`lbnorm rules`
prints it). Adding a rule is adding a function to the family's module (or a
new module, imported at the bottom of this file).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...findings import ERROR, WARNING, Finding, registered_rules  # noqa: F401  (re-exported for rule modules)
from ...findings.registry import Rule


@dataclass(frozen=True)
class Hit:
    """A rule's raw result: which document, where in it, and what is wrong."""

    document: Any  # io.documents.Document
    path: tuple
    message: str


def all_rules() -> list[Rule]:
    """Every rule, the check's and the sample-log audit's, by id."""
    from ...audit import rules as _audit_rules  # noqa: F401  (registration)

    return registered_rules()


# Registration: importing a family module registers its rules.
from . import files, runs, scores, submission, tasks, values  # noqa: E402, F401
