"""Patterns run under RE2 (validator.harness.linear_regex.py), held to Python's `re`, and to a time bound on hostile text.

The results must be `re`'s wherever RE2 runs a pattern: hypothesis draws
patterns from `re`'s syntax (classes, Unicode categories, case folding,
anchors, word boundaries, groups, alternation, repeats) and texts beyond
ASCII, and compares search, findall and split. The time bound is the point
of the second half: a loose guard (seconds, on texts of megabytes) that fails
only where a pattern's work grows faster than the text.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.common import REPO

from validator.harness.ifeval import replay
from validator.harness.linear_regex import NotLinear, compile_linear

ALPHABET = "aAbB kK\u212as\u017fİı_1٣é-\n.(\u2028—"
ATOMS = st.sampled_from(
    [
        "a",
        "b",
        "k",
        "s",
        "i",
        "é",
        " ",
        "\\n",
        ".",
        "\\w",
        "\\W",
        "\\d",
        "\\s",
        "\\S",
        "[a-c]",
        "[^ab]",
        "[\\w-]",
        "[^\\W\\d]",
        "\\(",
        "\\b",
        "\\B",
        "^",
        "$",
        "\\A",
        "\\Z",
    ]
)


@st.composite
def patterns(draw, depth: int = 2) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if depth and draw(st.booleans()):
            inner = draw(patterns(depth - 1))
            kind = draw(st.sampled_from(["({})", "(?:{})", "(?:{}|{})", "(?i:{})", "(?a:{})"]))
            part = kind.format(inner, draw(patterns(depth - 1)))
        else:
            part = draw(ATOMS)
        if not part.startswith(("\\b", "\\B", "^", "$", "\\A", "\\Z")):
            part += draw(st.sampled_from(["", "", "*", "+", "?", "{1,2}", "*?", "+?", "??"]))
        parts.append(part)
    return "".join(parts)


FLAGS = st.sampled_from([0, re.IGNORECASE, re.MULTILINE, re.DOTALL, re.IGNORECASE | re.MULTILINE])


@pytest.mark.slow  # hundreds of drawn patterns, each run by both engines
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns(), st.text(alphabet=ALPHABET, max_size=30), FLAGS)
def test_what_re2_runs_finds_what_re_finds(pattern, text, flags):
    try:
        linear = compile_linear(pattern, flags)
    except NotLinear as why:
        assert why.feature  # told, never guessed: see the next test for which features
        return
    settled = _agrees(lambda: linear.search(text), re.search(pattern, text, flags) is not None)
    # search may settle a text that findall leaves unsettled only where it can read it unmarked: a \b pattern in a
    # text beyond ASCII (one whose \b cannot be marked finds nothing, with or without it, in a text without its
    # letters); elsewhere findall and split answer where search does
    must_answer = settled and not (linear.bounded_by_words and not text.isascii())
    if linear.nullable:
        with pytest.raises(NotLinear, match="matches empty text"):
            linear.findall(text)
        return
    _agrees(lambda: linear.findall(text), re.findall(pattern, text, flags), must_answer)
    _agrees(
        lambda: linear.split_count(text), len(re.split(pattern, text, flags=flags)), must_answer
    )


def _agrees(run, expected, must_answer: bool = False) -> bool:
    """The answer is `re`'s, or NotLinear naming why (not where `must_answer`); whether it answered."""
    try:
        found = run()
    except NotLinear as why:
        assert why.feature and not must_answer, why.feature
        return False
    assert found == expected
    return True


@pytest.mark.parametrize(
    "pattern, text, feature",
    [
        ("(a)\\1", "aa", "a back-reference"),
        ("\\b(a)\\1\\b", "aa", "a back-reference"),
        ("a(?=b)", "ab", "a look-around"),
        ("(?<=a)b", "ab", "a look-around"),
        ("(a)?(?(1)b|c)", "ab", "a conditional group"),
        ("(?>a+)b", "ab", "an atomic group"),
        ("a++b", "ab", "a possessive repeat"),
        ("a{2000}", "a", "a repeat count over 1000"),
        ("\\Ba", "éa", "\\B in a text beyond ASCII"),
        ("a$", "a\n", "a `$` (not multiline) in a text ending in a newline"),
    ],
)
def test_what_re2_cannot_run_as_re_does_is_named(pattern, text, feature):
    with pytest.raises(NotLinear) as raised:
        compile_linear(pattern).search(text)
    assert raised.value.feature == feature


