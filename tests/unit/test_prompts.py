"""Each prompt against what its config builds from its doc (audit/checks/prompts.py): LB722 and LB723.

Without a chat template lm-eval 0.4.0 to 0.4.13 build a prompt as: system
instruction, description, num_fewshot examples (each ending in
fewshot_delimiter), then doc_to_text of the doc. Every case is a DROP run
(doc_to_text "{{passage}} {{question}}") written as the harness writes it,
hashes and task hashes recomputed after the edit, so only the prompts can
tell; each names the exact rules, file and line it expects.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import harness_logs as hl

from validator.audit.auditor import audit_files
from validator.audit.checks import prompts
from validator.harness.text_templates import TextTemplate

SHOTS = "Passage A. Question A? 4\n\nPassage B. Question B? 7\n\n"  # two examples, as the sampler joins them
FIVE_SHOTS = (
    SHOTS + "Passage C. Question C? 1\n\nPassage D. Question D? 2\n\nPassage E. Question E? 3\n\n"
)
LOG = f"samples_drop_{hl.DATE}.jsonl"
GOLDS = (
    12,
    7,
    30,
    4,
    19,
    8,
    21,
    5,
    16,
    9,
    27,
    3,
)  # whole numbers, answered right: no DROP deep-dive flag


def drop_run(
    tmp_path: Path,
    *,
    shots: str = "",
    num_fewshot: int = 0,
    config: dict | None = None,
    prompt=None,
    doc=None,
    results: dict | None = None,
) -> Path:
    """A DROP run whose every prompt is `shots` + the doc's own text, unless `prompt(doc_id, text)` says
    otherwise; `doc(doc_id, doc)` edits a doc after the run. The results file is written after the edits."""
    task = hl.drop_task([f" {n}" for n in GOLDS], [[[str(n)]] for n in GOLDS])
    task.config.update(
        {"num_fewshot": num_fewshot, "fewshot_delimiter": "\n\n", "description": ""},
        **(config or {}),
    )
    for sample in task.samples:
        doc_id, request = sample["doc_id"], sample["arguments"]["gen_args_0"]
        text = request["arg_0"]
        request["arg_0"] = prompt(doc_id, text) if prompt else shots + text
        if doc:
            doc(doc_id, sample["doc"])
        hl.with_hashes(sample)
    written = hl.results_for([task])
    written.update(results or {})
    return hl.write_run(tmp_path, [task], written)["results"]


def audited(tmp_path: Path, results: Path, prefixes: tuple[str, ...] = ("prompts not rebuilt",)):
    result = audit_files(tmp_path, results.relative_to(tmp_path), None)
    found = sorted((f.rule, Path(f.file).name, f.line) for f in result.findings)
    notes = [note for task in result.tasks for note in task.notes if note.startswith(prefixes)]
    return found, notes


def second_passage_edited(doc_id: int, doc: dict) -> None:
    if doc_id == 1:
        doc["passage"] += " The score was 12."


# (case, drop_run's arguments, the findings)
CASES = [
    ("zero-shot, as declared", {}, []),
    ("two-shot, as declared", {"shots": SHOTS, "num_fewshot": 2}, []),
    (
        "few-shot examples hidden: num_fewshot and n-shot both 0",
        {"shots": SHOTS},
        [("LB723", LOG, 1)],
    ),
    ("declared few-shot, prompts zero-shot", {"num_fewshot": 3}, [("LB723", LOG, 1)]),
    # a 25-shot ARC run's prompts cut to two examples: each delimiter ends an example, so two is two
    (
        "declared 25-shot, prompts of two examples",
        {"shots": SHOTS, "num_fewshot": 25},
        [("LB723", LOG, 1)],
    ),
    (
        "declared 3-shot, prompts of two (a sampler dropped the eval doc)",
        {"shots": SHOTS, "num_fewshot": 3},
        [],
    ),
    # lm-eval fails on a count above what fewshot_config lists (first_n asserts, a random draw raises)
    (
        "declared 4-shot, prompts of the two examples a fewshot_config lists",
        {
            "shots": SHOTS,
            "num_fewshot": 4,
            "config": {"fewshot_config": {"sampler": "first_n", "samples": [{"q": 1}, {"q": 2}]}},
        },
        [("LB723", LOG, 1)],
    ),
    (
        "an example's text holding the delimiter (more is never too few)",
        {"shots": "Passage A.\n\nQuestion A? 4\n\nPassage B. Question B? 7\n\n", "num_fewshot": 2},
        [],
    ),
    (
        "a doc edited after the run (hashes redone): its prompt still holds the old one",
        {"doc": second_passage_edited},
        [("LB722", LOG, 2)],
    ),
    (
        "the description, rendered",
        {
            "config": {"description": "Answer with a number.\n\n"},
            "prompt": lambda i, text: "Answer with a number.\n\n" + text,
        },
        [],
    ),
    (
        "the description as 0.4.2-0.4.3 render it (Jinja drops the last newline)",
        {
            "config": {"description": "Answer with a number.\n\n"},
            "prompt": lambda i, text: "Answer with a number.\n" + text,
        },
        [],
    ),
    (
        "the description, then two examples, as declared",
        {
            "num_fewshot": 2,
            "config": {"description": "Answer with a number.\n\n"},
            "prompt": lambda i, text: "Answer with a number.\n\n" + SHOTS + text,
        },
        [],
    ),
    (
        "the description as 0.4.2-0.4.3 render it, then two examples, as declared",
        {
            "num_fewshot": 2,
            "config": {"description": "Answer with a number.\n\n"},
            "prompt": lambda i, text: "Answer with a number.\n" + SHOTS + text,
        },
        [],
    ),
    (
        "examples hidden after the description",
        {
            "config": {"description": "Answer with a number.\n\n"},
            "prompt": lambda i, text: "Answer with a number.\n\n" + SHOTS + text,
        },
        [("LB723", LOG, 1)],
    ),
    # The blank line ending a description is no example, read as 0.4.2-0.4.3 render it (without that line)
    (
        "declared 2-shot after the description, prompts zero-shot",
        {
            "num_fewshot": 2,
            "config": {"description": "Answer with a number.\n\n"},
            "prompt": lambda i, text: "Answer with a number.\n\n" + text,
        },
        [("LB723", LOG, 1)],
    ),
    (
        "declared 2-shot, prompts of only a blank line before the doc's text",
        {"num_fewshot": 2, "prompt": lambda i, text: "\n\n" + text},
        [("LB723", LOG, 1)],
    ),
    (
        "a description the prompts do not start with",
        {"config": {"description": "Answer with a number.\n\n"}},
        [("LB722", LOG, line) for line in range(1, 13)],
    ),
    (
        "a system instruction, then the description",
        {
            "config": {"description": "Be brief."},
            "results": {"system_instruction": "You are a judge."},
            "prompt": lambda i, text: "You are a judge.\n\nBe brief." + text,
        },
        [],
    ),
    (
        "a system instruction the prompts lack",
        {"results": {"system_instruction": "You are a judge."}},
        [("LB722", LOG, line) for line in range(1, 13)],
    ),
    # lm-eval 0.4.0 and 0.4.1 put the description in as written, and up to 0.4.9 a field's name is that name
    (
        "the description as 0.4.0-0.4.1 write it (not rendered)",
        {
            "config": {"description": "About {{passage}}\r\n"},
            "prompt": lambda i, text: "About {{passage}}\r\n" + text,
        },
        [],
    ),
    (
        "the description as 0.4.0-0.4.1 write it, naming what the docs lack (0.4.2 on fail on it)",
        {
            "config": {"description": "About {{topic}}\n\n"},
            "prompt": lambda i, text: "About {{topic}}\n\n" + text,
        },
        [],
    ),
    (
        "a description naming a field, as 0.4.0-0.4.9 render it",
        {"config": {"description": "passage"}, "prompt": lambda i, text: "passage" + text},
        [],
    ),
    # a sampler drawing from the split it evaluates drops the eval doc: a 1-shot prompt may hold none
    (
        "a 1-shot run, one prompt without its example",
        {
            "num_fewshot": 1,
            "prompt": lambda i, text: text if i == 3 else "Passage A. Question A? 4\n\n" + text,
        },
        [],
    ),
    # A fixed set of examples in every prompt but one (its count is not the one before it)
    (
        "declared 5-shot, the fifth prompt cut to two examples",
        {"num_fewshot": 5, "prompt": lambda i, text: (SHOTS if i == 4 else FIVE_SHOTS) + text},
        [("LB723", LOG, 5)],
    ),
    (
        "declared 5-shot, the fifth prompt's examples as long but with two delimiters",
        {
            "num_fewshot": 5,
            "prompt": lambda i, text: (
                (FIVE_SHOTS.replace("\n\n", "  ", 3) if i == 4 else FIVE_SHOTS) + text
            ),
        },
        [("LB723", LOG, 5)],
    ),
    # 0.4.0 and 0.4.1 write num_fewshot null: the count is read from n-shot, written from the same setting
    (
        "examples hidden, num_fewshot null",
        {"shots": SHOTS, "config": {"num_fewshot": None}, "results": {"n-shot": {"drop": 0}}},
        [("LB723", LOG, 1)],
    ),
    (
        "Jinja's trim filter, as .strip()",
        {"shots": SHOTS, "config": {"doc_to_text": "{{passage}} {{question|trim}}"}},
        [("LB723", LOG, 1)],
    ),
    (
        "a doc_to_text 1,000 times its passage: longer than the prompt, never built",
        {"config": {"doc_to_text": "{{passage}}" * 1000}},
        [("LB722", LOG, line) for line in range(1, 13)],
    ),
]


@pytest.mark.parametrize("case, arguments, expected", CASES, ids=[case[0] for case in CASES])
def test_prompts_against_their_docs_and_the_declared_shots(tmp_path, case, arguments, expected):
    found, notes = audited(tmp_path, drop_run(tmp_path, **arguments))
    assert found == expected
    assert notes == []  # every prompt was rebuilt


@pytest.mark.parametrize("case, arguments, expected", CASES, ids=[case[0] for case in CASES])
def test_the_usual_prompt_is_settled_in_place_as_the_general_path_settles_it(
    tmp_path, monkeypatch, case, arguments, expected
):
    """Prompts.add checks the usual prompt without building its text (_as_usual); every prompt it does not
    settle goes through the general path. With the shortcut off, the findings and notes are the same."""
    results = drop_run(tmp_path, **arguments)

    def findings_and_notes():
        result = audit_files(tmp_path, results.relative_to(tmp_path), None)
        return [f.as_dict() for f in result.findings], [task.notes for task in result.tasks]

    shortcut = findings_and_notes()
    monkeypatch.setattr(prompts, "_as_usual", lambda *arguments: False)
    assert findings_and_notes() == shortcut


MMLU_LOG = f"samples_toy_mmlu_{hl.DATE}.jsonl"
MMLU_HEAD = "The following are multiple choice questions (with answers).\n\n"


def mmlu_examples(count: int, delimiter: str = "\n\n") -> str:
    """`count` examples as lm-eval writes them with doc_to_text "{{q}}\\nAnswer:" and a target delimiter " "."""
    return "".join(f"Example {n}?\nAnswer: {n % 4}{delimiter}" for n in range(count))


def mmlu_run(tmp_path: Path, *, before: str, config: dict, results: dict | None = None) -> Path:
    """An MMLU-like run (doc_to_text "{{q}}\\nAnswer:", two to five choices) whose every prompt is `before`
    and the doc's own text, hashes redone; `config` is what the results file says of the task, `results` what
    else it says."""
    task = hl.choice_task("toy_mmlu", 12)
    task.config.update({"description": MMLU_HEAD, "fewshot_delimiter": "\n\n", **config})
    for sample in task.samples:
        for request in sample["arguments"].values():
            request["arg_0"] = before + request["arg_0"]
        hl.with_hashes(sample)
    return hl.write_run(tmp_path, [task], {**hl.results_for([task]), **(results or {})})["results"]


# Every example holds doc_to_text's own text ("Answer:"), whatever the config says of the description and the
# delimiter: (case, mmlu_run's arguments, the findings)
MARK_CASES = [
    (
        "5-shot after the description, as declared",
        {"before": MMLU_HEAD + mmlu_examples(5), "config": {"num_fewshot": 5}},
        [],
    ),
    (
        "zero-shot, as declared",
        {"before": MMLU_HEAD, "config": {"num_fewshot": 0}},
        [],
    ),
    (
        "an example whose question holds the mark too (more is never too few)",
        {
            "before": MMLU_HEAD + "Answer: why?\nAnswer: 1\n\n" + mmlu_examples(1),
            "config": {"num_fewshot": 2},
        },
        [],
    ),
    (
        "zero-shot declared 5-shot, the description blanked and the delimiter a space in the config",
        {
            "before": MMLU_HEAD,
            "config": {"num_fewshot": 5, "description": "", "fewshot_delimiter": " "},
        },
        [("LB723", MMLU_LOG, 1)],
    ),
    (
        "zero-shot declared 2-shot, the description blanked in the config",
        {"before": MMLU_HEAD, "config": {"num_fewshot": 2, "description": ""}},
        [("LB723", MMLU_LOG, 1)],
    ),
    (
        "2-shot declared 5-shot, the delimiter a space in the config",
        {
            "before": MMLU_HEAD + mmlu_examples(2),
            "config": {"num_fewshot": 5, "fewshot_delimiter": " "},
        },
        [("LB723", MMLU_LOG, 1)],
    ),
    (
        "zero-shot declared 5-shot, a fewshot_config whose doc_to_text ends with the same words",
        {
            "before": MMLU_HEAD,
            "config": {
                "num_fewshot": 5,
                "description": "",
                "fewshot_delimiter": " ",
                "fewshot_config": {"doc_to_text": "{{ q }}\nAnswer:"},
            },
        },
        [("LB723", MMLU_LOG, 1)],
    ),
    # A chat template claimed in the results file, prompts of the plain build: the closing words are counted
    (
        "2-shot declared 5-shot, a chat template claimed",
        {
            "before": MMLU_HEAD + mmlu_examples(2),
            "config": {"num_fewshot": 5},
            "results": {"chat_template": "{{ messages }}"},
        },
        [("LB723", MMLU_LOG, 1)],
    ),
    (
        "zero-shot declared 5-shot, a chat template claimed, the description blanked (told once)",
        {
            "before": MMLU_HEAD,
            "config": {"num_fewshot": 5, "description": ""},
            "results": {"chat_template": "{{ messages }}"},
        },
        [("LB723", MMLU_LOG, 1)],
    ),
    (
        "5-shot, a chat template claimed, as declared",
        {
            "before": MMLU_HEAD + mmlu_examples(5),
            "config": {"num_fewshot": 5},
            "results": {"chat_template": "{{ messages }}"},
        },
        [],
    ),
    # lm-eval renders templates with StrictUndefined: a block the docs lack fails the run
    (
        "zero-shot declared 5-shot, a doc_to_text naming what the docs lack",
        {
            "before": MMLU_HEAD,
            "config": {
                "num_fewshot": 5,
                "description": "",
                "fewshot_delimiter": " ",
                "doc_to_text": "{{q}}\nAnswer:{{missing}}",
            },
        },
        [("LB722", MMLU_LOG, 1)],
    ),
    (
        "zero-shot declared 5-shot, a description naming what the docs lack",
        {
            "before": MMLU_HEAD,
            "config": {"num_fewshot": 5, "description": "{{subject}}", "fewshot_delimiter": " "},
        },
        [("LB722", MMLU_LOG, line) for line in range(1, 13)],  # only 0.4.0-0.4.1's, as written
    ),
    (
        "zero-shot declared 5-shot, the description blanked, a fewshot_config of another doc_to_text",
        {
            "before": MMLU_HEAD,
            "config": {
                "num_fewshot": 5,
                "description": "",
                "fewshot_config": {"doc_to_text": "{{q}}"},
            },
        },
        [("LB723", MMLU_LOG, 1)],  # no mark then; the delimiters tell
    ),
]


@pytest.mark.parametrize(
    "case, arguments, expected", MARK_CASES, ids=[case[0] for case in MARK_CASES]
)
def test_a_prompt_holds_no_more_examples_than_doc_to_texts_own_text(
    tmp_path, monkeypatch, case, arguments, expected
):
    """With the shortcut (_as_usual) and without it: the same findings and notes."""
    results = mmlu_run(tmp_path, **arguments)
    found, notes = audited(tmp_path, results)
    assert found == expected
    monkeypatch.setattr(prompts, "_as_usual", lambda *arguments: False)
    assert audited(tmp_path, results) == (found, notes)


# (case, drop_run's arguments, the note): prompts lbnorm does not rebuild, said on the task, never a finding
NOT_REBUILT = [
    (
        "a chat template",
        {
            "prompt": lambda i, text: f"<|user|>\n{SHOTS}{text}<|end|>\n<|assistant|>\n",
            "results": {"chat_template": "{{ messages }}"},
        },
        "a chat template",
    ),
    (
        "a Jinja filter in doc_to_text",
        {"shots": SHOTS, "config": {"doc_to_text": "{{passage|upper}} {{question}}"}},
        "template shape",
    ),
    ("a gen_prefix", {"shots": SHOTS, "config": {"gen_prefix": "Answer:"}}, "gen_prefix"),
    (
        "no doc_to_text in a 0.4 config",
        {"shots": SHOTS, "config": {"doc_to_text": None}},
        "has no doc_to_text",
    ),
    # blimp's and wikitext's doc_to_text is "": a finding, never an internal error
    ("an empty doc_to_text", {"config": {"doc_to_text": ""}}, "template shape"),
    (
        "an empty doc_to_text, chat",
        {"config": {"doc_to_text": ""}, "results": {"chat_template": "{{ messages }}"}},
        "template shape",
    ),
    (
        "a value Jinja prints otherwise (an object)",
        {"config": {"doc_to_text": "{{passage}} {{question}}{{answer}}"}},
        "a value their doc_to_text or description prints",
    ),
    (
        "a few-shot count that is no number",
        {"shots": SHOTS, "config": {"num_fewshot": "0"}, "results": {"n-shot": {"drop": "0"}}},
        "few-shot count is not checked",
    ),
]


@pytest.mark.parametrize(
    "case, arguments, note", NOT_REBUILT, ids=[case[0] for case in NOT_REBUILT]
)
def test_prompts_lbnorm_cannot_rebuild_are_noted_not_judged(tmp_path, case, arguments, note):
    found, notes = audited(
        tmp_path, drop_run(tmp_path, **arguments), prefixes=("prompts not", "the few-shot")
    )
    assert found == [] and len(notes) == 1 and note in notes[0]


def test_a_chat_template_the_prompts_show_no_markup_of_hides_no_few_shot_count(tmp_path):
    """A 2-shot run declared 0-shot, with a chat_template written into the results file and prompts that are the
    plain build end to end: held to the plain rules."""
    found, notes = audited(
        tmp_path, drop_run(tmp_path, shots=SHOTS, results={"chat_template": "{{ messages }}"})
    )
    assert found == [("LB723", LOG, 1)] and len(notes) == 1 and "a chat template" in notes[0]


PLAIN_CHAT = "{% for message in messages %}{{ message['content'] }}{% if not loop.last %}{{ '\\n' }}{% endif %}{% endfor %}"


@pytest.mark.parametrize(
    "joint, expected", [("\n", []), ("\n\n", []), ("\nQ: 1 A: 2\n", [("LB723", LOG, 1)])]
)
def test_a_chat_template_without_markup_joins_its_messages_with_no_example(
    tmp_path, joint, expected
):
    """Honest 0-shot runs under a template that joins the system and user messages with a newline (no role
    markup) pass: the newline is no example. Text between them is."""
    instruction = "You are a helpful assistant."
    found, _ = audited(
        tmp_path,
        drop_run(
            tmp_path,
            prompt=lambda i, text: instruction + joint + text,
            results={"chat_template": PLAIN_CHAT, "system_instruction": instruction},
        ),
    )
    assert found == expected


def test_an_empty_chat_template_is_no_chat_template(tmp_path):
    """lm-eval 0.4.5 writes chat_template "" when none was applied: the prompts are still rebuilt."""
    found, notes = audited(tmp_path, drop_run(tmp_path, shots=SHOTS, results={"chat_template": ""}))
    assert found == [("LB723", LOG, 1)] and notes == []


LLAMA3 = (
    "{{ bos_token }}{% for message in messages %}...{{ message['content'] | trim }}...{% endfor %}"
)


def llama3_chat(doc_id: int, text: str) -> str:
    """What a Llama 3 chat template makes of the doc's text as the last user message (trimmed), after two
    example turns."""
    turn = "<|start_header_id|>{}<|end_header_id|>\n\n{}<|eot_id|>"
    return (
        "<|begin_of_text|>"
        + turn.format("user", "Passage A. Question A?")
        + turn.format("assistant", "4")
        + turn.format("user", text.strip())
        + "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )


@pytest.mark.parametrize(
    "case, arguments, expected",
    [
        ("honest", {"prompt": llama3_chat}, []),
        (
            "a doc edited after the run",
            {"prompt": llama3_chat, "doc": second_passage_edited},
            [("LB722", LOG, 2)],
        ),
        (
            "a prompt edited after the run",
            {
                "prompt": lambda doc_id, text: llama3_chat(
                    doc_id, text.replace("Question 3", "Question 33") if doc_id == 3 else text
                )
            },
            [("LB722", LOG, 4)],
        ),
        # a doc's text longer than its whole prompt by the whitespace a trim removes is still traced
        (
            "trailing whitespace",
            {
                "prompt": llama3_chat,
                "doc": lambda doc_id, doc: doc.update(question=doc["question"] + " " * 400),
            },
            [],
        ),
    ],
    ids=["honest", "doc edited", "prompt edited", "trailing whitespace"],
)
def test_under_a_chat_template_each_prompt_holds_its_docs_text(tmp_path, case, arguments, expected):
    """A claimed chat template stops the prompt from being rebuilt, but not from being held to its doc: the
    doc's text is the last user message, as it is or trimmed (audit/checks/chat_prompts.py)."""
    found, notes = audited(
        tmp_path, drop_run(tmp_path, results={"chat_template": LLAMA3}, **arguments)
    )
    assert found == expected
    assert len(notes) == 1 and "only held to contain its doc's text" in notes[0]


