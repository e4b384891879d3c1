"""Write results files and sample logs the way lm-eval 0.4.x does, for the audit tests.

The writer mirrors lm_eval/evaluator.py (per-sample hashes) and
lm_eval/loggers/evaluation_tracker.py (task_hashes, one JSONL file per task,
json.dumps(..., ensure_ascii=False)); the hash formulas themselves are
checked against a real 0.4.9.2 log in tests/data/samples/real_0.4.9.2.
Per-sample DROP scores come from validator.harness.drop, which tests/unit/test_drop.py
proves equal to the harness on its golden vectors.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

from validator.harness import drop

DATE = "2024-06-17T17-37-25.144953"
DROP_UNTIL = ["."]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Task:
    name: str
    config: dict
    samples: list[dict] = field(default_factory=list)
    aggregations: dict[str, str] = field(default_factory=dict)  # metric -> "mean" | "flatten"


def with_hashes(sample: dict) -> dict:
    """Add the three hashes as the harness computes them, before metrics are merged in."""
    prompt = next(iter(sample["arguments"].values()))["arg_0"]
    sample["doc_hash"] = sha(json.dumps(sample["doc"], indent=2, ensure_ascii=False))
    sample["prompt_hash"] = sha(prompt)
    sample["target_hash"] = sha(str(sample["target"]))
    return sample


def drop_fields(golds: list[list[str]]) -> dict:
    """doc.answer and doc.validated_answers as EleutherAI/drop holds them, giving these golds (as spans)."""
    empty = {"day": "", "month": "", "year": ""}
    return {
        "answer": {"number": "", "date": empty, "spans": list(golds[0])},
        "validated_answers": {
            "number": [""] * (len(golds) - 1),
            "date": [empty] * (len(golds) - 1),
            "spans": [list(gold) for gold in golds[1:]],
        },
    }


def drop_task(
    predictions: list[str],
    golds: list[list[list[str]]],
    until: list[str] = DROP_UNTIL,
    answer_fields: bool = True,
) -> Task:
    """`answer_fields`: the docs also hold the dataset's answer and validated_answers, as lm-eval logs them."""
    config = {
        "task": "drop",
        "dataset_path": "EleutherAI/drop",
        "output_type": "generate_until",
        "doc_to_text": "{{passage}} {{question}}",
        "doc_to_target": "{{ answer|join(',')}}",
        "target_delimiter": "",
        "generation_kwargs": {"until": list(until)},
        "metric_list": [
            {"metric": "em", "aggregation": "mean", "higher_is_better": True},
            {"metric": "f1", "aggregation": "mean", "higher_is_better": True},
        ],
        "metadata": {"version": 3.0},
    }
    task = Task("drop", config)
    for doc_id, (prediction, answers) in enumerate(zip(predictions, golds, strict=True)):
        doc = {
            "section_id": f"s{doc_id}",
            "query_id": f"q{doc_id}",
            "passage": f"Passage {doc_id}.",
            "question": f"Question {doc_id}?",
            "id": f"q{doc_id}",
            "answers": answers,
        }
        if answer_fields:
            doc = {**doc, **drop_fields(answers)}
        em, f1 = drop.process_results([tuple(a) for a in answers], prediction)
        sample = {
            "doc_id": doc_id,
            "doc": doc,
            "target": "number,date,spans,worker_id,hit_id",
            "arguments": {
                "gen_args_0": {
                    "arg_0": f"Passage {doc_id}. Question {doc_id}?",
                    "arg_1": {"until": list(until)},
                }
            },
            "resps": [[prediction]],
            "filtered_resps": [prediction],
            "filter": "none",
            "metrics": ["em", "f1"],
        }
        with_hashes(sample)
        sample.update({"em": 0 if em == 0 else em, "f1": 0 if f1 == 0 else f1})
        task.samples.append(sample)
    return task


