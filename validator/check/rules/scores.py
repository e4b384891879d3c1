"""LB6xx: do the reported numbers match the ones recomputed from the results?"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, TypeGuard

from ...core.formulas import describe
from ...core.normalization import plain_mean
from ...findings import ERROR, WARNING
from ...findings.registry import rule
from ..context import AVERAGE, REPORTED, CheckContext, Hit

FLOAT_SLACK = 1e-9  # so that a difference of exactly the tolerance passes despite float noise


@rule("LB600", "not-recomputable", ERROR, runs=False)
def not_recomputable(ctx):
    """A benchmark could not be recomputed and no other finding says why.

    Reported by the checker as a safety net: a number lbnorm cannot recompute
    is never treated as verified. A reported score of a benchmark the results
    hold no task of (a retired one, which a run may leave out) is one too.
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
        if key not in ctx.stale():
            yield Hit(
                ctx.submission,
                (REPORTED, key),
                _divergence(key, value, score.score, ctx.tolerance) + f"; {describe(score)}",
            )


@rule("LB606", "stale-scorer-unverifiable", ERROR)
def stale_scorer_unverifiable(ctx: CheckContext) -> Iterator[Hit]:
    """A reported score differs from the recomputed one and the results say an older scorer made them: unverifiable.

    The leaderboard re-ran MATH with Math-Verify (Feb 2025), so a published
    MATH value cannot be reproduced from a results file of an older task
    version (LB505), and nothing in the file shows the reported number is
    the published one. The task version is written by the submitter, so it
    never softens the verdict by itself: attach results or sample logs from
    the current scorer. A maintainer may accept such differences up to a
    bound they set (--stale-scorer-bound, Action input stale_scorer_bound,
    or stale_scorer_bound in their own profile's version_gate): within it
    the difference is LB607, a warning.
    """
    for key, value, score in _diverging(ctx):
        stale = ctx.stale().get(key)
        if stale is None:
            continue
        bound = stale.bound(ctx.stale_scorer_bound)
        if bound is None or abs(value - score.score) > bound + FLOAT_SLACK:
            limit = (
                "no stale-scorer bound is set, so an unverifiable difference is an error"
                if bound is None
                else f"the difference is more than the maintainer's stale-scorer bound {bound:g}"
            )
            yield Hit(
                ctx.submission,
                (REPORTED, key),
                _divergence(key, value, score.score, ctx.tolerance)
                + f" and cannot be verified: {stale.task} is task version {stale.version:g}, older than the "
                f"scorer of published {score.name} values; {limit}. Report the recomputed {score.score:.2f}, "
                f"or submit the results file and sample logs of a re-run with task versions "
                f"{stale.gate.describe()}; LB505 says what is known of the gap",
            )


@rule("LB607", "stale-scorer-accepted", WARNING)
def stale_scorer_accepted(ctx: CheckContext) -> Iterator[Hit]:
    """A stale-scorer difference within the maintainer's bound: accepted as a warning (fails with --strict).

    Only a maintainer sets the bound (--stale-scorer-bound, Action input
    stale_scorer_bound, or their own profile); built-in profiles set none.
    The average must then match either the recomputed scores or the reported
    ones with every stale difference within its bound (LB602).
    """
    for key, (value, score) in _accepted_stale(ctx).items():
        stale = ctx.stale()[key]
        yield Hit(
            ctx.submission,
            (REPORTED, key),
            _divergence(key, value, score.score, ctx.tolerance)
            + f" is accepted as a stale-scorer difference within the maintainer's bound "
            f"{stale.bound(ctx.stale_scorer_bound):g} ({stale.task} is task version {stale.version:g}), "
            "not verified",
        )