@pytest.mark.parametrize(
    "pattern, text, found",
    [
        (r"\bcaf\b", "un café noir", False),  # "caf" is there: the text is marked, and \b holds not
        (r"\bnoir\b", "un café noir", True),
        (
            r"(\bthé)",
            "un café",
            False,
        ),  # a \b no marker can stand for, and no "thé" to find with or without it
        (r"\Bthé", "un café", False),  # \B, which RE2 cannot follow here, as little
    ],
)
def test_a_pattern_without_its_letters_in_the_text_is_settled_unmarked(pattern, text, found):
    assert compile_linear(pattern, re.IGNORECASE).search(text) is found
    assert (re.search(pattern, text, re.IGNORECASE) is not None) is found


@pytest.mark.parametrize("places", [1, 15, 16, 17, 40])
@pytest.mark.parametrize("last", ["éa", " a"])
def test_a_bounded_word_is_looked_for_at_each_place_it_stands(places, last):
    """`\\bword\\b`: where the word stands inside other words, the next place is looked at, and past 16 places
    the text is marked instead; either way the answer is `re`'s."""
    from validator.harness import word_boundaries

    text, found = "éa" * places + last, last == " a"
    word_boundaries._kept_marking.cache_clear()
    assert compile_linear(r"\ba\b").search(text) is found is bool(re.search(r"\ba\b", text))
    assert word_boundaries._kept_marking.cache_info().currsize == (places + 1 > 16)


@pytest.mark.parametrize(
    "pattern, text",
    [(r"(\bcafé)", "un café"), (r"\Bfé", "un café"), (r"\bnoir$", "un café noir\n")],
)
def test_a_pattern_found_without_its_boundaries_is_left_to_them(pattern, text):
    with pytest.raises(NotLinear):
        compile_linear(pattern).search(text)


@pytest.mark.parametrize(
    "pattern, text",
    [
        ("xy|a|K", "\u212a"),
        ("i\\d|[a-z]|K", "\u212a"),
        ("a|xy|s", "\u017f"),
        ("(?:b|[Kk])+", "b\u212a"),
        ("xy|a|[Ss]", "\u017f"),
    ],
)
@pytest.mark.parametrize("flags", [re.ASCII | re.IGNORECASE, 0])
def test_an_ascii_letter_s_two_cases_are_not_folded_by_unicode_in_an_alternative(
    pattern, text, flags
):
    """`[Kk]` (and K under ASCII and IGNORECASE) is K or k alone; RE2 reads a class of a letter's two cases as
    the letter case-folded, and once it merges such a class with other alternatives it finds the Kelvin sign."""
    assert compile_linear(pattern, flags).search(text) is bool(re.search(pattern, text, flags))


def test_a_dollar_scoped_out_of_multiline_is_not_read_as_multiline():
    """`(?-m:$)` in a MULTILINE pattern also matches before a last line break, which RE2's end of text does not."""
    assert re.search(r"a(?-m:$)", "a\n", re.MULTILINE)
    with pytest.raises(NotLinear, match="not multiline"):
        compile_linear(r"a(?-m:$)", re.MULTILINE).search("a\n")
    assert compile_linear(r"a(?-m:$)", re.MULTILINE).search("ba")


def test_a_word_boundary_beyond_ascii_is_res():
    """`re`'s \\b is Unicode: no boundary between 'f' and 'é'; RE2's alone would find one."""
    word = compile_linear(r"\bcaf\b", re.IGNORECASE)
    assert word.search("un CAF noir") and not word.search("un café noir")
    assert compile_linear(r"\bcafé\b").findall("café, cafés, café") == ["café", "café"]


def test_case_folding_is_res():
    """`re` folds the Kelvin sign with k and the long s with s; RE2's own folding differs elsewhere."""
    assert compile_linear("k", re.IGNORECASE).findall("kK\u212a") == ["k", "K", "\u212a"]
    assert compile_linear("[a-z]+", re.IGNORECASE).findall("İstanbul") == re.findall(
        "[a-z]+", "İstanbul", re.IGNORECASE
    )


# --- hostile texts: a loose time bound is the point here ---------------------------------------
# Backtracking on these texts takes minutes to hours; linear work takes about a second. The bound sits
# far from both, so a loaded CI machine does not trip it and a super-linear engine always does.
HOSTILE_SECONDS = 20

