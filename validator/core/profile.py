"""The leaderboard profile model: benchmarks, tasks and choice counts as data.

A profile is built from a dict that has already passed
schemas/profile.schema.json; `build_profile` adds the cross-reference rules
the schema cannot express. No I/O happens here (see `loaders.py`).
"""

from typing import Any, NamedTuple

from .errors import ConfigError

MEAN_OF_SUBTASKS = "mean_of_subtasks"
POOLED = "pooled"
MEAN_OF_METRICS = "mean_of_metrics"
MULTIPLE_CHOICE = "multiple_choice"
# What a task version outside a benchmark's gate means.
REFUSE = "refuse"  # the leaderboard did not accept such results (v1: MMLU version 0)
STALE_SCORER = "stale_scorer"  # scored by an older scorer than the published values (v2: MATH before Math-Verify)


class VersionGate(NamedTuple):
    """The task versions whose results the leaderboard's published values come from.

    `stale_scorer_bound` (normalized points) is the maintainer's opt-in to accept
    a stale-scorer difference as a warning; built-in profiles never set it.
    """

    reason: str
    min_version: float | None = None
    max_version: float | None = None
    outside: str = REFUSE
    stale_scorer_bound: float | None = None

    def admits(self, version: float) -> bool:
        return (self.min_version is None or version >= self.min_version) and (
            self.max_version is None or version <= self.max_version
        )

    def describe(self) -> str:
        if self.min_version is not None and self.max_version is not None:
            return f"{self.min_version:g} to {self.max_version:g}"
        if self.min_version is not None:
            return f"{self.min_version:g} or newer"
        return f"{self.max_version:g} or older"


class OtherHarnessTasks(NamedTuple):
    """Task names another harness uses for one of the profile's benchmarks, and what differs."""

    benchmark: str
    patterns: tuple[str, ...]  # exact names, or prefixes ending in '*'
    note: str

    def matches(self, name: str) -> bool:
        return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in self.patterns)


class Task(NamedTuple):
    """A results entry a benchmark is scored from: its name and aliases, choice count and sample count."""

    name: str
    aliases: tuple[str, ...] = ()
    num_choices: int | None = None
    n: int | None = None
    non_finite_as_zero: bool = False
    note: str | None = None
    metric_n: dict[str, int] = {}  # shared: read, never written

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


class Benchmark(NamedTuple):
    """A column of the leaderboard: how its tasks are scored, averaged and normalized."""

    id: str
    name: str
    output_type: str
    aggregation: str
    metrics: tuple[str, ...]
    tasks: tuple[Task, ...]
    filter: str = "none"
    group: str | None = None
    num_choices: int | None = None
    num_fewshot: int | None = None
    retired: dict[str, str] | None = None
    notes: tuple[str, ...] = ()
    sources: dict[str, tuple[str, ...]] = {}  # shared: read, never written
    binary: bool = False
    version_gate: VersionGate | None = None
    # (relation, fields): fields of one doc that encode the same gold, choices or id (harness/doc_agreement.py)
    doc_fields_agree: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def choices_of(self, task: Task) -> int | None:
        """The choice count that sets this task's baseline (task overrides benchmark)."""
        if self.output_type != MULTIPLE_CHOICE:
            return None
        return task.num_choices if task.num_choices is not None else self.num_choices


