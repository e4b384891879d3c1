"""One-line, reproducible-by-hand descriptions of how a benchmark score was computed."""

from __future__ import annotations

import os
from fractions import Fraction

from .normalization import BenchmarkScore
from .profile import MEAN_OF_METRICS, POOLED


def fraction(bound: float) -> str:
    return "0" if bound == 0 else str(Fraction(bound).limit_denominator(1000))


def describe(score: BenchmarkScore) -> str:
    """For example: 'GPQA = max(p - 1/4, 0) / (1 - 1/4) * 100 with p = 0.2567... (group entry ...)'."""
    subs = score.subtasks
    metric = subs[0].metric.split(",")[0]
    if score.aggregation == POOLED:
        sizes = "/".join(str(s.n) for s in subs)
        source = f"{score.raw_source} {score.group}" if score.group else score.raw_source
        return f"{score.name} = {_norm('p', score.lower_bound)} with p = {score.raw!r} ({source}; n = {sizes})"
    if score.aggregation == MEAN_OF_METRICS:
        parts = " + ".join(
            f"{_norm(s.metric.split(',')[0], s.lower_bound)} [{s.normalized:.4f}]" for s in subs
        )
        return f"{score.name} = ({parts}) / {len(subs)}"
    if len(subs) == 1:
        return (
            f"{score.name} = {_norm(metric, subs[0].lower_bound)} with {metric} = {subs[0].raw!r}"
        )
    bounds = {s.lower_bound for s in subs}
    if len(bounds) == 1:
        return f"{score.name} = mean over {len(subs)} subtasks of {_norm(metric, bounds.pop())}"
    prefix = os.path.commonprefix([s.task for s in subs])
    counts = ", ".join(f"{s.task[len(prefix) :]} {s.num_choices}" for s in subs)
    return (
        f"{score.name} = mean over {len(subs)} subtasks of max({metric} - 1/n, 0) / (1 - 1/n) * 100, "
        f"each clipped before averaging, with n = {counts}"
    )


def _norm(value: str, bound: float) -> str:
    if bound == 0:
        return f"{value} * 100"
    b = fraction(bound)
    return f"max({value} - {b}, 0) / (1 - {b}) * 100"
