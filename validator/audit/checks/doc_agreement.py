"""Docs that agree with themselves: the fields of one doc that encode the same gold, choices or id.

A benchmark's doc often carries its gold in two fields (MMLU-Pro's `answer`
letter and `answer_index`); the harness scores one, and a submitter who moves
it to the model's answer leaves the other saying otherwise. The fields that
must agree are data: a profile's `doc_fields_agree` for its benchmarks (the
built-in profiles declare them for theirs), read for the task by any of its
names; without a profile that declares them, the built-in profiles'. The
relations themselves are harness/doc_agreement.py's. Rule LB726.
"""

from __future__ import annotations

import functools

from ...findings import ERROR
from ...findings.registry import rule
from ...harness.doc_agreement import disagreement
from ...io.loaders import builtin_profile_names, builtin_profile_text, load_builtin_profile
from .base import AuditCheck, Sample, audit_check, shown

MAX_TOLD = 5  # disagreeing docs reported per log; the note counts them all


@rule("LB726", "doc-fields-disagree", ERROR, runs=False)
def doc_fields_disagree(ctx):
    """Two fields of one doc that encode the same gold, choices or id do not agree.

    Benchmarks carry the gold in more than one field of a doc: MMLU-Pro's
    `answer` letter and `answer_index`, MuSR's `answer_index` into `choices`
    and `answer_choice`, GPQA's `answer` letter and `Correct Answer`,
    HellaSwag's `label` and `gold`, ARC's `answerKey` among `choices.label`.
    The harness scores one of them; a doc whose fields disagree was edited
    after the dataset was read (its gold moved to the model's answer, say).
    Which fields agree, and how, is declared per benchmark in the profile
    (`doc_fields_agree`, docs/profiles.md); the built-in profiles declare
    them for their benchmarks, and apply to a task of theirs whatever the
    profile. A doc that lacks one of the fields is not compared.
    """


@functools.lru_cache(maxsize=1024)
def builtin_agreements(task: str) -> tuple:
    """The fields a task's docs must agree on, as the first built-in profile that names the task declares them.

    A profile that declares a task names it in its text, so a profile whose text does not hold the task's
    name is not parsed: parsing the built-in profiles' YAML was a tenth of an audit's start-up
    (tests/unit/test_doc_agreement.py holds every declared name to its profile's text)."""
    for name in builtin_profile_names():
        if task in builtin_profile_text(name):
            relations = load_builtin_profile(name).doc_agreements().get(task)
            if relations:
                return relations
    return ()


@audit_check(order=23)
class DocAgreement(AuditCheck):
    """LB726: fields of one doc that say the same thing disagree."""

    def __init__(self, log):
        super().__init__(log)
        declared = getattr(log, "doc_agreements", None)
        self.relations = declared or builtin_agreements(self.spec.name)
        self.told = 0

    @classmethod
    def applies(cls, log) -> bool:
        return bool(getattr(log, "doc_agreements", None) or builtin_agreements(log.spec.name))

    def sees_samples(self) -> bool:
        return bool(self.relations)

    def add(self, sample: Sample) -> None:
        doc = sample.data.get("doc")
        if type(doc) is not dict:
            return
        for relation, fields in self.relations:
            found = disagreement(relation, fields, doc)
            if found is None:
                continue
            self.told += 1
            if self.told <= MAX_TOLD:
                field, how = found
                self.log.at_record(
                    "LB726",
                    sample.record,
                    ("doc", field),
                    (
                        f"{self.spec.name} doc_id {sample.doc_id}: its {field!r} "
                        f"({shown(doc.get(field), 30)}) {how}; the dataset's docs agree, so the doc was edited"
                    ),
                )
            return

    def finish(self) -> None:
        if self.told > MAX_TOLD:
            self.summary.notes.append(
                f"{self.told:,} docs whose fields disagree (LB726 reported the first {MAX_TOLD})"
            )
