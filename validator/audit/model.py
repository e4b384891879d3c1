"""What the audit reports: per-task and per-metric results, the DROP report, the whole audit's result."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..findings import Findings


@dataclass
class MetricAudit:
    """One reported metric of a task, beside its aggregate from the logged and the recomputed per-sample values."""

    key: str  # "acc_norm,none"
    reported: Any  # as in the results file
    from_samples: float | None = None  # the aggregate of the logged per-sample values
    recomputed: float | None = (
        None  # the aggregate of values recomputed from the samples' own fields
    )
    samples: int = 0
    note: str | None = None


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


@dataclass
class DropAudit:
    """The submission-level DROP report: counts, rates and rescorings of the deep dive."""

    n: int = 0
    n_expected: int | None = None
    em_reported: Any = None
    f1_reported: Any = None
    em_recomputed_sum: float = 0.0
    f1_recomputed_sum: float = 0.0
    n_mismatch: int = 0
    glued: int = 0
    glued_lost_gold: int = 0
    decimal_cut: int = 0
    possibly_cut: int = 0
    long_answer: int = 0
    long_answer_loss_sum: float = 0.0
    decimal_golds: int = 0
    sums: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(
            ("em_nl", "f1_nl", "em_nl_lstrip", "f1_nl_lstrip", "f1_ws"), 0.0
        )
    )
    until_config: list[str] | None = None
    until_samples: list[list[str]] = field(default_factory=list)
    doc_to_text: Any = None
    num_fewshot: Any = None
    version: Any = None
    first: dict[str, tuple[int, int]] = field(default_factory=dict)  # flag -> (doc_id, line)
    flagged: list[FlaggedSample] = field(default_factory=list)

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


@dataclass
class TaskAudit:
    """What the audit of one task's log found: its samples, hashes, metrics and notes."""

    task: str
    log: str
    samples: int = 0
    filters: dict[str, int] = field(default_factory=dict)  # filter -> samples
    expected: int | None = None  # n-samples.effective
    hashes_checked: int = 0
    hash_mismatches: int = 0
    task_hash: str = "not checked"
    metrics: list[MetricAudit] = field(default_factory=list)
    drop: DropAudit | None = None
    notes: list[str] = field(default_factory=list)

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


@dataclass
class AuditResult(Findings):
    """The audit of one results file: its findings and each audited task."""

    results_file: str = ""
    tasks: list[TaskAudit] = field(default_factory=list)
