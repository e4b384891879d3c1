"""LB4xx: are the numbers possible, and consistent with each other?"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, TypeGuard

from ...core.normalization import plain_mean, pooled_mean
from ...core.profile import POOLED
from ...core.results import STDERR_MARKER
from ...findings import ERROR, WARNING
from ...findings.registry import rule
from ..context import CheckContext, Hit

WHOLE_TOLERANCE = 1e-6  # |value * N - k| for a k/N value
GROUP_TOLERANCE = 1e-12  # a group value against its pooled subtasks
STDERR_TOLERANCE = 1e-9  # a stderr against sqrt(p(1-p)/(N-1))


@rule("LB401", "invalid-raw-value", ERROR)
def invalid_raw_value(ctx: CheckContext) -> Iterator[Hit]:
    """A metric the leaderboard reads is not a number in [0, 1].

    Harness values are fractions; 54.0 instead of 0.54, a string such as
    "N/A", or a boolean cannot be normalized. (Non-finite numbers: LB104.)
    """
    for bench, _task, entry in ctx.profile_tasks():
        if entry is None:
            continue
        for metric in bench.metrics:
            value = entry.metrics.get((metric, bench.filter), 0.0)
            if _is_number(value) and not math.isfinite(value):
                continue
            if not _is_number(value):
                problem = f"is {value!r}, not a number"
            elif not 0.0 <= value <= 1.0:
                problem = f"is {value!r}, outside [0, 1]" + (
                    "; harness values are fractions, not percentages"
                    if 1.0 < value <= 100.0
                    else ""
                )
            else:
                continue
            yield Hit(
                *ctx.at_results(*entry.metric_path(metric, bench.filter)),
                f"{entry.key} {metric} {problem}",
            )


@rule("LB402", "reported-out-of-range", ERROR)
def reported_out_of_range(ctx: CheckContext) -> Iterator[Hit]:
    """A reported normalized score is outside [0, 100].

    Normalized scores are clipped at 0 and cannot exceed 100; a value such as
    0.2294 usually means a 0-1 scale was reported instead of 0-100.
    """
    for key, value in ctx.reported().items():
        if _is_number(value) and math.isfinite(value) and not 0.0 <= value <= 100.0:
            yield Hit(
                ctx.submission, ("reported", key), f"reported {key} is {value!r}, outside [0, 100]"
            )


@rule("LB403", "not-k-over-n", ERROR)
def not_k_over_n(ctx: CheckContext) -> Iterator[Hit]:
    """A 0/1 metric is not a whole number of correct answers out of the known sample count N.

    Each sample of these tasks scores 0 or 1, so the value must be k/N. A
    value that is not was edited by hand or comes from a different sample
    set. N is n-samples.effective when the file has it, else the profile's.
    """
    for entry, flt, metric, value, n in _binary_values(ctx):
        correct = value * n
        if abs(correct - round(correct)) > WHOLE_TOLERANCE:
            yield Hit(
                *ctx.at_results(*entry.metric_path(metric, flt)),
                f"{entry.key} {metric} = {value!r} is not k/{n}: {value!r} x {n} = {correct:.4f} "
                "is not a whole number of correct answers",
            )


@rule("LB404", "group-mismatch", ERROR)
def group_mismatch(ctx: CheckContext) -> Iterator[Hit]:
    """A group value disagrees with the mean of its subtasks.

    lm-eval computes a group as sum(v_i * n_i) / sum(n_i) (weight_by_size,
    the leaderboard's setting) or as the plain mean (weight_by_size: false);
    either reproduces it to the last bits. A group matching neither was
    edited, or its subtasks were. Where the benchmark's score is the group
    value itself (pooled: GPQA, MATH), only the size-weighted value is
    accepted: a plain-mean group would change the score.
    """
    if ctx.results is None:
        return
    for bench in ctx.profile.benchmarks:
        group = ctx.results.entries.get(bench.group) if bench.group else None
        metric = (bench.metrics[0], bench.filter)
        if group is None or not _finite(group.metrics.get(metric)):
            continue
        values: list[float] = []
        sizes: list[int] = []
        for task in bench.tasks:
            entry = ctx.results.find(task.names)
            value = entry.metrics.get(metric) if entry else None
            n = ctx.sample_count(entry, task, metric[0]) if entry else None
            if not _finite(value) or not 0.0 <= value <= 1.0 or n is None:
                break  # LB401 / LB104 / LB303 report it
            values.append(value)
            sizes.append(n)
        else:
            pooled = pooled_mean(values, sizes)
            # weight_by_size: false is a real lm-eval setting, harmless where the score averages
            # subtasks; where the score is the group value (GPQA, MATH) only pooling is the leaderboard's.
            accepted = [pooled] if bench.aggregation == POOLED else [pooled, plain_mean(values)]
            reported = group.metrics[metric]
            if min(abs(a - reported) for a in accepted) > GROUP_TOLERANCE:
                yield Hit(
                    *ctx.at_results(*group.metric_path(*metric)),
                    f"group {group.key} {metric[0]} is {reported!r}, but its {len(values)} subtasks pool "
                    f"to {pooled!r} (sum(v_i * n_i) / {sum(sizes)})",
                )


@rule("LB405", "stderr-mismatch", WARNING)
def stderr_mismatch(ctx: CheckContext) -> Iterator[Hit]:
    """A standard error does not match sqrt(p(1-p)/(N-1)) for its 0/1 metric.

    lm-eval's stderr of a mean of 0/1 values is exactly that. A mismatch
    suggests the value was edited without its stderr, or N differs.
    """
    for entry, flt, metric, value, n in _binary_values(ctx):
        stderr = entry.metrics.get((metric + STDERR_MARKER, flt))
        if n < 2 or not _finite(stderr):
            continue
        expected = math.sqrt(value * (1 - value) / (n - 1))
        if abs(stderr - expected) > STDERR_TOLERANCE:
            raw_key = entry.raw_keys.get((metric + STDERR_MARKER, flt))
            yield Hit(
                *ctx.at_results("results", entry.key, raw_key),
                f"{entry.key} {raw_key} is {stderr!r}, expected sqrt(p(1-p)/(N-1)) = {expected!r} "
                f"for p = {value!r}, N = {n}",
            )


def _binary_values(ctx: CheckContext) -> Iterator[tuple[Any, str, str, float, int]]:
    """(entry, filter, metric, value, N) of every finite 0/1 metric with a known N."""
    for bench, task, entry in ctx.profile_tasks():
        if entry is None or not bench.binary:
            continue
        for metric in bench.metrics:
            value = entry.metrics.get((metric, bench.filter))
            n = ctx.sample_count(entry, task, metric)
            if _finite(value) and 0.0 <= value <= 1.0 and n:
                yield entry, bench.filter, metric, value, n


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: Any) -> TypeGuard[float]:
    return _is_number(value) and math.isfinite(value)