class Profile(NamedTuple):
    """A leaderboard's rules as data: its benchmarks, whether scores are normalized, and how they are averaged."""

    name: str
    title: str
    normalize: bool
    average_order: tuple[str, ...]
    benchmarks: tuple[Benchmark, ...]
    revision: str | None = None
    average_note: str | None = None
    sources: dict[str, dict[str, str]] = {}  # shared: read, never written
    other_entries: dict[str, str] = {}  # known, unscored entry -> why (shared: read, never written)
    other_harness: tuple[OtherHarnessTasks, ...] = ()
    ignore_tasks: tuple[str, ...] = ()  # globs of unknown entries the maintainer accepts silently

    def benchmark(self, benchmark_id: str) -> Benchmark:
        for bench in self.benchmarks:
            if bench.id == benchmark_id:
                return bench
        raise KeyError(benchmark_id)

    def task_index(self) -> dict[str, tuple[Benchmark, Task]]:
        """Every task name and alias -> (benchmark, task), built at each call (a command makes one or two)."""
        return {
            name: (bench, task)
            for bench in self.benchmarks
            for task in bench.tasks
            for name in task.names
        }

    def pooled_groups(
        self,
    ) -> tuple[tuple[str, tuple[tuple[tuple[str, ...], int | None], ...]], ...]:
        """The lm-eval group entries of benchmarks scored from the size-weighted pool of their tasks (GPQA,
        MATH), each with its tasks: (a task's name and aliases, its split's size if the profile knows it)."""
        return tuple(
            sorted(
                (b.group, tuple((task.names, task.n) for task in b.tasks))
                for b in self.benchmarks
                if b.aggregation == "pooled" and b.group
            )
        )

    def split_sizes(self) -> dict[str, int]:
        """Every task name and alias -> the size of the split the leaderboard scores, where the profile knows it."""
        return {
            name: task.n for name, (_bench, task) in self.task_index().items() if task.n is not None
        }

    def doc_agreements(self) -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
        """Every task name and alias -> the fields its docs must agree on (doc_fields_agree)."""
        return {
            name: bench.doc_fields_agree
            for name, (bench, _task) in self.task_index().items()
            if bench.doc_fields_agree
        }

    def choice_counts(self) -> dict[str, int]:
        """Every multiple-choice task name and alias -> the num_choices that sets its baseline (LB715's claim)."""
        counts = {name: bench.choices_of(task) for name, (bench, task) in self.task_index().items()}
        return {name: count for name, count in counts.items() if count is not None}


def build_profile(data: dict[str, Any], origin: str) -> Profile:
    """Turn schema-valid profile data into a Profile, enforcing cross-references.

    `origin` names the profile in error messages (a file path or a built-in name).
    """
    profile = _assemble(data)
    problems = _cross_reference_problems(profile)
    if problems:
        raise ConfigError(
            f"profile {origin}: {problems[0]}"
            + (f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else "")
        )
    return profile


def cross_reference_problems(data: dict[str, Any]) -> list[str]:
    """Every cross-reference problem of schema-valid profile data (build_profile stops at the first)."""
    return _cross_reference_problems(_assemble(data))


def _assemble(data: dict[str, Any]) -> Profile:
    return Profile(
        name=data["name"],
        title=data["title"],
        normalize=data.get("normalize", True),
        average_order=tuple(data["average"]["order"]),
        benchmarks=tuple(_build_benchmark(b) for b in data["benchmarks"]),
        revision=data.get("revision"),
        average_note=data["average"].get("note"),
        sources=data.get("sources", {}),
        other_entries={e["task"]: e["note"] for e in data.get("other_entries", ())},
        other_harness=tuple(
            OtherHarnessTasks(o["benchmark"], tuple(o["tasks"]), o["note"])
            for o in data.get("other_harness_tasks", ())
        ),
        ignore_tasks=tuple(data.get("ignore_tasks", ())),
    )


def _build_benchmark(data: dict[str, Any]) -> Benchmark:
    tasks = tuple(
        Task(
            name=t["task"],
            aliases=tuple(t.get("aliases", ())),
            num_choices=t.get("num_choices"),
            n=t.get("n"),
            non_finite_as_zero=t.get("non_finite_as_zero", False),
            note=t.get("note"),
            metric_n=t.get("metric_n", {}),
        )
        for t in data["tasks"]
    )
    return Benchmark(
        id=data["id"],
        name=data["name"],
        output_type=data["output_type"],
        aggregation=data["aggregation"],
        metrics=tuple(data["metrics"]),
        tasks=tasks,
        filter=data.get("filter", "none"),
        group=data.get("group"),
        num_choices=data.get("num_choices"),
        num_fewshot=data.get("num_fewshot"),
        retired=data.get("retired"),
        notes=tuple(data.get("notes", ())),
        sources={k: tuple(v) for k, v in data.get("sources", {}).items()},
        binary=data.get("binary", False),
        version_gate=_version_gate(data),
        doc_fields_agree=tuple(
            (entry["relation"], tuple(entry["fields"]))
            for entry in data.get("doc_fields_agree", ())
        ),
    )