HOSTILE = [  # (pattern, flags, text): each backtracks in `re` for minutes or more on these texts
    ("a?" * 4 + "a" * 190, re.IGNORECASE, ("a" * 189 + "b") * 10_600),
    ("(a+)+$", 0, "a" * 2_000_000 + "b"),
    ("(x|xx)+y", 0, "x" * 2_000_000),
    (r"\b(\w+\s?)*\b\.", re.IGNORECASE, "word " * 400_000),
    (r"\s*" + "p" * 150 + r".*$", re.MULTILINE, ("p" * 149 + "\n") * 13_000),
]


@pytest.mark.parametrize("pattern, flags, text", HOSTILE)
def test_a_hostile_pattern_on_two_megabytes_ends_in_seconds(pattern, flags, text):
    """Within the loose bound for about 2 MB, on a machine shared with other tests: `re` takes hours on most
    of these. The bound fails only where the work grows faster than the text."""
    started = time.perf_counter()
    linear = compile_linear(pattern, flags)
    linear.search(text)
    if not linear.nullable:
        linear.count(text)
    assert time.perf_counter() - started < HOSTILE_SECONDS


@pytest.mark.slow  # replays drawn keywords over megabytes of text
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(alphabet="a?*+()|.\\bws", min_size=1, max_size=40),
    st.text(alphabet="ab \n", min_size=1, max_size=8),
)
def test_no_drawn_keyword_makes_the_replay_slow(keyword, unit):
    """A search for slow inputs: any keyword a submitter writes, over a response of about 200 KB made of a
    repeated unit, is replayed (9 reads of the response each) in well under the bound."""
    response = unit * (200_000 // len(unit))
    started = time.perf_counter()
    for instruction, kwargs in (
        ("keywords:existence", {"keywords": [keyword]}),
        ("keywords:frequency", {"keyword": keyword, "frequency": 2, "relation": "at least"}),
        ("keywords:forbidden_words", {"forbidden_words": [keyword]}),
    ):
        replay(instruction, kwargs, response)
    assert time.perf_counter() - started < HOSTILE_SECONDS


# --- the harness's own patterns, run by Python's `re` over submitted text --------------------------

HARNESS_TEXTS = [
    "1" * 2_000_000,
    "-" * 2_000_000,
    "#### " * 400_000,
    "The answer is " * 150_000,
    "$,." * 700_000,
    "The final answer is -" * 100_000,
    " a the an" * 200_000,
]


@pytest.mark.parametrize("text", HARNESS_TEXTS, ids=lambda t: repr(t[:12]))
def test_the_harnesss_own_patterns_stay_linear_on_hostile_text(text):
    """GSM8K's filters and regexes_to_ignore and DROP's article pattern run under `re`: each is a fixed
    pattern whose repeats cannot overlap, so every position is read a bounded number of times. A loose bound
    on 2 MB of the text each finds hardest (runs of its own characters) guards that."""
    from validator.harness import drop, exact_match

    started = time.perf_counter()
    for pattern in exact_match.HARNESS_PATTERNS:
        if (
            pattern == "(?s).*#### "
        ):  # quadratic under `re`: removed by a scan (exact_match._up_to_last_marker)
            exact_match.exact_match(text, "1", {"regexes_to_ignore": [pattern]})
            continue
        compiled = re.compile(pattern)
        exact_match.apply_regex_filter(text, compiled, 0, "[invalid]")
        compiled.sub("", text)
        replayed = exact_match.harness_regex(pattern)  # what the filter replay runs
        assert replayed is not None
        exact_match.apply_regex_filter(text, replayed, -1, "[invalid]")
    drop._ARTICLES.sub(" ", text)
    assert time.perf_counter() - started < HOSTILE_SECONDS


def test_the_survey_audits_a_hostile_ifeval_log_in_seconds(tmp_path):
    """The same 2 MB log `re` would read for minutes, through `lbnorm survey` (one unit, one budget): the row
    says findings, and the table is written."""
    import json

    from support.common import run_cli
    from support.hostile_corpus import HOSTILE_KEYWORD, HOSTILE_RESPONSE, _ifeval_run

    run = tmp_path / "run"
    run.mkdir()
    instruction = ("keywords:existence", {"keywords": [HOSTILE_KEYWORD]})
    _ifeval_run(run, [instruction], HOSTILE_RESPONSE, lie=True)
    started = time.perf_counter()
    proc = run_cli("survey", "run", "--out", "out", "--no-plots", cwd=tmp_path)
    assert time.perf_counter() - started < 30, (
        "a loose guard: the audit of this log takes about a second"
    )
    assert proc.returncode == 1, proc.stderr
    rows = [
        json.loads(line) for line in (tmp_path / "out" / "survey.jsonl").read_text().splitlines()
    ]
    [row] = [row for row in rows if row["task"] == "leaderboard_ifeval"]
    assert row["status"] == "findings" and row["errors"] >= 1


def test_the_unicode_tables_hold_this_python():
    """regex_classes.py reads what `re` decides over every code point from tables (80 ms a process to ask about
    each code point's case, 30 for the first class) where they list this Python's Unicode version; a version
    they do not list is asked, and this says to write them again."""
    import unicodedata

    from validator.harness import unicode_tables

    if unicodedata.unidata_version not in unicode_tables.UNICODE_VERSIONS:
        pytest.skip(
            f"Unicode {unicodedata.unidata_version} is not in the tables: python scripts/unicode_tables.py"
        )
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "unicode_tables.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


CLASSES = [
    r"\d",
    r"\s",
    r"\w",
    r"\D",
    r"\S",
    r"\W",
    r"[\d.,]",
    r"[^\s,]",
    r"[\w-]",
    r"[^\W\d_]",
    r"[\s\d]",
]


@pytest.mark.slow  # each class asked of `re` over every code point, as without the tables
@pytest.mark.parametrize("written", CLASSES)
def test_a_class_read_from_the_tables_is_the_class_re_matches(written):
    from re import _parser  # type: ignore[attr-defined]

    from validator.harness import regex_classes

    [node] = list(_parser.parse(written, 0))
    tabled = regex_classes.members(node, re.UNICODE)
    assert tabled == regex_classes._asked_of_re(node, re.UNICODE, None)


@pytest.mark.slow  # every cased code point's case-insensitive literal, asked of `re` twice
def test_a_case_insensitive_literal_matches_the_same_code_points_with_the_table_or_without(
    monkeypatch,
):
    """The table of code points with a case is a superset (every version's): among them `re` picks what each
    literal matches, the same code points as among this Python's own."""
    import _sre  # type: ignore[import-not-found]

    from validator.harness import regex_classes

    flags = re.IGNORECASE | re.UNICODE
    literals = [point for point in range(0x110000) if _sre.unicode_iscased(point)]
    regex_classes._cased.cache_clear()
    from_table = regex_classes._cased()
    monkeypatch.setattr(regex_classes.unicode_tables, "UNICODE_VERSIONS", ())
    regex_classes._cased.cache_clear()
    try:
        asked = regex_classes._cased()
    finally:
        regex_classes._cased.cache_clear()
    assert set(from_table) >= set(asked) and len(from_table) >= len(asked) > 2000
    for point in literals:
        node = (re._constants.LITERAL, point)  # type: ignore[attr-defined]
        assert regex_classes._asked_of_re(node, flags, from_table) == regex_classes._asked_of_re(
            node, flags, asked
        ), chr(point)


def test_a_long_text_s_boundary_marking_is_not_kept():
    """A reply is marked at its word boundaries once for all the \\b patterns run on it (kept for the next
    pattern), but a string may hold a million characters: past MAX_MARKED the marking is done and let go."""
    from validator.harness import word_boundaries

    pattern = compile_linear(r"\bwhale\b", re.IGNORECASE)
    short, long = "a whale é", "é " * word_boundaries.MAX_MARKED + "whale"
    word_boundaries._kept_marking.cache_clear()
    assert word_boundaries.marked(short) and word_boundaries.marked(long)
    assert pattern.search(short) and pattern.search(long)
    assert word_boundaries._kept_marking.cache_info().currsize == 1


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=ALPHABET + "—“\U0001f600\u0301", max_size=40))
def test_a_marked_text_holds_a_marker_at_each_place_re_finds_a_word_boundary(text):
    """The marking joins the text's word runs and the rest with the marker: the places `re` finds \\b. A text
    whose word characters are all ASCII is not marked: RE2's ASCII \\b stands where `re`'s does."""
    from validator.harness import word_boundaries

    marker, encoded = word_boundaries._marking(text)
    if marker is None:
        assert not any(not c.isascii() and re.match(r"\w", c) for c in text)
        assert re.sub(r"\b", "|", text) == re.sub(r"\b", "|", text, flags=re.ASCII)
        assert encoded == text.encode("utf-8")
    else:
        assert encoded == re.sub(r"\b", marker, text).encode("utf-8")


