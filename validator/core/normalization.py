"""Exact leaderboard normalization (docs/reference/normalization.md).

    norm(v, lb) = max(v - lb, 0) / (1 - lb) * 100,   lb = 1/num_choices or 0

Pure functions only: no I/O, no rounding. Each subtask is clipped before it
is averaged; pooled benchmarks normalize the sample-weighted group value once;
the average is summed in the profile's order and divided by the count.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import cast

from .conditions import Caveat, run_conditions
from .errors import DataError, FoldedKeys
from .profile import MEAN_OF_METRICS, POOLED, Benchmark, Profile, Task
from .results import HarnessResults, TaskEntry

# Where a pooled benchmark's raw value came from.
FROM_GROUP = "group entry"
FROM_N_SAMPLES = "pooled from subtasks, sizes from n-samples"
FROM_PROFILE_SIZES = "pooled from subtasks, sizes from the profile"
MISSING = "missing"


def normalize_value(value: float, lower_bound: float) -> float:
    """Remove the random-guess baseline, rescale to 0-100, clip at 0."""
    return max(value - lower_bound, 0.0) / (1.0 - lower_bound) * 100.0


def ordered_sum(values: Iterable[float]) -> float:
    """The values added one by one, left to right, as the leaderboard's front end (JavaScript) and Python before
    3.12 add them. Python 3.12's sum() compensates rounding, so its total can differ in the last bit: the
    published average is reproduced bit for bit only this way, and no number may depend on the Python that
    lbnorm, or a survey's Dask worker, runs on."""
    total = 0.0
    for value in values:
        total += value
    return total


def plain_mean(values: list[float]) -> float:
    return ordered_sum(values) / len(values)


def pooled_mean(values: list[float], sizes: list[int]) -> float:
    """lm-eval's size-weighted group value: sum(v_i * n_i) / sum(n_i)."""
    return ordered_sum(v * n for v, n in zip(values, sizes, strict=True)) / sum(sizes)


@dataclass(frozen=True)
class SubtaskScore:
    task: str  # the profile's task name
    key: str  # the entry's key in the results file
    metric: str  # "metric,filter"
    raw: float
    num_choices: int | None
    lower_bound: float
    normalized: float
    n: int | None = None
    n_source: str | None = None  # "n-samples" or "profile"
    note: str | None = None


@dataclass(frozen=True)
class BenchmarkScore:
    id: str
    name: str
    aggregation: str
    raw: float  # the leaderboard's "Raw" column for this benchmark
    score: float  # normalized, 0-100, full precision
    subtasks: tuple[SubtaskScore, ...]
    raw_source: str | None = None  # pooled benchmarks: group entry or pooled
    pooled_raw: float | None = None  # pooled benchmarks: our own pooling
    group: str | None = None  # pooled benchmarks: the group entry read, if any
    lower_bound: float = 0.0  # pooled benchmarks: bound applied to the pool
    num_choices: int | None = None
    retired: bool = False


@dataclass(frozen=True)
class FileScores:
    profile: str
    format: str
    model: str | None
    benchmarks: dict[str, BenchmarkScore]  # profile order, retired ones included; only those scored
    average: float | None  # None unless every benchmark of the average is scored
    average_order: tuple[str, ...]
    missing: dict[str, tuple[str, str]] = field(
        default_factory=dict
    )  # benchmark id -> (name, why not scored)
    caveats: tuple[Caveat, ...] = ()  # run conditions (core.conditions), the same as check reports

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def scores(self) -> dict[str, float]:
        return {
            bid: self.benchmarks[bid].score for bid in self.average_order if bid in self.benchmarks
        }


def lower_bound_of(num_choices: int | None, normalize: bool) -> float:
    """Exactly 1/num_choices (not 0.333); 0 for generative tasks and raw profiles."""
    if not normalize or num_choices is None:
        return 0.0
    return 1.0 / num_choices


