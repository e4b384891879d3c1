"""Multiple choice: acc and acc_norm re-derived from each sample's log-likelihoods."""

from __future__ import annotations

from ..sample_scoring import NotRecomputable, choice_scores, is_drop_sample
from .base import AuditUnit, Sample, audit_unit

CHOICE_METRICS = ("acc", "acc_norm")  # the metrics add() looks for


@audit_unit(order=30)
class MultipleChoice(AuditUnit):
    """Recomputes acc/acc_norm for the aggregates unit (LB708, LB709); LB702 when they cannot be."""

    def add(self, sample: Sample) -> None:
        data = sample.data
        if (self.spec.output_type != "multiple_choice" or ("acc" not in data and "acc_norm" not in data)
                or is_drop_sample(data)):
            return
        try:
            scores = choice_scores(data.get("filtered_resps"), data.get("arguments"), data.get("target"),
                                   self.spec.target_delimiter)
        except NotRecomputable as exc:
            self.log.at_record("LB702", sample.record, ("filtered_resps",), f"acc cannot be recomputed: {exc}")
            return
        values = {"acc": scores.acc}
        if scores.acc_norm is not None:
            values["acc_norm"] = scores.acc_norm
        sample.recomputed.update({m: v for m, v in values.items() if m in data})
        sample.recomputed_by = "its log-likelihoods give"
