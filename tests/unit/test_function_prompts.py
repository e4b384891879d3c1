"""The leaderboard's MMLU-Pro and MuSR prompts, whose doc_to_text is a Python function (harness/text_templates.py).

lbnorm never runs a function from a results file. It knows these two by
their exact source, as lm-eval 0.4.4 to 0.4.13 dump it into the config, and
writes what they write: MMLU-Pro's question, one "A. option" line per option
and "Answer:"; MuSR's narrative, question and one "1 - choice" line per
choice of the Python literal in doc["choices"]. Each run below is written
by running the harness's own function (tests/support/harness_logs.py), hashes and
task hashes redone after every edit, so only the prompts can tell.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import harness_logs as hl

from validator.audit.auditor import audit_files
from validator.harness.doc_templates import UNTRACEABLE, Template, choices_of
from validator.harness.fewshot import closing_words
from validator.harness.text_templates import FUNCTION_TEMPLATES, TextTemplate, ending_of, texts_of

MMLU_PRO_LOG = f"samples_leaderboard_mmlu_pro_{hl.DATE}.jsonl"
MUSR_LOG = f"samples_leaderboard_musr_team_allocation_{hl.DATE}.jsonl"


def written(tmp_path: Path, task: hl.Task, edit=None, results: dict | None = None) -> Path:
    """The run as the harness writes it, after `edit(doc_id, sample)` (hashes redone, as a careful editor would)."""
    for sample in task.samples:
        if edit:
            edit(sample["doc_id"], sample)
        hl.with_hashes(sample)
    data = hl.results_for([task])
    data.update(results or {})
    return hl.write_run(tmp_path, [task], data)["results"]


def audited(tmp_path: Path, results: Path) -> tuple[list, list[str]]:
    result = audit_files(tmp_path, results.relative_to(tmp_path), None)
    found = sorted((f.rule, Path(f.file).name, f.line) for f in result.findings)
    return found, [
        note for task in result.tasks for note in task.notes if note.startswith("prompts not")
    ]


def option_edited(doc_id: int, sample: dict) -> None:
    if doc_id == 2:
        sample["doc"]["options"][3] = "Option 3 of 2, reworded after the run"


def narrative_edited(doc_id: int, sample: dict) -> None:
    if doc_id == 4:
        sample["doc"]["narrative"] += " It was Bob."


def chat(doc_id: int, sample: dict) -> None:
    """A chat template's markup around the prompt (the doc's text is the last user message, trimmed)."""
    for request in sample["arguments"].values():
        request["arg_0"] = f"<|user|>\n{request['arg_0'].strip()}<|end|>\n<|assistant|>\n"


def chat_and(edit):
    return lambda doc_id, sample: (edit(doc_id, sample), chat(doc_id, sample))


CHAT = {"chat_template": "{% for message in messages %}<|{{ message['role'] }}|>...{% endfor %}"}
CASES = [
    ("MMLU-Pro 5-shot, as declared", lambda: hl.mmlu_pro_task(), None, None, []),
    ("MMLU-Pro 0-shot, as declared", lambda: hl.mmlu_pro_task(shots=0), None, None, []),
    (
        "MMLU-Pro 5-shot declared 0-shot",
        lambda: hl.mmlu_pro_task(num_fewshot=0),
        None,
        None,
        [("LB723", MMLU_PRO_LOG, 1)],
    ),
    (
        "MMLU-Pro 0-shot declared 5-shot (ten prompts, none with an example)",
        lambda: hl.mmlu_pro_task(docs=12, shots=0, num_fewshot=5),
        None,
        None,
        [("LB723", MMLU_PRO_LOG, 1)],
    ),
    (
        "MMLU-Pro option edited after the run",
        lambda: hl.mmlu_pro_task(),
        option_edited,
        None,
        [("LB722", MMLU_PRO_LOG, 3)],
    ),
    ("MuSR, as the harness writes it", lambda: hl.musr_function_task(), None, None, []),
    (
        "MuSR narrative edited after the run",
        lambda: hl.musr_function_task(),
        narrative_edited,
        None,
        [("LB722", MUSR_LOG, 5)],
    ),
    ("MMLU-Pro under a chat template", lambda: hl.mmlu_pro_task(), chat, CHAT, []),
    (
        "MMLU-Pro under a chat template, option edited",
        lambda: hl.mmlu_pro_task(),
        chat_and(option_edited),
        CHAT,
        [("LB722", MMLU_PRO_LOG, 3)],
    ),
    (
        "MuSR under a chat template, narrative edited",
        lambda: hl.musr_function_task(),
        chat_and(narrative_edited),
        CHAT,
        [("LB722", MUSR_LOG, 5)],
    ),
    # Under a chat template the examples come before the doc's text with doc_to_text's closing words ("Answer:")
    (
        "MMLU-Pro 5-shot under a chat template, declared 0-shot",
        lambda: hl.mmlu_pro_task(num_fewshot=0),
        chat,
        CHAT,
        [("LB723", MMLU_PRO_LOG, 1)],
    ),
    (
        "MMLU-Pro 0-shot under a chat template, declared 5-shot (ten prompts)",
        lambda: hl.mmlu_pro_task(docs=12, shots=0, num_fewshot=5),
        chat,
        CHAT,
        [("LB723", MMLU_PRO_LOG, 1)],
    ),
    (
        "MMLU-Pro 0-shot under a chat template, as declared, its system instruction saying 'Answer:'",
        lambda: hl.mmlu_pro_task(shots=0),
        lambda doc_id, sample: (instructed(sample), chat(doc_id, sample)),
        {**CHAT, "system_instruction": "End with Answer: and a letter."},
        [],
    ),
]


def instructed(sample: dict) -> None:
    for request in sample["arguments"].values():
        request["arg_0"] = "End with Answer: and a letter.\n\n" + request["arg_0"]


@pytest.mark.parametrize(
    "case, task, edit, results, expected", CASES, ids=[case[0] for case in CASES]
)
def test_function_prompts_against_their_docs_and_the_declared_shots(
    tmp_path, case, task, edit, results, expected
):
    found, notes = audited(tmp_path, written(tmp_path, task(), edit, results))
    assert found == expected
    assert notes == (
        [] if results is None else [notes[0]]
    )  # under a chat template: only the chat note


@pytest.mark.parametrize(
    "examples, expected",
    [
        (
            "<function doc_to_text at 0x7f8850bb2340>",
            [("LB723", MMLU_PRO_LOG, 1)],
        ),  # 0.4.13: the task's, as a repr
        (
            "<function other_doc_to_text at 0x7f8850bb2340>",
            [],
        ),  # examples written otherwise: nothing to expect
        ("{{question}}", []),
    ],
)
def test_under_a_chat_template_examples_of_their_own_shape_are_not_counted(
    tmp_path, examples, expected
):
    """A 0-shot chat run declared 5-shot: its prompts hold no closing words before the doc's text, which says
    'zero-shot' only when fewshot_config writes the examples with the task's own doc_to_text."""
    task = hl.mmlu_pro_task(docs=12, shots=0, num_fewshot=5)
    task.config["fewshot_config"] = {"sampler": "first_n", "doc_to_text": examples}
    found, _ = audited(tmp_path, written(tmp_path, task, chat, CHAT))
    assert found == expected