def choice_sample(
    doc_id: int,
    doc: dict,
    context: str,
    choices: list[str],
    gold: int,
    lls: list[float],
    delimiter: str = " ",
) -> dict:
    """One multiple-choice sample as lm-eval 0.4.3+ logs it: a request per choice, its log-likelihoods as
    strings, the three hashes, and acc and acc_norm as lm-eval scores them (numpy's first argmax)."""
    acc = 1.0 if max(range(len(lls)), key=lambda i: (lls[i], -i)) == gold else 0.0
    normed = [ll / len(c) for ll, c in zip(lls, choices, strict=True)]
    acc_norm = 1.0 if max(range(len(normed)), key=lambda i: (normed[i], -i)) == gold else 0.0
    sample = {
        "doc_id": doc_id,
        "doc": doc,
        "target": str(gold),
        "arguments": {
            f"gen_args_{i}": {"arg_0": context, "arg_1": delimiter + c}
            for i, c in enumerate(choices)
        },
        "resps": [[[str(ll), "False"]] for ll in lls],
        "filtered_resps": [[str(ll), "False"] for ll in lls],
        "filter": "none",
        "metrics": ["acc", "acc_norm"],
    }
    with_hashes(sample)
    sample.update({"acc": acc, "acc_norm": acc_norm})
    return sample


def choice_task(name: str, docs: int, seed: int = 1, delimiter: str = " ") -> Task:
    """A multiple-choice task scored from log-likelihoods, with acc and acc_norm per sample."""
    rng = random.Random(seed)
    config = {
        "task": name,
        "output_type": "multiple_choice",
        "target_delimiter": delimiter,
        "doc_to_text": "{{q}}\nAnswer:",
        "doc_to_target": "label",
        "doc_to_choice": "choices",
        "metric_list": [
            {"metric": "acc", "aggregation": "mean"},
            {"metric": "acc_norm", "aggregation": "mean"},
        ],
    }
    task = Task(name, config)
    for doc_id in range(docs):
        choices = [
            rng.choice(["A", "Yes", "No way", "perhaps so", "12"]) + str(i)
            for i in range(rng.randint(2, 5))
        ]
        gold = rng.randrange(len(choices))
        lls = [-rng.uniform(0.1, 12.0) for _ in choices]
        doc = {"q": f"Question {doc_id}?", "choices": choices, "label": gold}
        sample = choice_sample(
            doc_id, doc, f"Question {doc_id}?\nAnswer:", choices, gold, lls, delimiter
        )
        task.samples.append(sample)
    return task


def scripted_choice_task(
    name: str,
    correct: list[bool],
    choices: tuple[str, ...] = ("Alice", "Bob", "Carol"),
    metrics: tuple[str, ...] = ("acc_norm",),
) -> Task:
    """A multiple-choice task whose acc and acc_norm are 1 exactly where `correct` says (the model picks gold or the next)."""
    config = {
        "task": name,
        "output_type": "multiple_choice",
        "target_delimiter": " ",
        "doc_to_text": "question",
        "doc_to_target": "answer_index",
        "doc_to_choice": "{{choices}}",
        "metric_list": [
            {"metric": m, "aggregation": "mean", "higher_is_better": True} for m in metrics
        ],
    }
    task = Task(name, config)
    for doc_id, right in enumerate(correct):
        gold = doc_id % len(choices)
        picked = gold if right else (gold + 1) % len(choices)
        lls = [-0.5 * len(c) if i == picked else -10.0 * len(c) for i, c in enumerate(choices)]
        sample = {
            "doc_id": doc_id,
            "doc": {
                "question": f"Who did it in story {doc_id}?",
                "choices": list(choices),
                "answer_index": gold,
            },
            "target": str(gold),
            "arguments": {
                f"gen_args_{i}": {"arg_0": f"Who did it in story {doc_id}?", "arg_1": " " + c}
                for i, c in enumerate(choices)
            },
            "resps": [[[str(ll), "False"]] for ll in lls],
            "filtered_resps": [[str(ll), "False"] for ll in lls],
            "filter": "none",
            "metrics": list(metrics),
        }
        with_hashes(sample)
        sample.update({m: 1.0 if right else 0.0 for m in metrics})
        task.samples.append(sample)
    return task


# The source lm-eval writes of IFEval's process_results (tasks/ifeval/utils.py), as its configs hold it.
IFEVAL_PROCESS_RESULTS = (
    'def process_results(doc, results):\n    inp = InputExample(\n        key=doc["key"],\n'
    '        instruction_id_list=doc["instruction_id_list"],\n        prompt=doc["prompt"],\n'
    '        kwargs=doc["kwargs"],\n    )\n    response = results[0]\n'
    "    out_strict = test_instruction_following_strict(inp, response)\n"
    "    out_loose = test_instruction_following_loose(inp, response)\n    ...\n"
)
IFEVAL_RESPONSE = "A few words."


