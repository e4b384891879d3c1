"""The rule registry: every check has a stable id, a name, a severity and a docstring.

A rule is a function `check(ctx) -> Iterable[Hit]` registered with @rule.
Its docstring is its documentation (`python -m validator rules` prints it).
Rules raised while reading a file (syntax, duplicate keys...) have no check
function: the document loader reports them under the same ids.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..findings import ERROR, WARNING, Finding  # noqa: F401  (ERROR, WARNING re-exported for rule modules)


@dataclass(frozen=True)
class Hit:
    """A rule's raw result: which document, where in it, and what is wrong."""

    document: Any  # documents.Document
    path: tuple
    message: str


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: str
    check: Callable[[Any], Iterable[Hit]] | None
    doc: str

    @property
    def summary(self) -> str:
        return self.doc.splitlines()[0] if self.doc else ""


RULES: dict[str, Rule] = {}


def rule(rule_id: str, name: str, severity: str, runs: bool = True):
    """Register a rule; `runs=False` documents a rule the loader reports itself."""

    def register(func: Callable) -> Callable:
        if rule_id in RULES:
            raise ValueError(f"rule id {rule_id} registered twice")
        RULES[rule_id] = Rule(rule_id, name, severity, func if runs else None, inspect.getdoc(func) or "")
        return func

    return register


def all_rules() -> list[Rule]:
    from . import files, runs, samples, scores, submission, tasks, values  # noqa: F401  (registration)

    return sorted(RULES.values(), key=lambda r: r.id)


def make_finding(rule_id: str, file: str, message: str, json_path: str | None = None,
                 line: int | None = None, column: int | None = None) -> Finding:
    """A Finding of a registered rule; the message is made one line, whoever prints it."""
    from ..safe_text import one_line

    if rule_id not in RULES:
        all_rules()  # registers the rule modules once
    rule_ = RULES[rule_id]
    return Finding(rule=rule_id, name=rule_.name, severity=rule_.severity, file=file,
                   message=one_line(message, 2000), json_path=json_path, line=line, column=column)
