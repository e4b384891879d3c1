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

from ..spec import MISSING
from .base import AuditCheck, audit_check, shown


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
