"""The audit checks over a log's samples in batches: each check runs over a batch before the next check does.

One sample at a time through every check, each check's code and state were
evicted from the CPU's caches by the eighteen others before it met the next
sample; over a batch they stay there (a fifth of the audit's time on logs of
realistic size: docs/performance-tried.md). Every
check still sees every sample in log order, after the checks before it
(sample.recomputed), so a check's add reads only its own state and what
earlier checks put on that sample. What the checks find at records while a
batch runs is held, then released in the order one sample at a time made it
(sample, then check): the per-rule caps keep the same findings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..io.sample_logs import SampleRecord
from .checks import Sample

# A batch is sized by the objects and arrays its records parsed into (their openers, counted as each line was
# read): the checks' working set. 600 makes a batch of 16 multiple-choice samples of 4-10 choices and of 60
# GSM8K samples, each the best size measured for its shape (a fixed 16 was a sixth slower on GSM8K's
# samples, of few containers; 32 slower on multiple choice). docs/performance-tried.md has the measurements.
BATCH_CONTAINERS = 600
UNCOUNTED = BATCH_CONTAINERS // 16  # what a record whose reader did not count its openers weighs
BATCH_RECORDS = 256  # records a batch holds at most, however few containers each
BATCH_TEXT = (
    1 << 20
)  # characters of JSON text a batch holds, at most (past one line of more: a line may be 64 MiB)

Report = Callable[[str, SampleRecord, tuple, str], None]  # at_record's finding, made now


class Batches:
    """Runs the checks' adds over batches of a log's samples, holding their findings at records meanwhile."""

    def __init__(self, adders: list[Callable[[Sample], None]], report: Report):
        self.adders, self.report = adders, report
        self.held: list | None = (
            None  # (record index, check index, rule, record, path, message), while a log runs
        )
        self.check_index = (
            -1
        )  # the check running over the batch (-1: the record's own checks, before any check)

    def hold(self, rule_id: str, record: SampleRecord, path: tuple, message: str) -> bool:
        """Hold a finding at a record while a log runs (True), or leave it to be made now (False)."""
        if self.held is None:
            return False
        self.held.append((record.index, self.check_index, rule_id, record, path, message))
        return True

    def audit(
        self, records: Iterable[SampleRecord], sample_of: Callable[[SampleRecord], Sample | None]
    ) -> None:
        """Every record through the checks. A record that is no sample counts toward the batch too (its finding
        is held with it). A record the reader cannot give (a broken line, a limit) stops the log; the samples
        before it are audited first, as they were when each went through every check on its own."""
        self.held = []
        batch: list[Sample] = []
        records_in_batch = text = containers = 0
        try:
            for record in records:
                sample = sample_of(record)
                if sample is not None:
                    batch.append(sample)
                records_in_batch += 1
                text += len(record.text)
                containers += record.containers or UNCOUNTED
                if (
                    containers > BATCH_CONTAINERS
                    or records_in_batch == BATCH_RECORDS
                    or text > BATCH_TEXT
                ):
                    self.run(batch)
                    batch, records_in_batch, text, containers = [], 0, 0, 0
            self.run(batch)
        except Exception:
            self.run(batch)  # the rest of the log was not read; what was, is audited
            raise
        finally:
            self.release(holding=False)

    def run(self, batch: list[Sample]) -> None:
        """Each check over the whole batch, in check order; then the findings held, in sample order."""
        samples = batch[:]
        batch.clear()  # run once: after a check's failure, audit() does not run the batch again
        try:
            self._checks_over(samples, 0)
        finally:
            self.check_index = -1
            self.release(holding=True)

    def _checks_over(self, samples: list[Sample], first_check: int) -> None:
        """The checks from `first_check` on, each over all the samples. When one fails at a sample, the findings
        are those one sample at a time made before that failure: the later checks still see the samples before
        it, and what the earlier checks found after it is dropped. (Their counters, and the log's sample count,
        may include the rest of the batch: the log is LB110 all the same.)"""
        adders = self.adders
        for index in range(first_check, len(adders)):
            self.check_index, add = index, adders[index]
            try:
                for sample in samples:
                    add(sample)
            except Exception:
                failed = next(position for position, each in enumerate(samples) if each is sample)
                self.held = [
                    held
                    for held in self.held or ()
                    if _sample_then_check(held) <= (sample.record.index, index)
                ]
                self._checks_over(
                    samples[:failed], index + 1
                )  # may fail earlier in the log: that failure wins
                raise

    def release(self, holding: bool) -> None:
        """Make the findings held, in the order one sample at a time through every check made them (a stable sort
        keeps each check's findings at one record in their order); then hold the next batch's, or stop."""
        held, self.held = self.held, None
        for _, _, rule_id, record, path, message in sorted(held or (), key=_sample_then_check):
            self.report(rule_id, record, path, message)
        self.held = [] if holding else None


def _sample_then_check(held: tuple) -> tuple[int, int]:
    return held[0], held[1]
