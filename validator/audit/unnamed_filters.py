"""Which filter a sample logged without a `filter` field belongs to (lm-eval before 0.4.7)."""

from __future__ import annotations


class UnnamedFilters:
    """The filter of a sample logged without a `filter` field (lm-eval before 0.4.7): its doc_id's k-th sample
    is the k-th filter's.

    Each rank logged its documents filter by filter, and a multi-GPU run joined the ranks' logs one after the
    other (lm_eval/evaluator.py, v0.4.0 to v0.4.6): on two ranks strict-match's even doc_ids, flexible-extract's
    even ones, then both filters' odd ones. So position in the file does not tell the filter, but every
    filter logs each document once, in filter order. A doc_id logged more often than there are filters goes
    to the last filter, whose coverage then reports it twice (LB705). Counts are bytes up to the highest
    doc_id seen (as coverage's bitmap, never the submitter's n-samples); above that a doc_id is the first
    filter's, and coverage reports it out of any real split.
    """

    CAP = 1 << 22

    def __init__(self, filters: list[str]):
        self.filters, self.single = filters, len(filters) == 1
        self.seen = bytearray()

    def of(self, doc_id: int) -> str:
        if self.single or doc_id >= self.CAP:
            return self.filters[0]
        if doc_id >= len(self.seen):
            self.seen.extend(
                bytes(min(self.CAP, max(2 * len(self.seen), doc_id + 1)) - len(self.seen))
            )
        count = self.seen[doc_id]
        self.seen[doc_id] = min(count + 1, 255)
        return self.filters[min(count, len(self.filters) - 1)]
