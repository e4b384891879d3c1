"""What the results file says about one leaf task: its entry, config, sample counts and task hash."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import isfinite
from typing import Any


@dataclass
class TaskSpec:
    """A leaf task as the results file describes it (lm-eval 0.4.x keys, spec A.1.2)."""

    name: str
    entry: dict
    config: dict
    n_effective: int | None
    n_original: int | None
    task_hash: str | None
    limit: Any = None  # the run's config.limit, as written (absent and null alike: no limit)

    @classmethod
    def from_results(cls, data: dict, task: str) -> "TaskSpec":
        def table(key: str) -> dict:
            value = data.get(key)
            return value if isinstance(value, dict) else {}

        counts = table("n-samples").get(task)
        counts = counts if isinstance(counts, dict) else {}
        task_hash = table("task_hashes").get(task)
        entry, config = table("results").get(task), table("configs").get(task)
        return cls(task, entry if isinstance(entry, dict) else {}, config if isinstance(config, dict) else {},
                   _count(counts.get("effective")), _count(counts.get("original")),
                   task_hash if isinstance(task_hash, str) and task_hash else None, table("config").get("limit"))

    def scored_under_limit(self) -> tuple[int, int] | None:
        """The (fewest, most) documents lm-eval scores of this task's split under the run's config.limit, or
        None when n-samples has no split size. lm-eval (0.4.3 and later) writes effective = min(limit, split):
        the whole split without a limit (a limit of 0 is none), int(limit) documents for a limit of 1 or more (the
        command line gives 10.0). A fraction below 1 took ceil(split * limit) from 0.4.9 on and another task's
        count before, so it bounds the count only by the split. Anything else lm-eval never writes."""
        split, limit = self.n_original, self.limit
        if split is None:
            return None
        if not _positive_number(limit):
            return split, split
        if limit < 1:
            return min(1, split), split
        return min(int(limit), split), min(int(limit), split)

    @property
    def output_type(self) -> Any:
        return self.config.get("output_type")

    @property
    def target_delimiter(self) -> str:
        value = self.config.get("target_delimiter", " ")
        return value if isinstance(value, str) else " "

    @property
    def until(self) -> list[str] | None:
        kwargs = self.config.get("generation_kwargs")
        until = kwargs.get("until") if isinstance(kwargs, dict) else None
        if isinstance(until, str):
            return [until]
        return until if isinstance(until, list) and all(isinstance(u, str) for u in until) else None

    @cached_property  # asked for every record
    def filters(self) -> list[str]:
        names = [f.get("name") for f in _list(self.config.get("filter_list")) if isinstance(f, dict)]
        names = [n for n in names if isinstance(n, str)]
        if not names:
            names = sorted({key.partition(",")[2] for key in self.metric_keys()})
        return names or ["none"]

    def metric_keys(self) -> list[str]:
        return [key for key in self.entry if "," in key and "_stderr" not in key.partition(",")[0]]

    def aggregation(self, metric: str) -> str:
        """"mean", "flatten" (IFEval's agg_inst_level_acc) or the aggregation as written; where the config
        writes none, lm-eval's default for the metric (its registry: perplexities, corpus F1, MCC, BLEU...)."""
        for item in _list(self.config.get("metric_list")):
            if isinstance(item, dict) and item.get("metric") == metric:
                if "aggregation" not in item:
                    return DEFAULT_AGGREGATIONS.get(metric, "mean")
                text = str(item["aggregation"])
                return "flatten" if "agg_inst_level_acc" in text else text
        return DEFAULT_AGGREGATIONS.get(metric, "mean")


# lm-eval's registered aggregation of each metric that is not a mean (lm_eval/api/metrics.py, 0.4.x): what a
# metric_list entry without `aggregation` gets. Every other metric is averaged.
DEFAULT_AGGREGATIONS = {
    "perplexity": "perplexity", "word_perplexity": "weighted_perplexity",
    "byte_perplexity": "weighted_perplexity", "bits_per_byte": "bits_per_byte", "f1": "f1",
    "mcc": "matthews_corrcoef", "bleu": "bleu", "chrf": "chrf", "ter": "ter", "brier_score": "brier_score",
    "bypass": "bypass",
}


def _list(value: Any) -> list:
    """A config list as written, or [] when the submitter wrote another type (5, "x", an object)."""
    return value if isinstance(value, list) else []


def _positive_number(value: Any) -> bool:
    """A number above 0 (an integer of 400 digits too: isfinite would raise on it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return value > 0 and (isinstance(value, int) or isfinite(value))


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
