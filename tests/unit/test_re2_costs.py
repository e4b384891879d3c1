"""What RE2 spends on a submitter's pattern is bounded and asked of the run's budget (linear_regex.py).

RE2 compiles a pattern in time that grows with its size, and reads a text at a
few nanoseconds a byte only while its DFA holds the states the pattern needs;
past that, each byte costs a few nanoseconds for each place in the pattern a
thread may stand on, and finding a match's groups more for each group. So a
pattern too large for RE2's memory bound, too deeply nested or reporting too
many groups is refused; each compile is asked for by the pattern's length and
size, each run of an engine by its places, and each match's groups by their
number; a search or a count runs an engine whose groups do not capture.
"""

from __future__ import annotations

import random
import re
from re import _parser  # type: ignore[attr-defined]

import pytest

from validator.harness import linear_regex
from validator.harness.filters import pipeline_of
from validator.harness.ifeval import replay_explained
from validator.harness.ifeval_reads import PAST_BUDGET
from validator.harness.linear_regex import NotLinear, compile_linear
from validator.harness.re2_syntax import TOO_LARGE, RE2Writer
from validator.harness.read_budget import ReadsRefused, reading


def _asked(run) -> list[int]:
    """What `run()` asks of a reading that grants everything."""
    amounts: list[int] = []
    with reading(lambda amount: amounts.append(amount) or True):
        run()
    return amounts


