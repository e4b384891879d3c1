"""Run conditions: what about a run keeps its numbers from being the leaderboard's.

One implementation for both commands: `check` turns each caveat into a
finding of the rule it names, at the place it names; `normalize` prints the
caveats beside the scores. Every field read here is written by the
submitter, so a caveat can only add doubt, never remove a check (see
docs/submitter-fields.md). Pure: no I/O.
"""

from typing import Any, NamedTuple

from .profile import REFUSE, STALE_SCORER, Benchmark, Profile, Task, VersionGate
from .results import HarnessResults, TaskEntry, float_or_none, versions_disagree

MAX_NAMES = 3


class Caveat(NamedTuple):
    """A run condition that keeps a run's numbers from being the leaderboard's: the rule, where, and why."""

    rule: str  # the check rule that reports it (LB5xx)
    path: tuple  # where, inside the results object
    message: str
    benchmark: str | None = None  # the benchmark it concerns, when one


class StaleScorer(NamedTuple):
    """A benchmark scored by an older scorer than the one behind the published values."""

    benchmark: str
    task: str  # the results entry whose version says so
    version: float
    gate: VersionGate
    path: tuple  # where that version was read

    def bound(self, override: float | None) -> float | None:
        """The maintainer's stale-scorer bound: the command line's, else their profile's, else none."""
        return override if override is not None else self.gate.stale_scorer_bound


def run_conditions(profile: Profile, results: HarnessResults) -> list[Caveat]:
    """Every run-condition caveat of a results file, in rule order."""
    present = _present_tasks(profile, results)
    caveats: list[Caveat] = []
    if results.limit is not None:
        caveats.append(
            Caveat(
                "LB501",
                results.limit_path,
                f"the run used a sample limit ({results.limit!r}); leaderboard numbers need full runs",
            )
        )
    caveats += _partial_samples(results, present)
    caveats += _fewshot(present)
    caveats += _stale(profile, results)
    caveats += _sample_counts(results, present)
    caveats += _refused(profile, results)
    caveats += _version_conflicts(results, present)
    caveats += _other_harness(profile, results)
    return caveats


def stale_scorers(profile: Profile, results: HarnessResults) -> dict[str, StaleScorer]:
    """Benchmark id -> the first task whose version is outside a stale-scorer gate."""
    found = {}
    for bench in profile.benchmarks:
        gate = bench.version_gate
        if gate is None or gate.outside != STALE_SCORER:
            continue
        for task in bench.tasks:
            entry = results.find(task.names)
            key, value = task_version(results, task, entry)
            version = float_or_none(value)
            if key is not None and version is not None and not gate.admits(version):
                found[bench.id] = StaleScorer(
                    bench.id, entry.key if entry else task.name, version, gate, key
                )
                break
    return found


def task_version(
    results: HarnessResults, task: Task, entry: TaskEntry | None
) -> tuple[tuple | None, Any]:
    """(JSON path, value) of a task's version: `versions`, else configs.<task>.metadata.version."""
    names = ((entry.key,) if entry else ()) + task.names
    for name in names:
        if name in results.versions:
            return ("versions", name), results.versions[name]
    for name in names:
        if name in results.config_versions:
            return ("configs", name, "metadata", "version"), results.config_versions[name]
    return None, None


# --- one family each ------------------------------------------------------------------------


def _present_tasks(
    profile: Profile, results: HarnessResults
) -> list[tuple[Benchmark, Task, TaskEntry]]:
    return [
        (bench, task, entry)
        for bench in profile.benchmarks
        for task in bench.tasks
        if (entry := results.find(task.names)) is not None
    ]


def _partial_samples(results: HarnessResults, present) -> list[Caveat]:
    caveats = []
    for _bench, _task, entry in present:
        counts = results.n_samples.get(entry.key)
        if (
            counts
            and _int(counts.effective)
            and _int(counts.original)
            and counts.effective < counts.original
        ):
            caveats.append(
                Caveat(
                    "LB502",
                    ("n-samples", entry.key, "effective"),
                    f"{entry.key} scored {counts.effective} of {counts.original} documents; "
                    "rerun it in full",
                )
            )
    return caveats


def _fewshot(present) -> list[Caveat]:
    return [
        Caveat(
            "LB503",
            entry.num_fewshot_path,
            f"{entry.key} ran {entry.num_fewshot!r}-shot; {bench.name} is {bench.num_fewshot}-shot",
        )
        for bench, _task, entry in present
        if bench.num_fewshot is not None
        and entry.num_fewshot is not None
        and entry.num_fewshot != bench.num_fewshot
    ]


def _stale(profile: Profile, results: HarnessResults) -> list[Caveat]:
    return [
        Caveat(
            "LB505",
            stale.path,
            f"{stale.task} is task version {stale.version:g}, but the published "
            f"{profile.benchmark(bench_id).name} values come from task versions {stale.gate.describe()}: "
            f"the recomputed score is exact for this file, not the leaderboard's. {stale.gate.reason}",
        )
        for bench_id, stale in stale_scorers(profile, results).items()
    ]


