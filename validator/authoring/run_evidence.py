"""What one run says about its tasks: output type, metrics, sizes, and choice counts with their evidence.

A choice count is read from the run, never guessed: from `configs` when
doc_to_choice is a literal list, else from the sample logs, where a
multiple-choice task makes one log-likelihood request per choice, so the
number of requests logged for a doc is the number of choices scored for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..audit.reported_tasks import known_tasks
from ..core.results import STDERR_MARKER
from ..harness.samples import requests
from ..io.documents import DocumentError
from ..io.limits import Limits
from ..io.readers import read_results
from ..io.sample_logs import discover, read_records, task_of

MAX_DISTINCT_COUNTS = (
    64  # a log whose docs have more distinct choice counts than this is summarised
)


@dataclass
class ChoiceEvidence:
    """How many choices each doc of one task's log was scored with."""

    log: str
    docs: int = 0
    counts: dict[int, int] = field(default_factory=dict)  # choices -> docs
    problem: str | None = None

    def add(self, record_data: Any) -> None:
        if not isinstance(record_data, dict):
            return
        choices = len(requests(record_data.get("arguments")))
        self.docs += 1
        if choices in self.counts or len(self.counts) < MAX_DISTINCT_COUNTS:
            self.counts[choices] = self.counts.get(choices, 0) + 1

    @property
    def single_count(self) -> int | None:
        return next(iter(self.counts)) if len(self.counts) == 1 and self.docs else None

    def describe(self) -> str:
        if self.problem:
            return f"{self.log} could not be read ({self.problem})"
        if not self.counts:
            return f"{self.log} holds no samples"
        shown = ", ".join(f"{c} choices in {n:,} docs" for c, n in sorted(self.counts.items())[:6])
        return f"{self.log}: {shown}"


@dataclass
class TaskFacts:
    name: str
    output_type: str | None = None
    metrics: dict[str, list[str]] = field(default_factory=dict)  # metric -> filters
    n: int | None = None
    num_fewshot: int | None = None
    config_choices: int | None = None  # a literal doc_to_choice list
    log: ChoiceEvidence | None = None

    def choices(self) -> tuple[int | None, str]:
        """The choice count the run proves, and how (or why it cannot tell)."""
        logged = self.log.single_count if self.log else None
        if self.config_choices is not None and logged not in (None, self.config_choices):
            assert self.log is not None  # logged is its count
            return None, (
                f"configs list {self.config_choices} choices but {self.log.describe()}; "
                "check which one your leaderboard's baseline uses"
            )
        if self.config_choices is not None:
            evidence = " and the sample log agrees" if logged else ""
            return (
                self.config_choices,
                f"doc_to_choice in configs is a literal list of {self.config_choices}{evidence}",
            )
        if logged is not None:
            assert self.log is not None  # logged is its count
            return (
                logged,
                f"every one of the {self.log.docs:,} docs in {self.log.log} was scored with {logged} choices",
            )
        if self.log is not None and len(self.log.counts) > 1:
            return None, (
                f"docs have different counts ({self.log.describe()}); the Open LLM Leaderboard "
                f"takes the largest, {max(self.log.counts)}, for such a task (MuSR object_placements)"
            )
        if self.log is not None:
            return None, f"the sample log does not give one number: {self.log.describe()}"
        return (
            None,
            "doc_to_choice is not a literal list; pass the task's sample log (lm-eval --log_samples)",
        )


@dataclass
class RunFacts:
    results: Path
    tasks: dict[str, TaskFacts]  # leaf tasks, in file order
    groups: dict[str, list[str]]  # group -> its leaf tasks (lm-eval group_subtasks)
    outer_groups: set[str]  # groups that hold other groups
    group_entries: set[str]  # groups with their own entry in results
    logs_used: list[str] = field(default_factory=list)
    log_problems: list[str] = field(default_factory=list)


def read_run(
    results_path: Path, data: dict, samples: list[Path] | None, limits: Limits
) -> RunFacts:
    """The facts of a parsed results file, with the choice counts its logs prove."""
    harness = read_results(data)
    groups, outer = _leaf_groups(data.get("group_subtasks"))
    group_names = set(groups) | set(_dict(data.get("groups")))
    configs = _dict(data.get("configs"))
    # configs holds every leaf task of a 0.4.x run; older files only have results entries
    leaf_names = [
        name
        for name in {**dict.fromkeys(harness.entries), **dict.fromkeys(configs)}
        if name not in group_names
    ]
    tasks = {}
    for name in leaf_names:
        entry = harness.entries.get(name)
        config = _dict(configs.get(name))
        facts = TaskFacts(
            name,
            output_type=config.get("output_type")
            if isinstance(config.get("output_type"), str)
            else None,
        )
        for metric, flt in entry.metrics if entry else {}:
            if STDERR_MARKER not in metric:
                facts.metrics.setdefault(metric, []).append(flt)
        count = harness.n_samples.get(name)
        facts.n = count.original if count and _count(count.original) else None
        facts.num_fewshot = entry.num_fewshot if entry and _count(entry.num_fewshot, 0) else None
        literal = config.get("doc_to_choice")
        if isinstance(literal, list) and len(literal) >= 2:
            facts.config_choices = len(literal)
        tasks[name] = facts
    run = RunFacts(
        results_path,
        tasks,
        {g: [t for t in leaves if t in tasks] for g, leaves in groups.items()},
        outer,
        {g for g in group_names if g in harness.entries},
    )
    _read_logs(run, data, samples, limits)
    return run


def _read_logs(run: RunFacts, data: dict, samples: list[Path] | None, limits: Limits) -> None:
    if samples is None:
        found, problems = discover(run.results, known_tasks(data))
        run.log_problems += problems
        placed = [(log.task, log.path) for log in found]
    else:
        placed = []
        for path in samples:
            task = task_of(path.name, set(run.tasks))
            if task is None:
                run.log_problems.append(
                    f"{path}: not placed; name it samples_<task>_<date>.jsonl "
                    "with a task of the results file"
                )
            else:
                placed.append((task, path))
    for task, path in placed:
        if task not in run.tasks:
            continue
        evidence = ChoiceEvidence(path.name)
        try:
            for record in read_records(path, limits):
                evidence.add(record.data)
        except DocumentError as exc:
            evidence.problem = f"line {exc.line}: {exc.message}" if exc.line else exc.message
        run.tasks[task].log = evidence
        run.logs_used.append(str(path))


def _leaf_groups(block: Any) -> tuple[dict[str, list[str]], set[str]]:
    """Each group of group_subtasks with its leaf tasks (nested groups flattened), and the groups of groups."""
    table = {
        g: [c for c in children if isinstance(c, str)]
        for g, children in _dict(block).items()
        if isinstance(children, list) and children
    }

    def leaves(group: str, seen: frozenset) -> list[str]:
        out = []
        for child in table.get(group, ()):
            if child in table and child not in seen:
                out += leaves(child, seen | {child})
            elif child not in table:
                out.append(child)
        return out

    outer = {g for g, children in table.items() if any(c in table for c in children)}
    return {group: leaves(group, frozenset({group})) for group in table}, outer


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _count(value: Any, minimum: int = 1) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum
