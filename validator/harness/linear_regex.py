"""Python regular expressions run by RE2, in time linear in the text, with the results Python's `re` gives. Pure.

A submitter writes both the text and, through a task's config or an IFEval doc,
some of the patterns the audit replays; Python's `re` backtracks, so one
pattern and one text can take hours. RE2 (google-re2) never backtracks, but its
syntax and classes differ from `re`'s: `\\w`, `\\d`, `\\s`, `\\b` and case folding
are ASCII or differ in Unicode, `$` ends only the text, and it has no
back-reference or look-around. So a pattern is parsed by `re`'s own parser and
rewritten for RE2 node by node: every one-character node (a literal, a class,
`.`) becomes the explicit set of code points `re` itself matches with it under
the flags in force (regex_classes.py); a
Unicode `\\b` in a text with word characters beyond ASCII is written into the
text as a marker character where `re` finds a boundary, and the rewritten
pattern steps over the markers (in a text whose word characters are all ASCII,
RE2's `\\b` stands where `re`'s does). A search first runs the pattern
without its `\\b` and `\\B` on the unmarked text: leaving out an assertion
only adds ways to match, so where that finds nothing, nothing is marked;
where a `\\bword\\b` pattern finds its word, `re`'s boundaries are looked
at on its two sides (word_boundaries.py).
What RE2 cannot follow exactly raises
NotLinear naming the feature: back-references, look-around, conditional,
atomic and possessive groups, a repeat over RE2's 1000, a repeat of what can
match empty text (`re` ends the loop on an empty pass, RE2 does not), `\\B` or
a `\\b` inside a group in a text with word characters beyond ASCII, a
non-multiline `$` in a text ending in a newline, and counting the matches of
a pattern that matches empty text. Where both engines run, leftmost-first matching makes their
matches and groups the same (tests/unit/test_linear_regex.py holds them to `re` with
hypothesis).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from functools import cache, lru_cache
from re import _compiler, _constants, _parser  # type: ignore[attr-defined]  # `re`'s own parser and compiler
from typing import TYPE_CHECKING, Any

from .pattern_shape import (
    dollar_ends_text,
    edge_bounded,
    holds,
    holds_group,
    markers_placed,
    nodes,
    reads_far,
)
from .read_budget import READS, SEARCH_COST, ReadsRefused
from .regex_classes import NotLinear, Ranges, members
from .word_boundaries import MARKERS, boundary_at, marked, next_character, utf8

if TYPE_CHECKING:
    import re2

_C = _constants
MAX_RE2_REPEAT = 1000  # RE2's largest counted repeat
_RE2_MEMORY = 64 << 20  # bytes RE2 may give one compiled pattern
_ATOMS = frozenset({_C.LITERAL, _C.NOT_LITERAL, _C.ANY, _C.IN})
_ATOM_FLAGS = int(re.IGNORECASE | re.ASCII | re.DOTALL | re.UNICODE)
# Flags as ints: `flags & re.MULTILINE` is a call of the enum's operator, several per node as a pattern is written
_MULTILINE, _ASCII = int(re.MULTILINE), int(re.ASCII)
_NOT_RE2 = {
    _C.GROUPREF: "a back-reference",
    _C.GROUPREF_EXISTS: "a conditional group",
    _C.ASSERT: "a look-around",
    _C.ASSERT_NOT: "a look-around",
    _C.ATOMIC_GROUP: "an atomic group",
    _C.POSSESSIVE_REPEAT: "a possessive repeat",
}
# RE2's unanchored search, set by _re2(), which runs before any engine is compiled
_UNANCHORED: Any = None
_NOTHING = r"[^\x00-\x{10ffff}]"  # a class RE2 matches nowhere
_SURROGATE = 0xD800  # a code point no UTF-8 text holds (a text with a lone surrogate is NotLinear)
_EMPTY_TEXT = ""  # the engine key of a pattern written for the empty text
_NO_BOUNDARIES = "no \\b"  # the engine key of a pattern written without its \b and \B
# Places a `\bword\b` pattern's word is found at, looked at for boundaries, before the text is marked instead
_BOUNDARY_LOOKS = 16
_ANCHOR_ORDER = {
    _C.AT_BEGINNING_STRING: 0,
    _C.AT_BEGINNING: 0,
    _C.AT_BOUNDARY: 1,
    _C.AT_NON_BOUNDARY: 1,
    _C.AT_END: 2,
    _C.AT_END_STRING: 2,
}


def _class(ranges: Ranges, marker: str | None) -> str:
    if marker is not None:
        point = ord(marker)
        ranges = tuple(
            part
            for low, high in ranges
            for part in ((low, min(high, point - 1)), (max(low, point + 1), high))
            if part[0] <= part[1]
        )
    if not ranges:
        return _NOTHING  # as an empty class in `re`
    if len(ranges) == 2 and ranges[0][0] == ranges[0][1] == ranges[1][0] - 32 == ranges[1][1] - 32:
        if 0x41 <= ranges[0][0] <= 0x5A:  # an ASCII letter's two cases, as `[Kk]`
            # RE2 reads such a class as the letter case-folded, and folds it by Unicode once it merges it
            # with other alternatives (`a|[Kk]` finds the Kelvin sign, `a|[Ss]` the long s); a lone
            # surrogate, which no UTF-8 text holds, makes it a class of three
            ranges = (*ranges, (_SURROGATE, _SURROGATE))
    body = "".join(
        f"\\x{{{low:x}}}" if low == high else f"\\x{{{low:x}}}-\\x{{{high:x}}}"
        for low, high in ranges
    )
    return f"[{body}]"


class _Writer:
    """One pattern in RE2's syntax, for texts whose word characters are all ASCII (no marker), for texts that
    carry boundary markers, or for the empty text; or with its \\b and \\B left out (`boundaries` False)."""

    def __init__(self, marker: str | None, empty_text: bool = False, boundaries: bool = True):
        self.marker, self.empty_text, self.boundaries = marker, empty_text, boundaries
        self.skip = f"\\x{{{ord(marker):x}}}?" if marker else ""

    def sequence(self, items, flags: int) -> str:
        written, anchors = [], []
        for op, argument in [*nodes(items), (None, None)]:
            if op is _C.AT:
                anchors.append(argument)
                continue
            # Anchors side by side hold at one place, in any order. A marker stands between the two places a
            # boundary's position has in the marked text: begin anchors hold before it, end anchors after it.
            for at in sorted(set(anchors), key=_ANCHOR_ORDER.__getitem__):
                written.append(self.anchor(at, flags))
            anchors = []
            if op is not None:
                written.append(self.node(op, argument, flags))
        return "".join(written)

    def node(self, op, argument, flags: int) -> str:
        if op in _NOT_RE2:
            raise NotLinear(_NOT_RE2[op])
        if op in _ATOMS:
            return self.skip + _class(members((op, argument), flags & _ATOM_FLAGS), self.marker)
        if op is _C.SUBPATTERN:
            group, add, remove, items = argument
            if add & _parser.TYPE_FLAGS and add & _parser.TYPE_FLAGS != flags & _parser.TYPE_FLAGS:
                # `re` matches such a group with its own flags, but skips ahead to where a match may start by
                # the pattern's first class read with the outer ones: (?a:\W) is not found in "é"
                raise NotLinear("a group that switches between ASCII and Unicode classes")
            inner = self.sequence(items, _compiler._combine_flags(flags, add, remove))
            return f"({inner})" if group else f"(?:{inner})"
        if op is _C.BRANCH:
            return "(?:" + "|".join(self.sequence(items, flags) for items in argument[1]) + ")"
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
            return self.repeat(op, argument, flags)
        if op is _C.AT:
            return self.anchor(argument, flags)
        raise NotLinear(f"the node {op}")  # no other node comes out of `re`'s parser (3.11 to 3.13)

    def repeat(self, op, argument, flags: int) -> str:
        low, high, items = argument
        if items.getwidth()[0] == 0 and (high > 1 or holds_group(items)):
            # `re` ends a loop on an empty pass (keeping that pass's groups), RE2 does not: the two part where a
            # loop's body can match empty text
            raise NotLinear("a repeat of what can match empty text")
        if self.marker is not None and holds(items, {_C.AT_BOUNDARY}):
            raise NotLinear(
                r"a repeated \b in a text beyond ASCII"
            )  # its marker makes a pass non-empty
        if low > MAX_RE2_REPEAT or (high != _C.MAXREPEAT and high > MAX_RE2_REPEAT):
            raise NotLinear(f"a repeat count over {MAX_RE2_REPEAT}")
        if high == _C.MAXREPEAT:
            count = {0: "*", 1: "+"}.get(low, f"{{{low},}}")
        else:
            count = "?" if (low, high) == (0, 1) else f"{{{low},{high}}}"
        lazy = "?" if op is _C.MIN_REPEAT else ""
        return f"(?:{self.sequence(items, flags)}){count}{lazy}"

    def anchor(self, at, flags: int) -> str:
        multiline = flags & _MULTILINE
        if at is _C.AT_BEGINNING:
            return "(?m:^)" if multiline else r"\A"
        if at is _C.AT_BEGINNING_STRING:
            return r"\A"
        if at is _C.AT_END:
            return self.skip + ("(?m:$)" if multiline else r"\z")
        if at is _C.AT_END_STRING:
            return self.skip + r"\z"
        if not self.boundaries:
            return ""
        if self.marker is None:  # no word character beyond ASCII: RE2's ASCII \b is `re`'s
            if at is _C.AT_NON_BOUNDARY and self.empty_text:
                return _NOTHING  # `re`'s \B holds nowhere in an empty text (Python 3.11 to 3.13)
            return r"\b" if at is _C.AT_BOUNDARY else r"\B"
        if at is _C.AT_BOUNDARY and not flags & _ASCII:
            return f"\\x{{{ord(self.marker):x}}}"
        raise NotLinear(
            r"\B in a text beyond ASCII"
            if at is _C.AT_NON_BOUNDARY
            else r"an ASCII-only \b in a text beyond ASCII"
        )


class LinearPattern:
    """A compiled pattern: search, findall, count and split as `re` gives them, run by RE2."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        with (
            warnings.catch_warnings()
        ):  # "possible nested set": `re` warns the harness the same way
            warnings.simplefilter("ignore", FutureWarning)
            self.parsed = _parser.parse(pattern, int(flags))  # re.error where `re` refuses it
        self.flags = self.parsed.state.flags
        self.groups = self.parsed.state.groups - 1
        shortest, widest = self.parsed.getwidth()
        self.nullable = shortest == 0
        # how far past its start a search may read, in UTF-8 bytes, where the pattern reads past its matches
        self.reach = 4 * widest if reads_far(self.parsed) else None
        self.bounded_by_words = holds(self.parsed, {_C.AT_BOUNDARY, _C.AT_NON_BOUNDARY})
        self.non_boundary = holds(self.parsed, {_C.AT_NON_BOUNDARY})
        self.ends_at_dollar = dollar_ends_text(self.parsed, self.flags)
        self._compiled: dict[str | None, re2._Regexp] = {}
        self._engine(None)  # what RE2 cannot follow is raised here, before any text
        self.edge_bounded = not self.flags & _ASCII and edge_bounded(self.parsed)

    def _engine(self, key: str | None):
        """RE2's engine for a text with this marker (None: none), for the empty text, or without boundaries."""
        engine = self._compiled.get(key)
        if engine is None:
            if key in MARKERS and not markers_placed(self.parsed):
                raise NotLinear(
                    r"a \b inside a group or beside what can match empty, in a text beyond ASCII"
                )
            writer = _Writer(
                key if key in MARKERS else None,
                empty_text=key == _EMPTY_TEXT,
                boundaries=key != _NO_BOUNDARIES,
            )
            source = writer.sequence(self.parsed, self.flags)
            re2 = _re2()
            options = re2.Options()
            options.max_mem = _RE2_MEMORY
            try:
                engine = re2.compile(source, options)
            except re2.error as error:
                raise NotLinear("a pattern larger than RE2's memory bound") from error
            self._compiled[key] = engine
        return engine

    def _prepared(self, text: str) -> tuple[Any, bytes, str | None]:
        """(engine, the text as RE2 reads it in UTF-8, its boundary marker or None: an ASCII text, a pattern
        without \\b or \\B, or a text whose word characters are all ASCII)."""
        if self.ends_at_dollar and text.endswith("\n"):
            raise NotLinear("a `$` (not multiline) in a text ending in a newline")
        if not self.bounded_by_words or text.isascii():
            if not text and self.non_boundary:
                return self._engine(_EMPTY_TEXT), b"", None
            return self._engine(None), utf8(text), None
        marker, encoded = marked(text)
        if marker is None and self.non_boundary:
            # RE2's \B holds between two bytes of one character beyond ASCII, where `re` looks at none
            raise NotLinear(r"\B in a text beyond ASCII")
        return self._engine(marker), encoded, marker

    def search(self, text: str) -> bool:
        """Whether re.search finds a match: one pass over the text; in a text beyond ASCII, a pattern with \\b
        reads it without the \\b first, then marks it and reads it marked where that cannot tell."""
        if self.bounded_by_words and not text.isascii():
            found = self._search_unmarked(text)
            if found is not None:
                return found
        engine, encoded, _ = self._prepared(text)
        return _spans(engine, encoded, 0)[0][0] != -1

    def _search_unmarked(self, text: str) -> bool | None:
        """search's answer in a text beyond ASCII, without marking it, or None where the text is to be marked.
        The pattern is searched for with its \\b and \\B left out: leaving out an assertion only adds ways to
        match (no atomic group or possessive repeat is run, to commit to one), so where it finds nothing, neither
        does the pattern (an IFEval forbidden word is mostly absent from a reply). Where a `\\bword\\b` pattern
        (pattern_shape.edge_bounded) finds its word, `re`'s boundaries are looked at on each side of it."""
        if self.ends_at_dollar and text.endswith("\n"):
            return None  # RE2's `\z` is not `re`'s `$` there: _prepared says so
        engine, encoded = self._engine(_NO_BOUNDARIES), utf8(text)
        begin, end = _spans(engine, encoded, 0)[0]
        looks = _BOUNDARY_LOOKS if self.edge_bounded else 0
        while begin != -1 and looks:
            if boundary_at(encoded, begin) and boundary_at(encoded, end):
                return True
            begin, end = _spans(engine, encoded, next_character(encoded, begin))[0]
            looks -= 1
        return False if begin == -1 else None

    def findall(self, text: str) -> list:
        """re.findall: the whole matches, the one group's text, or a tuple of the groups' texts. What the searches
        may read past one pass over the text is asked of the `reading` in force (ReadsRefused where it says no)."""
        if self.nullable:
            raise NotLinear("counting the matches of a pattern that matches empty text")
        engine, encoded, marker = self._prepared(text)
        found = [
            _texts(encoded, spans, self.groups)
            for spans in _matches(engine, encoded, marker, self.reach)
        ]
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
        engine, encoded, marker = self._prepared(text)
        return sum(1 for _ in _matches(engine, encoded, marker, self.reach))

    def split_count(self, text: str) -> int:
        """len(re.split(pattern, text)): each match splits once and adds its groups."""
        return 1 + self.count(text) * (1 + self.groups)


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


