"""LB6xx: do the reported numbers match the ones recomputed from the results?"""

from __future__ import annotations

import difflib
import math
from typing import Any, Iterator

from . import ERROR, Hit, rule
from ..context import AVERAGE, REPORTED, CheckContext
from ..formulas import describe

FLOAT_SLACK = 1e-9  # so that a difference of exactly the tolerance passes despite float noise


@rule("LB600", "not-recomputable", ERROR, runs=False)
def not_recomputable(ctx):
    """A benchmark could not be recomputed and no other finding says why.

    Reported by the checker as a safety net: a number lbnorm cannot recompute
    is never treated as verified.
    """


@rule("LB601", "score-divergence", ERROR)
def score_divergence(ctx: CheckContext) -> Iterator[Hit]:
    """A reported benchmark score differs from the recomputed one by more than the tolerance.

    The message gives the reported and recomputed values, |difference|, the
    tolerance, and the formula with the choice counts used, so the submitter
    can redo it by hand. The tolerance is the maintainer's (--tolerance,
    default 0.01: published values carry two decimals).
    """
    for key, value in ctx.reported().items():
        score = ctx.scores.get(key)
        if key == AVERAGE or score is None or not _finite(value):
            continue
        if abs(value - score.score) > ctx.tolerance + FLOAT_SLACK:
            yield Hit(ctx.submission, (REPORTED, key), _divergence(key, value, score.score, ctx.tolerance)
                      + f"; {describe(score)}")


@rule("LB602", "average-divergence", ERROR)
def average_divergence(ctx: CheckContext) -> Iterator[Hit]:
    """The reported average differs from the recomputed average by more than the tolerance.

    The average is the plain mean of the benchmark scores, summed in the
    profile's order (IFEval, BBH, MATH, GPQA, MuSR, MMLU-PRO for v2), from
    unrounded scores.
    """
    value = ctx.reported().get(AVERAGE)
    if ctx.average is None or not _finite(value):
        return
    if abs(value - ctx.average) > ctx.tolerance + FLOAT_SLACK:
        terms = " + ".join(f"{ctx.scores[b].score:.4f}" for b in ctx.profile.average_order)
        yield Hit(ctx.submission, (REPORTED, AVERAGE), _divergence(AVERAGE, value, ctx.average, ctx.tolerance)
                  + f"; average = ({terms}) / {len(ctx.profile.average_order)}, from unrounded scores")


@rule("LB603", "reported-missing", ERROR)
def reported_missing(ctx: CheckContext) -> Iterator[Hit]:
    """The submission does not report a benchmark that is part of the leaderboard's average."""
    if ctx.submission is None or not isinstance(ctx.submission_data().get(REPORTED), dict):
        return
    missing = [b for b in ctx.profile.average_order if b not in ctx.reported()]
    if missing:
        yield Hit(ctx.submission, (REPORTED,), f"reported has no score for {', '.join(missing)} "
                  f"(profile {ctx.profile.name} averages {', '.join(ctx.profile.average_order)})")


@rule("LB604", "reported-unknown", ERROR)
def reported_unknown(ctx: CheckContext) -> Iterator[Hit]:
    """The submission reports a benchmark id the profile does not have."""
    ids = [b.id for b in ctx.profile.benchmarks]
    for key in ctx.reported():
        if key != AVERAGE and key not in ids:
            close = difflib.get_close_matches(key, ids, n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known ids: {', '.join(ids)}"
            yield Hit(ctx.submission, (REPORTED, key), f"'{key}' is not a benchmark of {ctx.profile.name}{hint}")


def _divergence(key: str, reported: float, recomputed: float, tolerance: float) -> str:
    return (f"{key}: reported {reported!r}, recomputed {recomputed:.4f} "
            f"(|diff| {abs(reported - recomputed):.4f} > tolerance {tolerance:g})")


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