def test_a_text_beyond_ascii_without_a_word_character_beyond_it_is_searched_unmarked():
    """Curly quotes and dashes are no word characters: \\b runs as in an ASCII text. \\B does not: RE2 reads
    bytes, and its \\B holds between two bytes of one such character, where `re` looks at none."""
    text = "“whale”—a whale’s tale"
    for pattern in (r"\bwhale\b", r"(\bwh)ale", r"\btale\b", r"\b.\b"):
        assert compile_linear(pattern, re.DOTALL).findall(text) == re.findall(
            pattern, text, re.DOTALL
        )
    for pattern, text in ((r"\Bhal", "“whale”"), (r"\B", "a—a"), (r"x\b|\B|\bx", "I—I")):
        with pytest.raises(NotLinear, match="beyond ASCII"):
            compile_linear(pattern).search(text)


def test_a_match_ending_at_a_boundary_leaves_it_to_the_next():
    """Matches side by side share the boundary between them, in a marked text as in `re`."""
    for pattern, text in ((r"\b.\b", "é—é"), (r"\b\w+\b", "café au lait é"), (r"\b\W\b", "é é—é")):
        assert compile_linear(pattern).findall(text) == re.findall(pattern, text)
        assert compile_linear(pattern).split_count(text) == len(re.split(pattern, text))


