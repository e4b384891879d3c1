"""What one IFEval replay reads, asked of the caller first; and the kwargs the harness reads as patterns. Pure.

Every read of a response (a checker's pass, each pattern's, the loose
variants') is asked of the caller's `spend`, in characters, before it is made;
a refusal leaves the outcome unsettled for PAST_BUDGET. A kwarg the harness
puts into a regular expression is compiled as the harness builds it, for RE2
(linear_regex.py), so each run of it reads the text once; a keyword of plain
words is searched for with str methods where they find what re finds
(plain_words.py), and a section splitter or postscript marker of plain words
is run by re itself, where re reads it in linear time (literal_patterns.py).
"""

from __future__ import annotations

import re
from functools import lru_cache, partial
from typing import Any

from .linear_regex import LinearPattern, NotLinear, compile_linear
from .literal_patterns import LiteralPattern, literal_pattern
from .plain_words import PlainWords, is_plain
from .read_budget import READS, ReadsRefused

PATTERN_MAX = 200  # longest keyword, splitter or marker replayed (a dataset's are words)
PAST_BUDGET = (
    "reads past the caller's budget"  # the reason an outcome is unsettled when `spend` said no
)
PAST_LENGTH = f"a pattern over {PATTERN_MAX} characters, longer than the replay runs"
HARNESS_RAISES = "a pattern Python's re does not compile, on which the harness raises"


class Unsettled(Exception):
    """The harness's outcome is not settled by the doc and the response: it would draw at random, raise, or ask
    langdetect or nltk; or the replay cannot run it (its reason, if any, names why)."""


def unbounded(characters: int) -> bool:
    return True


# What a checker's loop in Python may spend on one line or bracket of a reply, in characters of a budget
LINE_COST = 128


def read_lines(text: str, walks: int = 1) -> None:
    """Ask the `reading` in force for `walks` walks over the text's lines, before they are made: a reply of
    short lines costs such a checker far more than one pass over its characters."""
    read_items(walks * (text.count("\n") + 1))


def read_items(count: int) -> None:
    """Ask the `reading` in force for `count` turns of a checker's Python loop (LINE_COST each: a line, or a
    bracket), before they are made."""
    _ask(count * LINE_COST)


def read(text: str, times: int = 1) -> None:
    """Ask the `reading` in force (read_budget.py) for `times` reads of the text, before they are made. _ask's
    work written out: every check of a text asks this first."""
    spend = READS.get()
    if spend is not None and not spend(times * (len(text) + 1)):
        raise Unsettled(PAST_BUDGET)


def _ask(amount: int) -> None:
    """Ask the `reading` in force for `amount`; a refusal leaves the outcome unsettled (PAST_BUDGET)."""
    spend = READS.get()
    if spend is not None and not spend(amount):
        raise Unsettled(PAST_BUDGET)


def pattern(
    kwarg: Any, before: str = "", after: str = "", flags: int = 0
) -> LinearPattern | PlainWords | LiteralPattern:
    """A kwarg the harness puts into a regular expression, compiled as the harness builds it, for RE2; plain
    words (plain_words.py) are compiled only for a text str methods cannot read, and a splitter or a marker of
    plain words is run by re, not RE2 (literal_patterns.py)."""
    if not isinstance(kwarg, str):
        raise Unsettled
    if len(kwarg) > PATTERN_MAX:
        raise Unsettled(PAST_LENGTH)
    if (plain := _plain_words(kwarg, before, after, flags)) is not None:
        return plain
    try:
        literal = literal_pattern(kwarg, before, after, flags)
    except ReadsRefused:  # its compile, asked of the budget first
        raise Unsettled(PAST_BUDGET) from None
    if literal is not None:
        return literal
    return _compiled(kwarg, before, after, flags)


@lru_cache(maxsize=4096)
def _plain_words(kwarg: str, before: str, after: str, flags: int) -> PlainWords | None:
    """The kwarg as PlainWords where is_plain, else None; kept with its answer, as a doc's keywords are looked
    for in each loose variant of its reply."""
    if not is_plain(kwarg, before, after, flags):
        return None
    return PlainWords(kwarg, bool(before), partial(_compiled, kwarg, before, after, flags))


def _compiled(kwarg: str, before: str, after: str, flags: int) -> LinearPattern:
    try:
        return compile_linear(before + kwarg + after, flags)
    except (re.error, RecursionError, OverflowError):
        raise Unsettled(
            HARNESS_RAISES
        ) from None  # the run stopped on this doc: none logs its outcome
    except NotLinear as error:
        raise Unsettled(error.feature) from None
    except ReadsRefused:
        raise Unsettled(PAST_BUDGET) from None


def run(compiled: LinearPattern | PlainWords | LiteralPattern, how: str, value: str) -> Any:
    """compiled.how(value) ("search", "count" or "split_count"): its one pass over the text asked for first;
    each search counting the matches runs, and what it reads past the last, is asked for as it goes
    (read_budget.py)."""
    if compiled.bounded_by_words and not value.isascii():
        # \b beyond ASCII: the text may be marked, and a search reads it without the \b first
        read(value, 4 if how == "search" else 3)
    else:
        read(value)
    try:
        return getattr(compiled, how)(value)
    except NotLinear as error:
        raise Unsettled(error.feature) from None
    except ReadsRefused:
        raise Unsettled(PAST_BUDGET) from None
