"""IFEval's section splitters and postscript markers of plain words, run by re, answer as the harness's patterns
do, and ask the budget for what they read (harness/literal_patterns.py)."""

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from validator.harness import ifeval, ifeval_reads
from validator.harness.linear_regex import LinearPattern
from validator.harness.literal_patterns import (
    KNOWN_MARKER_PASSES,
    LiteralPattern,
    known_marker,
    literal_pattern,
)
from validator.harness.read_budget import SEARCH_COST, reading

words = st.text(alphabet="aAsS09 '-", min_size=1, max_size=4)
# ASCII letters, digits and spaces around them, and what re reads as \s or \d beyond ASCII: a no-break space,
# an em space, a file separator (\s to re), an Arabic-Indic and a full-width digit (\d to re); "p" and "." for
# the markers
texts = st.text(alphabet="aAsSp09 .'-\n\t\xa0\u2003\x1c\u0663\uff11", max_size=40)
HARNESS_MARKERS = {"P.P.S": r"\s*p\.\s?p\.\s?s.*$", "P.S.": r"\s*p\.\s?s\..*$"}


@settings(max_examples=1500, deadline=None)
@given(words, texts)
@example("a", "a1 a 2a\xa03 a\u0663")  # Unicode spaces and digits, as re reads them
# A match's last \s? takes no letter: the next match starts right after its digits
@example("a", "a1a1a1")
# A splitter of digits: \d+ after it takes the rest of the run
@example("1", "111 1")
# The last \s? of a match takes the space a splitter starts with: one match, not two
@example(" a", " a1 a1")
# Spaces and digits beyond ASCII around a splitter without a space at either end (run as kwarg + \s?\d+)
@example("a", "\u2003a\u2003\u0663\u2003a1\xa0a\uff11")
def test_a_plain_splitter_splits_a_text_as_re_split_does(splitter, text):
    harness = r"\s?" + splitter + r"\s?\d+\s?"
    literal = literal_pattern(splitter, r"\s?", r"\s?\d+\s?", 0)
    assert isinstance(literal, LiteralPattern)
    assert literal.split_count(text) == len(re.split(harness, text))


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(sorted(HARNESS_MARKERS)), texts)
@example("P.S.", "p. s.")
@example("P.S.", "p.\xa0s.")  # \s? takes one Unicode space
@example("P.P.S", "p.  p.s")  # but not two
@example("P.P.S", "\n\n p.p.s\n")
def test_a_known_marker_is_found_where_the_harness_pattern_finds_it(marker, text):
    harness = HARNESS_MARKERS[marker]
    assert ifeval._POSTSCRIPTS[marker] == harness  # the replay's copy of the harness's patterns
    found = bool(re.findall(harness, text, flags=re.MULTILINE))
    assert known_marker(harness).search(text) is found


@settings(max_examples=1000, deadline=None)
@given(words, texts)
@example("a", "\n a\n")
@example("p s", "p  s")
def test_a_plain_marker_is_found_where_the_harness_pattern_finds_it(marker, text):
    lowered = text.lower()
    harness = r"\s*" + marker.lower() + r".*$"
    literal = literal_pattern(marker.lower(), r"\s*", r".*$", re.MULTILINE)
    assert isinstance(literal, LiteralPattern)
    assert literal.search(lowered) is bool(re.findall(harness, lowered, flags=re.MULTILINE))


@pytest.mark.parametrize(
    ("kwarg", "before", "after", "flags", "expected"),
    [
        ("Section", r"\s?", r"\s?\d+\s?", 0, True),
        ("PART 1", r"\s?", r"\s?\d+\s?", 0, True),
        ("p.s", r"\s*", r".*$", re.MULTILINE, False),  # a dot is a pattern to re
        ("p s", r"\s*", r".*$", re.MULTILINE, True),
        ("Sec.", r"\s?", r"\s?\d+\s?", 0, False),
        ("Section", r"\s?", r"\s?\d+\s?", re.IGNORECASE, False),  # not what the harness builds
        ("Section", "", "", 0, False),
        ("caf\xe9", r"\s?", r"\s?\d+\s?", 0, False),
        ("", r"\s?", r"\s?\d+\s?", 0, False),
    ],
)
def test_only_a_splitter_or_a_marker_of_plain_words_is_run_by_re(
    kwarg, before, after, flags, expected
):
    assert isinstance(literal_pattern(kwarg, before, after, flags), LiteralPattern) is expected
    compiled = ifeval_reads.pattern(kwarg, before, after, flags) if kwarg else None
    if compiled is not None and not expected and flags != re.IGNORECASE:
        assert isinstance(compiled, LinearPattern)


