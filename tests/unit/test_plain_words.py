"""IFEval's plain keywords read with str methods answer as Python's re does (harness/plain_words.py)."""

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from validator.harness import ifeval_reads
from validator.harness.linear_regex import compile_linear
from validator.harness.not_linear import NotLinear
from validator.harness.plain_words import PlainWords, is_plain

words = st.text(alphabet="aAbBkKsS09 '-", min_size=1, max_size=4)
# ASCII around the words, and characters beyond it: letters and a superscript (\w to re), a combining mark and a
# dash (not \w), the four that re matches with an ASCII letter ignoring case (the Kelvin sign, ſ, İ, ı), and a
# lone surrogate
texts = st.text(
    alphabet="aAbBkKsSiI09 '-_.,\n\u212a\u017f\u0130\u0131\xe9\xdf\u0301\u2014\u00b2\ud800",
    max_size=30,
)


def plain(word: str, bounded: bool) -> PlainWords:
    before = after = r"\b" if bounded else ""
    return PlainWords(word, bounded, lambda: compile_linear(before + word + after, re.IGNORECASE))


@settings(max_examples=1500, deadline=None)
@given(words, texts, st.booleans())
@example("a a", "xa a a", True)  # the place that stands alone overlaps the first place found
@example(" a", "b a", True)  # a word that starts with no word character
@example("a-", "a-b", True)
@example("k", "\u212a", False)  # the Kelvin sign is a K to re, ignoring case
@example("is", "\u0130\u017f", False)
@example("a", "\xe9a\xe9", True)  # a letter beyond ASCII is a word character: no boundary there
def test_a_plain_keyword_is_found_where_re_finds_it(word, text, bounded):
    pattern = rf"\b{word}\b" if bounded else word
    if "\ud800" in text:  # RE2 reads UTF-8: the compiled pattern says it cannot, as for any pattern
        with pytest.raises(NotLinear):
            plain(word, bounded).search(text)
        return
    assert plain(word, bounded).search(text) == (
        re.search(pattern, text, re.IGNORECASE) is not None
    )


@settings(max_examples=1000, deadline=None)
@given(words, texts)
@example("aa", "aaa")  # re.findall does not overlap its matches
def test_a_plain_keyword_is_counted_as_re_findall_counts_it(word, text):
    if "\ud800" in text:
        with pytest.raises(NotLinear):
            plain(word, False).count(text)
        return
    assert plain(word, False).count(text) == len(re.findall(word, text, re.IGNORECASE))


def test_past_sixteen_places_without_a_boundary_the_compiled_pattern_decides():
    text = "aa" * 20 + " a"  # twenty places inside a word before the one that stands alone
    calls = []

    def compiled():
        calls.append(1)
        return compile_linear(r"\ba\b", re.IGNORECASE)

    assert PlainWords("a", True, compiled).search(text) is True
    assert calls  # the str search gave up, and RE2 answered
    assert PlainWords("a", True, compiled).search("aa" * 5 + " a") is True
    assert len(calls) == 1  # within sixteen places, str methods answered alone


@pytest.mark.parametrize(
    ("words", "before", "after", "flags", "expected"),
    [
        ("coffee", "", "", re.IGNORECASE, True),
        ("at least", r"\b", r"\b", re.IGNORECASE, True),
        ("don't", "", "", re.IGNORECASE, True),
        (
            "coffee",
            "",
            "",
            0,
            False,
        ),  # the harness always ignores case: another flag is another pattern
        ("coffee", r"\s*", r".*$", re.IGNORECASE, False),
        ("c.ffee", "", "", re.IGNORECASE, False),
        ("caf\xe9", "", "", re.IGNORECASE, False),
        ("a_b", "", "", re.IGNORECASE, False),
        ("", "", "", re.IGNORECASE, False),
    ],
)
def test_only_plain_ascii_words_ignoring_case_are_read_without_re2(
    words, before, after, flags, expected
):
    assert is_plain(words, before, after, flags) is expected