def ifeval_instruction(passes: bool, index: int = 0) -> tuple[str, dict]:
    """An instruction id and its kwargs (every key of the dataset's, as lm-eval logs them) that lm-eval's checker
    passes on IFEVAL_RESPONSE (three words) or fails, strict and loose alike."""
    kwargs = dict.fromkeys(("num_words", "relation", "num_sentences", "keywords"))
    kwargs.update(num_words=40 + index, relation="less than" if passes else "at least")
    return "length_constraints:number_words", kwargs


def ifeval_task(outcomes: list[list[bool]], loose: bool = False) -> Task:
    """IFEval-style: prompt level a bool, instruction level a list of bools (flattened when aggregated); with
    `loose`, the loose levels too (the same outcomes). Each doc lists one number_words instruction per outcome,
    with kwargs under which lm-eval's checker gives that outcome on the response: an honest log."""
    levels = ("strict", "loose") if loose else ("strict",)
    config = {
        "task": "leaderboard_ifeval",
        "output_type": "generate_until",
        "generation_kwargs": {"until": []},
        "doc_to_text": "prompt",
        "process_results": IFEVAL_PROCESS_RESULTS,
        "metric_list": [
            entry
            for level in levels
            for entry in (
                {"metric": f"prompt_level_{level}_acc", "aggregation": "mean"},
                {
                    "metric": f"inst_level_{level}_acc",
                    "aggregation": "def agg_inst_level_acc(items):\n    flat_items = ...",
                },
            )
        ],
    }
    task = Task("leaderboard_ifeval", config)
    for doc_id, instructions in enumerate(outcomes):
        listed = [ifeval_instruction(passes, index) for index, passes in enumerate(instructions)]
        doc = {
            "key": doc_id,
            "prompt": f"Write {doc_id} words.",
            "instruction_id_list": [i for i, _ in listed],
            "kwargs": [kwargs for _, kwargs in listed],
        }
        sample = {
            "doc_id": doc_id,
            "doc": doc,
            "target": "0",
            "arguments": {
                "gen_args_0": {"arg_0": f"Write {doc_id} words.", "arg_1": {"until": []}}
            },
            "resps": [[IFEVAL_RESPONSE]],
            "filtered_resps": [IFEVAL_RESPONSE],
            "filter": "none",
            "metrics": [
                f"{kind}_level_{level}_acc" for level in levels for kind in ("prompt", "inst")
            ],
        }
        with_hashes(sample)
        for level in levels:
            sample.update(
                {
                    f"prompt_level_{level}_acc": all(instructions),
                    f"inst_level_{level}_acc": list(instructions),
                }
            )
        task.samples.append(sample)
    return task


# lm-eval's tasks/leaderboard/math (0.4.9 to 0.4.13): process_docs as its config holds it, and the target template
MATH_PROCESS_DOCS = (
    "def process_docs(dataset: datasets.Dataset) -> datasets.Dataset:\n    def _process_doc(doc: dict) -> dict:\n"
    '        out_doc = {\n            "problem": doc["problem"],\n            "solution": doc["solution"],\n'
    '            "answer": remove_boxed(last_boxed_only_string(doc["solution"])),\n        }\n'
    '        if getattr(doc, "few_shot", None) is not None:\n            out_doc["few_shot"] = True\n'
    '        return out_doc\n\n    return dataset.filter(lambda x: x["level"] == "Level 5").map(_process_doc)\n'
)


# Its doc_to_text as the results file's config holds it, and the four examples a 4-shot prompt starts with (each
# doc_to_text + target_delimiter + the solution, then fewshot_delimiter).
MATH_DOC_TO_TEXT = (
    'def doc_to_text(doc: dict) -> str:\n    return "Problem:" + "\\n" + doc["problem"] + "\\n\\n" + '
    '"Solution:"\n'
)
MATH_SHOTS = "".join(
    f"Problem:\nAdd {n} and {n}.\n\nSolution: It is $\\boxed{{{2 * n}}}$.\n\n" for n in range(1, 5)
)


