"""Coverage: each filter's doc_ids cover 0..N-1 exactly once, and the log has n-samples.effective samples."""

from __future__ import annotations

from ...findings import ERROR
from ...findings.registry import rule
from ...io.sample_logs import SAMPLES_NAME
from .base import AuditCheck, Sample, audit_check

# n-samples.effective is the submitter's number: memory follows the doc_ids actually logged,
# never it. A bitmap grows (doubling) to the highest doc_id seen, up to this many; rarer,
# higher doc_ids go in a set, which grows only with the log's own lines.
BITMAP_CAP = 1 << 22
# Filter names come from the log too: past this many in one log, new ones are not tracked.
MAX_FILTERS = 64


class DocIds:
    """Which doc_ids of 0..N-1 one filter has logged."""

    def __init__(self, expected: int | None, said_by: str = "n-samples.effective"):
        self.expected, self.said_by = expected, said_by
        self.bitmap = bytearray()
        self.high: set[int] = set()  # doc_ids >= BITMAP_CAP, or every doc_id when N is unknown
        self.lines = 0
        self.distinct = 0
        self.highest, self.highest_line = -1, 0  # the highest doc_id in `high`, and its log line

    def add(self, doc_id: int, line: int = 0) -> str | None:
        """Record a doc_id; the problem with it, if any."""
        self.lines += 1
        if self.expected is not None and doc_id >= self.expected:
            return f"doc_id {doc_id} is outside the split of {self.expected} documents ({self.said_by})"
        if self.expected is None or doc_id >= BITMAP_CAP:
            if doc_id in self.high:
                return f"doc_id {doc_id} is logged twice"
            if doc_id > self.highest:
                self.highest, self.highest_line = doc_id, line
            self.high.add(doc_id)
        else:
            if doc_id >= len(self.bitmap):
                size = min(BITMAP_CAP, self.expected, max(2 * len(self.bitmap), doc_id + 1))
                self.bitmap.extend(bytes(size - len(self.bitmap)))
            if self.bitmap[doc_id]:
                return f"doc_id {doc_id} is logged twice"
            self.bitmap[doc_id] = 1
        self.distinct += 1
        return None

    def missing(self, limit: int = 5) -> tuple[int, list[int]]:
        """How many doc_ids have no sample, and the first few of them."""
        if self.expected is None:
            return self.gaps(limit)
        absent = self.expected - self.distinct
        first: list[int] = []
        index = self.bitmap.find(0)
        while index >= 0 and len(first) < min(limit, absent):
            first.append(index)
            index = self.bitmap.find(0, index + 1)
        candidate = len(self.bitmap)  # past the bitmap, unseen unless in `high`
        while len(first) < min(limit, absent) and candidate < self.expected:
            if candidate not in self.high:
                first.append(candidate)
            candidate += 1
        return absent, first

    def gaps(self, limit: int) -> tuple[int, list[int]]:
        """With N unknown: the doc_ids below the highest logged one that have no sample, and the first few.

        lm-eval numbers a split's documents 0, 1, 2, ... and logs a prefix of them (all, or --limit's first
        ones), so a hole below the highest doc_id is a deleted sample even where no n-samples says how many
        there were. The search steps only over logged doc_ids and the holes it reports: it ends within
        len(high) + limit steps, whatever doc_id a log claims.
        """
        if not self.high:
            return 0, []
        absent = self.highest + 1 - self.distinct
        first: list[int] = []
        candidate = 0
        while len(first) < min(limit, absent):
            if candidate not in self.high:
                first.append(candidate)
            candidate += 1
        return absent, first


@rule("LB705", "sample-coverage", ERROR, runs=False)
def sample_coverage(ctx):
    """The samples of a filter do not cover doc_id 0..N-1 exactly once (N = n-samples.effective).

    Reports doc_ids logged twice, doc_ids outside the split, and how many
    documents have no sample. Logs from several ranks are not sorted; the
    check does not depend on order. Without n-samples (lm-eval before 0.4.3
    wrote none) N is unknown, but lm-eval still logs doc_ids 0, 1, 2, ...:
    a doc_id below the highest one logged with no sample is reported, at the
    line of that highest doc_id.
    """