def test_a_chat_apis_messages_are_noted(tmp_path):
    """A chat API's prompt is a one-element list (JsonChatStr): not the task's text, so not rebuilt."""
    results = drop_run(tmp_path)
    log = tmp_path / LOG
    samples = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    for sample in samples:
        request = sample["arguments"]["gen_args_0"]
        request["arg_0"] = [json.dumps([{"role": "user", "content": request["arg_0"]}])]
        sample["prompt_hash"] = hl.sha(request["arg_0"][0])
    log.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    data = json.loads(results.read_text(encoding="utf-8"))
    data["task_hashes"]["drop"] = hl.sha(
        "".join(s["doc_hash"] + s["prompt_hash"] + s["target_hash"] for s in samples)
    )
    results.write_text(json.dumps(data), encoding="utf-8")
    found, notes = audited(tmp_path, results)
    assert found == [] and notes == ["prompts not rebuilt from the docs: a chat API's messages"]
    data["chat_template"] = (
        LLAMA3  # the messages are JSON text: the doc's text is not held to be in them
    )
    results.write_text(json.dumps(data), encoding="utf-8")
    found, notes = audited(tmp_path, results)
    assert found == []


def test_every_request_of_a_sample_has_the_one_prompt(tmp_path):
    """Examples stripped from a multiple-choice sample's first request only (the one prompt_hash covers),
    the run declared 0-shot while the other requests still hold them: every request has the one prompt."""
    task = hl.choice_task("toy_mc", 12)
    task.config.update(doc_to_text="{{q}}\nAnswer:", num_fewshot=0, description="")
    for sample in task.samples:
        for key, request in sample["arguments"].items():
            request["arg_0"] = (SHOTS if key != "gen_args_0" else "") + request["arg_0"]
        hl.with_hashes(sample)
    results = hl.write_run(tmp_path, [task])["results"]
    found, _ = audited(tmp_path, results)
    assert found == [("LB722", f"samples_toy_mc_{hl.DATE}.jsonl", line) for line in range(1, 13)]