def math_task(name: str, correct: list[bool], shots: str = MATH_SHOTS) -> Task:
    """A leaderboard MATH subtask: docs as its process_docs builds them, exact_match 1 where `correct` says."""
    config = {
        "task": name,
        "output_type": "generate_until",
        "process_docs": MATH_PROCESS_DOCS,
        "doc_to_text": MATH_DOC_TO_TEXT,
        "fewshot_delimiter": "\n\n",
        "target_delimiter": " ",
        "description": "",
        "doc_to_target": "{{answer if few_shot is undefined else solution}}",
        "num_fewshot": 4,
        "process_results": "def process_results(doc: dict, results: list[str]) -> dict[str, int]:\n    ...",
        "generation_kwargs": {"until": ["Problem:"], "do_sample": False},
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}],
    }
    task = Task(name, config)
    for doc_id, right in enumerate(correct):
        answer = f"\\frac{{{doc_id + 1}}}{{2}}"
        doc = {
            "problem": f"Halve {doc_id + 1}.",
            "solution": f"It is $\\boxed{{{answer}}}$.",
            "answer": answer,
        }
        said = answer if right else str(doc_id + 7)
        response = f" Final Answer: The final answer is ${said}$. I hope it is correct."
        sample = {
            "doc_id": doc_id,
            "doc": doc,
            "target": answer,
            "arguments": {
                "gen_args_0": {
                    "arg_0": f"{shots}Problem:\nHalve {doc_id + 1}.\n\nSolution:",
                    "arg_1": {"until": ["Problem:"], "do_sample": False},
                }
            },
            "resps": [[response]],
            "filtered_resps": [response],
            "filter": "none",
            "metrics": ["exact_match"],
        }
        with_hashes(sample)
        sample["exact_match"] = 1 if right else 0
        task.samples.append(sample)
    return task


# The leaderboard's MMLU-Pro and MuSR doc_to_text as lm-eval 0.4.13 defines them (lm_eval/tasks/leaderboard/
# mmlu_pro/utils.py, musr/utils.py), each with the module lines it needs: the source is what a results file's
# config holds, and the fixtures' prompts are what running it gives.
MMLU_PRO_DOC_TO_TEXT = (
    'def doc_to_text(doc):\n    doc_to_text = f"{doc[\'question\']}\\n"\n\n    for i in range(len(doc["options"])):\n'
    '        doc_to_text += f"{string.ascii_uppercase[i]}. {doc[\'options\'][i]}\\n"\n\n    doc_to_text += "Answer:"\n'
    "    return doc_to_text\n"
)
MUSR_DOC_TO_TEXT = (
    'def doc_to_text(doc):\n    """\n    Convert a doc to text.\n    """\n    choices = ""\n    for i, choice in '
    'enumerate(ast.literal_eval(doc["choices"])):\n        choices += f"{i + 1} - {choice}\\n"\n\n    text = '
    'DOC_TO_TEXT.format(\n        narrative=doc["narrative"], question=doc["question"], choices=choices\n    )\n\n'
    "    return text\n"
)
FUNCTION_MODULES = {
    MMLU_PRO_DOC_TO_TEXT: "import string\n",
    MUSR_DOC_TO_TEXT: 'import ast\nDOC_TO_TEXT = "{narrative}\\n\\n{question}\\n\\n{choices}\\nAnswer:"\n',
}


def harness_function(source: str):
    """The harness's function, run from this repository's copy (never from a log)."""
    namespace: dict = {}
    exec(FUNCTION_MODULES.get(source, "") + source, namespace)  # noqa: S102
    return namespace["doc_to_text"]