def test_the_0_4_4_source_is_the_same_function(tmp_path):
    """0.4.4 to 0.4.7 wrote MuSR's `{i+1}`; 0.4.8 on, `{i + 1}`: both are known."""
    task = hl.musr_function_task()
    task.config["doc_to_text"] = hl.MUSR_DOC_TO_TEXT.replace("{i + 1}", "{i+1}")
    found, notes = audited(tmp_path, written(tmp_path, task, narrative_edited))
    assert found == [("LB722", MUSR_LOG, 5)] and notes == []


def test_an_edited_function_is_code_and_not_evaluated(tmp_path):
    task = hl.mmlu_pro_task(
        num_fewshot=0
    )  # its examples hidden: only a rebuilt prompt could say so
    task.config["doc_to_text"] = hl.MMLU_PRO_DOC_TO_TEXT.replace('"Answer:"', '"Answer: "')
    found, notes = audited(tmp_path, written(tmp_path, task))
    assert found == [] and len(notes) == 1 and "template shape" in notes[0]


def test_a_musr_doc_whose_choices_the_function_cannot_read_is_not_judged(tmp_path):
    """A doc the harness would have failed on (choices no Python literal) is no prompt lbnorm can rebuild: not
    LB722 (its doc_hash, recomputed here, is the submitter's)."""

    def unreadable(doc_id: int, sample: dict) -> None:
        if doc_id == 1:
            sample["doc"]["choices"] = "['Carol', 'Dave'"

    found, _ = audited(tmp_path, written(tmp_path, hl.musr_function_task(), unreadable))
    assert found == []


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=300, deadline=None)
@given(
    question=_TEXT,
    options=st.lists(_TEXT, max_size=28),
    narrative=_TEXT,
    choices=st.one_of(
        st.lists(_TEXT, max_size=5).map(repr),
        st.lists(_TEXT, max_size=5).map(tuple).map(repr),
        _TEXT,
        st.lists(st.integers(), max_size=3).map(repr),
        st.just("['a', 'b'"),
        st.just("[["),
    ),
)
def test_the_known_functions_text_is_what_running_them_gives(question, options, narrative, choices):
    """Whatever the doc, lbnorm's text for a known function is the function's own, or UNTRACEABLE (not rebuilt):
    never another text, which would be a false LB722."""
    doc = {"question": question, "options": options, "narrative": narrative, "choices": choices}
    for source in (hl.MMLU_PRO_DOC_TO_TEXT, hl.MUSR_DOC_TO_TEXT):
        template = TextTemplate.of(source)
        assert template is not None and source.strip() in FUNCTION_TEMPLATES
        ours = texts_of(template, doc, 10**6)
        try:
            theirs = hl.harness_function(source)(doc)
        except Exception:  # the harness fails on this doc: no honest log holds it
            assert ours is UNTRACEABLE
            continue
        if ours is not UNTRACEABLE:
            assert ours == (theirs,)
            assert ending_of(template, doc, "examples\n\n" + theirs) == len(theirs)


