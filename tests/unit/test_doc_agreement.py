"""Docs that agree with themselves (LB726): fields of one doc that encode the same gold, choices or id.

Each case edits an honest run the way a submitter would (the gold moved in one field, hashes and aggregates
redone), then asserts the exact findings: rule, file, line and field.
"""

from __future__ import annotations

import pytest
from support import harness_logs as harness

from validator.audit.auditor import audit_files
from validator.harness.doc_agreement import disagreement, gpqa_text

MMLU_PRO_LOG = f"samples_leaderboard_mmlu_pro_{harness.DATE}.jsonl"
MUSR_LOG = f"samples_leaderboard_musr_team_allocation_{harness.DATE}.jsonl"


def edited(task, doc_id: int, **fields):
    sample = task.samples[doc_id]
    sample["doc"].update(fields)
    harness.with_hashes(sample)
    return task


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: harness.mmlu_pro_task(), []),
        (lambda: harness.musr_function_task(), []),
        # MMLU-Pro: answer_index moved to another option, the answer letter left as it was
        (lambda: edited(harness.mmlu_pro_task(), 2, answer_index=3), [(MMLU_PRO_LOG, 3, "answer")]),
        (
            lambda: edited(harness.mmlu_pro_task(), 1, answer_index=40),
            [(MMLU_PRO_LOG, 2, "answer")],
        ),
        # a doc without one of the fields is not compared
        (lambda: delete(harness.mmlu_pro_task(), 4, "answer_index"), []),
        # MuSR: answer_choice no longer the choice at answer_index
        (
            lambda: edited(harness.musr_function_task(), 0, answer_choice="Bob"),
            [(MUSR_LOG, 1, "choices")],
        ),
    ],
    ids=[
        "mmlu-pro honest",
        "musr honest",
        "mmlu-pro index",
        "mmlu-pro out of range",
        "deleted",
        "musr",
    ],
)
def test_a_doc_whose_fields_disagree_is_lb726(tmp_path, make, expected):
    paths = harness.write_run(tmp_path, [make()])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    found = [
        (f.file.rsplit("/", 1)[-1], f.line, f.json_path.removeprefix("$.doc."))
        for f in result.findings
        if f.rule == "LB726"
    ]
    assert found == expected


def delete(task, doc_id: int, field: str):
    del task.samples[doc_id]["doc"][field]
    harness.with_hashes(task.samples[doc_id])
    return task


@pytest.mark.parametrize(
    "relation, fields, doc, agrees",
    [
        ("letter-of-index", ("answer", "answer_index"), {"answer": "C", "answer_index": 2}, True),
        (
            "letter-of-index",
            ("answer", "answer_index"),
            {"answer": "C", "answer_index": True},
            False,
        ),
        ("same-number", ("label", "gold"), {"label": "3", "gold": 3}, True),
        ("same-number", ("label", "gold"), {"label": "2", "gold": 3}, False),
        (
            "member-of",
            ("answerKey", "choices.label"),
            {"answerKey": "B", "choices": {"label": ["A", "B"]}},
            True,
        ),
        (
            "member-of",
            ("answerKey", "choices.label"),
            {"answerKey": "E", "choices": {"label": ["A", "B"]}},
            False,
        ),
        (
            "item-at-index",
            ("choices", "answer_index", "answer_choice"),
            {"choices": "['x', 'y']", "answer_index": 1, "answer_choice": "y"},
            True,
        ),
        (
            "item-at-index",
            ("choices", "answer_index", "answer_choice"),
            {"choices": "['x', 'y']", "answer_index": 0, "answer_choice": "y"},
            False,
        ),
        (
            "choice-of-letter",
            ("answer", "Correct Answer", "choice1", "choice2"),
            {
                "answer": "(B)",
                "Correct Answer": " Mars [1] ",
                "choice1": "Venus",
                "choice2": "Mars ",
            },
            True,
        ),
        (
            "choice-of-letter",
            ("answer", "Correct Answer", "choice1", "choice2"),
            {"answer": "(A)", "Correct Answer": "Mars", "choice1": "Venus", "choice2": "Mars"},
            False,
        ),
        ("letter-of-index", ("answer", "answer_index"), {"question": "another dataset"}, True),
    ],
)
def test_each_relation(relation, fields, doc, agrees):
    assert (disagreement(relation, fields, doc) is None) is agrees


def test_gpqa_text_is_the_harness_preprocess_in_linear_time():
    assert gpqa_text(" a [title]b [x] c  d ") == "a. b c d"
    assert gpqa_text("[" * 200_000) == "[" * 200_000


def test_every_task_a_built_in_profile_declares_agreements_for_is_named_in_its_text():
    """builtin_agreements parses a built-in profile only when the task's name is in its text: a task declared
    under a name the text does not hold verbatim (an escape, an alias) would have its docs go unchecked."""
    from validator.audit.checks.doc_agreement import builtin_agreements
    from validator.io.loaders import (
        builtin_profile_names,
        builtin_profile_text,
        load_builtin_profile,
    )

    declared = {}
    for name in builtin_profile_names():
        for task, relations in load_builtin_profile(name).doc_agreements().items():
            assert task in builtin_profile_text(name), (name, task)
            if relations:
                declared.setdefault(task, relations)
    assert {"leaderboard_mmlu_pro", "leaderboard_gpqa_main"} <= set(declared)
    for task, relations in declared.items():
        assert builtin_agreements(task) == relations
    assert builtin_agreements("a_task_no_profile_names") == ()
