"""LB5xx: was the run the one the leaderboard asks for?

The conditions themselves are worked out once, in core.conditions, so that
`normalize` states exactly the caveats `check` reports; each rule here
turns its own caveats into findings.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...findings import ERROR, WARNING
from ...findings.registry import rule
from ..context import CheckContext, Hit


def _caveats(ctx: CheckContext, rule_id: str) -> Iterator[Hit]:
    for caveat in ctx.conditions():
        if caveat.rule == rule_id:
            yield Hit(*ctx.at_results(*caveat.path), caveat.message)


@rule("LB501", "partial-run-limit", ERROR)
def partial_run_limit(ctx: CheckContext) -> Iterator[Hit]:
    """The harness ran with a sample limit (lm-eval `config.limit`, lighteval `max_samples`).

    A limited run scores a subset; lm-eval itself prints "REAL METRICS SHOULD
    NOT BE COMPUTED USING LIMIT". Rerun without the limit.
    """
    yield from _caveats(ctx, "LB501")


@rule("LB502", "partial-run-samples", ERROR)
def partial_run_samples(ctx: CheckContext) -> Iterator[Hit]:
    """A task scored fewer documents than its split has (`n-samples.effective` < `original`)."""
    yield from _caveats(ctx, "LB502")


@rule("LB503", "fewshot-mismatch", ERROR)
def fewshot_mismatch(ctx: CheckContext) -> Iterator[Hit]:
    """A task ran with a few-shot count other than the profile's (BBH 3, MATH 4, MMLU-PRO 5, others 0)."""
    yield from _caveats(ctx, "LB503")


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
        yield Hit(
            ctx.submission,
            ("model",),
            f"submission is for '{named}', but the results are for '{actual}'",
        )


@rule("LB505", "stale-scorer", WARNING)
def stale_scorer(ctx: CheckContext) -> Iterator[Hit]:
    """A task version is outside the versions behind the published values (MATH before Math-Verify).

    The profile's version gate (outside: stale_scorer) says which versions
    the published values come from. The recomputed score is exact for this
    file, and a submission that reports it passes with this warning; a
    published value differing from it cannot be verified from this file
    (LB606). On four official small-model runs the published Math-Verify
    MATH was 2-4 times the old-scorer value (+0.68 to +0.76 points).
    """
    yield from _caveats(ctx, "LB505")


@rule("LB506", "sample-count-mismatch", ERROR)
def sample_count_mismatch(ctx: CheckContext) -> Iterator[Hit]:
    """`n-samples` gives a split size other than the leaderboard's, or more documents scored than the split has.

    The sizes are the profile's (docs/reference/normalization.md). n-samples weights the
    pooled benchmarks (GPQA, MATH) when the file has no group value, so a
    count is checked before it is used. lm-eval 0.4.3 and later writes both
    counts of every task as whole numbers: a count that is none, or missing
    where the file shows that lm-eval (n-samples of other tasks, `task_hashes`,
    `lm_eval_version`), is this rule too, never "no count".
    """
    yield from _caveats(ctx, "LB506")


@rule("LB507", "version-gate", ERROR)
def version_gate(ctx: CheckContext) -> Iterator[Hit]:
    """A task version is one the leaderboard refused (profile version gate), or the file gives none.

    The v1 leaderboard skipped results whose MMLU (hendrycksTest) task
    version was 0: the old MMLU gives different numbers (a real v0.3 run of
    LLaMA-7B gives 38.29 where the leaderboard shows 35.69). A task with no
    version cannot be shown to pass the gate, so it fails it.
    """
    yield from _caveats(ctx, "LB507")


@rule("LB508", "version-conflict", ERROR)
def version_conflict(ctx: CheckContext) -> Iterator[Hit]:
    """`versions.<task>` differs from `configs.<task>.metadata.version`.

    lm-eval writes both from the same task definition; when they disagree
    the file was edited, and a version claim (which can turn LB601 into
    LB606/LB607) cannot be trusted.
    """
    yield from _caveats(ctx, "LB508")


@rule("LB509", "other-harness", ERROR)
def other_harness(ctx: CheckContext) -> Iterator[Hit]:
    """A benchmark is present only as another harness's tasks (lm-eval 0.4's mmlu_*, truthfulqa_mc2, gsm8k).

    They come from a different harness than the leaderboard's, so their
    numbers are not comparable; the message says what differs and what is
    known of the size of the difference (profile `other_harness_tasks`).
    """
    yield from _caveats(ctx, "LB509")


def _hub_id(model: str) -> bool:
    parts = model.split("/")
    return len(parts) == 2 and all(parts) and not model.startswith((".", "~")) and "\\" not in model
