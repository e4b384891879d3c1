"""Multiple choice: acc and acc_norm re-derived from each sample's log-likelihoods (and loglikelihood's acc)."""

from __future__ import annotations

from typing import Any, TypeGuard

from ...harness.choice_scores import (
    ChoiceScores,
    NotRecomputable,
    ScoredOtherwise,
    choice_scores,
    mc2_acc,
    winogrande_scores,
)
from ...harness.samples import request_contexts
from .base import AuditCheck, Sample, audit_check, untraced_target

CHOICE_METRICS = ("acc", "acc_norm", "acc_mutual_info")  # the metrics add() looks for


@audit_check(order=30)
class MultipleChoice(AuditCheck):
    """Recomputes acc/acc_norm for the aggregates check (LB708, LB709); LB702 when they cannot be.

    What a sample holds decides, not only the config's output_type, which the
    submitter writes: a sample with a log-likelihood per choice is scored as
    multiple choice whatever the config says (and LB702 says the two differ),
    so relabelling a task cannot switch its scoring off.
    """

    def __init__(self, log):
        super().__init__(log)
        self.delimiters = self.spec.choice_delimiters  # once per log: _delimiter runs per sample
        self.output_type = self.spec.output_type  # once per log: a property's call per sample
        self.own_scorer = bool(
            self.spec.config.get("process_results")
        )  # TruthfulQA mc2: acc is its function's
        # metric -> why some samples were not scored independently of their own fields: LB716 on its number
        self.unscored: dict[str, str] = {}

    def add(self, sample: Sample) -> None:
        data = sample.data
        # em and f1 beside acc do not make a sample DROP's: they must not switch its log-likelihoods' scoring off
        if "acc" not in data and "acc_norm" not in data:
            return
        output_type, resps = self.output_type, data.get("filtered_resps")
        if output_type == "multiple_choice":
            _score_choices(self, sample)
        elif _one_pair_per_choice(resps):
            self.log.at_record(
                "LB702",
                sample.record,
                ("filtered_resps",),
                (
                    f"{self.spec.name}: the config's output_type is {output_type!r}, but the sample holds {len(resps)} "
                    "[log-likelihood, is_greedy] pairs, one per choice as multiple_choice logs them; it is scored as "
                    "multiple choice"
                ),
            )
            _score_choices(self, sample)
        elif output_type == "loglikelihood" and "acc" in data:
            self._score_greedy(sample, resps)

    def _recomputed(self, sample: Sample, scores: ChoiceScores) -> None:
        """The recomputed scores the sample logs, for the aggregates check (written out: this runs per sample)."""
        data, recomputed = sample.data, sample.recomputed
        if "acc" in data:
            recomputed["acc"] = scores.acc
        if scores.acc_norm is not None and "acc_norm" in data:
            recomputed["acc_norm"] = scores.acc_norm
        if scores.acc_mutual_info is not None and "acc_mutual_info" in data:
            recomputed["acc_mutual_info"] = scores.acc_mutual_info
        sample.recomputed_by = "its log-likelihoods give"

    def _score_own(self, sample: Sample) -> None:
        """A config with its own process_results: TruthfulQA mc2's is re-derived (the true answers' share of the
        probability); any other leaves the task's numbers unaudited (LB716), since the submitter writes the
        config and one line of it could switch the scoring off."""
        doc = sample.data.get("doc")
        own = "the config scores it with its own process_results, which lbnorm does not run"
        if not (type(doc) is dict and "mc2_targets" in doc):
            self._unscored(
                CHOICE_METRICS,
                own + " (it re-derives lm-eval's TruthfulQA mc2, whose docs hold mc2_targets)",
            )
            return
        self._unscored(CHOICE_METRICS[1:], own + " (TruthfulQA mc2's gives acc alone)")
        try:
            acc = mc2_acc(sample.data.get("filtered_resps"), doc)
        except NotRecomputable as exc:
            self.log.at_record(
                "LB702", sample.record, ("filtered_resps",), f"acc cannot be recomputed: {exc}"
            )
            return
        if "acc" in sample.data:
            sample.recomputed["acc"] = acc
        sample.recomputed_by = "TruthfulQA mc2's share of the probability on the true answers gives"

    def _score_multiple_input(self, sample: Sample, why: str) -> ChoiceScores | None:
        """Winogrande's layout, whose gold its doc_to_text gives from doc.answer; another task's leaves its
        numbers unaudited (LB716)."""
        try:
            scores = winogrande_scores(
                sample.data.get("filtered_resps"),
                sample.data.get("doc"),
                request_contexts(sample.data.get("arguments")),
            )
        except NotRecomputable as exc:
            self.log.at_record(
                "LB702", sample.record, ("filtered_resps",), f"acc cannot be recomputed: {exc}"
            )
            return None
        if scores is None:
            self._unscored(
                CHOICE_METRICS,
                f"{why}, and the doc is not Winogrande's (sentence, option1, option2, answer)",
            )
        return scores

    def _unscored(self, metrics: tuple[str, ...], why: str) -> None:
        for metric in metrics:
            self.unscored.setdefault(metric, why)

    def finish(self) -> None:
        for key, (metric, _) in self.spec.metric_parts:
            why = self.unscored.get(metric)
            if why is not None:
                self.not_audited(key, why)

    def _delimiter(self, continuations: list) -> str:
        """Under a chat template (two delimiters): the one these continuations were written with, the config's, or
        none when they do not all start with it (TaskSpec.choice_delimiters)."""
        first = self.delimiters[0]
        if not all(type(c) is str and c.startswith(first) for c in continuations):
            return self.delimiters[1]
        return first

    def _score_greedy(self, sample: Sample, resps: Any) -> None:
        """lm-eval's loglikelihood task: acc is whether the continuation was the greedy one."""
        greedy = _is_greedy(resps[0]) if isinstance(resps, list) and len(resps) == 1 else None
        if greedy is None:
            self.log.at_record(
                "LB702",
                sample.record,
                ("filtered_resps",),
                "acc cannot be recomputed: a "
                "loglikelihood sample's filtered_resps is one [log-likelihood, is_greedy] pair",
            )
            return
        sample.recomputed["acc"] = 1.0 if greedy else 0.0
        sample.recomputed_by = "its is_greedy gives"


