"""Python regular expressions run by RE2, in time linear in the text, with the results Python's `re` gives. Pure.

A submitter writes both the text and, through a task's config or an IFEval doc,
some of the patterns the audit replays; Python's `re` backtracks, so one
pattern and one text can take hours. RE2 (google-re2) never backtracks, but its
syntax and classes differ from `re`'s: `\\w`, `\\d`, `\\s`, `\\b` and case folding
are ASCII or differ in Unicode, `$` ends only the text, and it has no
back-reference or look-around. So a pattern is parsed by `re`'s own parser and
written for RE2 node by node (re2_syntax.py). A Unicode `\\b` in a text with word
characters beyond ASCII is written into the text as a marker character where
`re` finds a boundary, and the written pattern steps over the markers (in a
text whose word characters are all ASCII, RE2's `\\b` stands where `re`'s does).
A search first runs the pattern without its `\\b` and `\\B` on the unmarked text:
leaving out an assertion only adds ways to match, so where that finds nothing,
nothing is marked; where a `\\bword\\b` pattern finds its word, `re`'s boundaries
are looked at on its two sides (word_boundaries.py).
What RE2 cannot follow exactly raises NotLinear naming the feature:
back-references, look-around, conditional, atomic and possessive groups, a
repeat over RE2's 1000, a repeat of what can match empty text (`re` ends the
loop on an empty pass, RE2 does not), a pattern too large for RE2's memory
bound, `\\B` or a `\\b` inside a group in a text with word characters beyond
ASCII, a non-multiline `$` in a text ending in a newline, counting the
matches of a pattern that matches empty text; and past the replay's own
bounds, a pattern nested more than 32 levels deep or a findall of more than
16 groups. Where both engines run,
leftmost-first matching makes their matches and groups the same
(tests/unit/test_linear_regex.py holds them to `re` with hypothesis).

What RE2 spends is asked of the `reading` in force (read_budget.py): each
parse, by the pattern's length; each compile, by its size; each run of an
engine, by the steps RE2 may take at each byte (re2_syntax.RE2Writer.steps),
since RE2 reads a byte in a few nanoseconds only while its DFA holds the states
the pattern needs; and each match's groups, by its length and their number. A
search or a count runs the pattern with groups that do not capture.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from functools import cache, lru_cache
from re import _constants, _parser  # type: ignore[attr-defined]  # `re`'s own parser and compiler
from typing import TYPE_CHECKING, Any

from .not_linear import NotLinear
from .pattern_shape import (
    dollar_ends_text,
    edge_bounded,
    holds,
    markers_placed,
    nesting,
    reads_far,
)
from .re2_syntax import TOO_LARGE, RE2Writer
from .read_budget import READS, SEARCH_COST, ReadsRefused, ask
from .word_boundaries import MARKERS, boundary_at, marked, next_character, utf8

if TYPE_CHECKING:
    import re2

_C = _constants
_ASCII = int(re.ASCII)
# Bytes RE2 may give one engine: its program (RE2 refuses one past about 50,000 instructions) and its DFA's
# states. An honest pattern needs a few kilobytes; a kept engine holds no more than this.
_RE2_MEMORY = 1 << 20
# Characters of the run's budget asked for each compile (parsing and writing a short pattern take up to about
# 250 microseconds), then for each unit of its size (re2_syntax.py): RE2 compiles a unit in up to 1.4 µs
_COMPILE_BASE, _COMPILE_COST = 131_072, 1024
# RE2 reads a text once by its DFA, but where a pattern's DFA needs more states than its memory holds
# (`a[^ ]{500}x`, `[ab]*a[ab]{999}`), it builds a state at each byte, or steps through the pattern there:
# measured, up to about 250 ns a byte, or 4 to 10 ns for each place in the pattern a thread may stand on and
# about 1.4 more for each range of a class it tries there (re2_syntax.RE2Writer.steps counts both). Each run of
# an engine is asked for _PASSES_BASE passes over the text, plus one for every _STEPS_A_PASS steps. An honest
# pattern reads at about 1.5 ns a byte.
_PASSES_BASE, _STEPS_A_PASS = 8, 2
# Groups a findall may report: RE2 finds them by its step-by-step matcher, which copies every group's place
# at each byte, so their cost grows with their number (a filter's pattern has a few)
_MOST_GROUPS = 16
# Groups, alternatives and repeats one inside another (a dataset's patterns: a few)
_MOST_NESTING = 32
# The passes a byte of a run below which a search's set-up is not asked for (_set_up)
_SET_UP_FREE = 24
# RE2's unanchored search, set by _re2(), which runs before any engine is compiled
_UNANCHORED: Any = None
_EMPTY_TEXT = ""  # the engine key of a pattern written for the empty text
_NO_BOUNDARIES = "no \\b"  # the engine key of a pattern written without its \b and \B
# Places a `\bword\b` pattern's word is found at, looked at for boundaries, before the text is marked instead
_BOUNDARY_LOOKS = 16


class LinearPattern:
    """A compiled pattern: search, findall, count and split as `re` gives them, run by RE2."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        # `re`'s parser and the walks of its shape below take time with the text's length
        ask(_COMPILE_BASE + _COMPILE_COST * len(pattern))
        with (
            warnings.catch_warnings()
        ):  # "possible nested set": `re` warns the harness the same way
            warnings.simplefilter("ignore", FutureWarning)
            self.parsed = _parser.parse(pattern, int(flags))  # re.error where `re` refuses it
        if nesting(self.parsed) > _MOST_NESTING:
            # the pattern's shape is walked once per level it nests (pattern_shape.py)
            raise NotLinear(f"a pattern nested more than {_MOST_NESTING} levels deep")
        self.flags = self.parsed.state.flags
        self.groups = self.parsed.state.groups - 1
        shortest, widest = self.parsed.getwidth()
        self.nullable = shortest == 0
        # how far past its start a search may read, in UTF-8 bytes, where the pattern reads past its matches
        self.reach = 4 * widest if reads_far(self.parsed) else None
        self.bounded_by_words = holds(self.parsed, {_C.AT_BOUNDARY, _C.AT_NON_BOUNDARY})
        self.non_boundary = holds(self.parsed, {_C.AT_NON_BOUNDARY})
        self.ends_at_dollar = dollar_ends_text(self.parsed, self.flags)
        # Engines by (the text's marker or _EMPTY_TEXT or _NO_BOUNDARIES or None, whether groups capture)
        self._compiled: dict[tuple[str | None, bool], re2._Regexp] = {}
        # Each engine's passes a byte is asked for: at each run, and for a match's groups (_passes_for)
        self._passes_of: dict[tuple[str | None, bool], tuple[int, int]] = {}
        self._engine(None)  # what RE2 cannot follow is raised here, before any text
        self.edge_bounded = not self.flags & _ASCII and edge_bounded(self.parsed)

    def _engine(self, key: str | None, captures: bool = False):
        """RE2's engine for a text with this marker (None: none), for the empty text, or without boundaries; its
        groups capturing for a findall that reports them, else not (RE2 then finds a match by its DFA alone)."""
        engine = self._compiled.get((key, captures))
        if engine is None:
            if key in MARKERS and not markers_placed(self.parsed):
                raise NotLinear(
                    r"a \b inside a group or beside what can match empty, in a text beyond ASCII"
                )
            writer = RE2Writer(
                key if key in MARKERS else None,
                empty_text=key == _EMPTY_TEXT,
                boundaries=key != _NO_BOUNDARIES,
                captures=captures,
            )
            engine, steps = _compile(writer, self.parsed)
            self._compiled[key, captures] = engine
            self._passes_of[key, captures] = _passes_for(steps, self.groups, captures)
        return engine

    def _run(self, key: str | None, encoded: bytes, captures: bool = False) -> Any:
        """The engine for `key`, once the reading in force is asked for its passes over the text but the one
        the caller asks for (_PASSES_BASE)."""
        engine = self._engine(key, captures)
        ask(len(encoded) * (self._passes(key, captures) - 1))
        return engine

    def _passes(self, key: str | None, captures: bool = False) -> int:
        """How many passes over a text one run of the engine for `key` is asked for (_PASSES_BASE)."""
        return self._passes_of[key, captures][0]

    def _prepared(self, text: str, captures: bool = False) -> _Read:
        """The text read by the engine it needs: its boundary marker is None for an ASCII text, a pattern
        without \\b or \\B, or a text whose word characters are all ASCII. The run's passes but one are asked
        for here (_PASSES_BASE)."""
        if self.ends_at_dollar and text.endswith("\n"):
            raise NotLinear("a `$` (not multiline) in a text ending in a newline")
        if not self.bounded_by_words or text.isascii():
            key, encoded = (
                (_EMPTY_TEXT, b"") if not text and self.non_boundary else (None, utf8(text))
            )
        else:
            key, encoded = marked(text)
            if key is None and self.non_boundary:
                # RE2's \B holds between two bytes of one character beyond ASCII, where `re` looks at none
                raise NotLinear(r"\B in a text beyond ASCII")
        engine = self._run(key, encoded, captures)
        passes, group_passes = self._passes_of[key, captures]
        return _Read(engine, encoded, key if key in MARKERS else None, passes, group_passes)

    def search(self, text: str) -> bool:
        """Whether re.search finds a match: one pass over the text; in a text beyond ASCII, a pattern with \\b
        reads it without the \\b first, then marks it and reads it marked where that cannot tell."""
        if self.bounded_by_words and not text.isascii():
            found = self._search_unmarked(text)
            if found is not None:
                return found
        read = self._prepared(text)
        return _spans(read.engine, read.encoded, 0)[0][0] != -1

    def _search_unmarked(self, text: str) -> bool | None:
        """search's answer in a text beyond ASCII, without marking it, or None where the text is to be marked.
        The pattern is searched for with its \\b and \\B left out: leaving out an assertion only adds ways to
        match (no atomic group or possessive repeat is run, to commit to one), so where it finds nothing, neither
        does the pattern (an IFEval forbidden word is mostly absent from a reply). Where a `\\bword\\b` pattern
        (pattern_shape.edge_bounded) finds its word, `re`'s boundaries are looked at on each side of it."""
        if self.ends_at_dollar and text.endswith("\n"):
            return None  # RE2's `\z` is not `re`'s `$` there: _prepared says so
        encoded = utf8(text)
        engine = self._run(_NO_BOUNDARIES, encoded)
        begin, end = _spans(engine, encoded, 0)[0]
        looks = _BOUNDARY_LOOKS if self.edge_bounded else 0
        while begin != -1 and looks:
            if boundary_at(encoded, begin) and boundary_at(encoded, end):
                return True
            ask(SEARCH_COST)  # each look past the first is one more call
            begin, end = _spans(engine, encoded, next_character(encoded, begin))[0]
            looks -= 1
        return False if begin == -1 else None

    def findall(self, text: str) -> list:
        """re.findall: the whole matches, the one group's text, or a tuple of the groups' texts. What the searches
        may read past one pass over the text is asked of the `reading` in force (ReadsRefused where it says no)."""
        if self.nullable:
            raise NotLinear("counting the matches of a pattern that matches empty text")
        if self.groups > _MOST_GROUPS:
            raise NotLinear(f"more than {_MOST_GROUPS} groups")
        read = self._prepared(text, captures=self.groups > 0)
        found = [
            _texts(read.encoded, spans, self.groups)
            for spans in _matches(read, self.reach, self.groups)
        ]
        marker = read.marker
        if marker is None:
            return found
        return [
            tuple(part.replace(marker, "") for part in item)
            if isinstance(item, tuple)
            else item.replace(marker, "")
            for item in found
        ]

    def count(self, text: str) -> int:
        """len(re.findall(pattern, text)), without the texts; its reads asked for as findall's."""
        if self.nullable:
            raise NotLinear("counting the matches of a pattern that matches empty text")
        return sum(1 for _ in _matches(self._prepared(text), self.reach))

    def split_count(self, text: str) -> int:
        """len(re.split(pattern, text)): each match splits once and adds its groups."""
        return 1 + self.count(text) * (1 + self.groups)