def function_prompt_task(
    name: str,
    source: str,
    docs: list[dict],
    choices: list[list[str]],
    shots: int = 0,
    num_fewshot: int | None = None,
    doc_to_choice: str | None = None,
) -> Task:
    """A leaderboard multiple-choice task whose doc_to_text is `source` (MMLU-Pro's, MuSR's): every prompt is
    `shots` examples (each a prompt of its own, the gold and fewshot_delimiter) then the function's text for the
    doc; the model picks the first choice, which is the gold of the even doc_ids."""
    doc_to_text = harness_function(source)
    # `doc_to_choice`: a function's source (MMLU-Pro's letters), the target then the gold's letter in doc["answer"]
    config = {
        "task": name,
        "output_type": "multiple_choice",
        "target_delimiter": " ",
        "fewshot_delimiter": "\n\n",
        "doc_to_text": source,
        "doc_to_target": "answer" if doc_to_choice else "gold",
        "doc_to_choice": doc_to_choice or "labels",
        "num_fewshot": shots if num_fewshot is None else num_fewshot,
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
    }
    task = Task(name, config)
    examples = "".join(
        doc_to_text(docs[-1 - n]) + " " + choices[-1 - n][0] + "\n\n" for n in range(shots)
    )
    for doc_id, (doc, labels) in enumerate(zip(docs, choices, strict=True)):
        gold = 0 if doc_id % 2 == 0 else 1
        doc = (
            {
                **doc,
                "answer": labels[gold],
                "answer_index": gold,
            }  # as TIGER-Lab/MMLU-Pro's docs hold both
            if doc_to_choice
            else {**doc, "labels": labels, "gold": gold}
        )
        lls = [-1.0 if i == 0 else -5.0 for i in range(len(labels))]
        prompt = examples + doc_to_text(doc)
        sample = {
            "doc_id": doc_id,
            "doc": doc,
            "target": labels[gold] if doc_to_choice else gold,
            "arguments": {
                f"gen_args_{i}": {"arg_0": prompt, "arg_1": " " + c} for i, c in enumerate(labels)
            },
            "resps": [[[str(ll), "False"]] for ll in lls],
            "filtered_resps": [[str(ll), "False"] for ll in lls],
            "filter": "none",
            "metrics": ["acc"],
        }
        with_hashes(sample)
        sample["acc"] = 1.0 if gold == 0 else 0.0
        task.samples.append(sample)
    return task


MMLU_PRO_DOC_TO_CHOICE = (
    "def doc_to_choice(doc):\n    return [string.ascii_uppercase[i] for i in "
    'range(len(doc["options"]))]\n'
)


def mmlu_pro_task(docs: int = 6, shots: int = 5, num_fewshot: int | None = None) -> Task:
    """The leaderboard's MMLU-Pro: its doc_to_text and doc_to_choice functions, a letter per option."""
    made = [
        {
            "question": f"Which option is number {n}?",
            "options": [f"Option {k} of {n}" for k in range(10 - n % 3)],
            "category": "math",
        }
        for n in range(docs)
    ]
    letters = [list("ABCDEFGHIJ"[: len(doc["options"])]) for doc in made]
    return function_prompt_task(
        "leaderboard_mmlu_pro",
        MMLU_PRO_DOC_TO_TEXT,
        made,
        letters,
        shots,
        num_fewshot,
        MMLU_PRO_DOC_TO_CHOICE,
    )


def musr_function_task(docs: int = 6) -> Task:
    people = [["Alice", "Bob"], ["Carol", "Dave", "Eve"], ["Frank", "Grace"]]
    made = [
        {
            "narrative": f"Story {n}.\nSomeone took the {n}th cake.",
            "question": f"Who took cake {n}?",
            "choices": repr(people[n % 3]),
            "answer_index": 0,
            "answer_choice": people[n % 3][0],
        }
        for n in range(docs)
    ]
    return function_prompt_task(
        "leaderboard_musr_team_allocation",
        MUSR_DOC_TO_TEXT,
        made,
        [people[n % 3] for n in range(docs)],
    )


GSM8K_FILTERS = ("strict-match", "flexible-extract")
# lm-eval's tasks/gsm8k/gsm8k.yaml (0.4.0 to 0.4.13): exact_match's options and the two filters
GSM8K_EXACT_MATCH = {
    "metric": "exact_match",
    "aggregation": "mean",
    "higher_is_better": True,
    "ignore_case": True,
    "ignore_punctuation": False,
    "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"],
}
GSM8K_FILTER_LIST = [
    {
        "name": "strict-match",
        "filter": [
            {"function": "regex", "regex_pattern": "#### (\\-?[0-9\\.\\,]+)"},
            {"function": "take_first"},
        ],
    },
    {
        "name": "flexible-extract",
        "filter": [
            {
                "function": "regex",
                "group_select": -1,
                "regex_pattern": "(-?[$0-9.,]{2,})|(-?[0-9]+)",
            },
            {"function": "take_first"},
        ],
    },
]
# lm-eval's tasks/gsm8k/gsm8k-cot.yaml: its target template and strict-match pattern; the rest is gsm8k's
GSM8K_COT_TARGET = "{{answer.split('####')[-1].strip() if answer is defined else target}}"
GSM8K_COT_FILTER_LIST = [
    {
        "name": "strict-match",
        "filter": [
            {"function": "regex", "regex_pattern": "The answer is (\\-?[0-9\\.\\,]+)."},
            {"function": "take_first"},
        ],
    },
    GSM8K_FILTER_LIST[1],
]