def test_no_example_in_ten_prompts_of_a_few_shot_run_is_lb723(tmp_path):
    """One prompt without its example is a sampler's draw of the eval doc; ten, every one, is a zero-shot run."""
    found, _ = audited(tmp_path, drop_run(tmp_path, num_fewshot=3))
    assert found == [("LB723", LOG, 1)]


def test_a_template_never_closed_is_read_in_one_pass():
    """160,000 characters of unclosed blocks are refused in one linear scan, not by a regex that scans to
    the end from every block."""
    assert TextTemplate.of("{{ a" * 40_000) is None
    assert TextTemplate.of("{{ a }}" * 40_000 + "{{ a") is None


def _mc_run(tmp_path: Path, edit) -> Path:
    """A 2-shot multiple-choice run as declared; `edit(sample)` rewrites its requests, hashes redone after."""
    task = hl.choice_task("toy_mc", 12)
    task.config.update(doc_to_text="{{q}}\nAnswer:", num_fewshot=2, description="")
    for sample in task.samples:
        for request in sample["arguments"].values():
            request["arg_0"] = SHOTS + request["arg_0"]
        edit(sample)
        hl.with_hashes(sample)
    return hl.write_run(tmp_path, [task])["results"]


def _same_length_doc_edit(sample: dict) -> None:
    """The doc's question rewritten at the same length, and request 0 with it: the others still ask the old one."""
    old = sample["doc"]["q"]
    sample["doc"]["q"] = old.replace("Question", "Quizzing")
    first = sample["arguments"]["gen_args_0"]
    first["arg_0"] = first["arg_0"].replace(old, sample["doc"]["q"])