def one_entry_per_task(profile: Profile, results: HarnessResults) -> None:
    """FoldedKeys (LB103) when two entries of the results are names of one profile task (its name and an
    alias): the score would read one and the audit could check the other."""
    for bench in profile.benchmarks:
        for task in bench.tasks:
            present = [results.entries[name] for name in task.names if name in results.entries]
            if len(present) > 1:
                first, second = present[0].key, present[1].key
                raise FoldedKeys(
                    f"results has entries '{first}' and '{second}', two names of {bench.name}'s task "
                    f"'{task.name}' in profile {profile.name}; keep one",
                    ("results", second),
                )


def score_results(profile: Profile, results: HarnessResults) -> FileScores:
    """Normalize every benchmark of the profile that the file has.

    A benchmark with tasks missing (a partial run, or another harness's task
    names) is listed in `missing` and the average is None; any other problem
    fails the file with every reason at once.
    """
    one_entry_per_task(profile, results)
    caveats = tuple(run_conditions(profile, results))
    other_harness = {c.benchmark for c in caveats if c.rule == "LB509"}
    if not any(results.find(task.names) for bench in profile.benchmarks for task in bench.tasks):
        foreign = "".join(f"; {c.message}" for c in caveats if c.rule == "LB509")
        raise DataError(
            f"no task of profile {profile.name} is in the file "
            f"(it has: {_first(sorted(results.entries)) or 'no entries'}){foreign}"
        )
    scores: dict[str, BenchmarkScore] = {}
    missing: dict[str, tuple[str, str]] = {}
    problems: list[str] = []
    for bench in profile.benchmarks:
        absent = [task.name for task in bench.tasks if results.find(task.names) is None]
        if bench.retired and len(absent) == len(bench.tasks):
            continue  # a retired benchmark is optional
        if absent or bench.id in other_harness:
            missing[bench.id] = (bench.name, _why_missing(bench, absent))
            continue
        try:
            scores[bench.id] = score_benchmark(bench, results, profile.normalize)
        except DataError as exc:
            problems.append(str(exc))
    if problems:
        raise DataError("; ".join(problems))
    average = None
    if all(bench_id in scores for bench_id in profile.average_order):
        # In the profile's order: the leaderboard adds left to right.
        average = plain_mean([scores[bench_id].score for bench_id in profile.average_order])
    return FileScores(
        profile=profile.name,
        format=results.format,
        model=results.model,
        benchmarks=scores,
        average=average,
        average_order=profile.average_order,
        missing=missing,
        caveats=caveats,
    )


def _why_missing(bench: Benchmark, absent: list[str]) -> str:
    if not absent:
        return "present only as another harness's tasks (see LB509)"
    if len(absent) == len(bench.tasks):
        return "not in the file"
    return f"{len(absent)} of {len(bench.tasks)} tasks {MISSING} ({_first(absent)}); the leaderboard uses every task"


def score_benchmark(bench: Benchmark, results: HarnessResults, normalize: bool) -> BenchmarkScore:
    entries = _entries_of(bench, results)
    if bench.aggregation == MEAN_OF_METRICS:
        subtasks = [
            _subtask(bench, task, entry, metric, normalize)
            for task, entry in entries
            for metric in bench.metrics
        ]
    else:
        subtasks = [
            _subtask(bench, task, entry, bench.metrics[0], normalize) for task, entry in entries
        ]
    if bench.aggregation == POOLED:
        return _pooled(bench, results, entries, subtasks, normalize)
    return BenchmarkScore(
        id=bench.id,
        name=bench.name,
        aggregation=bench.aggregation,
        raw=plain_mean([s.raw for s in subtasks]),
        score=plain_mean([s.normalized for s in subtasks]),
        subtasks=tuple(subtasks),
        retired=bool(bench.retired),
    )