def gsm8k_answer(
    doc_id: int, strict: bool, flexible: bool, cot: bool = False
) -> tuple[str, str, str]:
    """A generation that strict-match and flexible-extract score as asked; (response, strict's, flexible's).
    `cot`: under gsm8k-cot's strict-match ("The answer is N." where gsm8k's is "#### N")."""
    wrong = doc_id + 1000
    if cot:  # flexible-extract takes the last number: "3." (two characters of [$0-9.,]), which exact_match cuts
        return {
            (True, True): (f" The answer is {doc_id}.", str(doc_id), f"{doc_id}."),
            (True, False): (f" The answer is {doc_id}. Or {wrong}", str(doc_id), str(wrong)),
            (False, True): (f" It is {doc_id}", "[invalid]", str(doc_id)),
            (False, False): (f" It is {wrong}", "[invalid]", str(wrong)),
        }[strict, flexible]
    return {
        (True, True): (f" So #### {doc_id}", str(doc_id), str(doc_id)),
        (True, False): (f" So #### {doc_id}, or maybe {wrong}", f"{doc_id},", str(wrong)),
        (False, True): (f" The answer is {doc_id}", "[invalid]", str(doc_id)),
        (False, False): (f" The answer is {wrong}", "[invalid]", str(wrong)),
    }[strict, flexible]


def two_filter_task(
    correct: dict[str, list[bool]], ranks: int = 1, named: bool = True, cot: bool = False
) -> Task:
    """gsm8k's shape: one generation per doc, exact_match under its two filters, in the order lm-eval logs it.

    Each rank logs its documents (doc_id % ranks == rank) filter by filter, and a multi-GPU run joins the
    ranks' logs one after the other (lm_eval/evaluator.py). `named`: each sample says its `filter` and
    `metrics` (0.4.7 on); else neither (0.4.0-0.4.6). `correct[filter][doc_id]` is that filter's score,
    and the generation is one the harness's regexes score so. `cot`: lm-eval's gsm8k-cot.yaml instead (its target
    template and strict-match pattern).
    """
    filters = list(correct)
    assert filters == list(GSM8K_FILTERS)
    config = {
        "task": "gsm8k",
        "output_type": "generate_until",
        "generation_kwargs": {"until": ["Question:"]},
        "doc_to_text": "Question: {{question}}\nAnswer:",
        "doc_to_target": "{{answer}}",
        "metric_list": [GSM8K_EXACT_MATCH],
        "filter_list": GSM8K_FILTER_LIST,
    }
    if cot:
        config.update(doc_to_target=GSM8K_COT_TARGET, filter_list=GSM8K_COT_FILTER_LIST)
    task = Task("gsm8k", config)
    docs = len(correct[filters[0]])
    for rank in range(ranks):
        for name in filters:
            for doc_id in range(rank, docs, ranks):
                question = f"Natalia sold {doc_id} clips. How many?"
                response, strict, flexible = gsm8k_answer(
                    doc_id, correct[filters[0]][doc_id], correct[filters[1]][doc_id], cot
                )
                answer = f"She sold {doc_id}.\n#### {doc_id}" if cot else f"#### {doc_id}"
                sample = {
                    "doc_id": doc_id,
                    "doc": {"question": question, "answer": answer},
                    "target": str(doc_id) if cot else answer,
                    "arguments": {
                        "gen_args_0": {
                            "arg_0": f"Question: {question}\nAnswer:",
                            "arg_1": {"until": ["Question:"]},
                        }
                    },
                    "resps": [[response]],
                    "filtered_resps": [strict if name == filters[0] else flexible],
                }
                if named:
                    sample.update({"filter": name, "metrics": ["exact_match"]})
                with_hashes(sample)
                sample["exact_match"] = 1.0 if correct[name][doc_id] else 0.0
                task.samples.append(sample)
    return task


