"""Which tasks a results file reports, and which of its entries are groups: what its logs must cover."""

from __future__ import annotations

from typing import Any


def known_tasks(data: Any) -> set[str]:
    """Leaf tasks a log can belong to: configs keys (lm-eval 0.4.x writes one log per config), else results keys."""
    if not isinstance(data, dict):
        return set()
    for key in ("configs", "results"):
        table = data.get(key)
        if isinstance(table, dict) and table:
            return set(table)
    return set()


def reported_tasks(data: Any) -> set[str]:
    """known_tasks, and every results entry that is not a declared group (declared_groups).

    The submitter writes configs and group_subtasks too: deleting a task's config (and its log), or naming
    it a group, must not take its numbers out of a survey, which reports each task without a log (LB707)
    and re-derives each group from its subtasks. A file without configs cannot tell its leaf tasks from
    its groups, so there it is known_tasks."""
    tasks = known_tasks(data)
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("configs"), dict)
        or not data["configs"]
    ):
        return tasks
    results = data.get("results")
    results = results if isinstance(results, dict) else {}
    return tasks | (set(results) - set(declared_groups(data)) - set(unmapped_groups(data)))


def unmapped_groups(data: Any) -> list[str]:
    """Groups of a file that records no group membership (lm-eval before 0.4.2 writes `groups` but no
    `group_subtasks`): entries of its `groups` table without a config. They cannot be re-derived (LB404)."""
    if (
        not isinstance(data, dict)
        or "group_subtasks" in data
        or not isinstance(data.get("groups"), dict)
    ):
        return []
    configs = data.get("configs")
    configs = configs if isinstance(configs, dict) else {}
    return sorted(group for group in data["groups"] if group not in configs)


def declared_groups(data: Any) -> dict[str, list[str]]:
    """group -> its subtasks, for each group_subtasks entry naming subtasks the file holds (not itself)."""
    if not isinstance(data, dict) or not isinstance(data.get("group_subtasks"), dict):
        return {}
    tables = [data.get(key) for key in ("configs", "results")]
    held = {task for table in tables if isinstance(table, dict) for task in table}
    groups = {}
    for group, subtasks in data["group_subtasks"].items():
        if (
            isinstance(subtasks, list)
            and subtasks
            and all(isinstance(task, str) for task in subtasks)
            and group not in subtasks
            and set(subtasks) <= held
        ):
            groups[group] = subtasks
    return groups
