"""Few-shot examples a config lists (audit/checks/fixed_examples.py): LB722 and LB723.

A first_n task whose fewshot_config lists its samples (the leaderboard's BBH)
writes the same examples into every prompt: the first num_fewshot, each as
doc_to_text + target_delimiter + target + fewshot_delimiter. Every case is a
BBH-style run written as the harness writes it, prompts edited as a submitter
would, hashes, aggregates and task hashes redone, so only the prompts can tell.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import harness_logs as hl

from validator.audit.auditor import audit_files

TASK = "leaderboard_bbh_boolean_expressions"
LOG = f"samples_{TASK}_{hl.DATE}.jsonl"
DESCRIPTION = "Evaluate the result of a random Boolean expression.\n\n"
EXAMPLES = [
    {"input": "not ( ( not not True ) ) is", "target": "False"},
    {"input": "True and False and not True and True is", "target": "False"},
    {"input": "not not ( not ( False ) ) is", "target": "True"},
    {"input": "not True or False is", "target": "False"},
]
DOCS = [{"input": f"{'not ' * n}False is", "target": ["False", "True"][n % 2]} for n in range(6)]


def written(
    examples: list[dict], target=lambda example: example["target"], newline: str = ""
) -> str:
    return "".join(
        f"Q: {example['input']}\nA:{newline} {target(example)}\n\n" for example in examples
    )


def bbh_run(
    tmp_path: Path,
    *,
    shots: int = 3,
    listed: list[dict] = EXAMPLES[:3],
    docs: list[dict] = DOCS,
    prompt=lambda doc: written(EXAMPLES[:3]),
    config: dict | None = None,
    chat=None,
    question=lambda doc: f"Q: {doc['input']}\nA:",
) -> Path:
    """A 3-shot BBH run; `prompt(doc)` gives each prompt's examples, and `chat(doc)` the whole prompt as a chat
    template writes it (the results file then names a template)."""
    task = hl.scripted_choice_task(
        TASK, [True, False] * (len(docs) // 2), choices=("False", "True")
    )
    task.config.update(
        {
            "doc_to_text": "Q: {{input}}\nA:",
            "doc_to_target": "{{target}}",
            "doc_to_choice": ["False", "True"],
            "description": DESCRIPTION,
            "num_fewshot": shots,
            "fewshot_delimiter": "\n\n",
            "fewshot_config": {"sampler": "first_n", "samples": listed},
        },
        **(config or {}),
    )
    for sample, doc in zip(task.samples, docs, strict=True):
        sample["doc"] = doc
        sample["target"] = doc[
            "target"
        ]  # doc_to_target gives the choice's text, and lm-eval logs it
        context = chat(doc) if chat else task.config["description"] + prompt(doc) + question(doc)
        for request in sample["arguments"].values():
            request["arg_0"] = context
        hl.with_hashes(sample)
    results = hl.results_for([task])
    if chat:
        results.update(
            chat_template="{% for message in messages %}...{% endfor %}", fewshot_as_multiturn=True
        )
    return hl.write_run(tmp_path, [task], results)["results"]


def turn(role: str, content: str) -> str:
    return f"<|start_header_id|>{role}<|end_header_id|>\n\n{content.strip()}<|eot_id|>"


def multiturn(examples: list[dict], answer=lambda example: example["target"]):
    """Llama 3's template over lm-eval's messages: the description as the system's, one user and one assistant
    turn per example (fewshot_as_multiturn), then the doc's own text."""

    def chat(doc: dict) -> str:
        shots = "".join(
            turn("user", f"Q: {e['input']}\nA:") + turn("assistant", answer(e)) for e in examples
        )
        question = turn("user", f"Q: {doc['input']}\nA:")
        return (
            f"<|begin_of_text|>{turn('system', DESCRIPTION)}{shots}{question}"
            + "<|start_header_id|>assistant<|end_header_id|>\n\n"
        )

    return chat


def single_turn(examples: list[dict]):
    """The same template, the examples and the doc's text in one user message (no fewshot_as_multiturn)."""

    def chat(doc: dict) -> str:
        message = written(examples) + f"Q: {doc['input']}\nA:"
        return (
            f"<|begin_of_text|>{turn('system', DESCRIPTION)}{turn('user', message)}"
            + "<|start_header_id|>assistant<|end_header_id|>\n\n"
        )

    return chat


def audited(tmp_path: Path, results: Path):
    result = audit_files(tmp_path, results.relative_to(tmp_path), None)
    notes = [
        note for task in result.tasks for note in task.notes if note.startswith("few-shot examples")
    ]
    return sorted((f.rule, Path(f.file).name, f.line) for f in result.findings), notes, result


def flipped(example: dict) -> str:
    return "True" if example["target"] == "False" else "False"


