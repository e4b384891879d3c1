"""IFEval's section splitters and postscript markers of plain words, run by Python's re itself. Pure.

Besides its keywords (plain_words.py), the harness puts two kwargs into a
regular expression: multiple_sections counts the parts of
re.split(r"\\s?" + section_spliter + r"\\s?\\d+\\s?", reply), and postscript
looks for r"\\s*" + marker + r".*$" (re.MULTILINE) in the lower-cased reply,
its two known markers written out as r"\\s*p\\.\\s?s\\..*$" and
r"\\s*p\\.\\s?p\\.\\s?s.*$". Where the kwarg is plain words (plain_words.py:
no character re reads specially), re runs what decides the outcome in time
linear in the text, and it is the harness's own engine (on the same Python:
`\\d` and `\\s` follow its Unicode version, as linear_regex.py's tables do).
The replay runs it instead of compiling the pattern for RE2, which a fresh
audit then does not import; a reply with a lone surrogate, which RE2 cannot
read, is answered as the harness answers it.

- A splitter: at each place in the text, re compares at most the pattern's
  characters, each `\\s?` with its space and without (2 * (len(kwarg) + 3)),
  before it matches there or moves on (`\\d+` is followed by an optional `\\s?`
  alone, so it never gives a digit back); a match's digits are read once. Each
  run is asked of the reading in force (read_budget.py) as that many passes
  over the text, so a budget bounds its time as it bounds RE2's. The replay
  strips the splitter, as the harness does, so it has no space at either end,
  and is run as kwarg + `\\s?\\d+`, which matches where the harness's pattern
  does, one for one: the leading `\\s?` only widens a match by a space before
  the kwarg, and the trailing one by a space after the digits, where no next
  match can start, as no such kwarg starts with one. That pattern starts with
  the kwarg, which re finds with its prefix table instead of trying the
  pattern at every place: about 3 µs against 25 on a reply of 1.7 kB.
- A marker: `\\s*` before it and `.*$` after it both match empty text (in
  MULTILINE, `.*` stops where its line ends, where `$` holds), so the pattern
  is found exactly where the marker is. re looks for the marker alone: with
  the leading `\\s*`, its search would be quadratic over a run of spaces. A
  plain marker is a literal, which re looks for in linear time (`in` is not:
  its search of a text under 30,000 characters can compare the marker, up to
  200 characters, at every place).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .plain_words import reads_as_itself
from .read_budget import ask, ask_searches

SPLITTER = (r"\s?", r"\s?\d+\s?", 0)  # multiple_sections: (before, after, flags) around the kwarg
# After a kwarg without a space at either end: the same matches as SPLITTER's, one for one
SPLITTER_CORE = r"\s?\d+"
MARKER = (r"\s*", r".*$", re.MULTILINE)  # postscript, of a marker it does not know
# At most this many comparisons at each place in the text, for either known marker (two `\s?`, each tried
# with its space and without, over at most seven characters)
KNOWN_MARKER_PASSES = 28


class LiteralPattern:
    """What decides a splitter's or a marker's outcome, for re, with the searches the IFEval replay runs
    (`search`, `count`, `split_count`), each asking the reading in force for `passes` reads of the text. The
    caller's run() asks for one before it calls (ifeval_reads.run); the rest are asked here."""

    __slots__ = ("regex", "passes")
    bounded_by_words = False

    def __init__(self, regex: re.Pattern[str], passes: int):
        self.regex = regex
        self.passes = passes

    def search(self, text: str) -> bool:
        """Whether re.search finds the pattern."""
        _ask(text, self.passes - 1)
        return self.regex.search(text) is not None

    def count(self, text: str) -> int:
        """len(re.findall(pattern, text)). One search a match, and the last, are asked for as linear_regex asks
        for them, but after re has run them all: a run refused there has done its linear work."""
        _ask(text, self.passes - 1)
        found = sum(1 for _ in self.regex.finditer(text))
        ask_searches(found + 1)
        return found

    def split_count(self, text: str) -> int:
        """len(re.split(pattern, text)): plain words hold no group, so each match splits once."""
        return 1 + self.count(text)


def _ask(text: str, passes: int) -> None:
    if passes > 0:
        ask(passes * (len(text) + 1))


def literal_pattern(kwarg: str, before: str, after: str, flags: int) -> LiteralPattern | None:
    """The harness's pattern before + kwarg + after under `flags`, for re to run, where it is a splitter or a
    marker of plain words; else None (the caller compiles it for RE2)."""
    if not reads_as_itself(kwarg):
        return None
    if (before, after, flags) == SPLITTER:
        return _splitter(kwarg)
    if (before, after, flags) == MARKER:
        return _marker(kwarg)
    return None


# What re.compile of a kwarg may cost (about 130 µs for 200 characters), in characters of a budget: asked of
# the reading in force before each compile
_COMPILE_BASE, _COMPILE_A_CHARACTER = 65_536, 1024


@lru_cache(maxsize=256)
def _splitter(kwarg: str) -> LiteralPattern:
    # The kwarg, a space on each side and a digit, each `\s?` tried with its space and without
    ask(_COMPILE_BASE + _COMPILE_A_CHARACTER * len(kwarg))
    passes = 2 * (len(kwarg) + 3)
    if kwarg.strip(" ") == kwarg:
        return LiteralPattern(re.compile(kwarg + SPLITTER_CORE), passes)
    return LiteralPattern(re.compile(SPLITTER[0] + kwarg + SPLITTER[1]), passes)


@lru_cache(maxsize=256)
def _marker(kwarg: str) -> LiteralPattern:
    # A literal: re finds it with its prefix table, one pass
    ask(_COMPILE_BASE + _COMPILE_A_CHARACTER * len(kwarg))
    return LiteralPattern(re.compile(kwarg), 1)


@lru_cache(maxsize=4)
def known_marker(harness_pattern: str) -> LiteralPattern:
    """One of the harness's two written-out markers (r"\\s*p\\.\\s?s\\..*$"), looked for without its `\\s*`
    and `.*$`."""
    core = harness_pattern.removeprefix(MARKER[0]).removesuffix(MARKER[1])
    return LiteralPattern(re.compile(core, re.MULTILINE), KNOWN_MARKER_PASSES)
