"""What the normalizer needs from a results file, whatever harness wrote it."""

import re
from typing import Any, NamedTuple

STDERR_MARKER = "_stderr"
# Keys of an lm-eval 0.4 results entry that are no metric.
ENTRY_INFO_KEYS = frozenset({"alias", "name", "sample_len", "sample_count", "samples"})


def metric_key_parts(key: str) -> tuple[str, str]:
    """(metric, filter) of a results entry's key: "acc,none" -> ("acc", "none"). A key without a filter part ("acc",
    as lm-eval 0.3 and lighteval write it, or "acc,") is filter none. Every reader of results entries (the score,
    the rules, the audit) parses keys with this one function, so a key means the same (metric, filter) to each.
    Blanks around either part are no part of a name ("acc_norm, none" is acc_norm under filter none), so a
    re-spelled key folds onto the key it copies (LB103) and is named where it stands alone (LB305)."""
    metric, _, flt = key.partition(",")
    return metric.strip(), flt.strip() or "none"


def is_respelled(key: str) -> bool:
    """A metric key lm-eval never writes: blanks around its metric or filter part ("acc_norm, none")."""
    metric, _, flt = key.partition(",")
    return metric != metric.strip() or flt != flt.strip()


def is_stderr(metric: str) -> bool:
    return STDERR_MARKER in metric


def folded_metric_keys(keys: Any) -> tuple[str, str] | None:
    """The first two keys of an entry that parse to the same (metric, filter) ("acc" and "acc,none"), or None."""
    seen: dict[tuple[str, str], str] = {}
    for key in keys:
        if not isinstance(key, str) or key in ENTRY_INFO_KEYS:
            continue
        parts = metric_key_parts(key)
        if parts in seen:
            return seen[parts], key
        seen[parts] = key
    return None


def folded_message(task: str, first: str, second: str) -> str:
    metric, flt = metric_key_parts(second)
    return (
        f"results.{task} has both '{first}' and '{second}', which both mean {metric} under filter {flt}; "
        "keep one key"
    )


def harness_version(text: Any) -> tuple[int, ...]:
    """lm_eval_version as numbers ("0.4.9.1" -> (0, 4, 9, 1)); () when it is no version."""
    match = (
        re.match(r"(\d{1,6})\.(\d{1,6})(?:\.(\d{1,6}))?", text) if isinstance(text, str) else None
    )
    return tuple(int(part) for part in match.groups() if part is not None) if match else ()


def sample_counts_evidence(n_samples: Any, task_hashes: Any, lm_eval_version: Any) -> tuple | None:
    """Where a results file shows that its lm-eval writes n-samples for every task (its JSON path), or None.

    lm-eval 0.4.3 on writes n-samples for every task, and task_hashes beside it (an empty object when no samples
    were logged); 0.4.9 on also writes its version. A file with any of the three lost its counts to an edit where
    one is missing; only a file with none of them (lm-eval before 0.4.3) has no counts to hold its logs to.
    """
    if isinstance(n_samples, dict):
        return ("n-samples",)
    if isinstance(task_hashes, dict):
        return ("task_hashes",)
    if harness_version(lm_eval_version) >= (0, 4, 3):
        return ("lm_eval_version",)
    return None


def versions_disagree(listed: Any, declared: Any) -> bool:
    """`versions.<task>` against configs.<task>.metadata.version: lm-eval writes both from the same task.

    lm-eval 0.4.0 wrote "Yaml" (ConfigurableTask.VERSION) for every task made from a YAML config, and read no
    metadata.version: that says nothing against the config.
    """
    if listed == "Yaml":
        return False
    return float_or_none(listed) is None or float_or_none(listed) != float_or_none(declared)


def fewshot_disagrees(n_shot: Any, config: dict) -> bool:
    """`n-shot.<task>` against configs.<task>.num_fewshot, which lm-eval writes it from in the same run.

    0.4.3 to 0.4.9 write metadata.num_fewshot instead when num_fewshot is 0 (a task that documents the shots
    its chat variant was meant for); a num_fewshot of none was written as 0 or null.
    """
    declared = config.get("num_fewshot")
    allowed = [declared]
    if declared is None or float_or_none(declared) == 0:
        metadata = config.get("metadata")
        allowed += [0, None, metadata.get("num_fewshot", 0) if isinstance(metadata, dict) else 0]
    return not any(
        n_shot is None
        if value is None
        else float_or_none(n_shot) is not None and float_or_none(n_shot) == float_or_none(value)
        for value in allowed
    )


def float_or_none(value: Any) -> float | None:
    """The value as a float; None for a bool and for anything float() refuses."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


class SampleCount(NamedTuple):
    """lm-eval's n-samples entry: documents in the split and documents scored."""

    original: Any
    effective: Any
    is_object: bool = (
        True  # False: the entry is no {original, effective} object at all (lm-eval writes one)
    )


class TaskEntry:
    """One task or group entry of a results file.

    `metrics` maps (metric, filter) to the value exactly as it was in the file
    (a number, "N/A", a bool...): judging values is the normalizer's job.
    Formats without filters (lm-eval 0.3, lighteval) use the filter "none".
    """

    def __init__(
        self,
        key: str,
        name: str,
        metrics: dict[tuple[str, str], Any],
        num_fewshot: Any = None,
        num_fewshot_path: tuple = (),
        raw_keys: dict[tuple[str, str], str] | None = None,
    ) -> None:
        self.key, self.name, self.metrics = key, name, metrics
        self.num_fewshot = num_fewshot
        self.num_fewshot_path = (
            num_fewshot_path  # where num_fewshot was read, in the results object
        )
        self.raw_keys = {} if raw_keys is None else raw_keys  # (metric, filter) -> key as written

    def metric_path(self, metric: str, flt: str) -> tuple:
        """JSON path of a metric inside the results object (the entry itself if absent)."""
        raw = self.raw_keys.get((metric, flt))
        return ("results", self.key, raw) if raw else ("results", self.key)

    def metric_keys(self) -> list[str]:
        return [f"{m},{f}" for (m, f) in self.metrics if not is_stderr(m)]


class HarnessResults:
    """A results file in the format-neutral model: each task's entry and sample count, whatever harness wrote it."""

    def __init__(
        self,
        format: str,
        model: str | None,
        entries: dict[str, TaskEntry],
        n_samples: dict[str, SampleCount] | None = None,
        versions: dict[str, Any] | None = None,
        config_versions: dict[str, Any] | None = None,
        limit: Any = None,
        limit_path: tuple = (),
        sample_counts_evidence: tuple | None = None,
    ) -> None:
        self.format, self.model, self.entries = format, model, entries
        self.n_samples = {} if n_samples is None else n_samples
        self.versions = {} if versions is None else versions
        # lm-eval 0.4: configs.<task>.metadata.version
        self.config_versions = {} if config_versions is None else config_versions
        self.limit, self.limit_path = limit, limit_path
        # Where the file shows it is lm-eval 0.4.3 or later, which writes n-samples for every task; None: older.
        self.sample_counts_evidence = sample_counts_evidence

    def find(self, names: tuple[str, ...]) -> TaskEntry | None:
        for name in names:
            if name in self.entries:
                return self.entries[name]
        return None