@rule("LB602", "average-divergence", ERROR)
def average_divergence(ctx: CheckContext) -> Iterator[Hit]:
    """The reported average differs from the recomputed average by more than the tolerance.

    The average is the plain mean of the benchmark scores, summed in the
    profile's order (IFEval, BBH, MATH, GPQA, MuSR, MMLU-PRO for v2), from
    unrounded scores. When a maintainer accepted stale-scorer differences
    (LB607), the average may instead match the reported values of exactly
    those benchmarks; no other reported value enters it.
    """
    value = ctx.reported().get(AVERAGE)
    if ctx.average is None or not _finite(value):
        return
    accepted = {k: v for k, (v, _) in _accepted_stale(ctx).items()}
    candidates = [[ctx.scores[b].score for b in ctx.profile.average_order]]
    if accepted:
        candidates.append([accepted.get(b, ctx.scores[b].score) for b in ctx.profile.average_order])
    averages = [plain_mean(terms) for terms in candidates]
    if all(abs(value - average) > ctx.tolerance + FLOAT_SLACK for average in averages):
        shown = " + ".join(f"{t:.4f}" for t in candidates[0])
        other = (
            f", or {averages[1]:.4f} with the accepted stale-scorer values of {', '.join(accepted)}"
            if accepted
            else ""
        )
        yield Hit(
            ctx.submission,
            (REPORTED, AVERAGE),
            _divergence(AVERAGE, value, averages[0], ctx.tolerance)
            + f"; average = ({shown}) / {len(candidates[0])}, from unrounded scores{other}",
        )


@rule("LB603", "reported-missing", ERROR)
def reported_missing(ctx: CheckContext) -> Iterator[Hit]:
    """The submission does not report a benchmark that is part of the leaderboard's average."""
    if ctx.submission is None or not isinstance(ctx.submission_data().get(REPORTED), dict):
        return
    missing = [b for b in ctx.profile.average_order if b not in ctx.reported()]
    if missing:
        yield Hit(
            ctx.submission,
            (REPORTED,),
            f"reported has no score for {', '.join(missing)} "
            f"(profile {ctx.profile.name} averages {', '.join(ctx.profile.average_order)})",
        )


@rule("LB604", "reported-unknown", ERROR)
def reported_unknown(ctx: CheckContext) -> Iterator[Hit]:
    """The submission reports a benchmark id the profile does not have."""
    ids = [b.id for b in ctx.profile.benchmarks]
    for key in ctx.reported():
        if key != AVERAGE and key not in ids:
            import difflib  # here: only a wrong id asks, and an honest check then never loads it

            close = difflib.get_close_matches(key, ids, n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known ids: {', '.join(ids)}"
            yield Hit(
                ctx.submission,
                (REPORTED, key),
                f"'{key}' is not a benchmark of {ctx.profile.name}{hint}",
            )


def _diverging(ctx: CheckContext) -> Iterator[tuple[str, float, Any]]:
    """(id, reported, BenchmarkScore) of every benchmark off by more than the tolerance."""
    for key, value in ctx.reported().items():
        score = ctx.scores.get(key)
        if (
            key != AVERAGE
            and score is not None
            and _finite(value)
            and abs(value - score.score) > ctx.tolerance + FLOAT_SLACK
        ):
            yield key, value, score


def _accepted_stale(ctx: CheckContext) -> dict[str, tuple[float, Any]]:
    """id -> (reported, BenchmarkScore) of stale-scorer differences within the maintainer's bound."""
    accepted = {}
    for key, value, score in _diverging(ctx):
        stale = ctx.stale().get(key)
        bound = stale.bound(ctx.stale_scorer_bound) if stale else None
        if bound is not None and abs(value - score.score) <= bound + FLOAT_SLACK:
            accepted[key] = (value, score)
    return accepted


def _divergence(key: str, reported: float, recomputed: float, tolerance: float) -> str:
    return (
        f"{key}: reported {reported!r}, recomputed {recomputed:.4f} "
        f"(|diff| {abs(reported - recomputed):.4f} > tolerance {tolerance:g})"
    )


def _finite(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
