"""LB3xx: are the tasks in the results the ones the leaderboard scores?"""

from __future__ import annotations

import fnmatch
import math
import os
import re
from collections.abc import Iterator

from ...core.profile import MULTIPLE_CHOICE, Benchmark
from ...core.results import is_respelled
from ...findings import ERROR, WARNING
from ...findings.registry import rule
from ..context import CheckContext, Hit

MAX_NAMES = 5


@rule("LB301", "unknown-task", WARNING)
def unknown_task(ctx: CheckContext) -> Iterator[Hit]:
    """The results carry a task the profile does not know; it is ignored.

    Extra tasks are common (a harness run often includes more than the
    leaderboard uses), so this is a warning. A name close to a profile task
    is LB302; one in a multiple-choice benchmark's family is LB304.
    """
    for name, entry in _unknown_entries(ctx):
        if not _suggestion(ctx, name) and not _family(ctx, name):
            yield Hit(
                *ctx.at_results("results", entry.key),
                f"task '{name}' is not part of profile {ctx.profile.name}; it is ignored",
            )


@rule("LB302", "misspelled-task", ERROR)
def misspelled_task(ctx: CheckContext) -> Iterator[Hit]:
    """A task name is close to, but not, a profile task: probably renamed or misspelled.

    The message suggests the intended name. The profile task itself is then
    also reported missing (LB303).
    """
    for name, entry in _unknown_entries(ctx):
        suggestion = _suggestion(ctx, name)
        if suggestion:
            yield Hit(
                *ctx.at_results("results", entry.key),
                f"unknown task '{name}'; did you mean '{suggestion}'?",
            )


@rule("LB303", "missing-task", ERROR)
def missing_task(ctx: CheckContext) -> Iterator[Hit]:
    """A task the leaderboard scores is not in the results.

    The leaderboard requires every subtask (all 24 of BBH): averaging over
    whatever happens to be present gives a different number. Rerun the
    missing tasks.
    """
    missing: dict[str, list[str]] = {}
    for bench, task, entry in ctx.profile_tasks():
        if entry is None and not bench.retired:
            missing.setdefault(bench.id, []).append(task.name)
    for bench_id, names in missing.items():
        bench = ctx.profile.benchmark(bench_id)
        shown = ", ".join(names[:MAX_NAMES]) + (
            f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
        )
        yield Hit(
            *ctx.at_results("results"),
            f"{bench.name}: {len(names)} of {len(bench.tasks)} tasks missing ({shown}); "
            f"the leaderboard uses all {len(bench.tasks)}",
        )


@rule("LB304", "unknown-choice-count", WARNING)
def unknown_choice_count(ctx: CheckContext) -> Iterator[Hit]:
    """A task looks like a subtask of a multiple-choice benchmark, but the profile has no choice count for it.

    Without a choice count there is no random-guess baseline, so it cannot be
    normalized; the leaderboard does not score it (for example BBH's
    free-form dyck_languages). If a reported number includes it, LB601 fires.
    """
    for name, entry in _unknown_entries(ctx):
        bench = _family(ctx, name)
        if bench and not _suggestion(ctx, name):
            yield Hit(
                *ctx.at_results("results", entry.key),
                f"'{name}' looks like a {bench.name} subtask, but profile {ctx.profile.name} has no "
                f"choice count for it; {bench.name} uses exactly its {len(bench.tasks)} listed tasks",
            )