def _sample_counts(results: HarnessResults, present) -> list[Caveat]:
    """n-samples against the split sizes the profile gives: a count is the submitter's to write."""
    evidence = results.sample_counts_evidence
    if evidence is not None and not results.n_samples and present:
        return [
            Caveat(
                "LB506",
                evidence,
                f"the file has no n-samples, but its {evidence[0]} shows it is lm-eval "
                "0.4.3 or later, which writes one entry per task: the run's document counts were taken away",
            )
        ]
    caveats = []
    for _bench, task, entry in present:
        counts = results.n_samples.get(entry.key)
        if counts is None and evidence is not None:  # lm-eval 0.4.3 on writes one for every task
            caveats.append(
                Caveat(
                    "LB506",
                    ("n-samples",),
                    f"{entry.key} has no n-samples entry, though the file "
                    "has them for other tasks: lm-eval writes one for every task",
                )
            )
            continue
        if counts is None:  # no n-samples at all: lm-eval before 0.4.3 wrote none
            continue
        if not counts.is_object:
            caveats.append(
                Caveat(
                    "LB506",
                    ("n-samples", entry.key),
                    f"{entry.key}'s n-samples entry is no object "
                    "with original and effective (lm-eval writes one)",
                )
            )
            continue
        written = [
            (key, value)
            for key, value in (("original", counts.original), ("effective", counts.effective))
            if not (_int(value) and value >= 0)
        ]
        for key, value in written:  # read as no count, it would take LB502 and this rule away
            shown = "missing or null" if value is None else f"{value!r:.40}"
            caveats.append(
                Caveat(
                    "LB506",
                    ("n-samples", entry.key, key)
                    if value is not None
                    else ("n-samples", entry.key),
                    f"{entry.key} has n-samples.{key} {shown}, not a whole "
                    "number of documents (lm-eval writes both counts, the split's length)",
                )
            )
        if written:
            continue
        if task.n is not None and counts.original != task.n:
            caveats.append(
                Caveat(
                    "LB506",
                    ("n-samples", entry.key, "original"),
                    f"{entry.key} has {counts.original} documents in n-samples, but the "
                    f"leaderboard's split has {task.n}: a different dataset, or an edited count",
                )
            )
        elif _int(counts.effective) and counts.effective > counts.original:
            caveats.append(
                Caveat(
                    "LB506",
                    ("n-samples", entry.key, "effective"),
                    f"{entry.key} scored {counts.effective} documents of a split of "
                    f"{counts.original}; a run cannot score more documents than its split has",
                )
            )
    return caveats


def _refused(profile: Profile, results: HarnessResults) -> list[Caveat]:
    """One caveat per refuse gate that a present task fails (outside the gate, or no version at all)."""
    caveats = []
    for bench in profile.benchmarks:
        gate = bench.version_gate
        if gate is None or gate.outside != REFUSE:
            continue
        failing = []
        for task in bench.tasks:
            entry = results.find(task.names)
            if entry is None:
                continue
            path, value = task_version(results, task, entry)
            version = float_or_none(value)
            if version is None or not gate.admits(version):
                failing.append((entry.key, path or ("results", entry.key), value if path else None))
        if failing:
            key, path, value = failing[0]
            what = (
                f"{key} is task version {value!r}"
                if path[0] != "results"
                else f"{key} has no task version in the file"
            )
            more = f" ({len(failing)} of {bench.name}'s tasks)" if len(failing) > 1 else ""
            caveats.append(
                Caveat(
                    "LB507",
                    path,
                    f"{what}{more}; {profile.name} accepts {bench.name} task "
                    f"versions {gate.describe()}. {gate.reason}",
                )
            )
    return caveats


def _version_conflicts(results: HarnessResults, present) -> list[Caveat]:
    """`versions` against configs.<task>.metadata.version: both are written by the same harness run."""
    caveats = []
    for _bench, _task, entry in present:
        if entry.key in results.versions and entry.key in results.config_versions:
            listed, declared = results.versions[entry.key], results.config_versions[entry.key]
            if versions_disagree(listed, declared):
                caveats.append(
                    Caveat(
                        "LB508",
                        ("versions", entry.key),
                        f"versions.{entry.key} is {listed!r} but configs.{entry.key}.metadata.version "
                        f"is {declared!r}; lm-eval writes both from the same task, so the file "
                        "was edited: the task version cannot be trusted",
                    )
                )
    return caveats


def _other_harness(profile: Profile, results: HarnessResults) -> list[Caveat]:
    """Entries another harness writes for a benchmark that this file cannot score from its own tasks."""
    caveats = []
    for other in profile.other_harness:
        bench = profile.benchmark(other.benchmark)
        if _scorable(bench, results):
            continue
        own = {name for task in bench.tasks for name in task.names}
        names = [
            key
            for key, entry in results.entries.items()
            if other.matches(entry.name)
            and (entry.name not in own or not _has_metrics(bench, entry))
        ]
        if names:
            shown = ", ".join(names[:MAX_NAMES]) + (
                f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
            )
            caveats.append(
                Caveat(
                    "LB509",
                    ("results", names[0]),
                    f"{bench.name} cannot be scored from {shown}: {other.note}",
                    bench.id,
                )
            )
    return caveats


def _scorable(bench: Benchmark, results: HarnessResults) -> bool:
    entries = [results.find(task.names) for task in bench.tasks]
    return all(entry is not None and _has_metrics(bench, entry) for entry in entries)


def _has_metrics(bench: Benchmark, entry: TaskEntry) -> bool:
    return all((metric, bench.filter) in entry.metrics for metric in bench.metrics)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
