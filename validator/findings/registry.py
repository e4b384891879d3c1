"""The rule registry: every finding names a rule with a stable id, a name, a severity and a docstring.

A rule module registers its rules with @rule; the docstring is the rule's
documentation (`lbnorm rules` prints it). Rules reported by a reader or an
analysis rather than by a check function are registered with runs=False.
"""

import inspect
import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from ..io.safe_text import one_line
from .model import Finding


class Rule(NamedTuple):
    """A rule as registered: its stable id and name, its severity, its check (None for one a checker reports)
    and its docstring, which is its documentation."""

    id: str
    name: str
    severity: str
    check: Callable[[Any], Iterable[Any]] | None
    doc: str

    @property
    def summary(self) -> str:
        return self.doc.splitlines()[0] if self.doc else ""


RULES: dict[str, Rule] = {}
# A finding is one line of a log: long enough for any honest message, short enough that a
# submitted value echoed in it (a list of 4,000 paths) keeps the line readable.
MAX_MESSAGE_CHARS = 1500


def rule(rule_id: str, name: str, severity: str, runs: bool = True):
    """Register a rule; `runs=False` documents a rule that a reader or an analysis reports itself."""

    def register(func: Callable) -> Callable:
        if rule_id in RULES:
            raise ValueError(f"rule id {rule_id} registered twice")
        RULES[rule_id] = Rule(
            rule_id, name, severity, func if runs else None, inspect.getdoc(func) or ""
        )
        return func

    return register


def registered_rules() -> list[Rule]:
    """The rules registered so far, by id (the analyses register theirs when imported)."""
    return sorted(RULES.values(), key=lambda r: r.id)


def make_finding(
    rule_id: str,
    file: str,
    message: str,
    json_path: str | None = None,
    line: int | None = None,
    column: int | None = None,
) -> Finding:
    """A Finding of a registered rule; the message is made one line, whoever prints it."""
    rule_ = RULES[
        rule_id
    ]  # a KeyError here is a programming error: the rule's module was not imported
    short, details = split_message(one_line(message, MAX_MESSAGE_CHARS))
    return Finding(
        rule=rule_id,
        name=rule_.name,
        severity=rule_.severity,
        file=file,
        message=short,
        json_path=json_path,
        line=line,
        column=column,
        details=details,
    )


# A finding's message is read in a glance: what is wrong and the fix. Anything longer (a formula, a list of
# subtasks, the reasons behind a rule) goes to the finding's details, which the JSON report and SARIF carry.
SHORT_MESSAGE_CHARS = 200


_PATH = r"\S*/(\S+)"  # compiled by re for the first message measured


def read_length(text: str) -> int:
    """Characters a reader reads: a path counts as its last part (the folders are where, not what)."""
    return len(re.sub(_PATH, lambda m: m[1].rsplit("/", 1)[-1], text))


def split_message(message: str) -> tuple[str, str | None]:
    """(the short line, the rest or None). Clauses are kept whole: the first (what is wrong), the last (the
    fix) when both fit, else the first alone; a first clause too long is cut at a word."""
    if read_length(message) <= SHORT_MESSAGE_CHARS:
        return message, None
    clauses = message.split("; ")
    first, last = clauses[0], clauses[-1]
    if len(clauses) > 2 and len(first) + 2 + len(last) <= SHORT_MESSAGE_CHARS:
        return f"{first}; {last}", "; ".join(clauses[1:-1])
    if len(clauses) > 1 and len(first) <= SHORT_MESSAGE_CHARS:
        return first, "; ".join(clauses[1:])
    more = " (more in the details)"
    for separator in (": ", ". ", ", ", " "):
        cut = first.rfind(separator, 40, SHORT_MESSAGE_CHARS - len(more))
        if cut > 0:
            return first[:cut].rstrip(",.:") + more, message  # the details: all of it
    return message[: SHORT_MESSAGE_CHARS - 1] + "…", message
