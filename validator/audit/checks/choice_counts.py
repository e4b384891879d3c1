"""Choice counts with evidence: the profile's num_choices against the choices each doc was scored with.

A multiple-choice task makes one log-likelihood request per answer choice,
so the number of requests logged for a doc is the number of choices the
model was scored on. The profile's num_choices sets the random-guess
baseline 1/num_choices; when no doc of the log has that many choices, or
some doc has more, the baseline is not the task's and every normalized
score built on it is wrong. The known example is BBH object_counting:
about.md says it "should be 18", the task scores 19 ("0" to "18"), and with
1/18 a published BBH comes out one check off in the second decimal.

Compared with the largest count per doc, not every doc: MuSR
object_placements builds its choices per document (some have fewer than 5)
and the leaderboard still uses 5. A run of part of such a task's split (--limit:
n-samples effective < original) may not have met a doc with every choice; it
is still LB715, since n-samples is the submitter's and a variant with fewer
choices would otherwise pass as "partial", but the message says so and that
the whole split proves the count. Runs only when a profile is known: the
check's (a submission listing its logs), or the one given to `lbnorm audit`
or `lbnorm survey` with --profile / --profile-file.
Rule LB715; a match is written to the task's notes as the proof.
"""

from __future__ import annotations

from ...findings import ERROR
from ...findings.registry import rule
from ...harness.samples import requests
from ...io.sample_logs import SampleRecord
from .base import AuditCheck, Sample, audit_check

MAX_DISTINCT_COUNTS = 64  # distinct choice counts kept for the message; a log can hold any numbers


@rule("LB715", "choice-count-evidence", ERROR, runs=False)
def choice_count_evidence(ctx):
    """The profile's num_choices is not the number of choices the sample log scored per doc.

    A multiple-choice task makes one log-likelihood request per choice, so a
    log proves how many choices each doc had. The profile's count (the
    baseline 1/num_choices) must be the largest of them: BBH object_counting
    scores 19 choices although its documentation says "should be 18", and
    1/18 shifts BBH. Runs in `check` for submissions that list their logs;
    fix the profile, or run the task the leaderboard runs.
    """


@audit_check(order=50)
class ChoiceCounts(AuditCheck):
    """LB715: the profile's choice count is not the number of choices scored per doc in the log."""

    def __init__(self, log):
        super().__init__(log)
        self.expected = log.expected_choices
        self.docs_by_count: dict[int, int] = {}
        self.first_over: tuple[SampleRecord, int, int] | None = None  # record, doc_id, count
        self.first: tuple[SampleRecord, int, int] | None = None

    @classmethod
    def applies(cls, log) -> bool:
        return log.expected_choices is not None  # the profile's count, to prove

    def sees_samples(self) -> bool:
        return self.expected is not None and self.spec.output_type in (None, "multiple_choice")

    def add(self, sample: Sample) -> None:
        count = len(requests(sample.data.get("arguments")))
        if count == 0:
            return  # no requests logged: nothing to prove with (other checks report the sample's shape)
        if count in self.docs_by_count or len(self.docs_by_count) < MAX_DISTINCT_COUNTS:
            self.docs_by_count[count] = self.docs_by_count.get(count, 0) + 1
        if self.first is None:
            self.first = (sample.record, sample.doc_id, count)
        if count > self.expected and self.first_over is None:
            self.first_over = (sample.record, sample.doc_id, count)

    def finish(self) -> None:
        if self.expected is None:
            return
        if self.first is None:
            self.summary.notes.append(
                f"no sample logs its requests: num_choices {self.expected} is not proven"
            )
            return
        seen = ", ".join(
            f"{count} in {docs:,}" for count, docs in sorted(self.docs_by_count.items())[:8]
        )
        largest = max(self.docs_by_count)
        task, expected = self.spec.name, self.expected
        if largest == expected:
            self.summary.notes.append(
                f"num_choices {expected} of the profile is what the log scored "
                f"(choices per doc: {seen})"
            )
            return
        if self.first_over is not None:
            record, doc_id, count = self.first_over
            found = f"doc_id {doc_id} was scored with {count} choices, more than that"
        else:
            record, doc_id, count = self.first
            found = f"no doc was scored with that many (at most {largest})"
            if self._partial() and len(self.docs_by_count) > 1:  # see the module docstring
                found += (
                    f", though this run logs only {self.spec.n_effective:,} of {self.spec.n_original:,} "
                    "documents, and its task builds choices per doc: run the whole split to prove the count"
                )
        self.log.at_record(
            "LB715",
            record,
            ("arguments",),
            (
                f"{task}: the profile's num_choices is {expected} (baseline 1/{expected}), but {found}; choices per "
                f"doc: {seen}. The baseline must be the task's: fix num_choices in the profile, or run the "
                "leaderboard's task"
            ),
        )

    def _partial(self) -> bool:
        effective, original = self.spec.n_effective, self.spec.n_original
        return effective is not None and original is not None and effective < original
