"""IFEval's instruction checkers, replayed (validator/harness/ifeval.py), held to lm-eval's own outcomes.

tests/data/ifeval/harness_outcomes.json holds what lm-eval 0.4.9.2's
test_instruction_following_strict and _loose gave (tests/support/record_ifeval_outcomes.py
made it): every instruction with the dataset's kwargs on a bank of responses,
and 1,500 fuzzed cases. The replay may leave an outcome unsettled (None), never
give another one; and on the dataset's own kwargs it settles every instruction
but those that ask langdetect or nltk.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.harness import ifeval, ifeval_patterns

RECORDED = json.loads(
    (Path(__file__).parents[1] / "data" / "ifeval" / "harness_outcomes.json").read_text("utf-8")
)
REALISTIC = RECORDED["realistic"]
LANGDETECT = {
    "language:response_language",
    "change_case:english_capital",
    "change_case:english_lowercase",
}
NEEDS_PUNKT = {"length_constraints:number_sentences", "change_case:capital_word_frequency"}


def test_the_replay_knows_the_registry_of_lm_eval():
    assert ifeval.INSTRUCTIONS == set(RECORDED["registry"])


def agrees(replayed: tuple, harness) -> bool:
    """A settled outcome is the harness's; the harness's own unsettled or raising ones settle nothing here."""
    return all(
        mine is None or (harness != "raises" and theirs is not None and mine == theirs)
        for mine, theirs in zip(
            replayed, harness if harness != "raises" else (None, None), strict=False
        )
    )


def expected_settled(instruction: str, response: str) -> bool:
    """On the dataset's kwargs everything is settled but langdetect's answer, which a failed case test precedes."""
    if instruction == "change_case:english_capital":
        return not response.isupper()
    if instruction == "change_case:english_lowercase":
        return not response.islower()
    return instruction not in LANGDETECT


@pytest.mark.parametrize(
    "instruction, kwargs, outcomes",
    [
        (instruction, {**dict.fromkeys(RECORDED["dataset_keys"]), **given_kwargs}, outcomes)
        for (instruction, given_kwargs), outcomes in zip(
            REALISTIC["instructions"], REALISTIC["harness"], strict=True
        )
    ],
)
def test_on_the_datasets_kwargs_the_replay_gives_the_harnesss_outcome(
    instruction, kwargs, outcomes
):
    wrong = []
    for response, outcome in zip(REALISTIC["responses"], outcomes, strict=True):
        replayed = ifeval.replay(instruction, kwargs, response)
        settled = replayed[0] is not None
        if not agrees(replayed, outcome) or settled != expected_settled(instruction, response):
            wrong.append((response, replayed, outcome))
    assert wrong == []


def test_fuzzed_kwargs_and_responses_never_settle_another_outcome():
    disagreements = [
        case for case in RECORDED["fuzzed"] if not agrees(ifeval.replay(*case[:3]), case[3])
    ]
    assert disagreements == []
    settled = [case for case in RECORDED["fuzzed"] if ifeval.replay(*case[:3]) != (None, None)]
    assert (
        len(settled) > len(RECORDED["fuzzed"]) // 2
    )  # the replay is not agreeing by settling nothing


@pytest.mark.parametrize(
    "instruction", sorted(NEEDS_PUNKT | {"language:response_language", "no:such_instruction"})
)
def test_what_langdetect_nltk_or_no_checker_decides_is_never_settled(instruction):
    kwargs = {
        "num_sentences": 2,
        "relation": "less than",
        "capital_frequency": 1,
        "capital_relation": "at least",
        "language": "en",
    }
    assert ifeval.replay(instruction, kwargs, "ONE SENTENCE. Two sentences.") == (None, None)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_words": 0, "relation": "at least"},
        {"relation": "at least"},
        {"num_words": -3, "relation": "at least"},
        {"num_words": 5, "relation": None},
        {"num_words": 5, "relation": "more than"},
        {"num_words": "5", "relation": "at least"},
    ],
)
def test_kwargs_the_harness_draws_at_random_or_rejects_settle_nothing(kwargs):
    """{k: v ... if v} drops a falsy kwarg and the checker draws it; an unknown relation raises ValueError."""
    assert ifeval.replay("length_constraints:number_words", kwargs, "one two three") == (None, None)


@pytest.mark.parametrize(
    "keyword, feature",
    [
        ("se(a", ifeval.HARNESS_RAISES),  # the harness's re.error: it failed on this doc
        ("a" * (ifeval.PATTERN_MAX + 1), ifeval.PAST_LENGTH),
        ("*", ifeval.HARNESS_RAISES),
        ("(a)\\1", "a back-reference"),
        ("(?=s)", "a look-around"),
        ("(?<!x)sea", "a look-around"),
        ("(?>se)a", "an atomic group"),
        ("se*+a", "a possessive repeat"),
        ("s{1001}", "a repeat count over 1000"),
    ],
)
def test_a_keyword_pattern_re2_cannot_run_as_re_does_settles_nothing_and_says_why(keyword, feature):
    """Every keyword runs under RE2, in linear time; what RE2 cannot run as `re` does is named."""
    outcome, why = ifeval.replay_explained("keywords:existence", {"keywords": [keyword]}, "the sea")
    assert outcome == (None, None)
    assert why == feature


@pytest.mark.parametrize(
    "keyword, found",
    [
        ("s.a", True),
        ("[abc]", True),
        ("^the", True),
        ("s[^e]a", False),
        ("(sea)", True),
        ("\\bsea\\b", True),
        ("(e|a)", True),
        ("s.?a", True),
        ("t?h?e?x?", True),
        ("x?y", False),
        ("s+", True),
        ("(ab|cd)", False),
        ("(?i:SEA)", True),
        ("s?e?a?x?y?", True),
        ("(se)?", True),
        ("s*", True),
        ("\\Bea", True),
        ("a$", True),
    ],
)
def test_a_keyword_pattern_is_replayed_as_re_runs_it(keyword, found):
    assert ifeval.replay("keywords:existence", {"keywords": [keyword]}, "the sea") == (found, found)
    assert (re.search(keyword, "the sea", re.IGNORECASE) is not None) is found


LINES = st.text(alphabet=" \t\n\r*-[]<>ab\x0b\x0c\u2028\x85", max_size=60)


@settings(max_examples=600, deadline=None)
@given(LINES)
def test_the_linear_scans_count_what_the_harnesss_patterns_find(text):
    """The harness's bullet, placeholder and title patterns backtrack without bound on runs of blank lines or
    brackets; the replay's scans count the same in linear time. Its paragraph divider is split by str.split,
    at each "***", into parts that strip to the harness's."""
    bullets = len(re.findall(r"^\s*\*[^\*].*$", text, flags=re.MULTILINE)) + len(
        re.findall(r"^\s*-.*$", text, flags=re.MULTILINE)
    )
    assert ifeval.bullet_count(text) == bullets
    assert ifeval.placeholder_count(text) == len(re.findall(r"\[.*?\]", text))
    assert ifeval.titles(text) == re.findall(r"<<[^\n]+>>", text)
    paragraphs = re.split(r"\s?\*\*\*\s?", text)
    assert [part.strip() for part in ifeval_patterns.divider_parts(text)] == [
        paragraph.strip() for paragraph in paragraphs
    ]


