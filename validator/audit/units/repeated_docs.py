"""Repeated docs: the same doc logged under two doc_ids.

lm-eval logs each document of the split once per filter, under its own
doc_id. A sample whose score was bad, replaced by a copy of a good one that
keeps the bad one's doc_id (hashes, aggregates and the task hash redone),
leaves every doc_id present and every number consistent; only the doc shows
up twice. Some datasets hold the same row twice, so a repeat is a finding
only where the doc carries the dataset's own id for its row (IFEval's `key`,
DROP's `query_id`, ARC's `id`...), which a dataset does not repeat; other
repeats are counted in a note. Docs are matched by their logged doc_hash
(LB703 ties it to the doc): a log without hashes is not checked. Rule LB725.
"""

from __future__ import annotations

from .base import AuditUnit, Sample, audit_unit

# Fields that name a dataset's row, unique within its split: IFEval key, DROP query_id, ARC/OpenBookQA/
# CommonsenseQA id, HellaSwag ind, MMLU-Pro question_id, GPQA Record ID, SuperGLUE idx, HumanEval task_id.
# (DROP's section_id and RACE's example_id name a passage several questions share: not here.)
ROW_ID_FIELDS = ("key", "query_id", "id", "ind", "question_id", "Record ID", "idx", "task_id")
SHA256_HEX = 64
MAX_TOLD = 5  # repeats reported per log; the note counts them all


@audit_unit(order=22)
class RepeatedDocs(AuditUnit):
    """LB725: one doc, with its dataset's row id, under two doc_ids."""

    def __init__(self, log):
        super().__init__(log)
        # hash(doc_hash) -> the doc_id it was first logged under: an int a doc, not the 64-character string.
        # Python's string hash is seeded per process, so no log can be made to collide two docs on purpose.
        self.first_doc_id: dict[int, int] = {}
        self.repeats = 0
        self.without_row_id = 0

    def add(self, sample: Sample) -> None:
        logged = sample.data.get("doc_hash")
        if type(logged) is not str or len(logged) != SHA256_HEX:
            return  # no hash to match by (lm-eval < 0.4.3, or LB702's), or not a sha256 (LB703's)
        first = self.first_doc_id.setdefault(hash(logged), sample.doc_id)
        if first != sample.doc_id:
            self._repeat(sample, first)

    def _repeat(self, sample: Sample, first: int) -> None:
        doc = sample.data.get("doc")
        row_id = next((name for name in ROW_ID_FIELDS if name in doc), None) if isinstance(doc, dict) else None
        if row_id is None:
            self.without_row_id += 1
            return
        self.repeats += 1
        if self.repeats <= MAX_TOLD:
            self.log.at_record("LB725", sample.record, ("doc_id",), (
                f"{self.spec.name} doc_id {sample.doc_id}: the same doc (its {row_id!r} and doc_hash) is logged "
                f"under doc_id {first}; lm-eval logs each row of the split once, so one doc's sample was "
                "replaced by a copy of another's"))

    def finish(self) -> None:
        if self.repeats > MAX_TOLD:
            self.summary.notes.append(f"{self.repeats:,} docs with a row id repeat under other doc_ids (LB725 "
                                      f"reported the first {MAX_TOLD})")
        if self.without_row_id:
            self.summary.notes.append(f"{self.without_row_id:,} docs are logged again under another doc_id; they "
                                      "carry no row id of their dataset, which may hold the same row twice, so "
                                      "this is not reported as a finding")