def _blank_others(sample: dict) -> None:
    """Every request but the first given an empty context, which lm-eval writes for acc_mutual_info alone."""
    for key, request in sample["arguments"].items():
        if key != "gen_args_0":
            request["arg_0"] = ""


@pytest.mark.parametrize(
    "edit", [_same_length_doc_edit, _blank_others], ids=["same length", "blanked"]
)
def test_the_other_requests_keep_the_prompt_whole(tmp_path, edit):
    """Contexts are compared by text, not length, so a same-length rewrite of request 0 is LB722, and
    empty contexts are LB722 for any task."""
    found, _ = audited(tmp_path, _mc_run(tmp_path, edit))
    assert found == [("LB722", f"samples_toy_mc_{hl.DATE}.jsonl", line) for line in range(1, 13)]


def test_a_text_longer_than_the_prompt_is_lb722_wherever_an_untraceable_block_lies(tmp_path):
    """The in-place path met an untraceable block first, from the end, and let it pass; the general path, from the
    start, found the text longer than the prompt: both now say LB722."""

    def doc(doc_id, doc):
        doc["answers_list"] = ["a", "b"]

    found, notes = audited(
        tmp_path,
        drop_run(
            tmp_path, config={"doc_to_text": "{{passage}}" * 40 + "{{answers_list}}"}, doc=doc
        ),
    )
    assert found == [("LB722", LOG, line) for line in range(1, 13)]


