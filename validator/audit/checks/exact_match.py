"""exact_match: a generated answer re-scored against its target, as lm-eval's exact_match_hf_evaluate scores it.

GSM8K's exact_match is 1 when the filtered answer (filtered_resps[0]: the
regex filter's number) equals the target once the config's
`regexes_to_ignore` are removed and case is ignored. A sample flipped from 0
to 1, with the aggregates and stderrs recomputed, agreed with everything but
its own answer. Re-scored only where lbnorm runs the task's options exactly
(harness/exact_match.py: the patterns the harness ships, no process_results of
the task's own, one target); otherwise a note says it is not. Recomputed
values go to the aggregates check (LB708, LB709).
"""

from __future__ import annotations

from collections.abc import Callable

from .base import AuditCheck, Sample, audit_check, untraced_target
from .math_answers import is_leaderboard_math

METRIC = "exact_match"
METRIC_KEYS = frozenset(
    {"metric", "aggregation", "higher_is_better"}
)  # the rest are the metric's options


@audit_check(order=35)
class ExactMatch(AuditCheck):
    """Recomputes exact_match of generate_until tasks for the aggregates check (LB708, LB709)."""

    def __init__(self, log):
        super().__init__(log)
        self.options: dict | None = None
        # The harness's exact_match, imported by sees_samples for a task it scores, so other audits never load it
        self.scorer: Callable[[str, str, dict], float] | None = None
        self.unaudited: str | None = (
            None  # why the task's exact_match cannot be re-scored (LB716 on its numbers)
        )

    @classmethod
    def applies(cls, log) -> bool:
        # sees_samples reads the config of a generate_until task, or says why a reported exact_match is not re-scored
        return log.spec.output_type == "generate_until" or METRIC in log.spec.reported_metrics

    def sees_samples(self) -> bool:
        config = self.spec.config
        # The last entry of the name: lm-eval's ConfigurableTask overwrites its options entry by entry
        entry = (
            next(
                (
                    item
                    for item in reversed(config.get("metric_list") or ())
                    if isinstance(item, dict) and item.get("metric") == METRIC
                ),
                None,
            )
            if isinstance(config.get("metric_list"), list)
            else None
        )
        if entry is None or self.spec.output_type != "generate_until":
            # A reported exact_match the config does not name as a generated answer's (metric_list deleted, its
            # entry a bare string, output_type misspelt) is still checked: lm-eval scores it all the same.
            if METRIC in self.spec.reported_metrics:
                self.unaudited = (
                    "the config names it in no metric_list entry of a generate_until task, so what "
                    "the harness compared is not known"
                )
            return False
        from ...harness.exact_match import exact_match, scorable_options

        options = {key: value for key, value in entry.items() if key not in METRIC_KEYS}
        why = (
            "the task scores with its own process_results"
            if config.get("process_results")
            else "the task's gold is one of its choices (doc_to_choice)"
            if config.get("doc_to_choice") is not None
            else scorable_options(options)
        )
        if why is not None:
            # The config is the submitter's: one line of process_results or a regex of its own switched the
            # re-scoring off. Only the leaderboard MATH's own scorer (its answers traced by LB724) is a note.
            if config.get("process_results") and is_leaderboard_math(self.spec):
                self.summary.notes.append(f"exact_match is not re-scored: {why}")
            else:
                self.unaudited = why
            return False
        self.options, self.scorer = options, exact_match
        return True

    def finish(self) -> None:
        for key, (metric, _) in self.spec.metric_parts:
            if metric == METRIC and self.unaudited is not None:
                self.not_audited(key, self.unaudited)

    def add(self, sample: Sample) -> None:
        data = sample.data
        if METRIC not in data:
            return
        filtered, target = data.get("filtered_resps"), data.get("target")
        if (
            not sample.target_traced
        ):  # the gold would be the sample's own word (a target moved to the answer)
            self.unaudited = self.unaudited or untraced_target(self.spec.config)
            return
        if (
            type(sample.traced_target) is list
        ):  # several gold answers (TriviaQA's aliases): any one matching counts
            golds = sample.traced_target
            if (
                golds
                and all(type(gold) is str for gold in golds)
                and type(filtered) is list
                and filtered
                and isinstance(filtered[0], str)
            ):
                scorer, options = self.scorer, self.options
                assert scorer is not None and options is not None  # set by sees_samples
                sample.recomputed[METRIC] = max(
                    scorer(filtered[0], gold, options) for gold in golds
                )
                sample.recomputed_by = "its filtered answer and any of its targets give"
            else:
                self.unaudited = (
                    self.unaudited or "a target of several answers that are not all text"
                )
            return
        if not (
            type(filtered) is list
            and filtered
            and isinstance(filtered[0], str)
            and isinstance(target, str)
        ):
            self.log.at_record(
                "LB702",
                sample.record,
                ("filtered_resps",),
                (
                    f"{self.spec.name}: exact_match needs filtered_resps[0] and target as strings, as lm-eval logs a "
                    "generated answer and its target"
                ),
            )
            return
        scorer, options = self.scorer, self.options
        assert scorer is not None and options is not None  # set by sees_samples
        sample.recomputed[METRIC] = scorer(filtered[0], target, options)
        sample.recomputed_by = "its filtered answer and target give"
