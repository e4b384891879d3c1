"""What RE2 spends on a submitter's pattern is bounded and asked of the run's budget (linear_regex.py).

RE2 compiles a pattern in time that grows with its size, and reads a text at a
few nanoseconds a byte only while its DFA holds the states the pattern needs;
past that, each byte costs up to its program's size. So a pattern too large
for RE2's memory bound is refused before RE2 compiles it, each compile is
asked for by the pattern's size, and each run of an engine by its program's.
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
        (r"a\w{999}", True),  # 734,267 units: about a second for RE2 to compile
        (r"\w{22}", True),  # 16,170 units
        (r"[^ ]{999}" * 4, False),  # 15,984 units, but about 68,000 instructions: RE2 refuses it
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
    assert asked[0] == linear_regex._COMPILE_BASE and len(asked) == (
        1 if refused_by_its_size else 2
    )
    assert capfd.readouterr().err == ""


def test_a_pattern_is_sized_by_its_classes_times_the_copies_its_repeats_make():
    """Each one-character node counts its ranges of code points plus one, once for each copy RE2 makes of it."""
    writer = RE2Writer(None)
    writer.source(_parser.parse(r"a(?:[bd-e]x{3}){2}y*z{2,}"))
    assert writer.units == 2 + 2 * (3 + 3 * 2) + 2 + 2 * 2


def test_a_compile_is_asked_for_by_the_pattern_s_size_and_a_refusal_compiles_nothing():
    pattern = r"a[^ ]{999}"  # 2 + 999 * 4 units
    compile_linear.cache_clear()
    assert _asked(lambda: compile_linear(pattern)) == [
        linear_regex._COMPILE_BASE,
        3_998 * linear_regex._COMPILE_COST,
    ]
    compile_linear.cache_clear()
    with reading(lambda amount: False), pytest.raises(ReadsRefused):
        compile_linear(pattern)
    assert compile_linear.cache_info().currsize == 0


def test_each_run_of_an_engine_is_asked_for_passes_by_its_program_s_size():
    """Past the caller's one pass, a search asks for the passes its engine's program may make a byte (base 16,
    one more for every 32 instructions); each search counting matches asks for its call as before."""
    text = _hostile_words(20_000)
    compiled = compile_linear(r"a[^ ]{500}x")
    program = compiled._engine(None)._regexp.ProgramSize()
    passes = 16 + program // 32
    assert program > 8_000 and passes > 250
    assert _asked(lambda: compiled.search(text)) == [(passes - 1) * len(text)]
    assert _asked(lambda: compiled.count(text))[0] == (passes - 1) * len(text)
    small = compile_linear(r"(-?[0-9]+)")
    assert _asked(lambda: small.search("12 and 13")) == [15 * 9]


def test_a_keyword_re2_reads_slowly_is_replayed_within_the_budget_and_refused_past_it():
    """`a[^ ]{500}x` on 50 kB of such words: about 0.15 s of RE2's work, asked for as about 14 million
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
