"""What the results file says about one leaf task: its entry, config, sample counts and task hash."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from math import ceil, isfinite
from typing import Any


@dataclass(frozen=True)
class Claims:
    """What a maintainer's profile says of tasks, for their logs to prove: each task's num_choices (LB715) and
    the size of its split (LB718). Without a profile there is nothing to prove."""

    choice_counts: Mapping[str, int] = field(default_factory=dict)
    split_sizes: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of_profile(cls, profile: Any) -> "Claims":
        return cls(profile.choice_counts(), profile.split_sizes()) if profile is not None else cls()


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
    # The n-samples values written for this task that are no count of documents (key, value); lm-eval writes len().
    malformed_counts: tuple[tuple[str, Any], ...] = ()
    originals: tuple[int, ...] = ()  # every task's n-samples.original, when the limit is a fraction (see below)

    @classmethod
    def from_results(cls, data: dict, task: str) -> "TaskSpec":
        def table(key: str) -> dict:
            value = data.get(key)
            return value if isinstance(value, dict) else {}

        written = table("n-samples").get(task)
        counts = written if isinstance(written, dict) else {}
        malformed = tuple((key, counts[key]) for key in ("original", "effective")
                          if key in counts and _count(counts[key]) is None)
        if written is not None and not isinstance(written, dict):
            malformed = (("", written),)
        task_hash = table("task_hashes").get(task)
        entry, config = table("results").get(task), table("configs").get(task)
        limit = table("config").get("limit")
        originals = ()
        if _positive_number(limit) and limit < 1:
            originals = tuple(sorted({_count(c.get("original")) for c in table("n-samples").values()
                                      if isinstance(c, dict) and _count(c.get("original")) is not None}))
        return cls(task, entry if isinstance(entry, dict) else {}, config if isinstance(config, dict) else {},
                   _count(counts.get("effective")), _count(counts.get("original")),
                   task_hash if isinstance(task_hash, str) and task_hash else None, limit, malformed, originals)

    def scored_under_limit(self, split: int | None = None) -> tuple[int, ...] | None:
        """The document counts lm-eval can write as n-samples.effective for this task's split (n-samples.original,
        or `split`) under the run's config.limit; None without a split.

        lm-eval (0.4.3 and later) scores min(limit, split) documents: the whole split without a limit (a limit
        of 0 is none), int(limit) for a limit of 1 or more (the command line gives 10.0). A fraction f gives
        ceil(split * f) from 0.4.5 on; 0.4.3 and 0.4.4 gave every task the first task's ceil(split_1 * f), so
        any task's of the file is allowed. Anything else (a string, true, a negative) lm-eval never writes,
        and is no limit.
        """
        split, limit = split if split is not None else self.n_original, self.limit
        if split is None:
            return None
        if not _positive_number(limit):
            return (split,)
        if limit >= 1:
            return (min(int(limit), split),)
        return tuple(sorted({min(ceil(size * limit), split) for size in {split, *self.originals}}))

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
