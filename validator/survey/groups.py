"""Group entries of a results file (lm-eval's `group_subtasks`), re-derived from their subtasks.

A survey audits tasks against their logs; a group has no log, and the leaderboard scores some benchmarks
(GPQA, MATH) from the group value itself. So each group the file declares is a row of its own whose every
metric must be its subtasks' pooled mean, sum(v_i * n_i) / sum(n_i), or their plain mean (lm-eval's
weight_by_size: false), to 1e-12, over the subtasks that have the metric (as lm-eval pools them); otherwise,
or when none has it or one lacks a sample count, LB404.
Only a group with subtasks the file holds counts as one: a results entry declared a group without them is
a task (audit.auditor.reported_tasks), so declaring a tampered task a group cannot hide it.
"""

from __future__ import annotations

from typing import Any

from ..audit.auditor import declared_groups, unmapped_groups
from ..findings import make_finding
from .rows import finding_row, number, with_metrics

TOLERANCE = 1e-12  # lm-eval's own arithmetic reproduces a group to the last bits (check's LB404)
MAX_DEPTH = 8      # groups of groups: lm-eval's leaderboard nests two deep


def group_rows(run: str, results_name: str, model: str, data: Any) -> list[dict]:
    """A row for each declared group that has a results entry."""
    groups, results = declared_groups(data), _table(data, "results")
    rows = []
    for group in sorted(groups):
        entry = results.get(group)
        if not isinstance(entry, dict):
            continue
        findings, metrics = [], {}
        for key, reported in entry.items():
            if "," not in key or "_stderr" in key.partition(",")[0]:
                continue
            derived, why = _derive(group, key, groups, data, 0)
            metrics[key] = {"reported": reported, "from_samples": None, "recomputed": derived and derived[0]}
            problem = why or _mismatch(reported, derived)
            if problem:
                findings.append(make_finding("LB404", results_name, f"group {group} {key}: {problem}",
                                             f"$.results.{group}"))
        rows.append(with_metrics(finding_row(run, model, group, "", "group", findings), metrics))
    for group in unmapped_groups(data):
        finding = make_finding("LB404", results_name, f"group {group}: the file records no group membership "
                               "(group_subtasks, written since lm-eval 0.4.2), so its numbers cannot be re-derived "
                               "from its subtasks", f"$.groups.{group}")
        rows.append(finding_row(run, model, group, "", "group", [finding]))
    return rows


def _mismatch(reported: Any, derived: tuple[float, float]) -> str | None:
    if not _is_number(reported):
        return f"the results file gives {str(reported)[:40]!r}, not a finite number"
    if min(abs(reported - value) for value in derived) <= TOLERANCE:
        return None
    return f"the results file says {reported!r}, but its subtasks pool to {derived[0]!r} (mean {derived[1]!r})"


def _derive(group: str, key: str, groups: dict, data: Any, depth: int) -> tuple[tuple[float, float] | None, str]:
    """((pooled, plain mean), "") of the subtasks' values of `key`, or (None, why not)."""
    if depth > MAX_DEPTH:
        return None, f"groups nest deeper than {MAX_DEPTH}"
    values, sizes = [], []
    for task in groups[group]:
        entry = _table(data, "results").get(task)
        if not isinstance(entry, dict) or key not in entry:
            continue  # lm-eval pools each metric over the subtasks that have it (leaderboard: acc_norm of three)
        value, size = entry[key], _size(task, groups, data, depth)
        if not _is_number(value):
            return None, f"its subtask {task} has no number for {key}, so the group cannot be re-derived"
        if size is None:
            return None, (f"its subtask {task} has no sample count (n-samples, written since lm-eval 0.4.3), so "
                          "the group cannot be re-derived")
        values.append(value)
        sizes.append(size)
    if not values:
        return None, f"none of its subtasks ({', '.join(groups[group][:5])}) has {key}, so the group cannot be re-derived"
    total = sum(sizes)
    pooled = sum(v * n for v, n in zip(values, sizes)) / total if total else sum(values) / len(values)
    return (pooled, sum(values) / len(values)), ""


def _size(task: str, groups: dict, data: Any, depth: int) -> int | None:
    """A leaf's n-samples (effective, else original); a subgroup's is its subtasks' sum."""
    if task in groups:
        if depth >= MAX_DEPTH:
            return None
        sizes = [_size(sub, groups, data, depth + 1) for sub in groups[task]]
        return None if None in sizes else sum(sizes)
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
