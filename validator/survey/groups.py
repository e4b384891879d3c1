"""Group entries of a results file (lm-eval's `group_subtasks`), re-derived from their subtasks.

A survey audits tasks against their logs; a group has no log, and the leaderboard scores some benchmarks
(GPQA, MATH) from the group value itself. So each group the file declares is a row of its own whose every
metric must be its subtasks' pooled mean, sum(v_i * n_i) / sum(n_i), or their plain mean (lm-eval's
weight_by_size: false), to 1e-12, over the subtasks that have the metric (as lm-eval pools them); otherwise,
or when none has it or one lacks a sample count, LB404.
Only a group with subtasks the file holds counts as one: a results entry declared a group without them is
a task (audit.reported_tasks.reported_tasks), so declaring a tampered task a group cannot hide it.
"""

from __future__ import annotations

from typing import Any

from ..audit.reported_tasks import declared_groups, unmapped_groups
from ..core.normalization import plain_mean, pooled_mean
from ..findings import make_finding
from .rows import finding_row, number, with_metrics

TOLERANCE = 1e-12  # lm-eval's own arithmetic reproduces a group to the last bits (check's LB404)
MAX_DEPTH = 8  # groups of groups: lm-eval's leaderboard nests two deep
MAX_GROUP_ROWS = 10_000  # rows per results file, as for its tasks without a log (work.py)
STEP_BUDGET = 2_000_000  # leaves visited per results file: MMLU's 57 subtasks x a few metrics is a few hundred
DEEP = f"its groups nest deeper than {MAX_DEPTH}"
TOO_MANY = (
    f"its groups name more than {STEP_BUDGET:,} subtasks in all (counting repeats), too many to "
    "re-derive"
)


def group_rows(
    run: str, results_name: str, model: str, data: Any, published: tuple = (), pooled: tuple = ()
) -> list[dict]:
    """A row for each declared group that has a results entry or a published score (`published`: the run's
    (task, metric, value) from a manifest). `pooled`: Profile.pooled_groups() of a maintainer's profile,
    which scores those groups from the size-weighted pool of exactly its tasks' whole splits (GPQA, MATH):
    a plain mean, a group that leaves a task out or takes another in, or a split cut short is a mismatch."""
    groups, results = declared_groups(data), _table(data, "results")
    leaves = _Leaves(groups)
    profile_tasks = dict(pooled)
    asked: dict[str, set[str]] = {}
    for task, metric, _ in published:
        if task in groups:
            asked.setdefault(task, set()).add(metric if "," in metric else f"{metric},none")
    rows = []
    declared = [
        group for group in sorted(groups) if isinstance(results.get(group), dict) or group in asked
    ]
    for group in declared[:MAX_GROUP_ROWS]:
        written = results.get(group)
        entry = written if isinstance(written, dict) else {}
        findings, metrics, unpooled = [], {}, []
        for key, reported in entry.items():
            if "," not in key or "_stderr" in key.partition(",")[0]:
                continue
            derived, why = _derive(group, key, leaves, data)
            accepted = derived[:1] if derived and group in profile_tasks else derived
            metrics[key] = {
                "reported": reported,
                "from_samples": None,
                "recomputed": _matching(reported, accepted),
            }
            if why:
                problem: str | None = why
            else:
                assert accepted is not None  # _derive gives values wherever it gives no reason
                problem = _mismatch(reported, accepted)
            if problem:
                findings.append(
                    make_finding(
                        "LB404",
                        results_name,
                        f"group {group} {key}: {problem}",
                        f"$.results.{group}",
                    )
                )
        # lm-eval 0.4.4 to 0.4.8 wrote some groups (the leaderboard's GPQA and MATH) without values: a published
        # score of one is the pool of its tasks, as the leaderboard computed it (size-weighted).
        for key in sorted(asked.get(group, set()) - set(metrics)):
            derived, why = _derive(group, key, leaves, data)
            metrics[key] = {
                "reported": None,
                "from_samples": None,
                "recomputed": derived and derived[0],
            }
            unpooled += [f"{key}: {why}"] if why else []
        if group in profile_tasks:
            findings += _membership(group, leaves, profile_tasks[group], results_name, data)
        findings += _copy_differs(group, entry, _table(data, "groups").get(group), results_name)
        row = with_metrics(finding_row(run, model, group, "", "group", findings), metrics)
        if unpooled:
            row["error"] = (
                f"a published score of group {group} cannot be re-derived ({'; '.join(unpooled)})"
            )
        rows.append(row)
    if (
        len(declared) > MAX_GROUP_ROWS
    ):  # a results file declaring millions of groups must not cost gigabytes
        finding = make_finding(
            "LB404",
            results_name,
            f"{len(declared) - MAX_GROUP_ROWS:,} more groups are not "
            f"re-derived (a row each stops at {MAX_GROUP_ROWS:,})",
            "$.group_subtasks",
        )
        rows.append(finding_row(run, model, "", "", "group", [finding]))
    for group in unmapped_groups(data)[:MAX_GROUP_ROWS]:
        finding = make_finding(
            "LB404",
            results_name,
            f"group {group}: the file records no group membership "
            "(group_subtasks, written since lm-eval 0.4.2), so its numbers cannot be re-derived "
            "from its subtasks",
            f"$.groups.{group}",
        )
        rows.append(finding_row(run, model, group, "", "group", [finding]))
    return rows


