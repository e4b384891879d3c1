"""`lbnorm profile derive`: a profile drafted from a run of a leaderboard's own tasks.

Each innermost lm-eval group becomes a benchmark of its leaf tasks, and each
task outside a group a benchmark of its own. Facts the run proves are filled
in with their evidence in a note (run_evidence.py); a decision it cannot tell
(which metric, how subtasks combine, a choice count without evidence) is
written as a "FILL IN: ..." string where the schema wants a number or a
fixed word, so the profile fails `lbnorm profile check` and --profile-file
until a person has made it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, cast

from .profile_check import PLACEHOLDER
from .run_evidence import RunFacts, TaskFacts

MULTIPLE_CHOICE, GENERATIVE = "multiple_choice", "generate_until"
_NOT_ID = re.compile(r"[^a-z0-9_]+")


@dataclass
class DraftBenchmark:
    id: str
    name: str
    tasks: list[TaskFacts]
    group: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)


def placeholder(what: str) -> str:
    return f"{PLACEHOLDER}: {what}"


def derive_profile_text(run: RunFacts, name: str, title: str) -> tuple[str, int]:
    """The drafted profile's YAML text and how many placeholders it holds."""
    benchmarks = _benchmarks(run)
    lines = _header(run, name, title, benchmarks)
    for bench in benchmarks:
        lines += _benchmark_lines(bench)
    text = "\n".join(lines) + "\n"
    return text, sum(
        f'"{PLACEHOLDER}: ' in line for line in lines if not line.lstrip().startswith("#")
    )


def _benchmarks(run: RunFacts) -> list[DraftBenchmark]:
    taken: set[str] = set()
    benchmarks = []
    for group, leaves in run.groups.items():
        members = [run.tasks[t] for t in leaves if t in run.tasks and t not in taken]
        if group in run.outer_groups or not members:
            continue
        taken.update(t.name for t in members)
        benchmarks.append(
            DraftBenchmark("", group, members, group if group in run.group_entries else None)
        )
    benchmarks += [
        DraftBenchmark("", t.name, [t]) for t in run.tasks.values() if t.name not in taken
    ]
    ids: set[str] = set()
    for bench in benchmarks:
        bench.id = _unique_id(bench.name, ids)
    return benchmarks


def _unique_id(name: str, ids: set[str]) -> str:
    base = _NOT_ID.sub("_", name.lower()).strip("_")[:60] or "benchmark"
    base = base if base[0].isalpha() else f"b_{base}"[:60]
    candidate, number = base, 2
    while candidate in ids:
        candidate, number = f"{base}_{number}", number + 1
    ids.add(candidate)
    return candidate


def _header(run: RunFacts, name: str, title: str, benchmarks: list[DraftBenchmark]) -> list[str]:
    logs = f" and {len(run.logs_used)} sample log(s)" if run.logs_used else " (no sample logs)"
    lines = [
        f"# Drafted by `lbnorm profile derive` from {run.results.name}{logs}.",
        '# Every "FILL IN: ..." is a decision the run cannot show; `lbnorm profile check FILE`',
        "# lists each with its line, and lbnorm refuses the profile until none is left.",
        "# The format: schemas/profile.schema.json.",
        "profile_format: 1",
        f'name: {_scalar(name)}  # what submissions write under "profile"',
        f"title: {_scalar(title)}",
        "normalize: true  # scores are (raw - 1/num_choices) / (1 - 1/num_choices) x 100, clipped at 0",
        "average:",
        "  # The benchmarks the leaderboard averages, in its order (all of the run's, as drafted).",
        f"  order: [{', '.join(b.id for b in benchmarks)}]",
    ]
    unused = sorted(set(run.groups) - {b.group or b.name for b in benchmarks})
    if unused:
        lines.append("other_entries:  # groups of the run that are not scored as a benchmark")
        lines += [
            f'  - {{task: {_scalar(g)}, note: "group of {len(run.groups[g])} tasks"}}'
            for g in unused
        ]
    lines.append("benchmarks:")
    return lines


def _benchmark_lines(bench: DraftBenchmark) -> list[str]:
    output_type = _output_type(bench.tasks)
    lines = [
        "",
        f"  - id: {bench.id}",
        f"    name: {_scalar(bench.name)}",
        f"    output_type: {_scalar(output_type)}",
        f"    aggregation: {_scalar(_aggregation(bench))}",
    ]
    metrics, flt = _metric_and_filter(bench.tasks)
    lines.append(f"    metrics: [{_scalar(metrics)}]")
    if flt.startswith(
        PLACEHOLDER
    ):  # a list where the schema wants a string, so the draft fails until decided
        lines.append(f"    filter: [{_scalar(flt)}]")
    elif flt != "none":
        lines.append(f"    filter: {_scalar(flt)}")
    if bench.group:
        lines.append(f"    group: {_scalar(bench.group)}")
    shots = {t.num_fewshot for t in bench.tasks}
    if len(shots) == 1 and None not in shots:
        lines.append(f"    num_fewshot: {shots.pop()}")
    lines.append("    tasks:")
    for task in bench.tasks:
        lines += _task_lines(task, output_type == MULTIPLE_CHOICE)
    return lines


def _output_type(tasks: list[TaskFacts]) -> str:
    kinds = {t.output_type for t in tasks}
    if kinds == {MULTIPLE_CHOICE} or kinds == {GENERATIVE}:
        return cast(str, kinds.pop())
    seen = ", ".join(sorted(str(k) for k in kinds))
    return placeholder(
        f"multiple_choice (baseline 1/num_choices) or generate_until (baseline 0); the run says {seen}"
    )


def _aggregation(bench: DraftBenchmark) -> str:
    if len(bench.tasks) == 1:
        return "mean_of_subtasks"
    return placeholder(
        "mean_of_subtasks (plain mean of the subtasks' normalized scores, as the Open LLM "
        "Leaderboard v2) or pooled (the size-weighted group value, normalized once)"
    )


def _metric_and_filter(tasks: list[TaskFacts]) -> tuple[str, str]:
    common = set.intersection(*(set(t.metrics) for t in tasks)) if tasks else set()
    if len(common) != 1:
        shown = ", ".join(sorted(common)) or "none common to its tasks"
        return placeholder(f"the metric the leaderboard reads, one of: {shown}"), "none"
    metric = common.pop()
    filters = set.intersection(*(set(t.metrics[metric]) for t in tasks))
    if filters == {"none"} or not filters:
        return metric, "none"
    if len(filters) == 1:
        return metric, filters.pop()
    return metric, placeholder(
        f"the filter of {metric} the leaderboard reads, one of: {', '.join(sorted(filters))}"
    )


def _task_lines(task: TaskFacts, multiple_choice: bool) -> list[str]:
    lines = [f"      - task: {_scalar(task.name)}"]
    if multiple_choice:
        choices, evidence = task.choices()
        if choices is None:
            lines.append(
                f"        num_choices: {_scalar(placeholder('the number of answer choices; ' + evidence))}"
            )
        else:
            lines.append(f"        num_choices: {choices}")
            lines.append(f"        note: {_scalar('num_choices: ' + evidence)}")
    if task.n is not None:
        lines.append(f"        n: {task.n}")
    return lines


def _scalar(value: Any) -> str:
    """A YAML scalar: JSON's double-quoted strings are valid YAML, and \\u escapes cover every character."""
    return json.dumps(value)