def test_the_word_mask_is_res_word_class_on_every_code_point():
    """number_words counts the runs of \\w on a mask of the text: each character is a word character exactly
    where `re`'s \\w matches it, under this Python's Unicode tables."""
    every = "".join(map(chr, range(0x110000)))
    word = re.compile(r"\w")
    assert ifeval_patterns.word_mask(every) == bytes(0x61 if word.match(c) else 0x20 for c in every)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="ab_1 \n-.é—“’ſ\u212a\u0301\u00aa\u2160\u0663\U0001f600", max_size=40))
def test_the_word_count_is_findalls(text):
    assert ifeval_patterns.word_count(text) == len(re.findall(r"\w+", text))
    assert ifeval_patterns.word_count(text + "\ud800a") == len(re.findall(r"\w+", text + "\ud800a"))


def test_a_word_list_longer_than_a_datasets_is_not_searched():
    """Each word is one search of the response: a submitter's list of thousands would be thousands of them."""
    within = {"forbidden_words": ["whale"] * ifeval.MAX_WORDS}
    beyond = {"forbidden_words": ["whale"] * (ifeval.MAX_WORDS + 1)}
    assert ifeval.replay("keywords:forbidden_words", within, "the sea") == (True, True)
    assert ifeval.replay_explained("keywords:forbidden_words", beyond, "the sea") == (
        (None, None),
        ifeval.PAST_WORDS,
    )


