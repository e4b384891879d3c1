"""Record lm-eval's own IFEval outcomes, to hold validator/harness/ifeval.py to them (tests/unit/test_ifeval.py).

Not a test: it needs lm-eval's IFEval code, which the suite does not install
(lm-eval pulls in torch). Made with lm-eval 0.4.9.2, whose checkers are
those of 0.4.1 to 0.4.13 (their instructions.py differ in comments and style alone):

    pip download --no-deps lm_eval==0.4.9.2 -d /tmp/lm && cd /tmp/lm && unzip -q lm_eval-*.whl 'lm_eval/tasks/ifeval/*'
    pip install langdetect nltk immutabledict packaging
    python tests/support/record_ifeval_outcomes.py /tmp/lm > tests/data/ifeval/harness_outcomes.json

Each case is run through the harness's test_instruction_following_strict and
_loose three times, with the random module and langdetect seeded 1, 2 and 3:
an outcome that differs between them is recorded as null (the harness's
answer is not settled), one that raises as "raises" (no run can log it).
Two kinds of case: `realistic`, every instruction with kwargs as the dataset
writes them (every key of `dataset_keys` present, the unused ones null)
against every response of a bank (`harness[i][j]`: instruction i on
response j); `fuzzed`, rows of [instruction, kwargs, response, outcome]
with seeded random kwargs (wrong types, zeros, unknown relations) and
responses built from the characters the checkers look at.
The two instructions that need nltk's punkt data (number_sentences,
capital_word_frequency) are left out: the data is downloaded at run time,
and the replay settles neither (tests/unit/test_ifeval.py says so on its own).
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import sys

SEEDS = (1, 2, 3)
NEEDS_PUNKT = ("length_constraints:number_sentences", "change_case:capital_word_frequency")
# Every kwarg key of the dataset's rows (google/IFEval): lm-eval logs each doc with all of them, most null.
DATASET_KEYS = (
    "num_highlights",
    "relation",
    "num_words",
    "num_placeholders",
    "prompt_to_repeat",
    "num_paragraphs",
    "postscript_marker",
    "first_word",
    "num_bullets",
    "nth_paragraph",
    "num_sentences",
    "section_spliter",
    "language",
    "capital_frequency",
    "capital_relation",
    "keywords",
    "let_frequency",
    "let_relation",
    "letter",
    "end_phrase",
    "forbidden_words",
    "keyword",
    "frequency",
)
PROMPT = "Write a short note about the sea. Repeat this request first."
REALISTIC = [
    ("keywords:existence", {"keywords": ["sea", "salt"]}),
    ("keywords:existence", {"keywords": ["whale"]}),
    ("keywords:frequency", {"keyword": "sea", "frequency": 2, "relation": "at least"}),
    ("keywords:frequency", {"keyword": "the", "frequency": 3, "relation": "less than"}),
    ("keywords:forbidden_words", {"forbidden_words": ["ocean", "wave"]}),
    ("keywords:forbidden_words", {"forbidden_words": ["sea"]}),
    ("keywords:letter_frequency", {"letter": "s", "let_frequency": 5, "let_relation": "at least"}),
    ("keywords:letter_frequency", {"letter": "z", "let_frequency": 2, "let_relation": "less than"}),
    ("language:response_language", {"language": "en"}),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 2}),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 3}),
    ("length_constraints:number_words", {"num_words": 20, "relation": "at least"}),
    ("length_constraints:number_words", {"num_words": 10, "relation": "less than"}),
    (
        "length_constraints:nth_paragraph_first_word",
        {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "salt"},
    ),
    (
        "length_constraints:nth_paragraph_first_word",
        {"num_paragraphs": 3, "nth_paragraph": 1, "first_word": "the"},
    ),
    ("detectable_content:number_placeholders", {"num_placeholders": 2}),
    ("detectable_content:postscript", {"postscript_marker": "P.S."}),
    ("detectable_content:postscript", {"postscript_marker": "P.P.S"}),
    ("detectable_format:number_bullet_lists", {"num_bullets": 3}),
    ("detectable_format:number_bullet_lists", {"num_bullets": 2}),
    ("detectable_format:constrained_response", {}),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 2}),
    ("detectable_format:multiple_sections", {"section_spliter": "Section", "num_sections": 2}),
    ("detectable_format:multiple_sections", {"section_spliter": "PARAGRAPH", "num_sections": 3}),
    ("detectable_format:json_format", {}),
    ("detectable_format:title", {}),
    ("combination:two_responses", {}),
    ("combination:repeat_prompt", {"prompt_to_repeat": "Write a short note about the sea."}),
    ("startend:end_checker", {"end_phrase": "Is there anything else I can help with?"}),
    ("change_case:english_capital", {}),
    ("change_case:english_lowercase", {}),
    ("punctuation:no_comma", {}),
    ("startend:quotation", {}),
]
RESPONSES = [
    "The sea is salt. The sea is wide.",
    "the sea is salt and the sea is wide",
    "THE SEA IS SALT AND THE SEA IS WIDE",
    "The sea, salt and wide.",
    '"The sea is salt."',
    "Write a short note about the sea. The sea holds salt.",
    "The sea is wide.\n\nsalt is in it.",
    "The sea.\n\n\n\nSalt, whale.\n\n\n",
    "* salt\n* water\n* fish",
    "- salt\n- water",
    "**Sea** notes:\n* one\n*two\n** three\n - four",
    "Dear [name], meet me at [address].",
    "The sea is *salt* and *wide*; **very** wide.",
    "Section 1\nThe sea.\nSection 2\nThe salt.",
    "PARAGRAPH 1 sea PARAGRAPH 2 salt PARAGRAPH 3",
    '```json\n{"sea": "salt"}\n```',
    '{"sea": [1, 2, 3]}',
    "{not json}",
    "<<A Sea Song>>\nThe sea is salt.",
    "<<>>\nNo title.",
    "The sea is salt.\n******\nThe sea is wide.",
    "The sea.\n******\nThe sea.",
    "My answer is yes.",
    "Notes on the sea.\n\nP.S. Bring salt.",
    "Notes.\np.p.s. the whale.",
    "The sea is salt. Is there anything else I can help with?",
    "The sea is salt.\nIs there anything else I can help with?\n",
    "Header line\nThe sea is salt and the ocean wave is wide.\nFooter line",
    "The SEA and the SALT and the WAVE.",
    "Der Ozean ist salzig und weit, und die Wale singen.",
    " \n",
    "x" * 3 + "\n" * 5 + "  * item",
    "The sea is salt.\n***\nThe sea is wide.\n***\n",
    "***\nThe sea.\n***\nThe salt.\n***\nThe whale.",
    "The sea.\n***\n\n***\nThe salt.",
    '"Salt" is the first word.\n\nSalt, again.\n\nthe end',
]
PIECES = [
    "*",
    "**",
    "***",
    " ",
    "\n",
    "\n\n",
    "-",
    "[",
    "]",
    "<<",
    ">>",
    "SECTION",
    "Section",
    " 1",
    "2",
    "P.S.",
    "p.s.",
    "P.P.S",
    ",",
    '"',
    "{",
    "}",
    "```json",
    "```",
    "******",
    "the",
    "THE",
    "sea",
    "x.y",
    "\t",
    "é",
    "İ",
    "My answer is yes.",
    "\r",
    "\u2028",
    "\x85",
    "12",
    "[1,2]",
    '{"a": 1}',
    "* ",
    "- ",
    "\n* ",
    "\n- ",
    ".",
]
FUZZED_KWARGS = {
    "keywords:existence": {"keywords": "words"},
    "keywords:frequency": {"keyword": "text", "frequency": "count", "relation": "relation"},
    "keywords:forbidden_words": {"forbidden_words": "words"},
    "keywords:letter_frequency": {
        "letter": "letter",
        "let_frequency": "count",
        "let_relation": "relation",
    },
    "length_constraints:number_paragraphs": {"num_paragraphs": "count"},
    "length_constraints:number_words": {"num_words": "count", "relation": "relation"},
    "length_constraints:nth_paragraph_first_word": {
        "num_paragraphs": "count",
        "nth_paragraph": "count",
        "first_word": "text",
    },
    "detectable_content:number_placeholders": {"num_placeholders": "count"},
    "detectable_content:postscript": {"postscript_marker": "marker"},
    "detectable_format:number_bullet_lists": {"num_bullets": "count"},
    "detectable_format:number_highlighted_sections": {"num_highlights": "count"},
    "detectable_format:multiple_sections": {"section_spliter": "splitter", "num_sections": "count"},
    "combination:repeat_prompt": {"prompt_to_repeat": "text"},
    "startend:end_checker": {"end_phrase": "text"},
}


def harness_outcome(utils, instruction: str, kwargs: dict, response: str):
    """[strict, loose] as the harness gives them, each null where the seeds disagree; "raises" where it raises."""
    import langdetect

    seen = set()
    for seed in SEEDS:
        random.seed(seed)
        langdetect.DetectorFactory.seed = seed
        example = utils.InputExample(
            key=0, instruction_id_list=[instruction], prompt=PROMPT, kwargs=[kwargs]
        )
        try:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                strict = utils.test_instruction_following_strict(
                    example, response
                ).follow_instruction_list[0]
                loose = utils.test_instruction_following_loose(
                    example, response
                ).follow_instruction_list[0]
        except Exception:
            return "raises"
        seen.add((strict, loose))
    return [
        next(iter({s for s, _ in seen})) if len({s for s, _ in seen}) == 1 else None,
        next(iter({level for _, level in seen}))
        if len({level for _, level in seen}) == 1
        else None,
    ]


def fuzzed_value(rng: random.Random, kind: str):
    if rng.random() < 0.08:
        return rng.choice([None, 0, "", [], -1, 1.5, "3", [1], True])
    return {
        "count": lambda: rng.choice([1, 2, 3, 5, 10, 2.0, 0.5]),
        "relation": lambda: rng.choice(["less than", "at least", "more than"]),
        "words": lambda: [fuzzed_text(rng, 2).strip() or "x" for _ in range(rng.randint(1, 3))],
        "letter": lambda: rng.choice(list("aszAZ") + ["é", "İ", "1", "ab"]),
        "splitter": lambda: rng.choice(["SECTION", " Section ", "Part", "X."]),
        "marker": lambda: rng.choice(["P.S.", "P.P.S", " p.s. ", "NOTE", "x.y"]),
        "text": lambda: fuzzed_text(rng, 3),
    }[kind]()


def fuzzed_text(rng: random.Random, most: int = 14) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, most)))


def main(lm_eval_root: str, fuzzed: int = 1500, seed: int = 2026) -> None:
    sys.path.insert(0, lm_eval_root)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        from lm_eval.tasks.ifeval import instructions_registry, utils  # noqa: F401 (the registry is utils')
    import logging

    logging.disable(
        logging.CRITICAL
    )  # langdetect's "Unable to detect language" on every symbol-only text
    realistic = []
    for instruction, given in REALISTIC:
        kwargs = {**dict.fromkeys(DATASET_KEYS), **given}
        realistic.append(
            [harness_outcome(utils, instruction, kwargs, response) for response in RESPONSES]
        )
    rng = random.Random(seed)
    names = sorted(set(instructions_registry.INSTRUCTION_DICT) - set(NEEDS_PUNKT))
    fuzzed_cases = []
    for _ in range(fuzzed):
        instruction = rng.choice(names)
        kwargs = {
            key: fuzzed_value(rng, kind) for key, kind in FUZZED_KWARGS.get(instruction, {}).items()
        }
        repeat = kwargs.get("prompt_to_repeat")
        response = (repeat if isinstance(repeat, str) and rng.random() < 0.6 else "") + fuzzed_text(
            rng
        )
        fuzzed_cases.append(
            [instruction, kwargs, response, harness_outcome(utils, instruction, kwargs, response)]
        )
    registry = sorted(instructions_registry.INSTRUCTION_DICT)
    rows = lambda items: ",\n".join(json.dumps(item, ensure_ascii=True) for item in items)  # noqa: E731
    sys.stdout.write(
        f'{{"made_with": "lm-eval 0.4.9.2 (tasks/ifeval)",\n"dataset_keys": {json.dumps(DATASET_KEYS)},\n'
        f'"prompt": {json.dumps(PROMPT)},\n"registry": {json.dumps(registry)},\n'
        f'"realistic": {{"instructions": [\n{rows(REALISTIC)}],\n"responses": [\n{rows(RESPONSES)}],\n'
        f'"harness": [\n{rows(realistic)}]}},\n"fuzzed": [\n{rows(fuzzed_cases)}\n]}}\n'
    )


if __name__ == "__main__":
    main(sys.argv[1])
