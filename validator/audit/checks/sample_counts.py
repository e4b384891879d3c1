"""Sample counts: what n-samples says of a task must be what lm-eval can write for it.

Coverage holds a log to n-samples.effective; this check holds n-samples itself,
which the submitter writes like everything else. lm-eval writes both counts
with len(): a count that is no whole number (250.0, "250") is LB706, never
"no count" (that would take coverage's count away). effective must follow from
the run's config.limit (LB717), and with a profile, original must be the
split the leaderboard scores (LB718). A log shortened with effective, its
aggregates and its task hash edited to agree passes every other check; the
first two rules see it, and the third sees it with original edited too.
An honest `--limit` run passes: it is noted, and `check` refuses it (LB501).
"""

from __future__ import annotations

from typing import Any

from ...findings import ERROR
from ...findings.registry import rule
from ..spec import MISSING
from .base import AuditCheck, audit_check, shown


@rule("LB717", "sample-count-unexplained", ERROR, runs=False)
def sample_count_unexplained(ctx):
    """n-samples.effective is not the number of documents the run's `config.limit` lets lm-eval score.

    lm-eval (0.4.3 and later) scores min(limit, split) documents of each
    task, and the whole split without a limit. A smaller count with no limit
    to explain it is the signature of documents dropped from the end of a
    log with the count, the aggregates and the task hash edited to match:
    every other check agrees with such a log. An honest `--limit` run is not
    this rule's (`check` reports it as LB501 and LB502); a run of chosen
    documents (`--samples`: lm-eval 0.4.12 and later write how many, which is
    this rule's; 0.4.9 to 0.4.11 write the whole split, which is LB705's and
    LB706's) is, and no leaderboard takes one.
    """


@rule("LB718", "split-size-evidence", ERROR, runs=False)
def split_size_evidence(ctx):
    """With a profile, a logged task's n-samples.original is not the size of the split the leaderboard scores.

    A log shortened with both n-samples counts, its aggregates and its task
    hash edited agrees with itself and with every count; only the split's
    size, which the profile gives (`n`), tells. Without n-samples (lm-eval
    before 0.4.3) the log itself is held to that size, or to an integer
    `config.limit` below it (LB705, LB706); those versions rounded a
    fractional limit their own way, so it leaves only coverage's holes.
    Runs only with a profile: the check's, or the one given to
    `lbnorm audit` or `lbnorm survey`.
    """


@audit_check(order=25)
class SampleCounts(AuditCheck):
    """LB706 (a count that is no whole number), LB717 (effective against config.limit), LB718 (original
    against the profile's split)."""

    def sees_samples(self) -> bool:
        return False  # everything it needs is in the results file

    def finish(self) -> None:
        spec, task = self.spec, self.spec.name
        for key, value in spec.malformed_counts:
            if not key and value is MISSING:
                self.log.at_results(
                    "LB706",
                    ("n-samples",),
                    (
                        f"{task}: n-samples has no entry for it, but the file is lm-eval 0.4.3 or later (it has "
                        "n-samples for other tasks, task_hashes, or says so), which writes one for every task: without "
                        "it the end of the log is not checked; write the counts the run wrote"
                    ),
                )
                continue
            place = (
                ("n-samples", task, key) if key and value is not MISSING else ("n-samples", task)
            )
            self.log.at_results(
                "LB706",
                place,
                (
                    f"{task}: n-samples{'.' + key if key else ''} is {_shown(value)}, not a whole number of documents "
                    "(lm-eval writes both counts, the split's length and the documents scored); write the counts the run "
                    "wrote"
                ),
            )
        split = self.log.expected_split
        if split is not None and spec.n_original is not None and spec.n_original != split:
            self.log.at_results(
                "LB718",
                ("n-samples", task, "original"),
                (
                    f"{task}: n-samples.original is {_count(spec.n_original)}, but the profile's split has {split:,} "
                    "documents: another dataset, or a log shortened with its counts edited; run the leaderboard's task"
                ),
            )
        if spec.n_effective is not None:
            self._check_effective()

    def _check_effective(self) -> None:
        spec = self.spec
        allowed = spec.scored_under_limit()
        if allowed is None:
            return
        if spec.n_effective not in allowed:
            gives = " or ".join(_count(count) for count in allowed[:4]) + (
                " or ..." if len(allowed) > 4 else ""
            )
            self.log.at_results(
                "LB717",
                ("n-samples", spec.name, "effective"),
                (
                    f"{spec.name}: n-samples says {_count(spec.n_effective)} of {_count(spec.n_original)} documents "
                    f"were scored, but under config.limit {_shown(spec.limit)} lm-eval scores {gives}: documents left "
                    "out with the count edited to match, or a count from another run; rerun the task in full"
                ),
            )
        elif spec.n_effective < spec.n_original:
            self.summary.notes.append(
                f"a partial run: {_count(spec.n_effective)} of {_count(spec.n_original)} documents under config.limit "
                f"{_shown(spec.limit)}; its numbers are its logs', not the whole split's (check: LB501, LB502)"
            )


def _shown(value: Any) -> str:
    return "null" if value is None else shown(value)


def _count(count: int) -> str:
    """A count as a message shows it: a submitter's 300 digits as how many digits they are."""
    text = f"{count:,}"
    return text if len(text) <= 24 else f"a number of {len(str(count))} digits"