def _copy_differs(group: str, entry: dict, copy: Any, results_name: str) -> list:
    """LB404 when the `groups` section's copy of a group disagrees with its results entry. Every lm-eval from
    0.4.0 writes both from one dict (evaluator_utils.prepare_print_tasks: results[name].copy()), so a number
    edited in one of them alone was edited by hand; a reader of the other section sees another score."""
    if not isinstance(copy, dict):
        return []
    for key, value in copy.items():
        if "," in key and not _same(value, entry.get(key)):
            return [
                make_finding(
                    "LB404",
                    results_name,
                    f"group {group} {key}: the groups section says "
                    f"{str(value)[:40]}, but results says {str(entry.get(key))[:40]}; lm-eval "
                    "writes both from one value",
                    f"$.groups.{group}",
                )
            ]
    return []


def _same(one: Any, other: Any) -> bool:
    """Equal as lm-eval wrote them (a NaN is its own copy)."""
    return one == other or (
        type(one) is float and type(other) is float and one != one and other != other
    )


def _membership(group: str, leaves: _Leaves, tasks: tuple, results_name: str, data: Any) -> list:
    """LB404 when a pooled group's tasks are not the profile's: group_subtasks is the submitter's, and a
    group that leaves out its weakest task pools to a higher score that its own tasks reproduce."""
    listed, why = leaves.of(group)
    if why:
        return []  # the group's metrics say why already
    known, present = {name for names, _ in tasks for name in names}, set(listed)
    missing = [names[0] for names, _ in tasks if present.isdisjoint(names)]
    extra = sorted({task for task in listed if task not in known})
    findings = []
    if missing or extra:
        parts = ([f"leaves out {', '.join(missing)}"] if missing else []) + (
            [f"takes in {', '.join(extra[:5])}"] if extra else []
        )
        findings.append(
            make_finding(
                "LB404",
                results_name,
                f"group {group} {' and '.join(parts)}: the profile "
                f"pools {', '.join(names[0] for names, _ in tasks)}",
                f"$.group_subtasks.{group}",
            )
        )
    # The pool is weighted by n-samples, which the logs' coverage holds to their documents (LB706): a weight
    # moved is documents removed, so a split that is not the profile's whole split is named here.
    splits = _sizes(tasks)
    for task in sorted(present & splits.keys()):
        scored = _size(task, data)
        if scored is not None and scored != splits[task]:
            findings.append(
                make_finding(
                    "LB404",
                    results_name,
                    f"group {group}: {task} scored {scored:,} documents "
                    f"(n-samples), but its split has {splits[task]:,} (the profile); the "
                    "profile pools whole splits",
                    f"$['n-samples'].{task}",
                )
            )
    return findings


def _matching(reported: Any, derived: tuple[float, ...] | None) -> float | None:
    """The re-derived value the row shows, and a published score is held to: the pool the file's own value is
    (a group with lm-eval's weight_by_size: false reports the plain mean), else the size-weighted pool, as the
    leaderboard scores a group written without a value."""
    if not derived:
        return None
    if _is_number(reported):
        for value in derived:
            if abs(reported - value) <= TOLERANCE:
                return value
    return derived[0]


def _mismatch(reported: Any, derived: tuple[float, ...]) -> str | None:
    if not _is_number(reported):
        return f"the results file gives {str(reported)[:40]!r}, not a finite number"
    if min(abs(reported - value) for value in derived) <= TOLERANCE:
        return None
    if len(derived) == 1:
        return (
            f"the results file says {reported!r}, but its tasks pool to {derived[0]!r}, size-weighted, as "
            "the profile scores it"
        )
    return f"the results file says {reported!r}, but its subtasks pool to {derived[0]!r} (mean {derived[1]!r})"


def _sizes(tasks: tuple) -> dict[str, int]:
    """A profile's split sizes by every name of its tasks."""
    return {name: size for names, size in tasks if size for name in names}


