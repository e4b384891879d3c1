"""What the normalizer needs from a results file, whatever harness wrote it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STDERR_MARKER = "_stderr"


@dataclass(frozen=True)
class SampleCount:
    """lm-eval's n-samples entry: documents in the split and documents scored."""

    original: Any
    effective: Any
    is_object: bool = True  # False: the entry is no {original, effective} object at all (lm-eval writes one)


@dataclass
class TaskEntry:
    """One task or group entry of a results file.

    `metrics` maps (metric, filter) to the value exactly as it was in the file
    (a number, "N/A", a bool...): judging values is the normalizer's job.
    Formats without filters (lm-eval 0.3, lighteval) use the filter "none".
    """

    key: str
    name: str
    metrics: dict[tuple[str, str], Any]
    num_fewshot: Any = None
    num_fewshot_path: tuple = ()   # where num_fewshot was read, in the results object
    raw_keys: dict[tuple[str, str], str] = field(default_factory=dict)  # (metric, filter) -> key as written

    def metric_path(self, metric: str, flt: str) -> tuple:
        """JSON path of a metric inside the results object (the entry itself if absent)."""
        raw = self.raw_keys.get((metric, flt))
        return ("results", self.key, raw) if raw else ("results", self.key)

    def metric_keys(self) -> list[str]:
        return [f"{m},{f}" for (m, f) in self.metrics if STDERR_MARKER not in m]


@dataclass
class HarnessResults:
    format: str
    model: str | None
    entries: dict[str, TaskEntry]
    n_samples: dict[str, SampleCount] = field(default_factory=dict)
    versions: dict[str, Any] = field(default_factory=dict)
    config_versions: dict[str, Any] = field(default_factory=dict)  # lm-eval 0.4: configs.<task>.metadata.version
    limit: Any = None
    limit_path: tuple = ()

    def find(self, names: tuple[str, ...]) -> TaskEntry | None:
        for name in names:
            if name in self.entries:
                return self.entries[name]
        return None