def test_every_read_of_the_response_is_asked_for_before_it_is_done():
    """The caller's budget counts what the replay reads: the checker's pass, each pattern's, each variant's."""
    asked: list[int] = []
    kwargs = {"forbidden_words": ["whale", "shark"]}
    found, why = ifeval.replay_explained(
        "keywords:forbidden_words", kwargs, "a whale", lambda n: asked.append(n) or True
    )
    assert (found, why) == ((False, False), None)
    # strict: its own pass, then the words in the harness's sorted order (shark, then whale, found: it stops),
    # each a pass and the four more a five-letter word's comparisons may take; loose: its eight variants made,
    # then each distinct one checked the same way: here "" alone, every other variant being the reply itself
    assert asked == [8, 8, 4 * 8, 8, 4 * 8, 8 * 8, 1, 1, 4, 1, 4]
    refused, why = ifeval.replay_explained(
        "keywords:forbidden_words", kwargs, "a whale", lambda n: n < 40
    )
    assert (
        refused == (False, None) and why == ifeval.PAST_BUDGET
    )  # strict's reads granted, loose's not


def test_what_counting_matches_reads_past_each_one_is_asked_for_too():
    """A keyword that reads on to the reply's end after each match ("a(?:.*X)?" on "a a a ...") counts its
    matches in time quadratic in the reply; every search past the first pass is asked of the budget."""
    kwargs = {"keyword": "a(?:.*X)?", "frequency": 3, "relation": "at least"}
    reply = "a " * 2_000
    asked: list[int] = []
    found, why = ifeval.replay_explained(
        "keywords:frequency", kwargs, reply, lambda n: asked.append(n) or True
    )
    assert found == (True, True) and why is None
    assert sum(asked) > len(reply) * 1_000  # each of the 2,000 searches reads on to the end
    left = [10 * len(reply)]  # a budget of ten passes over the reply

    def spend(n: int) -> bool:
        left[0] -= n
        return left[0] >= 0

    refused, why = ifeval.replay_explained("keywords:frequency", kwargs, reply, spend)
    assert refused == (None, None) and why == ifeval.PAST_BUDGET


@pytest.mark.parametrize(
    "instruction, kwargs, drawn",
    [
        (
            "detectable_format:multiple_sections",
            {"section_spliter": "Day", "num_sections": None},
            True,
        ),
        (
            "detectable_format:multiple_sections",
            {"section_spliter": "Day", "num_sections": 2},
            False,
        ),
        ("detectable_format:number_bullet_lists", {"num_bullets": -1}, True),
        (
            "length_constraints:nth_paragraph_first_word",
            {"num_paragraphs": 2, "nth_paragraph": 3, "first_word": "a"},
            True,
        ),
        (
            "length_constraints:nth_paragraph_first_word",
            {"num_paragraphs": 3, "nth_paragraph": 3, "first_word": "a"},
            False,
        ),
        (
            "keywords:letter_frequency",
            {"letter": "ab", "let_frequency": 2, "let_relation": "at least"},
            True,
        ),
        (
            "keywords:letter_frequency",
            {"letter": "q", "let_frequency": 2, "let_relation": "at least"},
            False,
        ),
        ("punctuation:no_comma", {}, False),
    ],
)
def test_a_checker_drawn_at_random_is_told_from_its_kwargs(instruction, kwargs, drawn):
    """Strict and loose each build their own checker: one drawn at random may pass the one and fail the other."""
    assert ifeval.draws_at_random(instruction, kwargs) is drawn