def _hostile_words(size: int) -> str:
    """Words of random a's and b's 998 letters long: `a[^ ]{500}x` needs more DFA states on them than RE2's
    memory bound holds."""
    draw = random.Random(7)
    words = ["".join(draw.choice("ab") for _ in range(998)) for _ in range(size // 999 + 1)]
    return " ".join(words)[:size]


@pytest.mark.parametrize(
    "pattern, refused_by_its_size",
    [
        # \w's hundreds of ranges, 999 times: refused at its first copy (half a second for RE2 to compile)
        (r"a\w{999}", True),
        (r"\w{22}", True),  # 1 + 22 copies of \w's ranges and one: past 16,000 units
        (r"[^ ]{999}" * 4, False),  # 4 * (1 + 999 * 4) = 15,988 units, but RE2 refuses its program
    ],
)
def test_a_pattern_too_large_for_re2_s_memory_bound_is_refused(pattern, refused_by_its_size, capfd):
    """Refused as NotLinear (LB716), by its size before RE2 sees it where it can be, else by RE2; the attempt
    is asked of the budget, and RE2 writes nothing of it to the run's stderr."""
    parsed = _parser.parse(pattern)
    if refused_by_its_size:
        with pytest.raises(NotLinear, match=re.escape(TOO_LARGE)):
            RE2Writer(None).source(parsed)
    else:
        RE2Writer(None).source(parsed)
    asked: list[int] = []
    with reading(lambda amount: asked.append(amount) or True), pytest.raises(NotLinear) as raised:
        compile_linear(pattern)
    assert raised.value.feature == TOO_LARGE
    # the parse, by the pattern's length; the engine's writing; then its units, as far as the writing went
    # (\w is read from unicode_tables.py and [^ ] is plain: no class is asked of `re` here)
    parse = linear_regex._COMPILE_BASE + linear_regex._COMPILE_COST * len(pattern)
    assert asked[:2] == [parse, linear_regex._COMPILE_BASE] and len(asked) == 3
    units = asked[2] // linear_regex._COMPILE_COST
    assert units > 16_000 if refused_by_its_size else units == 15_988
    assert capfd.readouterr().err == ""


def test_a_pattern_is_sized_by_its_classes_times_the_copies_its_repeats_make():
    """Each one-character node counts its ranges of code points plus one, and each other node one, once for
    each copy RE2 makes of it (units); RE2's step-by-step matcher visits each node once for each copy, a
    class once more for every two of its ranges and once more where it reaches beyond ASCII (steps)."""
    writer = RE2Writer(None)
    writer.source(_parser.parse(r"a(?:[bd-e]x{3}){2}y*z{2,}"))
    # a; the repeat {2} (the group is `re`'s parser's to drop), in each of its 2 copies [bd-e] (two ranges),
    # the repeat {3} and 3 copies of x; y* and its y; z{2,} and 2 copies of z
    assert writer.units == 2 + 1 + 2 * (3 + 1 + 3 * 2) + (1 + 2) + (1 + 2 * 2)
    assert writer.steps == 1 + 1 + 2 * (1 + 1 + 3) + (1 + 1) + (1 + 2)  # [bd-e]: 1 + (2 - 1) // 2
    beyond = RE2Writer(None)
    beyond.source(_parser.parse(r"[é-ê]{3}"))
    assert beyond.steps == 1 + 3 * 2  # one range, beyond ASCII
    odd = "".join(chr(point) for point in range(0x21, 0x7F, 2) if chr(point) not in "\\]-^")
    many = RE2Writer(None)
    many.source(_parser.parse(f"[{odd}]{{3}}"))
    # RE2 tries each range at each byte (the class holds A and a but neither B nor b, all within ASCII)
    assert many.steps == 1 + 3 * (1 + (len(odd) - 1) // 2)
    # the complements leave the surrogates out: [^c] is three ranges, [^cC] and [^cD] four
    # [^cC] reaches beyond ASCII and leaves out both cases of c, holding both of the other letters: four more
    folded_classes = (
        (r"[^cC]", 1 + 1 + 1 + 4),
        (r"[^c]", 1 + 1 + 1),
        (r"[^cD]", 1 + 1 + 1),
        ("[tT]", 1),
    )
    for folded, steps in folded_classes:
        writer = RE2Writer(None)
        writer.source(_parser.parse(folded))
        assert writer.steps == steps, folded
    from validator.harness.word_boundaries import MARKERS

    marked = RE2Writer(next(iter(MARKERS)))
    marked.source(_parser.parse(r"a[ab]{3}"))
    assert marked.steps == (1 + 1) + 1 + 3 * (1 + 1)  # each class after its optional marker


def test_a_deeply_nested_pattern_is_refused_as_it_is_parsed():
    """Walking a pattern's shape takes time with each level it nests: past 32, it is not run (LB716)."""
    with pytest.raises(NotLinear, match="nested more than 32 levels deep"):
        compile_linear("x" + "(?:" * 33 + "a" + ")?" * 33)
    assert compile_linear("x" + "(?:" * 32 + "a" + ")?" * 32).search("xa")


def test_a_compile_is_asked_for_by_the_pattern_s_length_and_size_and_a_refusal_compiles_nothing():
    pattern = r"a[^ ]{999}"  # 2 + 1 + 999 * 4 units
    compile_linear.cache_clear()
    assert _asked(lambda: compile_linear(pattern)) == [
        linear_regex._COMPILE_BASE + linear_regex._COMPILE_COST * len(pattern),
        linear_regex._COMPILE_BASE,
        3_999 * linear_regex._COMPILE_COST,
    ]
    compile_linear.cache_clear()
    with reading(lambda amount: False), pytest.raises(ReadsRefused):
        compile_linear(pattern)
    assert compile_linear.cache_info().currsize == 0


def test_each_run_of_an_engine_is_asked_for_passes_by_the_places_a_thread_may_stand_on():
    """Past the caller's one pass, a search asks for the passes its engine may make a byte: 8, and one more
    for every two places a thread may stand on (RE2Writer.steps, at most the program's size)."""
    text = _hostile_words(20_000)
    pattern = r"a[^ ]{500}x"
    compiled = compile_linear(pattern)
    writer = RE2Writer(None)
    writer.source(_parser.parse(pattern))
    assert writer.steps == 1 + 1 + 500 * 3 + 1  # [^ ]: three ranges, reaching beyond ASCII
    passes = 8 + writer.steps // 2
    assert _asked(lambda: compiled.search(text)) == [(passes - 1) * len(text)]
    assert _asked(lambda: compiled.count(text))[0] == (passes - 1) * len(text)
    small = compile_linear(r"(-?[0-9]+)")  # the group, -? and -, + and [0-9]: 5 places
    assert _asked(lambda: small.search("12 and 13")) == [(8 + 5 // 2 - 1) * 9]


def test_a_search_runs_an_engine_whose_groups_do_not_capture():
    """RE2 finds a match's groups by stepping through the pattern over it; a search and a count need only
    where the whole match is, which its DFA finds, so their engine's groups are written not capturing."""
    compiled = compile_linear(r"(a)(b)?(c)")
    assert compiled.search("xabc") and compiled.count("abc ac") == 2
    assert compiled._compiled[None, False]._regexp.NumberOfCapturingGroups() == 0
    assert (None, True) not in compiled._compiled
    assert compiled.findall("abc ac") == [("a", "b", "c"), ("a", "", "c")]
    assert compiled._compiled[None, True]._regexp.NumberOfCapturingGroups() == 3


def test_each_match_s_groups_are_asked_for_by_its_length_and_their_number():
    """A findall that reports groups asks, once each match is found, for its bytes times the places a thread
    may stand on times one more than the groups, over two; each search's call for every four groups too."""
    from validator.harness.read_budget import SEARCH_COST

    compiled = compile_linear(r"(a+)(b)")  # a group, a+ and a, a group and b: 5 places
    text = "aaab ab"
    compiled.findall(text)  # its engine with capturing groups compiled
    asked = _asked(lambda: compiled.findall(text))
    group_passes = 5 * (1 + 2) // 2
    engine_passes = (8 + 5 // 2 - 1) * len(text)
    assert asked == [
        engine_passes,
        SEARCH_COST,
        4 * group_passes,
        SEARCH_COST,
        2 * group_passes,
        SEARCH_COST,
    ]
    many = compile_linear("(a)" * 9)
    many.findall("b")
    # 18 steps, each three times where its groups capture: 8 + 27 passes a byte, past 24 a search's set-up
    assert _asked(lambda: many.findall("b"))[1:] == [SEARCH_COST * 3 + 35 * (35 - 24)]


def test_a_findall_of_more_than_16_groups_is_not_run():
    """Finding a match's groups copies each group's place at each step: past 16 groups, a filter's findall is
    not replayed (LB716); a search or a count of the same pattern still runs."""
    compiled = compile_linear("(a)" + "()" * 16)
    with pytest.raises(NotLinear, match="more than 16 groups"):
        compiled.findall("a")
    assert compiled.search("a") and compiled.count("aa") == 2


def test_a_keyword_re2_reads_slowly_is_replayed_within_the_budget_and_refused_past_it():
    """`a[^ ]{500}x` on 50 kB of such words: about 0.1 s of RE2's work, asked for as about 38 million
    characters a read; a budget of 5 million leaves it unsettled (LB716), and an unbounded one settles it."""
    from validator.audit.work_budget import WorkBudget

    reply = _hostile_words(50_000)
    kwargs = {"keywords": [r"a[^ ]{500}x"]}
    outcomes, reason = replay_explained("keywords:existence", kwargs, reply)
    assert outcomes == (False, False) and reason is None
    budget = WorkBudget(5_000_000)
    outcomes, reason = replay_explained("keywords:existence", kwargs, reply, budget.spend)
    assert outcomes == (None, None) and reason == PAST_BUDGET


def test_a_filter_pattern_s_compile_past_the_budget_is_not_replayed():
    steps = [
        {"function": "regex", "regex_pattern": r"answer: (\w+) or (\w+)"},
        {"function": "take_first"},
    ]
    compile_linear.cache_clear()
    with reading(lambda amount: False):
        assert pipeline_of(steps) == "its regex's compile runs past the run's work budget"
    with reading(lambda amount: True):
        assert not isinstance(pipeline_of(steps), str)


def test_each_look_past_a_bounded_word_s_place_inside_a_word_asks_for_a_search():
    """In a text beyond ASCII, a `\\bword\\b` pattern found inside other words is looked for again, up to
    sixteen times: each look past the first is a call, asked as one search (SEARCH_COST)."""
    from validator.harness.read_budget import SEARCH_COST

    compiled = compile_linear(r"\bx[y]\b")
    text = "xy" * 18 + " é"  # eighteen places, none a word alone
    assert compiled.edge_bounded and not compiled.search(text)
    assert _asked(lambda: compiled.search(text)).count(SEARCH_COST) == 16


def test_a_class_asked_of_re_over_every_code_point_is_asked_of_the_budget_and_kept_a_while(
    monkeypatch,
):
    """A case-folded class `re` must be asked about code point by code point (about 16 ms) asks the reading for
    SCAN_COST first, once: its members are kept, the 64 latest such classes (the oldest forgotten first), so a
    worker that outlives runs keeps a bounded table and no run's classes use up another's."""
    from validator.harness import regex_classes
    from validator.harness.regex_classes import SCAN_COST, members

    def node(first: int) -> tuple:
        return _parser.parse(f"[{chr(first)}-{chr(first + 3)}]", re.IGNORECASE)[0]

    flags = int(re.IGNORECASE)
    monkeypatch.setattr(regex_classes, "_MEMBERS", {})
    monkeypatch.setattr(regex_classes, "_KEPT", 4)  # 64 in a process
    assert _asked(lambda: members(node(0x1E00), flags)) == [SCAN_COST]
    assert _asked(lambda: members(node(0x1E00), flags)) == []
    with reading(lambda amount: False), pytest.raises(ReadsRefused):
        members(node(0x1E08), flags)
    for first in (0x1E10, 0x1E18, 0x1E20, 0x1E28):
        members(node(first), flags)
    # the first class was forgotten to keep four; asked again, it asks for its scan again
    assert len(regex_classes._MEMBERS) == 4
    assert _asked(lambda: members(node(0x1E00), flags)) == [SCAN_COST]


def test_a_cased_letter_ignoring_case_is_asked_of_the_budget_once(monkeypatch):
    """Which code points `re` matches with a letter ignoring case is asked among the code points with a case
    (up to about 50 µs): asked of the reading first (LITERAL_COST), then kept."""
    from validator.harness import regex_classes
    from validator.harness.regex_classes import LITERAL_COST, members

    monkeypatch.setattr(regex_classes, "_LITERALS", {})
    letter = _parser.parse("\u0101", re.IGNORECASE)[0]  # ā, whose other case is Ā
    flags = int(re.IGNORECASE | re.UNICODE)  # a str pattern's flags
    assert _asked(lambda: members(letter, flags)) == [LITERAL_COST]
    assert members(letter, flags) == ((0x100, 0x101),)
    assert _asked(lambda: members(letter, flags)) == []


def test_a_pattern_refused_as_it_is_written_asks_for_what_was_written():
    """A pattern RE2 cannot run, found partway through writing it, is asked for the units written so far:
    refusals are not kept, so each replay of such a keyword writes it again."""
    pattern = r"\d" * 400 + "(?=a)"  # a look-around after 400 classes
    asked = _asked(lambda: pytest.raises(NotLinear, compile_linear, pattern))
    assert asked[2] >= 400 * 2 * linear_regex._COMPILE_COST
