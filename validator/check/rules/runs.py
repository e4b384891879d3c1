"""LB5xx: was the run the one the leaderboard asks for?"""

from __future__ import annotations

from typing import Any, Iterator

from ...findings import ERROR, WARNING
from ...findings.registry import rule
from ..context import CheckContext
from . import Hit


@rule("LB501", "partial-run-limit", ERROR)
def partial_run_limit(ctx: CheckContext) -> Iterator[Hit]:
    """The harness ran with a sample limit (lm-eval `config.limit`, lighteval `max_samples`).

    A limited run scores a subset; lm-eval itself prints "REAL METRICS SHOULD
    NOT BE COMPUTED USING LIMIT". Rerun without the limit.
    """
    if ctx.results is not None and ctx.results.limit is not None:
        yield Hit(*ctx.at_results(*ctx.results.limit_path),
                  f"the run used a sample limit ({ctx.results.limit!r}); leaderboard numbers need full runs")


@rule("LB502", "partial-run-samples", ERROR)
def partial_run_samples(ctx: CheckContext) -> Iterator[Hit]:
    """A task scored fewer documents than its split has (`n-samples.effective` < `original`)."""
    for _bench, _task, entry in ctx.profile_tasks():
        counts = ctx.results.n_samples.get(entry.key) if entry else None
        if counts and _int(counts.effective) and _int(counts.original) and counts.effective < counts.original:
            yield Hit(*ctx.at_results("n-samples", entry.key, "effective"),
                      f"{entry.key} scored {counts.effective} of {counts.original} documents; rerun it in full")


@rule("LB503", "fewshot-mismatch", ERROR)
def fewshot_mismatch(ctx: CheckContext) -> Iterator[Hit]:
    """A task ran with a few-shot count other than the profile's (BBH 3, MATH 4, MMLU-PRO 5, others 0)."""
    for bench, _task, entry in ctx.profile_tasks():
        if entry is None or bench.num_fewshot is None or entry.num_fewshot is None:
            continue
        if entry.num_fewshot != bench.num_fewshot:
            yield Hit(*ctx.at_results(*entry.num_fewshot_path),
                      f"{entry.key} ran {entry.num_fewshot!r}-shot; {bench.name} is {bench.num_fewshot}-shot")


@rule("LB504", "model-mismatch", ERROR)
def model_mismatch(ctx: CheckContext) -> Iterator[Hit]:
    """The submission's model differs from the model named in the results file.

    Compared only when the results name a hub id (org/name); a local path in
    model_args says nothing about the model. Case is ignored, as on the hub.
    """
    named = ctx.submission_data().get("model")
    actual = ctx.results.model if ctx.results else None
    if not (actual and _hub_id(actual)):
        return
    if isinstance(named, str) and named.casefold() != actual.casefold():
        yield Hit(ctx.submission, ("model",), f"submission is for '{named}', but the results are for '{actual}'")


@rule("LB505", "stale-scorer", WARNING)
def stale_scorer(ctx: CheckContext) -> Iterator[Hit]:
    """A task version is older than the scorer behind the published values (MATH before Math-Verify).

    The recomputed score is still exact for this file, but it can differ from
    the leaderboard's published number by a few hundredths: a data/version
    mismatch, not a formula error. The profile's note explains the history.
    """
    for bench in ctx.profile.benchmarks:
        stale = stale_task(ctx, bench)
        if stale:
            name, version = stale
            current = bench.current_task_version
            yield Hit(*ctx.at_results("versions", name),
                      f"{name} is task version {version:g}, older than the {current['version']:g} behind "
                      f"the published {bench.name} values. {current['note']}")


def stale_task(ctx: CheckContext, bench) -> tuple[str, float] | None:
    """(task, version) when the file scored this benchmark with an older scorer than the published one."""
    current = bench.current_task_version
    if not current or ctx.results is None:
        return None
    for task in bench.tasks:
        name = next((n for n in task.names if n in ctx.results.versions), None)
        version = _version(ctx.results.versions.get(name)) if name else None
        if version is not None and version < current["version"]:
            return name, version
    return None


def _hub_id(model: str) -> bool:
    parts = model.split("/")
    return len(parts) == 2 and all(parts) and not model.startswith((".", "~")) and "\\" not in model


def _version(value: Any) -> float | None:
    try:
        return float(value) if not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