def _derive(
    group: str, key: str, groups: _Leaves, data: Any
) -> tuple[tuple[float, float] | None, str]:
    """((pooled, plain mean), "") of the values of `key` of the group's leaf tasks, or (None, why not).

    Leaves, not subgroups: lm-eval 0.4.4 on pools a group over the tasks under it at any depth
    (evaluator_utils.consolidate_group_results), and 0.4.3's size-weighted pool of its subgroups is the
    same number. So a tampered subgroup is its own row's finding, not its parent's as well."""
    leaves, why = groups.of(group)
    if why:
        return None, why
    if not groups.spend(len(leaves)):
        return None, TOO_MANY
    values, sizes = [], []
    for task in leaves:
        entry = _table(data, "results").get(task)
        if not isinstance(entry, dict) or key not in entry:
            continue  # lm-eval pools each metric over the subtasks that have it (leaderboard: acc_norm of three)
        value, size = entry[key], _size(task, data)
        if not _is_number(value):
            return (
                None,
                f"its subtask {task} has no number for {key}, so the group cannot be re-derived",
            )
        if size is None:
            return None, (
                f"its subtask {task} has no sample count (n-samples, written since lm-eval 0.4.3), so "
                "the group cannot be re-derived"
            )
        values.append(value)
        sizes.append(size)
    if not values:
        return (
            None,
            f"none of its subtasks ({', '.join(leaves[:5])}) has {key}, so the group cannot be re-derived",
        )
    total = sum(sizes)
    pooled = pooled_mean(values, sizes) if total else plain_mean(values)
    return (pooled, plain_mean(values)), ""


class _Leaves:
    """The leaf tasks under each group as lm-eval lists them, worked out once per group within a budget.

    lm-eval extends a group's list with each subgroup's, so a task under two subgroups is pooled twice; so
    it is here. One group's own list never names a task twice (it is a dict's keys): such a list is no
    lm-eval output, and its group is not re-derived. group_subtasks is the submitter's: a subgroup named 200 times on each of eight levels
    names its tasks 200^8 times, so every task listed is a step of a budget, and past it the group cannot
    be re-derived. A group's nesting is its own height, whatever group the walk started from."""

    def __init__(self, groups: dict, budget: int = STEP_BUDGET):
        self.groups, self.budget = groups, budget
        self.found: dict[str, tuple[tuple[str, ...], int]] = {}  # group -> (its leaves, its height)
        self.open: set[str] = set()  # the groups being walked: one met again is a cycle

    def spend(self, steps: int) -> bool:
        self.budget -= steps
        return self.budget >= 0

    def of(self, group: str) -> tuple[tuple[str, ...], str]:
        """(the leaves, "") or ((), why they cannot be told)."""
        leaves, _, why = self._walk(group, 0)
        return leaves, why

    def _walk(self, group: str, depth: int) -> tuple[tuple[str, ...], int, str]:
        if group in self.found:
            leaves, height = self.found[group]
            return (leaves, height, "") if depth + height <= MAX_DEPTH else ((), 0, DEEP)
        if group in self.open:
            return (), 0, f"its groups form a cycle through {group}, which lm-eval cannot write"
        if depth >= MAX_DEPTH:
            return (), 0, DEEP
        members = self.groups[group]
        twice = _repeated(members)
        if twice is not None:  # lm-eval lists a group's tasks from dict keys: never one twice
            return (), 0, f"its group_subtasks names {twice} twice, which lm-eval cannot write"
        self.open.add(group)
        gathered: list[str] = []
        height = 1
        for task in members:
            below, levels, why = (
                self._walk(task, depth + 1) if task in self.groups else ((task,), 0, "")
            )
            if not why and not self.spend(len(below)):
                why = TOO_MANY
            if why:
                self.open.discard(group)
                return (), 0, why
            gathered += below
            height = max(height, levels + 1)
        self.open.discard(group)
        self.found[group] = (tuple(gathered), height)
        return self.found[group][0], height, ""


def _repeated(names: list[str]) -> str | None:
    """The first name listed a second time (MMLU's best subtask listed four times would pool it four times), or None."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def _size(task: str, data: Any) -> int | None:
    """A leaf's n-samples (effective, else original)."""
    counts = _table(data, "n-samples").get(task)
    counts = counts if isinstance(counts, dict) else {}
    for name in ("effective", "original"):
        count = counts.get(name)
        if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
            return count
    return None


def _is_number(value: Any) -> bool:
    return number(value) is not None


def _table(data: Any, key: str) -> dict:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}