def asked(pattern, how: str, text: str) -> list[int]:
    amounts: list[int] = []
    with reading(lambda amount: amounts.append(amount) or True):
        ifeval_reads.run(pattern, how, text)
    return amounts


def test_a_splitter_asks_for_a_pass_a_comparison_and_a_search_a_match():
    """re compares at most 2 * (len + 3) characters at each place of the text: the run asks for that many passes,
    and for one search a match and the last, as RE2's count asks."""
    text = "Section 1 intro Section 2 body"
    splitter = ifeval_reads.pattern("Section", r"\s?", r"\s?\d+\s?")
    passes = 2 * (len("Section") + 3)
    assert asked(splitter, "split_count", text) == [
        len(text) + 1,  # run()'s own pass
        (passes - 1) * (len(text) + 1),
        *[SEARCH_COST] * 3,  # two matches, and the search that finds no third
    ]


def test_a_marker_asks_for_its_passes():
    text = "Thanks.\nP.S. see you"
    known = known_marker(HARNESS_MARKERS["P.S."])
    assert asked(known, "search", text.lower()) == [
        len(text) + 1,
        (KNOWN_MARKER_PASSES - 1) * (len(text) + 1),
    ]
    plain = ifeval_reads.pattern("note", r"\s*", r".*$", re.MULTILINE)
    assert asked(plain, "search", text.lower()) == [len(text) + 1]


def test_a_known_marker_is_charged_for_every_comparison_re_may_make_at_one_place():
    """Each `\\s?` is tried with its space and without: at most 2 ** (their number) times the longest match."""
    for harness in HARNESS_MARKERS.values():
        core = harness.removeprefix(r"\s*").removesuffix(r".*$")
        longest = len(core.replace(r"\s?", " ").replace("\\", ""))
        assert KNOWN_MARKER_PASSES >= 2 ** core.count(r"\s?") * longest


TWENTY_SECTIONS = "Section 1 a Section 2 b" * 20  # 40 matches


@pytest.mark.parametrize(
    ("left", "refused_at"),
    [
        (0, "run()'s own pass"),
        (500, "the comparisons' passes"),
        (10_000, "a match's search"),
    ],
)
def test_a_budget_that_refuses_any_read_leaves_the_outcome_unsettled(left, refused_at):
    """Refused at any of its reads, the run gives no answer: PAST_BUDGET, as the replay reports it."""
    splitter = ifeval_reads.pattern("Section", r"\s?", r"\s?\d+\s?")
    asked: list[int] = []
    budget = [left]

    def spend(amount: int) -> bool:
        asked.append(amount)
        if amount > budget[0]:
            return False
        budget[0] -= amount
        return True

    with reading(spend), pytest.raises(ifeval_reads.Unsettled) as raised:
        ifeval_reads.run(splitter, "split_count", TWENTY_SECTIONS)
    assert raised.value.args == (ifeval_reads.PAST_BUDGET,)
    refused = {1: "run()'s own pass", 2: "the comparisons' passes"}.get(
        len(asked), "a match's search"
    )
    assert refused == refused_at, asked


@pytest.mark.parametrize(
    ("instruction", "kwargs", "response", "expected"),
    [
        (
            "detectable_format:multiple_sections",
            {"section_spliter": "Section", "num_sections": 2},
            "Section 1\nintro\nSection\u00a02\nbody",
            (True, True),
        ),
        (
            "detectable_format:multiple_sections",
            {"section_spliter": " SECTION ", "num_sections": 3},
            "SECTION 1 a SECTION 2 b",
            (False, False),
        ),
        (
            "detectable_content:postscript",
            {"postscript_marker": "P.S."},
            "Hi.\np. s. bye",
            (True, True),
        ),
        (
            "detectable_content:postscript",
            {"postscript_marker": "P.P.S"},
            "Hi. P.S. bye",
            (False, False),
        ),
        (  # a lone surrogate, which RE2 cannot read: re answers as the harness does
            "detectable_content:postscript",
            {"postscript_marker": "P.S."},
            "Hi.\ud800\np. s. bye",
            (True, True),
        ),
        (
            "detectable_content:postscript",
            {"postscript_marker": "Note"},
            "a\nNOTE: b",
            (True, True),
        ),
    ],
)
def test_the_replay_runs_plain_splitters_and_markers_by_re(instruction, kwargs, response, expected):
    assert ifeval.replay(instruction, kwargs, response) == expected
