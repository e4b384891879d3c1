"""LB104, LB105: numbers in the files themselves (the other LB1xx rules are in findings/input_rules.py)."""

from __future__ import annotations

from collections.abc import Iterator

from ...core.results import STDERR_MARKER
from ...findings import ERROR, WARNING
from ...findings.registry import rule
from ...io.documents import non_finite_paths
from ..context import CheckContext, Hit


@rule("LB104", "non-finite-number", ERROR)
def non_finite_number(ctx: CheckContext) -> Iterator[Hit]:
    """A metric or reported score is NaN or Infinity.

    lm-eval writes bare `NaN`/`Infinity` tokens; a headline metric that is not
    finite means the run is broken (the v1 leaderboard silently scored a NaN
    TruthfulQA as 0). Non-finite standard errors are only a warning (LB105).
    """
    for doc, path in _non_finite(ctx):
        if not any(STDERR_MARKER in str(part) for part in path):
            yield Hit(
                doc, path, f"{path[-1]} is {_value_at(doc, path)}; a score must be a finite number"
            )


@rule("LB105", "non-finite-stderr", WARNING)
def non_finite_stderr(ctx: CheckContext) -> Iterator[Hit]:
    """A standard error is NaN or Infinity.

    Harmless for the score, but it usually means a task had too few samples
    or bootstrapping failed; worth a look.
    """
    for doc, path in _non_finite(ctx):
        if any(STDERR_MARKER in str(part) for part in path):
            yield Hit(doc, path, f"{path[-1]} is {_value_at(doc, path)}")


def _non_finite(ctx: CheckContext):
    if ctx.results_doc is not None:
        results = ctx.results_object()
        for section in ("results", "groups"):
            for path in non_finite_paths(results.get(section), (section,)):
                yield ctx.results_doc, ctx.results_root + path
    if ctx.submission is not None:
        for path in non_finite_paths(ctx.reported(), ("reported",)):
            yield ctx.submission, path


def _value_at(doc, path) -> str:
    value = doc.data
    for part in path:
        value = value[part]
    return str(value)
