"""Reporters for `normalize`: a human table (two decimals) and a JSON contract (full precision).

JSON contract (stable; keys are only ever added):
    {"lbnorm_version": str,
     "files": [{"path", "profile", "format", "model", "scores": {id: float}, "average": float | null,
                "complete": bool, "missing": {id: why}, "caveats": [{"rule", "severity", "path", "message"}],
                "raw": {id: float}, "raw_sources": {id: str}, "retired": {id: float},
                "subtasks": {id: [{"task", "key", "metric", "raw", "num_choices",
                                   "lower_bound", "normalized", "n", "n_source"}]}}],

"average" is null unless every benchmark of the profile's average is scored
("complete"); "caveats" are the run conditions `check` reports as LB5xx
findings, from the same code (core.conditions).
     "errors": [{"path": str, "message": str}]}
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TextIO

from ..check.rules import all_rules
from ..core.conditions import Caveat
from ..core.normalization import FROM_GROUP, BenchmarkScore, FileScores, SubtaskScore
from ..core.profile import MEAN_OF_METRICS, POOLED
from ..core.version import __version__
from ..findings import ERROR, format_json_path
from ..findings.registry import split_message
from ..io.safe_text import neutralize_json, one_line
from .formats import Reporter
from .text_style import Painter, ReportOptions, finding_line

CAVEATS_SHOWN = 3  # per rule, in text


@dataclass(frozen=True)
class Outcome:
    path: str
    scores: FileScores | None = None
    error: str | None = None
    rule: str = "LB202"  # the rule the error breaks, as check would report it


# --- JSON ---------------------------------------------------------------------------


def report_json(outcomes: Iterable[Outcome], out: TextIO, options: ReportOptions) -> None:
    """{"lbnorm_version", "files": [...], "errors": [...]}, written file by file.

    Outcomes may be a generator: each file's entry is written as soon as it
    is scored, so a re-run over thousands of files keeps memory flat.
    """
    errors = []
    out.write(f'{{\n  "lbnorm_version": {json.dumps(__version__)},\n  "files": [')
    separator = "\n"
    for outcome in outcomes:
        if outcome.error:
            errors.append({"path": outcome.path, "rule": outcome.rule, "message": outcome.error})
        if outcome.scores:
            out.write(separator + _indented(_file_json(outcome.path, outcome.scores), 4))
            separator = ",\n"
    out.write(
        ("\n  ]" if separator == ",\n" else "]")
        + ',\n  "errors": '
        + _indented(errors, 2).lstrip()
        + "\n}\n"
    )


def _indented(value, spaces: int) -> str:
    text = neutralize_json(json.dumps(value, indent=2, ensure_ascii=True, allow_nan=False))
    return "\n".join(" " * spaces + line for line in text.splitlines())


def _file_json(path: str, fs: FileScores) -> dict:
    in_average = [b for b in fs.benchmarks.values() if not b.retired]
    return {
        "path": path,
        "profile": fs.profile,
        "format": fs.format,
        "model": fs.model,
        "scores": fs.scores,
        "average": fs.average,
        "complete": fs.complete,
        "missing": {bench_id: why for bench_id, (_name, why) in fs.missing.items()},
        "caveats": [_caveat_json(c) for c in fs.caveats],
        "raw": {b.id: b.raw for b in in_average},
        "raw_sources": {b.id: b.raw_source for b in in_average if b.raw_source},
        "retired": {b.id: b.score for b in fs.benchmarks.values() if b.retired},
        "subtasks": {b.id: [_subtask_json(s) for s in b.subtasks] for b in fs.benchmarks.values()},
    }


def _subtask_json(s: SubtaskScore) -> dict:
    return {
        "task": s.task,
        "key": s.key,
        "metric": s.metric,
        "raw": s.raw,
        "num_choices": s.num_choices,
        "lower_bound": s.lower_bound,
        "normalized": s.normalized,
        "n": s.n,
        "n_source": s.n_source,
    }


# --- text ---------------------------------------------------------------------------


def report_text(outcomes: Iterable[Outcome], out: TextIO, options: ReportOptions) -> None:
    first = True
    for outcome in outcomes:
        if outcome.scores is None:
            if outcome.error:  # the finding line every command prints
                out.write(finding_line(_as_finding(outcome), Painter(False)))
            continue
        if not first:
            out.write("\n")
        first = False
        out.write(_file_text(outcome.path, outcome.scores, options.explain))


def _as_finding(outcome: Outcome):
    from ..findings import make_finding

    message = (outcome.error or "").removeprefix(f"{outcome.path}: ")
    line = column = None
    match = re.match(rf"{re.escape(outcome.path)}:(\d+):(\d+): ", message)
    if match:
        line, column = int(match[1]), int(match[2])
        message = message[match.end() :]
    return make_finding(outcome.rule, outcome.path, message, line=line, column=column)


def _file_text(path: str, fs: FileScores, explain: bool) -> str:
    lines = [
        one_line(path),
        f"  model {one_line(fs.model or 'unknown')} | {fs.format} | profile {fs.profile}",
        f"  {'Benchmark':<14}{'Raw':>8}{'Score':>9}",
    ]
    for bench in fs.benchmarks.values():
        retired = "  (retired: not in the average)" if bench.retired else ""
        lines.append(f"  {bench.name:<14}{bench.raw:>8.4f}{bench.score:>9.2f}{retired}")
    for name, why in fs.missing.values():
        lines.append(f"  {name:<14}{'-':>8}{'-':>9}  (missing: {one_line(why, 300)})")
    if fs.average is None:
        lines.append(
            f"  {'Average':<14}{'':>8}{'-':>9}  (incomplete: {len(fs.missing)} benchmark(s) missing, "
            "so no average)"
        )
    else:
        lines.append(f"  {'Average':<14}{'':>8}{fs.average:>9.2f}")
    lines.extend(_caveat_lines(fs.caveats))
    for bench in fs.benchmarks.values():
        if bench.raw_source and bench.raw_source != FROM_GROUP:
            lines.append(
                f"  note: {bench.name}: no group value in the file; raw {bench.raw_source}"
            )
    if explain:
        for bench in fs.benchmarks.values():
            lines.extend(_explain(bench))
        if fs.average is not None:
            order = " + ".join(fs.benchmarks[b].name for b in fs.average_order)
            lines.append(f"  Average = ({order}) / {len(fs.average_order)} = {fs.average:.2f}")
    return "\n".join(lines) + "\n"


def _caveat_json(caveat: Caveat) -> dict:
    """A caveat as check reports the same finding: the short message, and the rest as details."""
    message, details = split_message(one_line(caveat.message, 2000))
    entry = {
        "rule": caveat.rule,
        "severity": severity(caveat),
        "path": format_json_path(caveat.path),
        "message": message,
    }
    return {**entry, "details": details} if details else entry


def _caveat_lines(caveats: tuple[Caveat, ...]) -> list[str]:
    """Each caveat on its line, at most CAVEATS_SHOWN per rule in text (JSON has them all)."""
    lines: list[str] = []
    shown: Counter[str] = Counter()
    for caveat in caveats:
        shown[caveat.rule] += 1
        if shown[caveat.rule] <= CAVEATS_SHOWN:
            message = split_message(one_line(caveat.message, 2000))[0]
            lines.append(f"  {severity(caveat)} {caveat.rule}: {message}")
    for rule, count in shown.items():
        if count > CAVEATS_SHOWN:
            lines.append(
                f"  ... and {count - CAVEATS_SHOWN} more {rule} (--output-format json lists them all)"
            )
    return lines


def severity(caveat: Caveat) -> str:
    """A caveat is as severe as the check rule that reports it."""
    return _severities()[caveat.rule]


@functools.cache
def _severities() -> dict[str, str]:
    return {r.id: r.severity for r in all_rules()}


def is_blocking(caveat: Caveat) -> bool:
    return severity(caveat) == ERROR


def _explain(bench: BenchmarkScore) -> list[str]:
    metrics = sorted({s.metric for s in bench.subtasks})
    by_metric = bench.aggregation == MEAN_OF_METRICS
    labels = [s.metric if by_metric else one_line(s.key, 80) for s in bench.subtasks]
    width = max(len(label) for label in labels) + 2
    last = "n" if bench.aggregation == POOLED else "norm"
    lines = [
        "",
        f"  {bench.name} [{bench.aggregation}, metric {', '.join(metrics)}]",
        f"    {'metric' if by_metric else 'task':<{width}}{'raw':>22}{'choices':>9}{'bound':>7}{last:>9}",
    ]
    for label, s in zip(labels, bench.subtasks, strict=True):
        choices = s.num_choices if s.num_choices is not None else "-"
        last_value = f"{s.n:>9}" if bench.aggregation == POOLED else f"{s.normalized:>9.2f}"
        lines.append(
            f"    {label:<{width}}{s.raw!r:>22}{choices!s:>9}{_fraction(s.lower_bound):>7}{last_value}"
            + (f"  ({s.note})" if s.note else "")
        )
    lines.extend(_explain_formula(bench))
    return lines


def _explain_formula(bench: BenchmarkScore) -> list[str]:
    count = len(bench.subtasks)
    if bench.aggregation == POOLED:
        sizes = ", ".join(f"{s.n}" for s in bench.subtasks)
        bound = _fraction(bench.lower_bound)
        return [
            f"    pooled raw = sum(raw_i * n_i) / sum(n_i) with n = [{sizes}] "
            f"(n from {bench.subtasks[0].n_source}) = {bench.pooled_raw!r}",
            f"    raw used: {bench.raw_source}{' ' + one_line(bench.group) if bench.group else ''} = {bench.raw!r}",
            f"    {bench.name} = max({bench.raw!r} - {bound}, 0) / (1 - {bound}) * 100 = {bench.score:.2f}",
        ]
    what = "metrics" if bench.aggregation == MEAN_OF_METRICS else "subtasks"
    return [
        "    per row: norm = max(raw - bound, 0) / (1 - bound) * 100, bound = 1/choices (0 if generative)",
        f"    {bench.name} = sum of {count} normalized {what} / {count} = {bench.score:.2f}",
    ]


def _fraction(bound: float) -> str:
    if bound == 0:
        return "0"
    return str(Fraction(bound).limit_denominator(1000))


REPORTERS: dict[str, Reporter] = {
    "text": report_text,
    "json": report_json,
}
