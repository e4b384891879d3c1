"""Coverage: each filter's doc_ids cover 0..N-1 exactly once, and the log has n-samples.effective samples."""

from __future__ import annotations

from .base import AuditUnit, Sample, audit_unit


class DocIds:
    """Which doc_ids of 0..N-1 one filter has logged; a bitmap when N is known."""

    def __init__(self, expected: int | None):
        self.expected = expected
        self.seen: bytearray | set[int] = bytearray(expected) if expected is not None else set()
        self.lines = 0
        self.distinct = 0

    def add(self, doc_id: int) -> str | None:
        """Record a doc_id; the problem with it, if any."""
        self.lines += 1
        if self.expected is not None and doc_id >= self.expected:
            return f"doc_id {doc_id} is outside the split of {self.expected} documents (n-samples.effective)"
        if isinstance(self.seen, set):
            if doc_id in self.seen:
                return f"doc_id {doc_id} is logged twice"
            self.seen.add(doc_id)
        else:
            if self.seen[doc_id]:
                return f"doc_id {doc_id} is logged twice"
            self.seen[doc_id] = 1
        self.distinct += 1
        return None

    def missing(self, limit: int = 5) -> tuple[int, list[int]]:
        """How many doc_ids have no sample, and the first few of them."""
        if not isinstance(self.seen, bytearray):
            return 0, []
        absent = self.expected - self.distinct
        first: list[int] = []
        while absent and len(first) < limit:
            start = first[-1] + 1 if first else 0
            index = self.seen.find(0, start)
            if index < 0:
                break
            first.append(index)
        return absent, first


@audit_unit(order=20)
class Coverage(AuditUnit):
    """LB705 (a doc_id twice, out of range, or missing), LB706 (sample count against n-samples.effective)."""

    def __init__(self, log):
        super().__init__(log)
        self.by_filter: dict[str, DocIds] = {}

    def add(self, sample: Sample) -> None:
        doc_ids = self.by_filter.setdefault(sample.filter, DocIds(self.spec.n_effective))
        problem = doc_ids.add(sample.doc_id)
        if problem:
            self.log.at_record("LB705", sample.record, ("doc_id",),
                               f"{self.spec.name} (filter {sample.filter}): {problem}")

    def finish(self) -> None:
        spec, expected = self.spec, self.spec.n_effective
        if expected is None:
            self.summary.notes.append("the results file has no n-samples entry: the sample count is not checked")
            return
        where = ("n-samples", spec.name, "effective")
        for flt in spec.filters:
            doc_ids = self.by_filter.get(flt)
            lines = doc_ids.lines if doc_ids else 0
            if lines != expected:
                self.log.at_results("LB706", where, f"{spec.name} (filter {flt}): {self.log.name} has {lines:,} "
                                    f"samples, n-samples.effective says {expected:,}")
            if doc_ids:
                absent, first = doc_ids.missing()
                if absent:
                    self.log.at_results("LB705", where, f"{spec.name} (filter {flt}): {absent:,} of {expected:,} "
                                        f"documents have no sample in {self.log.name} (first missing doc_ids: "
                                        f"{', '.join(map(str, first))})")