@rule("LB305", "missing-metric", ERROR)
def missing_metric(ctx: CheckContext) -> Iterator[Hit]:
    """A task is present but lacks the metric the leaderboard reads (for example acc_norm,none).

    A key lm-eval never writes is no such metric either: `acc_norm, none` (blanks around a part)
    is named here where it stands alone, and is LB103 beside the `acc_norm,none` it copies.
    """
    for bench, _task, entry in ctx.profile_tasks():
        if entry is None:
            continue
        for metric in bench.metrics:
            written = entry.raw_keys.get((metric, bench.filter))
            if (metric, bench.filter) not in entry.metrics:
                present = ", ".join(entry.metric_keys()) or "none"
                yield Hit(
                    *ctx.at_results("results", entry.key),
                    f"{entry.key} has no metric '{metric},{bench.filter}' (it has: {present})",
                )
            elif written is not None and is_respelled(written):
                yield Hit(
                    *ctx.at_results("results", entry.key, written),
                    f"{entry.key} has no metric '{metric},{bench.filter}': '{written}' is not a key "
                    f"lm-eval writes (blanks around a part); write '{metric},{bench.filter}'",
                )


def _unknown_entries(ctx: CheckContext):
    return [(name, entry) for name, (entry, _, _) in _unknown(ctx).items()]


def _suggestion(ctx: CheckContext, name: str) -> str | None:
    return _unknown(ctx)[name][1]


def _family(ctx: CheckContext, name: str) -> Benchmark | None:
    return _unknown(ctx)[name][2]


def _unknown(ctx: CheckContext) -> dict[str, tuple]:
    """Unknown result entries -> (entry, closest profile task or None, benchmark family or None).

    Worked out once per file and shared by LB301, LB302 and LB304: a hostile
    file can hold hundreds of thousands of task names.
    """
    if "unknown_tasks" in ctx.memo:
        return ctx.memo["unknown_tasks"]
    found: dict[str, tuple] = {}
    if ctx.results is not None:
        profile_names = list(ctx.profile.task_index())
        by_length: dict[int, list[str]] = {}
        for candidate in profile_names:
            by_length.setdefault(len(candidate), []).append(candidate)
        known = set(profile_names) | set(ctx.profile.other_entries)
        known |= {b.group for b in ctx.profile.benchmarks if b.group}
        families = _family_prefixes(ctx)
        # The profile's ignore_tasks globs as one pattern: one match per name, however many globs.
        ignored = (
            re.compile("|".join(map(fnmatch.translate, ctx.profile.ignore_tasks)))
            if ctx.profile.ignore_tasks
            else None
        )
        for name, entry in ctx.results.entries.items():
            if name not in known and not (ignored and ignored.match(name)):
                family = next(
                    (bench for prefix, bench in families if name.startswith(prefix)), None
                )
                found[name] = (entry, _closest(name, by_length), family)
    ctx.memo["unknown_tasks"] = found
    return found


def _closest(name: str, by_length: dict[int, list[str]], cutoff: float = 0.85) -> str | None:
    """difflib.get_close_matches(n=1, cutoff), looking only at names of a length that can match.

    A ratio is at most 2*min(a, b)/(a + b) for lengths a and b, so a name of
    length a can only match lengths between a*c/(2-c) and a*(2-c)/c.
    """
    size = len(name)
    candidates = [
        c
        for length in range(
            math.ceil(size * cutoff / (2 - cutoff)), math.floor(size * (2 - cutoff) / cutoff) + 1
        )
        for c in by_length.get(length, ())
    ]
    if not candidates:
        return None
    import difflib  # here: only an unknown task name asks, and an honest check then never loads it

    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(name)
    best, best_ratio = None, cutoff
    for candidate in candidates:
        matcher.set_seq1(candidate)
        if matcher.quick_ratio() >= best_ratio and (ratio := matcher.ratio()) >= best_ratio:
            if best is None or ratio > best_ratio:
                best, best_ratio = candidate, ratio
    return best


def _family_prefixes(ctx: CheckContext) -> list[tuple[str, Benchmark]]:
    """Task-name prefixes of the multiple-choice benchmarks with several tasks."""
    prefixes = []
    for bench in ctx.profile.benchmarks:
        if bench.output_type != MULTIPLE_CHOICE or len(bench.tasks) < 2:
            continue
        prefix = os.path.commonprefix([t.name for t in bench.tasks])
        if len(prefix) >= 4:
            prefixes.append((prefix, bench))
    return prefixes