def test_a_list_of_strings_is_what_both_take():
    """The usual docs are rebuilt, not left UNTRACEABLE (else the tests above would pass on nothing)."""
    doc = {
        "question": "Q?",
        "options": ["x", "y"],
        "narrative": "N.",
        "choices": json.dumps(["Ann", "Ben"]),
    }
    assert texts_of(TextTemplate.of(hl.MMLU_PRO_DOC_TO_TEXT), doc, 10**6) == (
        "Q?\nA. x\nB. y\nAnswer:",
    )
    assert texts_of(TextTemplate.of(hl.MUSR_DOC_TO_TEXT), doc, 10**6) == (
        "N.\n\nQ?\n\n1 - Ann\n2 - Ben\n\nAnswer:",
    )


@pytest.mark.parametrize(
    "doc_to_text, closing",
    [
        ("Q: {{input}}\nA:", "\nA:"),  # BBH
        (
            "What is the correct answer to this question:{{Question}}\nAnswer: ",
            "\nAnswer:",
        ),  # GPQA, as trimmed
        (hl.MMLU_PRO_DOC_TO_TEXT, "Answer:"),
        (hl.MUSR_DOC_TO_TEXT, "\nAnswer:"),
        (
            "prompt",
            None,
        ),  # IFEval: a field's name, whose value is the whole text
        ("{{passage}} {{question}}", None),  # DROP: ends with a field
        ("{{question}}\n", None),  # mere whitespace
    ],
)
def test_the_closing_words_a_chat_prompts_examples_write(doc_to_text, closing):
    """What chat_prompts.py looks for before the doc's text under a chat template: doc_to_text's own last words."""
    assert closing_words(TextTemplate.of(doc_to_text)) == closing


def request_removed(doc_id: int, sample: dict) -> None:
    """A choice's request taken out (its log-likelihood with it),
    the scores unchanged; only the doc's options, through doc_to_choice, say how many requests there were."""
    if doc_id == 3:
        last = sorted(sample["arguments"])[-1]
        del sample["arguments"][last]
        sample["resps"].pop()
        sample["filtered_resps"].pop()


def letter_edited(doc_id: int, sample: dict) -> None:
    if doc_id == 1:
        sample["arguments"]["gen_args_2"]["arg_1"] = " Z"


@pytest.mark.parametrize(
    "edit, expected",
    [
        (None, []),
        (request_removed, [("LB722", MMLU_PRO_LOG, 4)]),
        (letter_edited, [("LB722", MMLU_PRO_LOG, 2)]),
    ],
    ids=["honest", "a request removed", "a letter edited"],
)
def test_mmlu_pros_choices_are_a_letter_per_option(tmp_path, edit, expected):
    """MMLU-Pro's doc_to_choice is a function too, known by its source: a capital letter per option."""
    results = written(tmp_path, hl.mmlu_pro_task(), edit)
    result = audit_files(tmp_path, results.relative_to(tmp_path), None)
    assert sorted((f.rule, Path(f.file).name, f.line) for f in result.findings) == expected
    assert not [note for task in result.tasks for note in task.notes if "doc_to_choice" in note]


@pytest.mark.parametrize(
    "options, expected",
    [
        (["x", "y", "z"], ["A", "B", "C"]),
        ([], []),
        (["o"] * 27, None),  # string.ascii_uppercase[26]: the harness fails
        ("xyz", UNTRACEABLE),  # len() of a string: not a doc the dataset holds
    ],
)
def test_mmlu_pros_letters(options, expected):
    template = Template.of(hl.MMLU_PRO_DOC_TO_CHOICE)
    assert template is not None and template.kind == "letters"
    got = choices_of(template, {"options": options})
    assert got is expected if expected is UNTRACEABLE or expected is None else got == expected
    assert choices_of(template, {}) is None  # KeyError in the harness
    assert (
        Template.of(hl.MMLU_PRO_DOC_TO_CHOICE.replace("ascii_uppercase", "ascii_lowercase")) is None
    )