def test_every_outcome_the_seeds_changed_was_drawn_at_random_or_langdetects():
    changed = [case for case in RECORDED["fuzzed"] if case[3] != "raises" and None in case[3]]
    assert changed and all(
        ifeval.draws_at_random(case[0], case[1]) or case[0] in LANGDETECT for case in changed
    )


def test_kwargs_said_rejected_are_never_kwargs_the_harness_ran():
    """Every fuzzed case lm-eval built and ran is not rejected; some it raised on are (a relation it does not
    know, a count written as text, a kwarg no checker takes)."""
    ran = [case for case in RECORDED["fuzzed"] if case[3] != "raises"]
    assert [case for case in ran if ifeval.rejected(case[0], case[1]) is not None] == []
    raised = [case for case in RECORDED["fuzzed"] if case[3] == "raises"]
    assert sum(ifeval.rejected(case[0], case[1]) is not None for case in raised) > len(raised) // 2


def _asked_in_all(instruction: str, kwargs: dict, response: str) -> int:
    """What one replay asks of its budget in all (a spend that grants everything and counts)."""
    from validator.harness.ifeval import replay_explained

    asked = [0]

    def spend(amount: int) -> bool:
        asked[0] += amount
        return True

    replay_explained(instruction, kwargs, response, spend)
    return asked[0]


@pytest.mark.parametrize(
    "instruction, kwargs, response, at_least",
    [
        # a turn of the placeholder loop for each '[' (LINE_COST: 128)
        (
            "detectable_content:number_placeholders",
            {"num_placeholders": 1},
            "[]" * 1000,
            1000 * 128,
        ),
        # both kinds of bullet looked for at the head of each of 1,001 lines
        ("detectable_format:number_bullet_lists", {"num_bullets": 1}, "x\n" * 1000, 2 * 1001 * 128),
        ("detectable_format:title", {}, "x\n" * 1000, 1001 * 128),
        # json.loads of many small values: 16 reads of the reply
        ("detectable_format:json_format", {}, "[" + "1," * 999 + "1]", 16 * 2000),
        # a reply beyond ASCII is counted by findall where it is dense: 32 reads
        (
            "length_constraints:number_words",
            {"num_words": 1, "relation": "at least"},
            "é " * 1000,
            32 * 2000,
        ),
        # a kwarg is read as long as it is
        ("startend:end_checker", {"end_phrase": "x" * 10_000}, "x", 10_000),
        # a plain marker's re.compile: 65,536 and 1,024 a character
        (
            "detectable_content:postscript",
            {"postscript_marker": "q" * 150 + " z"},
            "x",
            65_536 + 1024 * 152,
        ),
    ],
)
def test_each_checker_asks_for_what_its_work_costs(instruction, kwargs, response, at_least):
    """A checker whose work is not one pass over the reply (a loop in Python per line or bracket, a parse of
    many small values, a kwarg as long as its log line, a pattern compiled) asks the budget for it first, so
    a small log cannot make it work far past what it was granted."""
    assert _asked_in_all(instruction, kwargs, response) >= at_least


def test_placeholders_are_counted_as_findall_counts_them_in_one_pass_a_line():
    """Each line's end is looked for once, whatever the '[' on it (`[][]...` was read again for each)."""
    from validator.harness.ifeval_patterns import placeholder_count

    for text in (
        "[]" * 50,
        "[a] [b\n] [c]",
        "[[x]\n[",
        "[\n]" * 5,
        "a[b[c]d]e\n[f] [",
        "]" * 3 + "[]",
    ):
        assert placeholder_count(text) == len(re.findall(r"\[.*?\]", text)), text
