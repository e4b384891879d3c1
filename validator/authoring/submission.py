"""`lbnorm submission init`: a submission drafted from a run, with the scores recomputed.

The written file is what `lbnorm check` expects: the recomputed scores rounded
to two decimals (as leaderboards display them, well inside the default
tolerance of 0.01), the results path and the sample logs relative to the
submission, the model id the run recorded. What only the author can decide
is listed, not guessed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..audit.reported_tasks import known_tasks
from ..core.errors import DataError
from ..core.normalization import FileScores, score_results
from ..core.profile import Profile
from ..io.documents import kind_of
from ..io.limits import DEFAULT_LIMITS, Limits
from ..io.loaders import load_results, parse, read_text
from ..io.sample_logs import discover

SUBMISSION_NAME = "submission.json"
DECIMALS = 2


@dataclass
class SubmissionDraft:
    path: Path  # where the submission will be written
    results: Path
    scores: FileScores
    data: dict[str, Any]
    logs: list[Path] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)  # what the author still has to decide

    def text(self) -> str:
        return json.dumps(self.data, indent=2, ensure_ascii=False) + "\n"


def draft_submission(
    results: Path,
    output: Path | None,
    profile: Profile,
    builtin: bool,
    model: str | None,
    limits: Limits = DEFAULT_LIMITS,
) -> SubmissionDraft:
    """Score the results file and build the submission that reports those scores."""
    output = output if output is not None else results.parent / SUBMISSION_NAME
    harness = load_results(results, limits)
    try:
        scores = score_results(profile, harness)
    except DataError as exc:
        raise DataError(f"{results}: {exc}") from None
    if scores.average is None:  # a submission reports the average, and a partial run has none
        absent = [f"{name} ({why})" for name, why in scores.missing.values()]
        shown = "; ".join(absent[:3]) + (f"; and {len(absent) - 3} more" if len(absent) > 3 else "")
        raise DataError(
            f"{results}: the run does not score every benchmark of profile {profile.name}, so there "
            f"is no average to submit (missing: {shown}); run the missing tasks, or pass "
            "--profile-file with a profile of the benchmarks it ran"
        )
    decisions = []
    if model is None:
        model = scores.model
        if not model or any(c.isspace() for c in model):
            raise DataError(
                f"{results}: the run does not record the model id (no model_name or "
                "pretrained= in model_args); pass --model ORG/NAME"
            )
        decisions.append(
            f"model: '{model}' is the id the run recorded; check holds the submission to it"
        )
    logs = _sample_logs(results, limits)
    data: dict[str, Any] = {
        "schema_version": 1,
        "model": model,
        "profile": profile.name,
        "results": _relative(results, output.parent),
        "reported": _reported(scores),
    }
    if logs:
        data["samples"] = [_relative(log, output.parent) for log in logs]
    else:
        decisions.append(
            "samples: no samples_<task>_<date>.jsonl beside the results file; a leaderboard that "
            "audits per-sample logs needs a run with --log_samples"
        )
    if not builtin:
        decisions.append(
            f"profile: '{profile.name}' is not built in; check with --profile-file, "
            "as the leaderboard does"
        )
    decisions.append(
        "where it lives: commit the submission with the results file"
        + (" and the logs" if logs else "")
        + " at the paths written in it (relative to the "
        "submission), in the folder the leaderboard asks for"
    )
    return SubmissionDraft(output, results, scores, data, logs, decisions)


def _reported(scores: FileScores) -> dict[str, float]:
    assert scores.average is not None  # draft_submission refuses a run without an average
    reported = {
        bench_id: round(score.score, DECIMALS)
        for bench_id, score in scores.benchmarks.items()
        if bench_id in scores.average_order
    }
    reported["average"] = round(scores.average, DECIMALS)
    return reported


def _relative(path: Path, folder: Path) -> str:
    """Path from the submission's folder, with forward slashes (the form check resolves)."""
    return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()


def _sample_logs(results: Path, limits: Limits) -> list[Path]:
    """The logs lm-eval wrote beside the results file; none when two claim one task (check would refuse them)."""
    data = parse(read_text(results, limits=limits), str(results), kind_of(results), limits=limits)
    tasks = known_tasks(data)
    found, problems = discover(results, tasks)
    if problems:
        raise DataError(f"{results}: {problems[0]}")
    return [
        log.path for log in found if log.task in tasks
    ]  # a log of another run's task would fail check


def write_draft(text: str, path: Path, force: bool) -> None:
    """Write a drafted file; an existing one only with --force (it may hold the author's edits)."""
    if path.exists() and not force:
        raise FileExistsError(str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