CASES = [
    ("the first three, as declared", {}, []),
    # an example's answer rewritten in every prompt
    (
        "an example's answer rewritten",
        {"prompt": lambda doc: written(EXAMPLES[:3], flipped)},
        [("LB722", LOG, 1)],
    ),
    (
        "an example left out",
        {"prompt": lambda doc: written([EXAMPLES[0], EXAMPLES[2]])},
        [("LB722", LOG, 1)],
    ),
    # the count declared lower than the prompts hold: the delimiters cannot tell (an example may hold them)
    ("three held, one declared", {"shots": 1}, [("LB723", LOG, 1)]),
    (
        "two held, three declared",
        {"prompt": lambda doc: written(EXAMPLES[:2])},
        [("LB723", LOG, 1)],
    ),
    ("four listed, three declared", {"listed": EXAMPLES}, []),
    (
        "four listed and held, three declared",
        {"listed": EXAMPLES, "prompt": lambda doc: written(EXAMPLES)},
        [("LB723", LOG, 1)],
    ),
    # the eval doc among the examples: 0.4.1-0.4.12 drop it from the first n, 0.4.13 from the list
    (
        "the eval doc dropped from the first n",
        {
            "docs": [EXAMPLES[1]] + DOCS[1:],
            "prompt": lambda doc: written([e for e in EXAMPLES[:3] if e != doc]),
        },
        [],
    ),
    (
        "the eval doc dropped from the list",
        {
            "listed": EXAMPLES,
            "docs": [EXAMPLES[1]] + DOCS[1:],
            "prompt": lambda doc: written([e for e in EXAMPLES if e != doc][:3]),
        },
        [],
    ),
    (
        "a doc like an example, its example kept",
        {"docs": [dict(EXAMPLES[1], input="other")] + DOCS[1:]},
        [],
    ),
    # 0.4.13 writes every fewshot_config field, the task's inherited; a doc_to_text of its own writes the examples
    (
        "0.4.13's fewshot_config",
        {
            "config": {
                "fewshot_config": {
                    "sampler": "first_n",
                    "split": None,
                    "process_docs": None,
                    "fewshot_indices": None,
                    "samples": EXAMPLES[:3],
                    "doc_to_text": "Q: {{input}}\nA:",
                    "doc_to_choice": ["False", "True"],
                    "doc_to_target": "{{target}}",
                    "gen_prefix": None,
                    "fewshot_delimiter": "\n\n",
                    "target_delimiter": " ",
                }
            }
        },
        [],
    ),
    (
        "the fewshot_config's own doc_to_text",
        {
            "config": {
                "fewshot_config": {
                    "sampler": "first_n",
                    "samples": EXAMPLES[:3],
                    "doc_to_text": "{{input}}",
                }
            },
            "prompt": lambda doc: "".join(f"{e['input']} {e['target']}\n\n" for e in EXAMPLES[:3]),
        },
        [],
    ),
    # lm-eval up to 0.4.12 reads a few fewshot_config keys and ignores the rest: another key turns nothing off
    (
        "a key lm-eval ignores, an example rewritten",
        {
            "config": {
                "fewshot_config": {"sampler": "first_n", "samples": EXAMPLES[:3], "comment": "ours"}
            },
            "prompt": lambda doc: written(EXAMPLES[:3], flipped),
        },
        [("LB722", LOG, 1)],
    ),
    # the default sampler draws num_fewshot distinct listed examples at random, in any order
    (
        "drawn at random from the list",
        {
            "listed": EXAMPLES,
            "config": {"fewshot_config": {"sampler": "default", "samples": EXAMPLES}},
            "prompt": lambda doc: written([EXAMPLES[3], EXAMPLES[0], EXAMPLES[2]]),
        },
        [],
    ),
    (
        "drawn at random, one not listed",
        {
            "listed": EXAMPLES,
            "config": {"fewshot_config": {"sampler": "default", "samples": EXAMPLES}},
            "prompt": lambda doc: written([EXAMPLES[3], EXAMPLES[0], DOCS[5]]),
        },
        [("LB722", LOG, 1)],
    ),
    (
        "drawn at random, one twice",
        {
            "listed": EXAMPLES,
            "config": {"fewshot_config": {"sampler": "default", "samples": EXAMPLES}},
            "prompt": lambda doc: written([EXAMPLES[3], EXAMPLES[0], EXAMPLES[0]]),
        },
        [("LB722", LOG, 1)],
    ),
    # under a chat template: the examples in order, each answer after its text (messages as they are or trimmed)
    ("a chat template, one turn per example", {"chat": multiturn(EXAMPLES[:3])}, []),
    ("a chat template, the examples in one message", {"chat": single_turn(EXAMPLES[:3])}, []),
    (
        "a chat template, an example's answer rewritten",
        {"chat": multiturn(EXAMPLES[:3], flipped)},
        [("LB722", LOG, 1)],
    ),
    (
        "a chat template, an example left out",
        {"chat": multiturn([EXAMPLES[0], EXAMPLES[2]])},
        [("LB722", LOG, 1)],
    ),
    (
        "a chat template, four held, three declared",
        {"listed": EXAMPLES, "chat": multiturn(EXAMPLES)},
        [("LB723", LOG, 1)],
    ),
    (
        "a chat template, four listed, three held",
        {"listed": EXAMPLES, "chat": multiturn(EXAMPLES[:3])},
        [],
    ),
    # a doc_to_text ending in a newline: kept from 0.4.4 on, dropped before, in every example alike
    (
        "a doc_to_text's last newline kept",
        {
            "config": {"doc_to_text": "Q: {{input}}\nA:\n"},
            "prompt": lambda doc: written(EXAMPLES[:3], newline="\n"),
        },
        [],
    ),
    ("a doc_to_text's last newline dropped", {"config": {"doc_to_text": "Q: {{input}}\nA:\n"}}, []),
    (
        "a doc_to_text's last newline added, an example rewritten",
        {
            "config": {"doc_to_text": "Q: {{input}}\nA:\n"},
            "prompt": lambda doc: written(EXAMPLES[:3], flipped),
        },
        [("LB722", LOG, 1)],
    ),
    # an example whose own text starts with whitespace (honest)
    (
        "an example starting with a newline",
        {
            "listed": [dict(EXAMPLES[0], input="\n" + EXAMPLES[0]["input"])] + EXAMPLES[1:3],
            "config": {"doc_to_text": "{{input}}\nA:", "description": ""},
            "question": lambda doc: f"{doc['input']}\nA:",
            "prompt": lambda doc: "".join(
                f"{e['input']}\nA: {e['target']}\n\n"
                for e in [dict(EXAMPLES[0], input="\n" + EXAMPLES[0]["input"])] + EXAMPLES[1:3]
            ),
        },
        [],
    ),
    # first_n reads only the first examples of the list: what follows them is never drawn
    (
        "a list with other things after its first examples",
        {"listed": EXAMPLES[:3] + ["junk", 7]},
        [],
    ),
    (
        "... an example rewritten",
        {"listed": EXAMPLES[:3] + ["junk"], "prompt": lambda doc: written(EXAMPLES[:3], flipped)},
        [("LB722", LOG, 1)],
    ),
    # a target that is a choice's index writes the choice's text
    (
        "an index target",
        {
            "listed": [dict(e, target=["False", "True"].index(e["target"])) for e in EXAMPLES[:3]],
            "config": {"doc_to_target": "target"},
        },
        [],
    ),
]