def two_filter_results(task: Task, correct: dict[str, list[bool]]) -> dict:
    """results_for, with one exact_match per filter and the documents (not the samples) counted."""
    results = results_for([task])
    entry = {"alias": "gsm8k"}
    for name, scores in correct.items():
        entry[f"exact_match,{name}"] = sum(scores) / len(scores)
        entry[f"exact_match_stderr,{name}"] = "N/A"
    results["results"]["gsm8k"] = entry
    docs = len(next(iter(correct.values())))
    results["n-samples"]["gsm8k"] = {"original": docs, "effective": docs}
    return results


def aggregate(task: Task, metric: str) -> float:
    values = [s[metric] for s in task.samples]
    if values and isinstance(values[0], list):
        values = [v for sub in values for v in sub]
    return sum(values) / len(values)


def results_for(tasks: list[Task]) -> dict:
    """The results file lm-eval 0.4.13 writes for these tasks (groups left out)."""
    results, configs, n_samples, hashes = {}, {}, {}, {}
    for task in tasks:
        metrics = [m["metric"] for m in task.config["metric_list"]]
        entry = {"alias": task.name}
        for metric in metrics:
            entry[f"{metric},none"] = aggregate(task, metric)
            entry[f"{metric}_stderr,none"] = "N/A"
        results[task.name] = entry
        configs[task.name] = task.config
        n_samples[task.name] = {"original": len(task.samples), "effective": len(task.samples)}
        hashes[task.name] = sha(
            "".join(s["doc_hash"] + s["prompt_hash"] + s["target_hash"] for s in task.samples)
        )
    return {
        "results": results,
        "group_subtasks": {},
        "configs": configs,
        "versions": {t.name: t.config.get("metadata", {}).get("version", 1.0) for t in tasks},
        "n-shot": {t.name: t.config.get("num_fewshot", 0) for t in tasks},
        "n-samples": n_samples,
        "config": {"model": "hf", "model_args": "pretrained=org/model", "limit": None},
        "task_hashes": hashes,
        "lm_eval_version": "0.4.13",
    }


