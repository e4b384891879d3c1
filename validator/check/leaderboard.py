"""The leaderboard's table, built from accepted submissions: every score recomputed, every row traced.

A submission gets a row only when `lbnorm check` passes it: the scores come
from the check's own recomputation from the results file (never from what
the submission reports), the average is the profile's, and each row names
the results file it was computed from and that file's SHA-256, so anyone
can recompute it. Rows are ranked by average (equal averages share a rank,
the next rank skips), ties listed by model then path, so the table is the
same whatever order the submissions were given in.

Each run is ranked once, and each model once: two submissions whose results
files have the same SHA-256, or that name the same model (compared without
case, as model hub ids are), are refused. A results file's `task_hashes` are
not compared: they hash the task's docs, prompts and targets, not the
model's answers, so every honest run of the same tasks shares them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.natural import natural_key
from ..core.profile import Profile
from ..findings import ERROR, WARNING
from ..io.documents import DocumentError
from ..io.limits import DEFAULT_LIMITS, Limits
from ..io.loaders import sha256_of
from .context import AVERAGE
from .result import CheckResult


class Refused(Exception):
    """The submissions cannot make a leaderboard; the message names the files and the fix."""


@dataclass(frozen=True)
class Entry:
    rank: int
    model: str
    average: float
    scores: dict[str, float]  # benchmark id -> normalized score, recomputed from the results file
    results: str  # the results file, as `check` shows it
    sha256: str
    submission: str


@dataclass
class Board:
    profile: str
    benchmarks: tuple[str, ...]  # the profile's, in its average's order
    names: dict[str, str] = field(
        default_factory=dict
    )  # benchmark id -> the profile's display name
    entries: list[Entry] = field(default_factory=list)


def build(
    result: CheckResult, profile: Profile, root: Path, strict: bool, limits: Limits = DEFAULT_LIMITS
) -> Board:
    """The board of the checked submissions; Refused if any fails the check or cannot be ranked."""
    failing = sorted(
        {
            finding.file
            for finding in result.findings
            if finding.severity == ERROR or (strict and finding.severity == WARNING)
        },
        key=natural_key,
    )
    if failing:
        shown = ", ".join(failing[:5]) + (
            f" and {len(failing) - 5:,} more" if len(failing) > 5 else ""
        )
        raise Refused(
            f"{len(failing):,} {'files fail' if len(failing) > 1 else 'file fails'} `lbnorm check` "
            f"({shown}); "
            "a leaderboard takes accepted submissions only: fix them or leave them out"
        )
    rows = []
    for report in result.files:
        rows.append(_row(report, profile, root, limits))
    if not rows:
        raise Refused("no submission was given; name submission files (JSON with `results`)")
    _refuse_repeats(rows)
    rows.sort(key=lambda row: (-row[0], natural_key(row[1]), natural_key(row[3])))
    entries: list[Entry] = []
    rank = 0
    for position, (average, model, scores, submission, results, digest) in enumerate(rows, 1):
        rank = rank if entries and average == entries[-1].average else position
        entries.append(Entry(rank, model, average, scores, results, digest, submission))
    return Board(
        profile.name,
        tuple(profile.average_order),
        {bench.id: bench.name for bench in profile.benchmarks},
        entries,
    )


def _row(report, profile: Profile, root: Path, limits: Limits) -> tuple:
    if report.kind != "submission":
        raise Refused(
            f"{report.path}: a results file, not a submission; write a submission for it "
            "(lbnorm submission init) and name that"
        )
    if report.profile != profile.name:
        raise Refused(
            f"{report.path}: checked against profile {report.profile}, the leaderboard's is "
            f"{profile.name}; one leaderboard has one profile (give --profile or --profile-file)"
        )
    average = report.recomputed.get(AVERAGE)
    if average is None or report.results is None:
        raise Refused(
            f"{report.path}: no average could be recomputed; a ranked run scores every benchmark"
        )
    try:
        digest = sha256_of(root / report.results, limits)
    except (DocumentError, OSError) as exc:
        raise Refused(f"{report.results}: cannot be read to hash it ({exc})") from None
    scores = {bench: report.recomputed[bench] for bench in profile.average_order}
    model = report.model or Path(report.path).stem
    return average, model, scores, report.path, report.results, digest


def _refuse_repeats(rows: list[tuple]) -> None:
    """Refused where two submissions rank the same results file (by SHA-256) or the same model."""
    by_digest: dict[str, str] = {}
    by_model: dict[str, str] = {}
    for _, model, _, submission, _, digest in sorted(rows, key=lambda row: natural_key(row[3])):
        if digest in by_digest:
            raise Refused(
                f"{by_digest[digest]} and {submission} name the same results file "
                f"(SHA-256 {digest[:12]}...); a leaderboard ranks each run once: leave one out"
            )
        if model.casefold() in by_model:
            raise Refused(
                f"{by_model[model.casefold()]} and {submission} both rank model {model!r}; "
                "a leaderboard ranks each model once: leave one out"
            )
        by_digest[digest] = by_model[model.casefold()] = submission