@pytest.mark.parametrize("case, arguments, found", CASES, ids=[case for case, _, _ in CASES])
def test_the_examples_of_every_prompt_are_the_configs(tmp_path, case, arguments, found):
    assert audited(tmp_path, bbh_run(tmp_path, **arguments))[:2] == (found, [])


def test_the_finding_says_what_the_prompt_holds(tmp_path):
    _, _, result = audited(tmp_path, bbh_run(tmp_path, shots=1))
    [finding] = result.findings
    assert finding.message == (
        f"configs.{TASK}.num_fewshot is 1, but the prompt of doc_id 0 holds the first 3 of the 3 examples its "
        "fewshot_config lists"
    )
    assert "n-shot and the config were edited after the run, or the prompts were" in finding.details


def test_a_sampler_lm_eval_does_not_have(tmp_path):
    """SAMPLER_REGISTRY has first_n and default: any other name fails the run, so the config was edited (a
    differently cased 'First_N' must not turn the check off)."""
    results = bbh_run(
        tmp_path,
        config={"fewshot_config": {"sampler": "First_N", "samples": EXAMPLES[:3]}},
        prompt=lambda doc: written(EXAMPLES[:3], flipped),
    )
    _, _, result = audited(tmp_path, results)
    assert [(f.rule, Path(f.file).name, f.json_path) for f in result.findings] == [
        ("LB722", results.name, f"$.configs.{TASK}.fewshot_config.sampler")
    ]
    assert "sampler 'First_N' is none lm-eval has (first_n, default)" in result.findings[0].message


@pytest.mark.parametrize(
    "config, note",
    [
        (
            {
                "fewshot_config": {
                    "sampler": "first_n",
                    "samples": EXAMPLES[:3],
                    "fewshot_indices": [0, 1, 2],
                }
            },
            "its fewshot_config's fewshot_indices, which lbnorm does not replay",
        ),
        (
            {"fewshot_split": "validation"},
            "they come from a dataset split (fewshot_split), which takes precedence over the list",
        ),
        (
            {
                "fewshot_config": {
                    "sampler": "first_n",
                    "samples": "<function list_fewshot_samples at 0x7f>",
                }
            },
            "its fewshot_config's samples are a function (its source or name in the config), not run here",
        ),
        (
            {
                "fewshot_config": {
                    "sampler": "first_n",
                    "samples": EXAMPLES[:3],
                    "fewshot_delimiter": "\n",
                }
            },
            "its fewshot_config's fewshot_delimiter is not the task's (versions read one or the other)",
        ),
        ({"gen_prefix": "A:"}, "a gen_prefix, written after each example's target delimiter"),
        (
            {"fewshot_config": {"sampler": "first_n", "samples": [{"question": "?"}] * 3}},
            'an example whose doc_to_text or target lbnorm does not render (or whose target is "")',
        ),
    ],
)
def test_examples_not_rendered_are_a_note(tmp_path, config, note):
    _, notes, _ = audited(
        tmp_path,
        bbh_run(tmp_path, config=config, prompt=lambda doc: written(EXAMPLES[:3], flipped)),
    )
    assert notes == [f"few-shot examples not held to the config's list: {note}"]
