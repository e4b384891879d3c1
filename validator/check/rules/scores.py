"""LB6xx: do the reported numbers match the ones recomputed from the results?"""

from __future__ import annotations

import difflib
import math
from typing import Any, Iterator

from ...core.formulas import describe
from ...findings import ERROR, WARNING
from ...findings.registry import rule
from ..context import AVERAGE, REPORTED, CheckContext
from . import Hit
from .runs import stale_task

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
    for key, value, score in _diverging(ctx):
        if key not in _stale_ids(ctx):
            yield Hit(ctx.submission, (REPORTED, key), _divergence(key, value, score.score, ctx.tolerance)
                      + f"; {describe(score)}")


@rule("LB606", "stale-scorer-divergence", WARNING)
def stale_scorer_divergence(ctx: CheckContext) -> Iterator[Hit]:
    """A reported score differs from the recomputed one, and the results were scored by an older scorer.

    The leaderboard re-ran MATH with Math-Verify (Feb 2025), so a published
    MATH value cannot be reproduced from an older results file (LB505). The
    difference is reported as a warning that explains the data/version
    mismatch rather than blaming the formula; with --strict it fails. The
    average is then checked with the reported value of that benchmark.
    """
    for key, value, score in _diverging(ctx):
        if key in _stale_ids(ctx):
            task, version = _stale_ids(ctx)[key]
            yield Hit(ctx.submission, (REPORTED, key), _divergence(key, value, score.score, ctx.tolerance)
                      + f"; {task} was scored with task version {version:g}, older than the scorer behind "
                      "published values, so this cannot be verified from this file: attach results from the "
                      "current scorer")


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
    # A benchmark whose divergence LB606 explains enters with its reported value.
    stale = {k: v for k, v, _ in _diverging(ctx) if k in _stale_ids(ctx)}
    terms = [stale.get(b, ctx.scores[b].score) for b in ctx.profile.average_order]
    average = sum(terms) / len(terms)
    if abs(value - average) > ctx.tolerance + FLOAT_SLACK:
        shown = " + ".join(f"{t:.4f}" for t in terms)
        note = f" (reported {', '.join(stale)} used, see LB606)" if stale else ""
        yield Hit(ctx.submission, (REPORTED, AVERAGE), _divergence(AVERAGE, value, average, ctx.tolerance)
                  + f"; average = ({shown}) / {len(terms)}, from unrounded scores{note}")


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


def _diverging(ctx: CheckContext) -> Iterator[tuple[str, float, Any]]:
    """(id, reported, BenchmarkScore) of every benchmark off by more than the tolerance."""
    for key, value in ctx.reported().items():
        score = ctx.scores.get(key)
        if key != AVERAGE and score is not None and _finite(value) and \
                abs(value - score.score) > ctx.tolerance + FLOAT_SLACK:
            yield key, value, score


def _stale_ids(ctx: CheckContext) -> dict[str, tuple[str, float]]:
    return {b.id: stale for b in ctx.profile.benchmarks if (stale := stale_task(ctx, b))}


def _divergence(key: str, reported: float, recomputed: float, tolerance: float) -> str:
    return (f"{key}: reported {reported!r}, recomputed {recomputed:.4f} "
            f"(|diff| {abs(reported - recomputed):.4f} > tolerance {tolerance:g})")


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