@audit_check(order=21)
class Coverage(AuditCheck):
    """LB705 (a doc_id twice, out of range, or missing), LB706 (sample count against n-samples.effective, or
    without n-samples against the profile's split)."""

    def __init__(self, log):
        super().__init__(log)
        self.by_filter: dict[str, DocIds] = {}
        self.expected, self.said_by, self.where = self._expected_count()
        self.hashed_line = (
            0  # the first sample with lm-eval 0.4.3's per-sample hashes, when no count is known
        )

    def _expected_count(self) -> tuple[int | None, str, tuple]:
        """N, who says so, and where: n-samples.effective; without it, what the run's limit lets lm-eval score of
        n-samples.original, or without n-samples at all, of the profile's split (lm-eval before 0.4.3 wrote none;
        deleting a count must not leave the end of a log unchecked)."""
        spec, split = self.spec, self.log.expected_split
        if spec.n_effective is not None:
            return spec.n_effective, "n-samples.effective", ("n-samples", spec.name, "effective")
        if (
            spec.n_original is not None
        ):  # effective missing or no count (LB706): what the limit gives of original
            allowed, said_by = (
                spec.scored_under_limit(),
                f"config.limit of n-samples.original {spec.n_original:,}",
            )
        elif (
            split is not None and not spec.fractional_limit()
        ):  # lm-eval before 0.4.3 rounded fractions its own way
            allowed, said_by = (
                spec.scored_under_limit(split),
                f"the profile's split of {split:,}, with no n-samples,",
            )
        else:
            return None, "", ()
        where = ("n-samples", spec.name) if spec.n_original is not None else ("results", spec.name)
        return (allowed[0], said_by, where) if len(allowed) == 1 else (None, "", ())

    def add(self, sample: Sample) -> None:
        if self.expected is None and not self.hashed_line and "doc_hash" in sample.data:
            self.hashed_line = sample.record.line
        doc_ids = self.by_filter.get(sample.filter)
        if doc_ids is None:
            if len(self.by_filter) >= MAX_FILTERS:
                self.log.at_record(
                    "LB702",
                    sample.record,
                    ("filter",),
                    (
                        f"{self.spec.name}: more than {MAX_FILTERS} filters in one log; this sample's coverage "
                        "is not tracked"
                    ),
                )
                return
            doc_ids = self.by_filter[sample.filter] = DocIds(self.expected, self.said_by)
        problem = doc_ids.add(sample.doc_id, sample.record.line)
        if problem:
            self.log.at_record(
                "LB705",
                sample.record,
                ("doc_id",),
                f"{self.spec.name} (filter {sample.filter}): {problem}",
            )

    def finish(self) -> None:
        spec, expected, where = self.spec, self.expected, self.where
        if expected is None:
            self.summary.notes.append(
                "the results file has no n-samples entry: the sample count is not checked"
            )
            self._finish_without_count()
            self._counts_taken_out()
            return
        for flt in self._filters_held_to_the_count():
            doc_ids = self.by_filter.get(flt)
            lines = doc_ids.lines if doc_ids else 0
            if lines != expected:
                self.log.at_results(
                    "LB706",
                    where,
                    f"{spec.name} (filter {flt}): {self.log.name} has {lines:,} "
                    f"samples, {self.said_by} says {expected:,}",
                )
            if doc_ids:
                absent, first = doc_ids.missing()
                if absent:
                    self.log.at_results(
                        "LB705",
                        where,
                        f"{spec.name} (filter {flt}): {absent:,} of {expected:,} "
                        f"documents have no sample in {self.log.name} (first missing doc_ids: "
                        f"{', '.join(map(str, first))})",
                    )

    def _filters_held_to_the_count(self) -> list[str]:
        """The config's filters, and every other one the results report a metric under or the log holds samples
        of: a filter the config leaves out is still one whose numbers the table shows (a log holding the 6 right
        answers of 12 under the filter the results report, and all 12 under the one the config names, was clean)."""
        named = list(self.spec.filters)
        reported = sorted(self.spec.reported_filters - set(named))
        logged = [flt for flt in self.by_filter if flt not in named and flt not in reported]
        return named + reported + logged

    def _counts_taken_out(self) -> None:
        """The file can pose as lm-eval before 0.4.3 (no n-samples, task_hashes or version), but its log cannot:
        lm-eval names it samples_<task>_<date>.jsonl, and logs the per-sample hashes, from 0.4.3 on, the version
        that writes n-samples for every task. Samples dropped from the end of such a log would go unseen."""
        if self.spec.malformed_counts or self.log.expected_split is not None:
            return  # told already (LB706 at the counts), or held to the profile's split
        name = self.log.name.replace("\\", "/").rpartition("/")[2]
        if self.hashed_line:
            shows, line = (
                "logs doc_hash, prompt_hash and target_hash, which lm-eval writes",
                self.hashed_line,
            )
        elif SAMPLES_NAME.match(name):  # EvaluationTracker's name, whatever the date's form
            shows, line = "is named samples_<task>_<date>.jsonl, as lm-eval names its logs", 1
        else:
            return
        self.log.at_line(
            "LB706",
            line,
            (
                f"{self.spec.name}: the results file has no n-samples for this task, but {self.log.name} {shows} from "
                "0.4.3 on, with n-samples for every task: the count its samples are held to was taken out"
            ),
        )

    def _finish_without_count(self) -> None:
        """No n-samples: the doc_ids must still run 0..highest without a hole (see DocIds.gaps)."""
        for flt, doc_ids in self.by_filter.items():
            absent, first = doc_ids.missing()
            if absent:
                self.log.at_line(
                    "LB705",
                    doc_ids.highest_line,
                    (
                        f"{self.spec.name} (filter {flt}): {absent:,} doc_ids below the highest one logged "
                        f"({doc_ids.highest:,}) have no sample in {self.log.name} (first missing: "
                        f"{', '.join(map(str, first))}); lm-eval logs doc_ids 0, 1, 2, ... without holes. The results "
                        "file has no n-samples to say how many documents there were"
                    ),
                )