def chat_choice_run(tmp_path: Path, *, chat: bool, delimiter: str, edit=None) -> Path:
    """An ARC-like multiple-choice run whose continuations carry `delimiter` before each choice, its prompts
    rendered by a Llama 3 chat template when `chat` (the results file then names it)."""
    task = hl.choice_task("arc_like", 6)
    for sample in task.samples:
        for request in sample["arguments"].values():
            request["arg_0"] = (
                llama3_chat(sample["doc_id"], request["arg_0"]) if chat else request["arg_0"]
            )
            request["arg_1"] = delimiter + request["arg_1"].removeprefix(" ")
        if edit:
            edit(sample)
        hl.with_hashes(sample)
    written = hl.results_for([task])
    if chat:
        written["chat_template"] = LLAMA3
    return hl.write_run(tmp_path, [task], written)["results"]


def _second_choice_edited(sample: dict) -> None:
    if sample["doc_id"] == 2:
        request = sample["arguments"]["gen_args_1"]
        request["arg_1"] = request["arg_1"][:-1] + "#"


CHOICE_LOG = f"samples_arc_like_{hl.DATE}.jsonl"


@pytest.mark.parametrize(
    "chat, delimiter, edit, expected",
    [
        (
            True,
            "",
            None,
            [],
        ),  # lm-eval 0.4.7 on: no delimiter before a choice under a chat template
        (True, " ", None, []),  # 0.4.3 to 0.4.6 kept it
        (
            False,
            "",
            None,
            [("LB722", CHOICE_LOG, 1)] + [("LB722", CHOICE_LOG, n) for n in range(2, 7)],
        ),
        (True, "", _second_choice_edited, [("LB722", CHOICE_LOG, 3)]),
    ],
    ids=["chat, none", "chat, kept", "no chat, none", "chat, a choice edited"],
)
def test_under_a_chat_template_choices_may_come_without_the_delimiter(
    tmp_path, chat, delimiter, edit, expected
):
    """lm-eval's construct_requests drops target_delimiter under a chat template (0.4.7 to 0.4.9 always;
    0.4.10 on unless a gen_prefix ends without whitespace), so an honest chat run's multiple-choice log
    is no LB722. Its choices are still traced, and scored from the same text."""
    found, _ = audited(
        tmp_path, chat_choice_run(tmp_path, chat=chat, delimiter=delimiter, edit=edit)
    )
    assert found == expected