def _one_pair_per_choice(resps: Any) -> TypeGuard[list]:
    """Several [log-likelihood, is_greedy] pairs: what lm-eval logs for multiple_choice, and only for it."""
    return (
        isinstance(resps, list)
        and len(resps) > 1
        and all(isinstance(pair, list) and len(pair) == 2 for pair in resps)
    )


def _is_greedy(pair: Any) -> bool | None:
    """is_greedy of a logged pair: a boolean (<= 0.4.2) or its string (>= 0.4.3)."""
    if not (isinstance(pair, list) and len(pair) == 2):
        return None
    flag = pair[1]
    if isinstance(flag, bool):
        return flag
    return {"True": True, "False": False}.get(flag) if isinstance(flag, str) else None


def _score_choices(check: MultipleChoice, sample: Sample) -> None:
    data = sample.data
    if check.own_scorer:
        check._score_own(sample)
        return
    try:
        continuations = sample.continuations()
        target = sample.traced_target if sample.target_traced else data.get("target")
        if target is None and sample.target_traced:
            return  # the harness gives this doc no target, and would have failed: LB722 says so
        scores = choice_scores(
            data.get("filtered_resps"),
            data.get("arguments"),
            target,
            check.delimiters[0] if len(check.delimiters) == 1 else check._delimiter(continuations),
            "acc_mutual_info" in data,
            continuations,
            sample.target_traced,
        )
    except ScoredOtherwise as exc:
        multiple_input = check._score_multiple_input(sample, str(exc))
        if multiple_input is None:
            return
        scores = multiple_input
    except NotRecomputable as exc:
        check.log.at_record(
            "LB702", sample.record, ("filtered_resps",), f"acc cannot be recomputed: {exc}"
        )
        return
    else:
        if (
            not sample.target_traced
        ):  # the gold is then the sample's own word: a target moved to the pick passed
            check._unscored(CHOICE_METRICS, untraced_target(check.spec.config))
    check._recomputed(sample, scores)