class _Read:
    """One text read by an engine: the engine, the text in UTF-8, its boundary marker (None: none), and the
    passes each byte is asked for, for the run and for a match's groups (_passes_for)."""

    __slots__ = ("engine", "encoded", "marker", "passes", "group_passes")

    def __init__(
        self, engine: Any, encoded: bytes, marker: str | None, passes: int, group_passes: int
    ):
        self.engine, self.encoded, self.marker = engine, encoded, marker
        self.passes, self.group_passes = passes, group_passes


def _passes_for(steps: int, groups: int, captures: bool) -> tuple[int, int]:
    """The passes each byte is asked for, for an engine of `steps` (re2_syntax.RE2Writer.steps): by a run of it
    (_PASSES_BASE), where the step-by-step matcher also copies the groups' places if they capture; and, for an
    engine whose groups capture, by each match whose groups RE2 finds by stepping through it (_matches)."""
    copies = 1 + groups // 4 if captures else 1
    run = _PASSES_BASE + steps * copies // _STEPS_A_PASS
    return run, steps * (1 + groups) // _STEPS_A_PASS if captures else 0


def _compile(writer: RE2Writer, parsed: Any) -> tuple[Any, int]:
    """RE2's engine for the pattern as `writer` writes it, and how many places in it a thread may stand on at
    one byte (at most its program's size). Asked of the `reading` in force: a fixed amount before the writing,
    then the pattern's units, which measure both the writing and the compile, before the compile; or, where
    the writing is refused partway (too large, or what RE2 cannot run: re2_syntax.py), as far as it went."""
    ask(_COMPILE_BASE)
    try:
        source = writer.source(parsed)
    finally:
        ask(writer.units * _COMPILE_COST)
    re2 = _re2()
    options = re2.Options()
    options.max_mem = _RE2_MEMORY
    options.log_errors = False  # RE2 would write its refusal to the run's own stderr
    try:
        engine = re2.compile(source, options)
    except re2.error as error:
        raise NotLinear(TOO_LARGE) from error
    return engine, min(engine._regexp.ProgramSize(), writer.steps)