def test_under_a_chat_template_a_number_with_choices_is_winograndes_layout(tmp_path):
    """lm-eval 0.4.3 to 0.4.9 read a doc_to_text of digits, with doc_to_choice, as the index of the choice to
    put in the prompt (winogrande's layout), as prompts.py knows: the number itself is not in the prompt."""

    def numbered(doc_id: int, doc: dict) -> None:
        doc.update(option=str(doc_id % 2), options=["Alice went home.", "Bob went home."])

    results = drop_run(
        tmp_path,
        prompt=lambda doc_id, text: (
            f"<|user|>{['Alice', 'Bob'][doc_id % 2]} went home.<|end|><|assistant|>"
        ),
        doc=numbered,
        config={"doc_to_text": "{{option}}", "doc_to_choice": "{{options}}"},
        results={"chat_template": LLAMA3},
    )
    found, _ = audited(tmp_path, results)
    assert found == []


def test_under_a_chat_template_the_edited_choice_is_the_request_named(tmp_path):
    """A choice edited in a chat run written without delimiters is told as the request that was edited, not as
    'request 0 continues with ..., but doc_to_choice gives " ..."' (the config's delimiter)."""
    results = chat_choice_run(tmp_path, chat=True, delimiter="", edit=_second_choice_edited)
    result = audit_files(tmp_path, results.relative_to(tmp_path), None)
    [finding] = [f for f in result.findings if f.rule == "LB722"]
    assert finding.message.startswith("arc_like doc_id 2: request 1 continues with ")
    assert (
        "doc_to_choice gives ' " not in finding.message
    )  # told with the delimiter the log was written with