def test_non_boundary_holds_nowhere_in_an_empty_text():
    """Python 3.11 to 3.13: \\B does not match the empty text; RE2's does."""
    for pattern in (r"\B", r"(?:\B|q)", r"(?:\B)?x?"):
        assert compile_linear(pattern).search("") is (re.search(pattern, "") is not None)


def test_a_group_that_switches_between_ascii_and_unicode_is_not_replayed():
    """`re` matches (?a:...) with ASCII classes, but skips ahead by the pattern's first class read with the outer
    flags: (?a:\\W) is found at the start of "é" by re.match, not by re.search. Such a group is NotLinear; one
    that keeps the pattern's flags is replayed."""
    for pattern, text, flags in (
        (r"(?a:\W)", "é", 0),
        (r"x(?a:\W)", "xé", 0),
        (r"(?a:İ)", "i", re.IGNORECASE),
        (r"(?u:\w)", "é", re.ASCII),
    ):
        with pytest.raises(NotLinear, match="switches between ASCII and Unicode"):
            compile_linear(pattern, flags).search(text)
    assert compile_linear(r"(?u:\w)").search("é") and compile_linear(r"(?a:\w)", re.ASCII).findall(
        "aé"
    ) == ["a"]


def test_matches_that_each_read_to_the_end_of_a_long_text_are_not_counted():
    """RE2 reads on past each match of `a(?:.*X)?` to the text's end: counted on "a a a ..." that is quadratic,
    as in `re`. Past a bound the count is NotLinear; an honest reply's words are counted."""
    with pytest.raises(NotLinear, match="read far on"):
        compile_linear(r"a(?:.*X)?").count("a " * 200_000)
    reply = "Here is my answer, in words. " * 1000
    assert compile_linear(r"\w+").count(reply) == len(re.findall(r"\w+", reply))
    assert compile_linear(r"(\w+) (\w+)").findall(reply) == re.findall(r"(\w+) (\w+)", reply)


@pytest.mark.parametrize(
    "pattern, far",
    [
        (r"a(?:.*X)?", True),
        (r"a|a.*X", True),
        (r"a(?:.{0,999}X)?", True),
        (r"\w+(?:\s+\w+)?", True),
        (r"(-?[0-9]+)", False),
        (r"(\w+)", False),
        (r"a[^X]*b", False),
        (r"a.*?X", False),
        (r"\s?SECTION\s?\d+\s?", False),
        (r"The answer is (-?[0-9.,]+).", False),
    ],
)
def test_a_pattern_reads_past_its_matches_only_where_a_longer_match_may_still_fail(pattern, far):
    """Counting the matches of a pattern that reads past them is quadratic, and is bounded and budgeted; one whose
    every search stops with its match is asked of the budget for its calls alone (read_budget.py)."""
    from re import _parser  # type: ignore[attr-defined]

    from validator.harness.pattern_shape import reads_far

    assert reads_far(_parser.parse(pattern)) is far
    assert (compile_linear(pattern).reach is not None) is far
