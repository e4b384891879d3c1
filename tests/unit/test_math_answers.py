"""The leaderboard MATH answer as lm-eval's process_docs takes it from a solution (harness/math_answers.py).

tests/data/math_boxed_answers.json holds what lm-eval 0.4.13's own
remove_boxed(last_boxed_only_string(s)) gave for 420 solutions: the
leaderboard's shapes, the functions' quirks, and random strings of boxes,
braces and dollars.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import harness_logs as harness
from support.common import DATA

from validator.audit.auditor import audit_files
from validator.harness.math_answers import INVALID_ANSWER, boxed_answer

VECTORS = json.loads((DATA / "math_boxed_answers.json").read_text(encoding="utf-8"))["vectors"]


@pytest.mark.parametrize("solution, answer", VECTORS[:20])
def test_the_shapes_and_quirks_of_the_harness(solution, answer):
    assert boxed_answer(solution) == answer


def test_every_vector_the_harness_gave():
    assert [boxed_answer(solution) for solution, _ in VECTORS] == [answer for _, answer in VECTORS]


def test_a_long_solution_of_braces_is_scanned_brace_by_brace():
    """The submitter writes the solution: an unclosed box over 2 MB of text is one pass, not a char loop."""
    assert boxed_answer("\\boxed{" + "{x" * 1_000_000) == INVALID_ANSWER


# --- the audit: each doc's answer against its solution (LB724), and the target against the answer (LB722) ------


def edit_doc(position: int, **fields):
    def edit(task):
        sample = task.samples[position]
        for key, value in fields.items():
            if value is None:
                sample["doc"].pop(key, None)
            elif key == "target":
                sample["target"] = value
            else:
                sample["doc"][key] = value
        harness.with_hashes(sample)

    return edit


MATH = "leaderboard_math_algebra_hard"
LOG = f"samples_{MATH}_{harness.DATE}.jsonl"


@pytest.mark.parametrize(
    "edit, expected",
    [
        (None, []),
        # a wrong answer made right: answer and target set to the model's, hashes and scores redone
        (edit_doc(1, answer="8", target="8"), [("LB724", LOG, 2)]),
        (
            edit_doc(1, target="8"),
            [("LB722", LOG, 2)],
        ),  # the target alone: doc_to_target renders answer
        (
            edit_doc(2, solution=None),
            [("LB724", LOG, 3)],
        ),  # the solution taken out, so nothing can disagree
        (
            edit_doc(0, solution="It is $\\boxed{3}$.", answer="3", target="3"),
            [],
        ),  # a consistent doc: another problem
        # a sample scored 2: MATH's process_results gives 0 or 1, and nothing re-scores a generation
        (lambda task: task.samples[2].update(exact_match=2), [("LB708", LOG, 3)]),
    ],
    ids=[
        "honest",
        "answer made the model's",
        "target alone",
        "solution removed",
        "consistent",
        "scored 2",
    ],
)
def test_a_math_docs_answer_is_its_solutions(tmp_path, edit, expected):
    task = harness.math_task(MATH, [True, False, True])
    if edit:
        edit(task)
    paths = harness.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert sorted((f.rule, Path(f.file).name, f.line) for f in result.findings) == expected


# --- the prompts: MATH's doc_to_text is a function whose source lbnorm knows (harness/text_templates.py) ----------


def problem_edited(task):
    sample = task.samples[1]
    sample["doc"]["problem"] = (
        "Halve 200."  # the doc rewritten after the run, its hash redone; the prompt kept
    )
    harness.with_hashes(sample)


def function_edited(task):
    task.config["doc_to_text"] = task.config["doc_to_text"].replace("Solution:", "Answer:")


@pytest.mark.parametrize(
    "make, expected, note",
    [
        (lambda: harness.math_task(MATH, [True] * 12), [], None),
        # a 0-shot run relabelled 4-shot: ten or more prompts without an example
        (lambda: harness.math_task(MATH, [True] * 12, shots=""), [("LB723", LOG, 1)], None),
        (
            lambda: _edited(harness.math_task(MATH, [True] * 12), problem_edited),
            [("LB722", LOG, 2)],
            None,
        ),
        # another function than the leaderboard's is code: not run, noted
        (
            lambda: _edited(harness.math_task(MATH, [True] * 12, shots=""), function_edited),
            [],
            "template shape",
        ),
    ],
    ids=["honest 4-shot", "0-shot declared 4", "problem edited", "another function"],
)
def test_a_math_prompt_is_rebuilt_from_its_function(tmp_path, make, expected, note):
    task = make()
    paths = harness.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert sorted((f.rule, Path(f.file).name, f.line) for f in result.findings) == expected
    notes = [
        n for summary in result.tasks for n in summary.notes if n.startswith("prompts not rebuilt")
    ]
    assert (note is None and notes == []) or (
        note is not None and len(notes) == 1 and note in notes[0]
    )


def _edited(task, edit):
    edit(task)
    return task


def stop_removed(task):
    """'Problem:' taken out of the config's until and every request's."""
    task.config["generation_kwargs"]["until"] = []
    for sample in task.samples:
        sample["arguments"]["gen_args_0"]["arg_1"]["until"] = []
        harness.with_hashes(sample)


@pytest.mark.parametrize(
    "edit, expected",
    [
        (None, []),
        (stop_removed, [("LB714", "results", '"until": []')]),
        (
            lambda task: task.config["generation_kwargs"].pop("until"),
            [("LB714", "results", '"generation_kwargs": {')],
        ),
    ],
    ids=["the leaderboard's stop", "removed everywhere", "no until at all"],
)
def test_a_leaderboard_math_config_keeps_its_stop(tmp_path, edit, expected):
    task = harness.math_task(MATH, [True] * 3)
    if edit:
        edit(task)
    paths = harness.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    text = paths["results"].read_text(encoding="utf-8")
    lines = {
        needle: text[: text.index(needle, text.index('"configs"'))].count("\n") + 1
        for _, _, needle in expected
    }
    assert sorted((f.rule, f.line) for f in result.findings) == sorted(
        (rule, lines[needle]) for rule, _, needle in expected
    )
