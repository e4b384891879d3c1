"""What the audit reports: per-task and per-metric results, the DROP report, the whole audit's result."""

import math
from typing import Any, NamedTuple

from ..findings import Findings


class MetricAudit:
    """One reported metric of a task, beside its aggregate from the logged and the recomputed per-sample values."""

    def __init__(self, key: str, reported: Any) -> None:
        self.key = key  # "acc_norm,none"
        self.reported = reported  # as in the results file
        self.from_samples: float | None = None  # the aggregate of the logged per-sample values
        self.recomputed: float | None = (
            None  # the aggregate of the values recomputed from the samples' fields
        )
        self.samples = 0
        self.note: str | None = None


class FlaggedSample(NamedTuple):
    """One flagged DROP sample as the audit keeps it; as_dict() is its entry in the report. A tuple, not the dict:
    a third of a DROP log's samples may be flagged, and a dict of thirteen keys built for each was a measurable
    share of their audit. The texts and lists come cut short (DropScoring), so 200 of them stay small."""

    doc_id: int
    line: int
    flags: list[str]
    prediction: str
    golds: list[tuple[str, ...]]
    em: float
    f1: float
    glued: list[str]
    decimal_gold: str | None
    f1_loss: float | None
    f1_split_newline: float
    f1_whitespace_repaired: float

    def as_dict(self) -> dict:
        entry = self._asdict()
        entry["golds"] = [list(gold) for gold in self.golds]
        return entry


class DropAudit:
    """The submission-level DROP report: counts, rates and rescorings of the deep dive."""

    def __init__(
        self,
        n_expected: int | None = None,
        em_reported: Any = None,
        f1_reported: Any = None,
        until_config: list[str] | None = None,
        doc_to_text: Any = None,
        num_fewshot: Any = None,
        version: Any = None,
    ) -> None:
        self.n = 0
        self.n_expected, self.em_reported, self.f1_reported = n_expected, em_reported, f1_reported
        self.em_recomputed_sum = self.f1_recomputed_sum = 0.0
        self.n_mismatch = self.glued = self.glued_lost_gold = self.decimal_cut = (
            self.possibly_cut
        ) = 0
        self.long_answer, self.long_answer_loss_sum, self.decimal_golds = 0, 0.0, 0
        self.sums: dict[str, float] = dict.fromkeys(
            ("em_nl", "f1_nl", "em_nl_lstrip", "f1_nl_lstrip", "f1_ws"), 0.0
        )
        self.until_config = until_config
        self.until_samples: list[list[str]] = []
        self.doc_to_text, self.num_fewshot, self.version = doc_to_text, num_fewshot, version
        self.first: dict[str, tuple[int, int]] = {}  # flag -> (doc_id, line)
        self.flagged: list[FlaggedSample] = []

    def rate(self, count: int) -> float | None:
        return count / self.n if self.n else None

    def mean(self, total: float) -> float | None:
        return total / self.n if self.n else None

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "n_expected": self.n_expected,
            "em_reported": self.em_reported,
            "f1_reported": self.f1_reported,
            "em_recomputed": self.mean(self.em_recomputed_sum),
            "f1_recomputed": self.mean(self.f1_recomputed_sum),
            "n_mismatch": self.n_mismatch,
            "rate_W": self.rate(self.glued),
            "rate_W_impacting": self.rate(self.glued_lost_gold),
            "rate_D": self.rate(self.decimal_cut),
            "rate_D_prime": self.rate(self.possibly_cut),
            "rate_L": self.rate(self.long_answer),
            "mean_L_f1_loss": self.long_answer_loss_sum / self.long_answer
            if self.long_answer
            else None,
            **{name: self.mean(total) for name, total in self.sums.items()},
            "counts": {
                "W": self.glued,
                "W_impacting": self.glued_lost_gold,
                "D": self.decimal_cut,
                "D_prime": self.possibly_cut,
                "L": self.long_answer,
                "decimal_golds": self.decimal_golds,
            },
            "variant": {
                "doc_to_text": self.doc_to_text,
                "until": self.until_config,
                "until_in_samples": self.until_samples,
                "num_fewshot": self.num_fewshot,
                "version": self.version,
            },
            "flagged_samples": [sample.as_dict() for sample in self.flagged],
        }


class TaskAudit:
    """What the audit of one task's log found: its samples, hashes, metrics and notes."""

    def __init__(self, task: str, log: str, expected: int | None = None) -> None:
        self.task, self.log = task, log
        self.samples = 0
        self.filters: dict[str, int] = {}  # filter -> samples
        self.expected = expected  # n-samples.effective
        self.hashes_checked = self.hash_mismatches = 0
        self.task_hash = "not checked"
        self.metrics: list[MetricAudit] = []
        self.drop: DropAudit | None = None
        self.notes: list[str] = []

    def as_dict(self) -> dict:
        """The task's entry in the JSON reports of `audit` and `check` (non-finite numbers become null)."""
        return _finite(
            {
                "log": self.log,
                "samples": self.samples,
                "filters": self.filters,
                "expected": self.expected,
                "hashes_checked": self.hashes_checked,
                "hash_mismatches": self.hash_mismatches,
                "task_hash": self.task_hash,
                "metrics": {
                    m.key: {
                        "reported": m.reported,
                        "from_samples": m.from_samples,
                        "recomputed": m.recomputed,
                        "samples": m.samples,
                        "note": m.note,
                    }
                    for m in self.metrics
                },
                "drop": self.drop.as_dict() if self.drop else None,
                "notes": self.notes,
            }
        )


def _finite(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value


class AuditResult(Findings):
    """The audit of one results file: its findings and each audited task."""

    def __init__(self, results_file: str = "") -> None:
        super().__init__()
        self.results_file = results_file
        self.tasks: list[TaskAudit] = []