def test_the_replay_compiles_a_plain_keyword_only_for_a_reply_str_methods_cannot_read():
    compile_linear.cache_clear()
    keyword = ifeval_reads.pattern("Coffee", flags=re.IGNORECASE)
    assert ifeval_reads.run(keyword, "search", "I like coffee.") is True
    assert ifeval_reads.run(keyword, "count", "coffee, COFFEE \u2014 caf\xe9") == 2
    assert compile_linear.cache_info().currsize == 0
    assert ifeval_reads.run(keyword, "search", "\u0130 like COFFEE") is True
    assert compile_linear.cache_info().currsize == 1


@pytest.mark.parametrize(
    ("word", "text", "bounded"),
    [("a", "a a a a b", False), ("a", "xaa " * 3, False), ("cat", "the cat and the CAT", True)],
)
def test_a_plain_keyword_asks_the_budget_for_what_re2_would_have_read_and_its_comparisons(
    word, text, bounded
):
    """The reads asked of the reading in force are those of the compiled pattern, one search a match (and the
    last, which finds none) when counting, and after run()'s pass, the passes comparing the word at each place
    of the text may take: its length less one. Only RE2's engine is asked for the passes it may make over
    each byte (linear_regex._PASSES_BASE): no RE2 engine reads the text."""
    from validator.harness.read_budget import reading

    def asked_by(keyword, how: str) -> list[int]:
        amounts: list[int] = []
        with reading(lambda amount: amounts.append(amount) or True):
            ifeval_reads.run(keyword, how, text)
        return amounts

    before = after = r"\b" if bounded else ""
    plain = ifeval_reads.pattern(word, before, after, re.IGNORECASE)
    assert isinstance(plain, PlainWords)
    compiled = compile_linear(before + word + after, re.IGNORECASE)
    comparisons = [(len(word) - 1) * (len(text) + 1)] if len(word) > 1 else []
    engine_passes = (compiled._passes(None) - 1) * len(text)
    for how in ("search",) if bounded else ("search", "count"):
        first, engines, *rest = asked_by(compiled, how)
        assert engines == engine_passes
        assert asked_by(plain, how) == [first, *comparisons, *rest]


def test_each_look_past_a_place_inside_a_word_asks_for_a_search():
    """A bounded word found inside other words is looked for again, up to sixteen times: each look past the
    first is a call, asked as one search (SEARCH_COST), so a tiny reply cannot make many uncharged looks."""
    from validator.harness.read_budget import SEARCH_COST, reading

    keyword = ifeval_reads.pattern("x", r"\b", r"\b", re.IGNORECASE)
    reply = "x" * 18  # eighteen places, none a word alone
    asked: list[int] = []
    with reading(lambda amount: asked.append(amount) or True):
        ifeval_reads.run(keyword, "search", reply)
    assert asked.count(SEARCH_COST) == 16


def test_a_long_plain_keyword_past_the_budget_is_unsettled():
    """A keyword of 99 letters on a reply of 29,999: CPython's search may compare it at every place, about 99
    times a pass's work, which a budget of a few passes refuses."""
    from validator.harness.read_budget import reading

    keyword = ifeval_reads.pattern("a" * 96 + "baa", flags=re.IGNORECASE)
    reply = "a" * 29_999
    with (
        reading(lambda amount: amount <= 10 * len(reply)),
        pytest.raises(ifeval_reads.Unsettled) as raised,
    ):
        ifeval_reads.run(keyword, "search", reply)
    assert raised.value.args == (ifeval_reads.PAST_BUDGET,)


def test_re_matches_a_plain_character_ignoring_case_with_four_characters_beyond_ascii_and_no_other():
    """What plain_words.py rests on, asked of re for every code point beyond ASCII: ignoring case, re matches an
    ASCII letter, digit, space, apostrophe or hyphen only with İ, ı, ſ and the Kelvin sign. A text holding one
    of them, or a lone surrogate, is left to the compiled pattern."""
    from validator.harness.plain_words import lower_case

    plain = re.compile(r"[a-z0-9 '-]", re.IGNORECASE)
    folding = []
    for point in range(0x80, 0x110000):
        if 0xD800 <= point <= 0xDFFF:
            assert lower_case(f"a{chr(point)}b") is None
        elif plain.fullmatch(chr(point)):
            folding.append(chr(point))
    assert folding == ["\u0130", "\u0131", "\u017f", "\u212a"]
    assert all(lower_case(f"a{character}b") is None for character in folding)
    assert lower_case("A\xe9\u2014B") == "a\xe9\u2014b".encode()
