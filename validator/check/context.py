"""What a rule sees: one submission (or bare results file), its results, the profile, the scores."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from ..core.conditions import Caveat, StaleScorer, run_conditions, stale_scorers
from ..core.normalization import BenchmarkScore
from ..core.profile import Benchmark, Profile, Task
from ..core.results import HarnessResults, TaskEntry
from ..io.documents import Document, JsonPath

REPORTED = "reported"
AVERAGE = "average"


@dataclass(frozen=True)
class Hit:
    """A rule's raw result: which document, where in it, and what is wrong."""

    document: Any  # io.documents.Document
    path: tuple
    message: str


@dataclass
class CheckContext:
    profile: Profile
    tolerance: float
    submission: Document | None  # None: a bare results file
    results_doc: Document | None = None  # the document that holds the results object
    results_root: JsonPath = ()  # where the results object sits in results_doc
    results: HarnessResults | None = None
    scores: dict[str, BenchmarkScore] = field(default_factory=dict)
    unscored: dict[str, str] = field(default_factory=dict)  # benchmark id -> why not
    average: float | None = None
    memo: dict[str, Any] = field(default_factory=dict)  # work rules share, computed once per file
    stale_scorer_bound: float | None = None  # the maintainer's --stale-scorer-bound, if given

    # --- the submission ---------------------------------------------------------------
    def submission_data(self) -> dict:
        data = self.submission.data if self.submission else None
        return data if isinstance(data, dict) else {}

    def reported(self) -> dict[str, Any]:
        value = self.submission_data().get(REPORTED)
        return value if isinstance(value, dict) else {}

    # --- the results -------------------------------------------------------------------
    def results_object(self) -> dict:
        data: Any = self.results_doc.data if self.results_doc else None
        for part in self.results_root:
            data = data.get(part) if isinstance(data, dict) else None
        return data if isinstance(data, dict) else {}

    def at_results(self, *path: str | int) -> tuple[Document, JsonPath]:
        # Only rules that read the results ask, and they run only when the results were read.
        return cast(Document, self.results_doc), self.results_root + tuple(path)

    def conditions(self) -> list[Caveat]:
        """The run-condition caveats (core.conditions), shared with `normalize`; [] without results."""
        if "conditions" not in self.memo:
            self.memo["conditions"] = (
                run_conditions(self.profile, self.results) if self.results else []
            )
        return self.memo["conditions"]

    def stale(self) -> dict[str, StaleScorer]:
        """Benchmarks whose results say they were scored by an older scorer than the published values."""
        if "stale" not in self.memo:
            self.memo["stale"] = stale_scorers(self.profile, self.results) if self.results else {}
        return self.memo["stale"]

    def profile_tasks(self) -> list[tuple[Benchmark, Task, TaskEntry | None]]:
        """Every task of the profile with its results entry (None when missing); [] without results."""
        if self.results is None:
            return []
        return [
            (bench, task, self.results.find(task.names))
            for bench in self.profile.benchmarks
            for task in bench.tasks
        ]

    def sample_count(self, entry: TaskEntry, task: Task, metric: str) -> int | None:
        """N behind a 0/1 metric: instructions for IFEval inst-level, else documents scored."""
        counts = self.results.n_samples.get(entry.key) if self.results else None
        effective = counts.effective if counts and _positive_int(counts.effective) else None
        if metric in task.metric_n:
            complete = counts is None or counts.effective == counts.original
            return task.metric_n[metric] if complete else None
        return effective if effective is not None else task.n


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1