def _version_gate(data: dict[str, Any]) -> VersionGate | None:
    gate = data.get("version_gate")
    if gate is not None:
        return VersionGate(
            reason=gate["reason"],
            min_version=gate.get("min_version"),
            max_version=gate.get("max_version"),
            outside=gate.get("outside", REFUSE),
            stale_scorer_bound=gate.get("stale_scorer_bound"),
        )
    legacy = data.get("current_task_version")  # profile_format 1 files written before version_gate
    if legacy is not None:
        return VersionGate(
            reason=legacy["note"], min_version=legacy["version"], outside=STALE_SCORER
        )
    return None


def _cross_reference_problems(profile: Profile) -> list[str]:
    problems: list[str] = []
    ids = [b.id for b in profile.benchmarks]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"benchmark id '{dup}' is defined twice; give each benchmark its own id")
    seen: dict[str, str] = {}
    for bench in profile.benchmarks:
        for task in bench.tasks:
            for name in task.names:
                if name in seen:
                    problems.append(
                        f"task name '{name}' appears in benchmarks '{seen[name]}' and '{bench.id}';"
                        " a results entry must map to one benchmark"
                    )
                seen[name] = bench.id
        problems.extend(_benchmark_problems(profile, bench))
    for bench_id in profile.average_order:
        if bench_id not in ids:
            problems.append(
                f"average.order names '{bench_id}', which is not a benchmark id ({', '.join(ids)})"
            )
        elif profile.benchmark(bench_id).retired:
            problems.append(f"average.order names '{bench_id}', which is marked retired")
    for other in profile.other_harness:
        if other.benchmark not in ids:
            problems.append(
                f"other_harness_tasks names '{other.benchmark}', which is not a benchmark id"
            )
    known_sources = set(profile.sources)
    for bench in profile.benchmarks:
        for fact, keys in bench.sources.items():
            for key in keys:
                if key not in known_sources:
                    problems.append(
                        f"benchmark '{bench.id}' cites source '{key}' for '{fact}', "
                        "which is not listed under 'sources'"
                    )
    return problems


def _benchmark_problems(profile: Profile, bench: Benchmark) -> list[str]:
    where = f"benchmark '{bench.id}'"
    problems = []
    if bench.aggregation in (MEAN_OF_SUBTASKS, POOLED) and len(bench.metrics) != 1:
        problems.append(
            f"{where}: aggregation {bench.aggregation} reads exactly one metric, got {len(bench.metrics)}"
        )
    if bench.aggregation == POOLED and bench.output_type == MULTIPLE_CHOICE:
        counts = {bench.choices_of(t) for t in bench.tasks}
        if len(counts) != 1:
            problems.append(
                f"{where}: a pooled benchmark is normalized once, so all its tasks need the same "
                f"num_choices (got {sorted(counts, key=str)})"
            )
    gate = bench.version_gate
    if gate and gate.stale_scorer_bound is not None and gate.outside != STALE_SCORER:
        problems.append(
            f"{where}: stale_scorer_bound only applies to a version_gate with outside: stale_scorer"
        )
    if (
        gate
        and gate.min_version is not None
        and gate.max_version is not None
        and gate.min_version > gate.max_version
    ):
        problems.append(
            f"{where}: version_gate min_version {gate.min_version:g} is above max_version "
            f"{gate.max_version:g}, so no version passes"
        )
    if profile.normalize and bench.output_type == MULTIPLE_CHOICE:
        for task in bench.tasks:
            if bench.choices_of(task) is None:
                problems.append(
                    f"{where}: multiple-choice task '{task.name}' has no num_choices, so its "
                    "random-guess baseline is unknown; set num_choices on the task or the benchmark"
                )
    return problems
