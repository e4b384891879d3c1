"""A check that says it does not apply to a log is not made: it must have had nothing to do there.

AuditCheck.applies is asked before a check is made, from the results file and
the profile alone. Where it says no, the check as it was made before would
have seen no sample (sees_samples) and reported nothing at its finish, so
leaving it out changes no verdict. Held here on results files drawn at random
over every field an `applies` reads, and on the usual tasks by name.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.audit.auditor import LogAuditor
from validator.audit.checks import check_classes
from validator.audit.model import AuditResult
from validator.audit.spec import ProfileExpectations, TaskSpec
from validator.harness.math_answers import PROCESS_DOCS_MARK
from validator.io.documents import Document

TASKS = [
    "toy",
    "leaderboard_math_algebra_hard",
    "leaderboard_ifeval",
    "ifeval",
    "leaderboard_gpqa_main",
]
METRICS = [
    "acc,none",
    "acc_norm,none",
    "exact_match,none",
    "exact_match,strict-match",
    "prompt_level_strict_acc,none",
    "inst_level_loose_acc,none",
    "em,none",
]
ANY = st.sampled_from([None, 0, 1, 2, 3, 5, "3", True, -1, 2.5])
FEWSHOT_CONFIGS = st.sampled_from(
    [
        None,
        5,
        {},
        {"samples": None},
        {"samples": [{"q": "a"}, {"q": "b"}, {"q": "c"}], "sampler": "first_n"},
        {"samples": [{"q": "a"}], "sampler": "weighted"},
        {"samples": "def list_fewshot_samples(): ...", "sampler": "first_n"},
        {"samples": [{"q": "a"}], "split": "train"},
    ]
)
METRIC_LISTS = st.sampled_from(
    [None, [], "exact_match", [{"metric": "acc"}], [{"metric": "exact_match", "ignore_case": True}]]
)


@st.composite
def results_files(draw) -> tuple[dict, str, ProfileExpectations]:
    task = draw(st.sampled_from(TASKS))
    config: dict = {"task": task}
    for key, values in (
        ("output_type", st.sampled_from(["multiple_choice", "generate_until", "loglikelihood", 5])),
        ("num_fewshot", ANY),
        ("fewshot_config", FEWSHOT_CONFIGS),
        ("use_prompt", st.sampled_from(["", "promptsource:x"])),
        ("process_docs", st.sampled_from(["x", f"def process_docs(doc): {PROCESS_DOCS_MARK}"])),
        ("metric_list", METRIC_LISTS),
        ("doc_to_text", st.sampled_from(["{{question}}\nAnswer:", "Q: {{q}}", 7])),
        ("process_results", st.sampled_from(["test_instruction_following_strict", "x"])),
    ):
        if draw(st.booleans()):
            config[key] = draw(values)
    data: dict = {
        "results": {task: {metric: 0.5 for metric in draw(st.sets(st.sampled_from(METRICS)))}},
        "configs": {task: config},
    }
    if draw(st.booleans()):
        data["n-shot"] = {task: draw(ANY)}
    if draw(st.booleans()):
        data["chat_template"] = draw(st.sampled_from([None, "", "{{ messages }}"]))
    expectations = ProfileExpectations(
        choice_counts={task: 4} if draw(st.booleans()) else {},
        doc_agreements={task: (("letter_is_index", ("answer", "answer_index")),)}
        if draw(st.booleans())
        else {},
    )
    return data, task, expectations


def auditor_of(data: dict, task: str, expectations: ProfileExpectations) -> LogAuditor:
    document = Document("results.json", json.dumps(data, indent=2), data, "json")
    result = AuditResult(results_file="results.json")
    return LogAuditor(
        TaskSpec.from_results(data, task),
        "samples.jsonl",
        document,
        result,
        expectations=expectations,
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results_files())
def test_a_check_left_out_would_have_seen_nothing_and_said_nothing(drawn):
    data, task, expectations = drawn
    auditor = auditor_of(data, task, expectations)
    made = {type(check) for check in auditor.checks}
    for cls in check_classes():
        assert (cls in made) == cls.applies(auditor)
        if cls in made:
            continue
        findings, notes = (
            list(auditor.result.findings),
            list(auditor.summary.notes),
        )  # the checks made say these
        check = cls(auditor)  # as the audit made it before asking
        assert not check.sees_samples(), f"{cls.__name__} is left out, but would see samples"
        check.finish()
        assert auditor.result.findings == findings, f"{cls.__name__} is left out, but reports"
        assert auditor.summary.notes == notes, f"{cls.__name__} is left out, but notes"


# Which of the checks that can be left out a log of the usual tasks gets (the others are made for every log).
OPTIONAL = {
    "ChatPrompts",
    "ChoiceCounts",
    "DocAgreement",
    "ExactMatch",
    "FixedExamples",
    "InstructionChecks",
    "InstructionLevels",
    "MathAnswers",
    "ShotCount",
}
MC = {"output_type": "multiple_choice", "num_fewshot": 0}
GENERATED = {
    "output_type": "generate_until",
    "num_fewshot": 4,
    "metric_list": [{"metric": "exact_match"}],
}
MATH = {**GENERATED, "process_docs": f"def process_docs(doc): {PROCESS_DOCS_MARK}"}
BBH = {
    **GENERATED,
    "num_fewshot": 3,
    "fewshot_config": {"sampler": "first_n", "samples": [{"input": "a", "target": "b"}]},
}
CASES = [
    ("a zero-shot multiple-choice task", "toy", MC, ["acc,none"], {}, set()),
    ("under a chat template", "toy", MC, ["acc,none"], {"chat_template": "x"}, {"ChatPrompts"}),
    ("with the profile's num_choices", "toy", MC, ["acc,none"], {"choices": 4}, {"ChoiceCounts"}),
    ("a built-in agreement", "leaderboard_gpqa_main", MC, ["acc,none"], {}, {"DocAgreement"}),
    (
        "few-shot and generated",
        "toy",
        GENERATED,
        ["exact_match,none"],
        {},
        {"ExactMatch", "ShotCount"},
    ),
    (
        "the leaderboard's MATH",
        "leaderboard_math_algebra_hard",
        MATH,
        ["exact_match,none"],
        {},
        {"ExactMatch", "ShotCount", "MathAnswers"},
    ),
    (
        "listed examples",
        "toy",
        BBH,
        ["exact_match,none"],
        {},
        {"ExactMatch", "ShotCount", "FixedExamples"},
    ),
    (
        "IFEval",
        "leaderboard_ifeval",
        {"output_type": "generate_until", "num_fewshot": 0},
        ["prompt_level_strict_acc,none", "inst_level_strict_acc,none"],
        {},
        {"ExactMatch", "InstructionChecks", "InstructionLevels"},
    ),
]


@pytest.mark.parametrize(
    ("task", "config", "metrics", "extra", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_which_checks_a_usual_log_gets(task, config, metrics, extra, expected):
    data: dict = {"results": {task: dict.fromkeys(metrics, 0.5)}, "configs": {task: config}}
    if "chat_template" in extra:
        data["chat_template"] = extra["chat_template"]
    choices = {task: extra["choices"]} if "choices" in extra else {}
    auditor = auditor_of(data, task, ProfileExpectations(choice_counts=choices))
    made = {type(check).__name__ for check in auditor.checks}
    assert made & OPTIONAL == expected
    assert {cls.__name__ for cls in check_classes()} - OPTIONAL <= made