# What findall may ask RE2 to read, in bytes, for a pattern that reads past its matches: each search reads on
# from where it starts for as far as a longer match could reach (`a(?:.*X)?` reads to the text's end at every
# "a"). Past this much the matches are not counted (NotLinear): a hostile text and pattern would otherwise take
# hours (`re` takes as long). A hostile reply of 10 MB costs about a second.
_READ_FLOOR, _READ_PER_BYTE = 256 << 20, 64


def _matches(engine: Any, encoded: bytes, marker: str | None, reach: int | None) -> Iterator[Any]:
    """Each match's spans (the whole match's, then its groups'), left to right as findall finds them. The pattern
    matches no empty text (findall refuses one that can), so each search starts where the last match ended, as
    `re` does; before the marker it ended on, if any: a word boundary a match ends at is where the next one may
    start (`\\b.\\b` finds three in "é—é"). `reach`: how far past where it starts a search may read, for a
    pattern that reads past its matches (pattern_shape.reads_far), else None. Each search is asked of the
    `reading` in force (read_budget.py), with what such a pattern may read past one pass over the text."""
    mark = marker.encode("utf-8") if marker else b""
    start, read, most = 0, 0, _READ_FLOOR + _READ_PER_BYTE * len(encoded)
    asked, spend = len(encoded), READS.get()  # in UTF-8 bytes: one pass is the caller's to count
    while True:
        past = 0
        if reach is not None:
            read += min(len(encoded) - start, reach)
            if read > most:
                raise NotLinear("a pattern whose many matches each read far on in a long text")
            past, asked = max(read - asked, 0), max(read, asked)
        if spend is not None and not spend(SEARCH_COST + past):
            raise ReadsRefused
        spans = _spans(engine, encoded, start)
        begin, end = spans[0]
        if begin == -1:
            return
        yield spans
        start = end - len(mark) if mark and encoded.endswith(mark, begin, end) else end


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


@lru_cache(maxsize=4096)
def compile_linear(pattern: str, flags: int = 0) -> LinearPattern:
    """The pattern for RE2; re.error where `re` refuses it, NotLinear where RE2 cannot run it as `re` would."""
    return LinearPattern(pattern, flags)