def write_run(
    folder: Path, tasks: list[Task], results: dict | None = None, date: str = DATE
) -> dict[str, Path]:
    """results_<date>.json and one samples_<task>_<date>.jsonl per task; returns the paths by name."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"results": folder / f"results_{date}.json"}
    paths["results"].write_text(
        json.dumps(results or results_for(tasks), indent=2, ensure_ascii=False), encoding="utf-8"
    )
    for task in tasks:
        path = folder / f"samples_{task.name}_{date}.jsonl"
        path.write_text(
            "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in task.samples),
            encoding="utf-8",
        )
        paths[task.name] = path
    return paths


def write_legacy_run(folder: Path, tasks: list[Task]) -> dict[str, Path]:
    """The 0.4.0-0.4.2 layout: results.json and <model args>_<task>.jsonl holding a pretty-printed JSON array."""
    folder.mkdir(parents=True, exist_ok=True)
    results = results_for(tasks)
    for key in ("task_hashes", "n-samples", "lm_eval_version"):
        results.pop(key)
    paths = {"results": folder / "results.json"}
    paths["results"].write_text(json.dumps(results, indent=2), encoding="utf-8")
    for task in tasks:
        samples = []
        for sample in task.samples:
            old = {
                k: v
                for k, v in sample.items()
                if k not in ("doc_hash", "prompt_hash", "target_hash", "filter", "metrics")
            }
            old["arguments"] = [list(args.values()) for args in sample["arguments"].values()]
            if (
                task.config["output_type"] == "multiple_choice"
            ):  # before 0.4.3 pairs were logged as numbers
                old["filtered_resps"] = [[float(ll), False] for ll, _ in sample["filtered_resps"]]
                old["resps"] = [
                    [[float(ll), False] for ll, _ in request] for request in sample["resps"]
                ]
            samples.append(old)
        path = folder / f"pretrained__org__model_{task.name}.jsonl"
        path.write_text(json.dumps(samples, indent=2), encoding="utf-8")
        paths[task.name] = path
    return paths


# The end-to-end DROP run of docs/reference/drop.md: four canned generations
# after the harness cut them at the first '.'.
SPEC_RUN_PREDICTIONS = [
    "10\n\nPassage: The 2011 census recorded a population of 1,001,360",
    " 12",
    " Tom Brady threw it",
    " 10",
]
SPEC_RUN_GOLDS = [[["10"]], [["12.25"]], [["Tom Brady"]], [["10"]]]


def truthfulqa_mc2_task(correct_mass: list[float], seed: int = 2) -> Task:
    """TruthfulQA mc2 as lm-eval 0.4.x logs it: one log-likelihood per choice of doc.mc2_targets, the true ones
    first, and acc the true answers' share of the probability (tasks/truthfulqa/utils.py process_results_mc2),
    here made to be about `correct_mass[i]` for doc i."""
    rng = random.Random(seed)
    config = {
        "task": "truthfulqa_mc2",
        "output_type": "multiple_choice",
        "target_delimiter": " ",
        "doc_to_text": "Q: {{question}}\nA:",
        "doc_to_target": 0,
        "doc_to_choice": "{{mc2_targets.choices}}",
        "process_results": "def process_results_mc2(doc, results):\n    lls, is_greedy = zip(*results)\n",
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": 3.0},
    }
    task = Task("truthfulqa_mc2", config)
    for doc_id, mass in enumerate(correct_mass):
        labels = [1] * rng.randint(1, 3) + [0] * rng.randint(1, 4)
        choices = [f"Answer {doc_id}.{i}" for i in range(len(labels))]
        true, false = labels.count(1), labels.count(0)
        lls = [math.log(mass / true) if label else math.log((1 - mass) / false) for label in labels]
        context = f"Q: Question {doc_id}?\nA:"
        sample = {
            "doc_id": doc_id,
            "doc": {
                "question": f"Question {doc_id}?",
                "mc2_targets": {"choices": choices, "labels": labels},
            },
            "target": 0,
            "arguments": {
                f"gen_args_{i}": {"arg_0": context, "arg_1": " " + c} for i, c in enumerate(choices)
            },
            "resps": [[[str(ll), "False"]] for ll in lls],
            "filtered_resps": [[str(ll), "False"] for ll in lls],
            "filter": "none",
            "metrics": ["acc"],
        }
        with_hashes(sample)
        probabilities = [math.exp(ll) for ll in lls]
        sample["acc"] = sum(
            p / sum(probabilities) for p, label in zip(probabilities, labels, strict=True) if label
        )
        task.samples.append(sample)
    return task


def winogrande_task(right: list[bool]) -> Task:
    """Winogrande as lm-eval 0.4.x logs it (multiple_input): one request per option, the sentence up to its "_"
    with the option as context and the rest of the sentence as every request's continuation; the gold is
    doc_to_text's {"1": 0, "2": 1}[answer]. The model prefers the gold option where `right` says so."""
    config = {
        "task": "winogrande",
        "output_type": "multiple_choice",
        "target_delimiter": " ",
        "doc_to_text": 'def doc_to_text(doc):\n    answer_to_num = {"1": 0, "2": 1}\n',
        "doc_to_target": 'def doc_to_target(doc):\n    idx = doc["sentence"].index("_") + 1\n',
        "doc_to_choice": 'def doc_to_choice(doc):\n    idx = doc["sentence"].index("_")\n',
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": 1.0},
    }
    task = Task("winogrande", config)
    for doc_id, is_right in enumerate(right):
        sentence = f"Sam gave Alex the book {doc_id} because _ was done reading it."
        doc = {
            "sentence": sentence,
            "option1": "Sam",
            "option2": "Alex",
            "answer": "1" if doc_id % 2 else "2",
        }
        gold = int(doc["answer"]) - 1
        picked = gold if is_right else 1 - gold
        prefix, rest = sentence[: sentence.index("_")], sentence[sentence.index("_") + 1 :].strip()
        lls = [-2.0 if i == picked else -6.0 for i in range(2)]
        sample = {
            "doc_id": doc_id,
            "doc": doc,
            "target": rest,
            "arguments": {
                f"gen_args_{i}": {"arg_0": prefix + option, "arg_1": " " + rest}
                for i, option in enumerate((doc["option1"], doc["option2"]))
            },
            "resps": [[[str(ll), "False"]] for ll in lls],
            "filtered_resps": [[str(ll), "False"] for ll in lls],
            "filter": "none",
            "metrics": ["acc"],
        }
        with_hashes(sample)
        sample["acc"] = 1.0 if is_right else 0.0
        task.samples.append(sample)
    return task