@cache
def _re2() -> Any:
    """google-re2, imported when the first pattern is compiled, so a run with no pattern to run (most audits)
    never loads it."""
    global _UNANCHORED
    import re2

    _UNANCHORED = re2._Anchor.UNANCHORED
    return re2


def _spans(engine: Any, encoded: bytes, start: int) -> Any:
    """The byte spans of the first match at or after `start` and of its groups ((-1, -1): none), by RE2's own
    matcher. google-re2's str methods map every span back to character offsets in Python, several times the
    cost of the match on a short response; findall needs only the texts, and a UTF-8 slice of a match is whole
    characters, so the bytes are matched and the slices decoded."""
    return engine._regexp.Match(_UNANCHORED, encoded, start, len(encoded))


# What findall may ask RE2 to read, in bytes times the run's passes, for a pattern that reads past its matches:
# each search reads on from where it starts for as far as a longer match could reach (`a(?:.*X)?` reads to the
# text's end at every "a"). Past this much the matches are not counted (NotLinear): a hostile text and pattern
# would otherwise take hours (`re` takes as long).
_READ_FLOOR, _READ_PER_BYTE = 256 << 20, 64


def _matches(prepared: _Read, reach: int | None, groups: int = 0) -> Iterator[Any]:
    """Each match's spans (the whole match's, then its groups'), left to right as findall finds them. The pattern
    matches no empty text (findall refuses one that can), so each search starts where the last match ended, as
    `re` does; before the marker it ended on, if any: a word boundary a match ends at is where the next one may
    start (`\\b.\\b` finds three in "é—é"). `reach`: how far past where it starts a search may read, for a
    pattern that reads past its matches (pattern_shape.reads_far), else None. Each search is asked of the
    `reading` in force (read_budget.py): its call, what setting it up may cost (_set_up), and what such a
    pattern may read past one pass over the text, each byte as the run's passes; writing the texts of many
    `groups` costs a call for every four; and once a match is found, each of its bytes as the passes of
    finding its groups (_passes_for)."""
    engine, encoded, marker = prepared.engine, prepared.encoded, prepared.marker
    passes, group_passes = prepared.passes, prepared.group_passes
    mark = marker.encode("utf-8") if marker else b""
    start, read, most = 0, 0, _READ_FLOOR + _READ_PER_BYTE * len(encoded)
    asked, spend = len(encoded), READS.get()  # in UTF-8 bytes: one pass is the caller's to count
    call = SEARCH_COST * (1 + groups // 4) + _set_up(passes)
    while True:
        past = 0
        if reach is not None:
            read += min(len(encoded) - start, reach)
            if read * passes > most:
                raise NotLinear("a pattern whose many matches each read far on in a long text")
            past, asked = max(read - asked, 0), max(read, asked)
        if spend is not None and not spend(call + past * passes):
            raise ReadsRefused
        spans = _spans(engine, encoded, start)
        begin, end = spans[0]
        if begin == -1:
            return
        if group_passes and spend is not None and not spend((end - begin) * group_passes):
            raise ReadsRefused
        yield spans
        start = end - len(mark) if mark and encoded.endswith(mark, begin, end) else end


def _set_up(passes: int) -> int:
    """What one search may cost past its call, for an engine whose runs are asked for `passes` a byte: where
    its DFA gives up, RE2 tries it again and sets its step-by-step matcher up at each search, which takes time
    with the pattern (measured: about 15 µs a search for a pattern of 95 passes). A pattern of at most
    _SET_UP_FREE passes is asked for nothing more."""
    return passes * max(passes - _SET_UP_FREE, 0)


def _texts(encoded: bytes, spans: Any, groups: int) -> Any:
    """findall's item for one match: its text, its one group's, or a tuple of its groups' (a UTF-8 slice of a
    match is whole characters)."""
    if groups == 0:
        begin, end = spans[0]
        return encoded[begin:end].decode("utf-8")
    if groups == 1:
        low, high = spans[1]
        return encoded[low:high].decode("utf-8") if low != -1 else ""
    return tuple(encoded[low:high].decode("utf-8") if low != -1 else "" for low, high in spans[1:])


# Patterns kept compiled: each holds up to _RE2_MEMORY for each of its engines (up to eleven: unmarked, each of
# three markers and the empty text, groups capturing or not, and without boundaries), 176 MiB at worst for all;
# an honest one holds a few kilobytes
@lru_cache(maxsize=16)
def compile_linear(pattern: str, flags: int = 0) -> LinearPattern:
    """The pattern for RE2; re.error where `re` refuses it, NotLinear where RE2 cannot run it as `re` would."""
    return LinearPattern(pattern, flags)
