"""Properties of the normalization that must hold for every input (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from validator.core.normalization import (
    lower_bound_of,
    normalize_value,
    score_benchmark,
    score_results,
)
from validator.core.results import HarnessResults, TaskEntry
from validator.io.loaders import load_builtin_profile

V2 = load_builtin_profile("open-llm-leaderboard-v2")
raw = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
choices = st.one_of(st.none(), st.integers(min_value=2, max_value=1000))


@given(raw, choices)
def test_scores_are_within_0_and_100(value, num_choices):
    assert 0.0 <= normalize_value(value, lower_bound_of(num_choices, True)) <= 100.0


@given(raw, raw, choices)
def test_scores_are_monotone_in_the_raw_value(a, b, num_choices):
    low, high = sorted((a, b))
    bound = lower_bound_of(num_choices, True)
    assert normalize_value(low, bound) <= normalize_value(high, bound)


@given(st.integers(min_value=2, max_value=1000), st.floats(min_value=0.0, max_value=1.0))
def test_exactly_zero_at_or_below_the_baseline(num_choices, fraction):
    bound = lower_bound_of(num_choices, True)
    assert normalize_value(bound * fraction, bound) == 0.0
    assert normalize_value(bound, bound) == 0.0


def v2_results(draw_value) -> dict[str, TaskEntry]:
    entries = {}
    for bench in V2.benchmarks:
        for task in bench.tasks:
            metrics = {(m, "none"): draw_value() for m in bench.metrics}
            entries[task.name] = TaskEntry(key=task.name, name=task.name, metrics=metrics)
    return entries


@settings(max_examples=50)
@given(st.lists(raw, min_size=60, max_size=60), st.randoms(use_true_random=False))
def test_the_order_of_entries_in_a_file_changes_nothing(values, rng: random.Random):
    source = iter(values * 2)
    entries = v2_results(lambda: next(source))
    keys = list(entries)
    rng.shuffle(keys)
    shuffled = {k: entries[k] for k in keys}
    as_written = score_results(V2, HarnessResults("test", None, entries))
    permuted = score_results(V2, HarnessResults("test", None, shuffled))
    assert as_written == permuted  # bit-exact: the profile fixes the summation order


@given(st.lists(raw, min_size=24, max_size=24))
def test_bbh_clips_each_subtask_before_averaging(values):
    bench = V2.benchmark("bbh")
    entries = {
        t.name: TaskEntry(t.name, t.name, {("acc_norm", "none"): v})
        for t, v in zip(bench.tasks, values, strict=True)
    }
    score = score_benchmark(bench, HarnessResults("test", None, entries), normalize=True).score
    unclipped = (
        sum(
            (v - 1 / bench.choices_of(t)) / (1 - 1 / bench.choices_of(t)) * 100
            for t, v in zip(bench.tasks, values, strict=True)
        )
        / 24
    )
    assert 0.0 <= score <= 100.0
    assert score >= unclipped - 1e-9
