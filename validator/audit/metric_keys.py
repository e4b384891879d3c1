"""What a results entry's key names and a config's metric_list say of a task's metrics, worked out once and
shared by every log they describe alike (a survey audits thousands of logs of a few dozen task shapes)."""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ..core.results import ENTRY_INFO_KEYS, is_stderr, metric_key_parts


def aggregation_of(config: dict, metric: str) -> str:
    """ "mean", "flatten" (IFEval's agg_inst_level_acc) or the aggregation as written; where the config
    writes none, lm-eval's default for the metric (its registry: perplexities, corpus F1, MCC, BLEU...)."""
    for item in reversed(_list(config.get("metric_list"))):  # the last of a name wins in lm-eval
        if isinstance(item, dict) and item.get("metric") == metric:
            if "aggregation" not in item:
                return DEFAULT_AGGREGATIONS.get(metric, "mean")
            text = str(item["aggregation"])
            return "flatten" if "agg_inst_level_acc" in text else text
    return DEFAULT_AGGREGATIONS.get(metric, "mean")


class EntryKeys(NamedTuple):
    """What the names of a results entry's keys say (never their values), shared by every log whose entry has
    the same keys: each metric key with its (metric, filter), in order; their metric and filter names; and
    the first key of each (metric_stderr, filter)."""

    metric_parts: tuple[tuple[str, tuple[str, str]], ...]
    metric_keys: tuple[str, ...]
    metric_names: frozenset[str]
    filter_names: frozenset[str]
    stderr_keys: Mapping[tuple[str, str], str]


_ENTRY_KEYS: dict[tuple, EntryKeys] = {}
MAX_ENTRY_SHAPES = 1024  # distinct key lists kept (a leaderboard's tasks write a few dozen)
MAX_SHARED_KEYS = (
    64  # an entry of more keys (no harness writes one) is worked out for its own log alone
)


def entry_keys(entry: dict) -> EntryKeys:
    """The EntryKeys of a results entry: worked out once per list of key names (the key names alone decide
    them; an entry's values are the entry's own)."""
    names = tuple(entry)
    known = _ENTRY_KEYS.get(names)
    if known is None:
        parts = [
            (key, metric_key_parts(key))
            for key in names
            if isinstance(key, str) and key not in ENTRY_INFO_KEYS
        ]
        metrics = tuple((key, pair) for key, pair in parts if not is_stderr(pair[0]))
        known = EntryKeys(
            metrics,
            tuple(key for key, _ in metrics),
            frozenset(metric for _, (metric, _) in metrics),
            frozenset(flt for _, (_, flt) in metrics),
            MappingProxyType({pair: key for key, pair in reversed(parts)}),
        )
        if len(names) <= MAX_SHARED_KEYS:
            if len(_ENTRY_KEYS) >= MAX_ENTRY_SHAPES:
                _ENTRY_KEYS.clear()
            _ENTRY_KEYS[names] = known
    return known


# lm-eval's registered aggregation of each metric that is not a mean (lm_eval/api/metrics.py, 0.4.x): what a
# metric_list entry without `aggregation` gets. Every other metric is averaged.
DEFAULT_AGGREGATIONS = {
    "perplexity": "perplexity",
    "word_perplexity": "weighted_perplexity",
    "byte_perplexity": "weighted_perplexity",
    "bits_per_byte": "bits_per_byte",
    "f1": "f1",
    "mcc": "matthews_corrcoef",
    "bleu": "bleu",
    "chrf": "chrf",
    "ter": "ter",
    "brier_score": "brier_score",
    "bypass": "bypass",
}


def _list(value: Any) -> list:
    """A config list as written, or [] when the submitter wrote another type (5, "x", an object)."""
    return value if isinstance(value, list) else []