def _entries_of(bench: Benchmark, results: HarnessResults) -> list[tuple[Task, TaskEntry]]:
    found, missing = [], []
    for task in bench.tasks:
        entry = results.find(task.names)
        if entry is None:
            missing.append(task.name)
        else:
            found.append((task, entry))
    if missing:
        raise DataError(
            f"{bench.id}: {len(missing)} of {len(bench.tasks)} tasks {MISSING} ({_first(missing)})"
        )
    return found


def _subtask(
    bench: Benchmark, task: Task, entry: TaskEntry, metric: str, normalize: bool
) -> SubtaskScore:
    raw, note = _metric_value(entry, metric, bench.filter, task)
    choices = bench.choices_of(task)
    lower = lower_bound_of(choices, normalize)
    return SubtaskScore(
        task=task.name,
        key=entry.key,
        metric=f"{metric},{bench.filter}",
        raw=raw,
        num_choices=choices,
        lower_bound=lower,
        normalized=normalize_value(raw, lower),
        note=note,
    )


def _metric_value(entry: TaskEntry, metric: str, flt: str, task: Task) -> tuple[float, str | None]:
    where = f"{entry.key}: metric '{metric},{flt}'"
    if (metric, flt) not in entry.metrics:
        present = ", ".join(entry.metric_keys()) or "none"
        raise DataError(f"{entry.key} has no metric '{metric},{flt}' (it has: {present})")
    value = entry.metrics[(metric, flt)]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f"{where} is {value!r}, expected a number in [0, 1]")
    if not math.isfinite(value):
        if task.non_finite_as_zero:
            return 0.0, f"{value} counted as 0, as the leaderboard did"
        raise DataError(f"{where} is {value}; a headline metric must be a finite number in [0, 1]")
    if not 0.0 <= value <= 1.0:
        raise DataError(
            f"{where} is {value!r}, outside [0, 1]; raw harness values are fractions, not percentages"
        )
    return float(value), None


def _pooled(
    bench: Benchmark,
    results: HarnessResults,
    entries: list[tuple[Task, TaskEntry]],
    subtasks: list[SubtaskScore],
    normalize: bool,
) -> BenchmarkScore:
    sized = [
        _with_size(s, task, results) for s, (task, _entry) in zip(subtasks, entries, strict=True)
    ]
    pooled = pooled_mean(
        [s.raw for s in sized], [cast(int, s.n) for s in sized]
    )  # _with_size sets n
    sources = {s.n_source for s in sized}
    source = FROM_N_SAMPLES if sources == {"n-samples"} else FROM_PROFILE_SIZES
    raw, group_key = pooled, None
    group = results.entries.get(bench.group) if bench.group else None
    if group is not None and (bench.metrics[0], bench.filter) in group.metrics:
        # The leaderboard reads the group value; our pooling stays alongside for checks.
        raw, _ = _metric_value(group, bench.metrics[0], bench.filter, Task(name=group.key))
        source, group_key = FROM_GROUP, group.key
    choices = bench.choices_of(bench.tasks[0])
    lower = lower_bound_of(choices, normalize)
    return BenchmarkScore(
        id=bench.id,
        name=bench.name,
        aggregation=bench.aggregation,
        raw=raw,
        score=normalize_value(raw, lower),
        subtasks=tuple(sized),
        raw_source=source,
        pooled_raw=pooled,
        group=group_key,
        lower_bound=lower,
        num_choices=choices,
        retired=bool(bench.retired),
    )


def _with_size(sub: SubtaskScore, task: Task, results: HarnessResults) -> SubtaskScore:
    """Attach n: n-samples.effective when the file has it, else the profile's size."""
    counts = results.n_samples.get(sub.key)
    if counts is not None:
        n = counts.effective
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise DataError(f"n-samples.{sub.key}.effective is {n!r}, expected a positive integer")
        return replace(sub, n=n, n_source="n-samples")
    if task.n is None:
        raise DataError(
            f"{sub.key}: no n-samples entry and the profile gives no sample size, "
            "so the subtasks cannot be pooled; add n to the profile task"
        )
    return replace(sub, n=task.n, n_source="profile")


def _first(names: list[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
