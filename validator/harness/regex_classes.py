"""Which code points one character node of a Python pattern matches, as `re` itself decides it. Pure.

re2_syntax.py writes each literal, class and `.` for RE2 as an explicit set of
code points, so that `\\w`, `\\d`, `\\s` and case folding mean what they mean to
`re` (RE2's own differ beyond ASCII). Where the set is not plain (case folding,
a Unicode category), `re` is asked over every code point once (asked of the run's
budget first: SCAN_COST), and the answer kept (the 64 latest such classes; a
cased letter ignoring case is asked among the code points with a case, and kept);
unicode_tables.py holds the answers for the classes of `\\d` and `\\s` and the
code points with a case, for the Unicode versions of Python 3.11 to 3.13.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # `re`'s engine: which characters have a case
import re
import unicodedata
from array import array
from functools import cache
from re import _compiler, _constants, _parser  # type: ignore[attr-defined]  # `re`'s own parser and compiler

from . import unicode_tables
from .read_budget import ask

_C = _constants


@cache
def _every_code_point() -> str:
    """Every code point but the surrogates (no UTF-8 text holds them), in order."""
    points = array("I", range(0xD800))
    points.extend(range(0xE000, 0x110000))
    return points.tobytes().decode("utf-32-le" if points.itemsize == 4 else "utf-32")


def _code_point(index: int) -> int:
    return index if index < 0xD800 else index + 0x800


# Asking `re` about every code point for one class takes about 16 ms: asked of the `reading` in force first
# (read_budget.py), as characters of a run's budget. A dataset's patterns need none.
SCAN_COST = 8_000_000
_KEPT = 64  # classes whose members are kept, the oldest forgotten first (a survey's worker outlives runs)
_MEMBERS: dict[tuple[str, int], tuple[tuple[int, int], ...]] = {}
# A cased letter's members ignoring case, asked among the code points with a case (up to about 50 µs), kept
# all: there are a few thousand such letters. Each is asked of the `reading` in force first.
LITERAL_COST = 32_768
_LITERALS: dict[tuple[str, int], tuple[tuple[int, int], ...]] = {}
_EVERYTHING = ((0, 0xD7FF), (0xE000, 0x10FFFF))
# As ints: `flags & re.IGNORECASE` is a call of the enum's operator
_IGNORECASE, _DOTALL, _ASCII = int(re.IGNORECASE), int(re.DOTALL), int(re.ASCII)
Ranges = tuple[tuple[int, int], ...]


def members(node: tuple, flags: int) -> Ranges:
    """The code point ranges `re` matches with this one-character node under these flags."""
    op, argument = node
    folds = bool(flags & _IGNORECASE)
    if op in (_C.LITERAL, _C.NOT_LITERAL) and not (folds and _sre.unicode_iscased(argument)):
        point = ((argument, argument),)
        return point if op is _C.LITERAL else _complement(point)
    if op is _C.ANY:
        return _EVERYTHING if flags & _DOTALL else _complement(((10, 10),))
    if (
        op is _C.IN
        and not folds
        and all(item in (_C.LITERAL, _C.RANGE) for item, _ in argument[1:])
    ):
        negated = argument[0][0] is _C.NEGATE
        if negated or argument[0][0] in (_C.LITERAL, _C.RANGE):
            items = argument[1:] if negated else argument
            ranges = _union(
                (value, value) if item is _C.LITERAL else value for item, value in items
            )
            return _complement(ranges) if negated else ranges
    if op is _C.IN and not flags & (_IGNORECASE | _ASCII):
        tabled = _tabled_class(argument)
        if tabled is not None:
            return tabled
    key = (repr(node), flags)
    if (
        op is _C.LITERAL
    ):  # a letter with a case, ignoring case: asked among the code points with one
        known = _LITERALS.get(key)
        if known is None:
            ask(LITERAL_COST)
            known = _LITERALS[key] = _asked_of_re(node, flags, _cased())
        return known
    known = _MEMBERS.get(key)
    if known is None:
        ask(SCAN_COST)
        while len(_MEMBERS) >= _KEPT:
            del _MEMBERS[next(iter(_MEMBERS))]
        known = _MEMBERS[key] = _asked_of_re(node, flags, None)
    return known


# `re`'s categories in a str pattern, by the class unicode_tables.py holds and whether they are its complement
_TABLED = {
    _C.CATEGORY_DIGIT: ("digit", False),
    _C.CATEGORY_NOT_DIGIT: ("digit", True),
    _C.CATEGORY_SPACE: ("space", False),
    _C.CATEGORY_NOT_SPACE: ("space", True),
}


def _tabled_class(argument: list) -> Ranges | None:
    """A class of literals, ranges and `\\d`, `\\s` (or their negations), `[^\\s,]` say, from the tables of
    the running Python's Unicode version: the union `re` matches; None for another class or version."""
    classes = unicode_tables.CLASSES.get(unicodedata.unidata_version)
    if classes is None:
        return None
    negated = bool(argument) and argument[0][0] is _C.NEGATE
    parts: list[tuple[int, int]] = []
    for item, value in argument[1:] if negated else argument:
        if item is _C.LITERAL:
            parts.append((value, value))
        elif item is _C.RANGE:
            parts.append(value)
        elif item is _C.CATEGORY and value in _TABLED:
            name, inverted = _TABLED[value]
            ranges = _class_ranges(classes[name])
            parts.extend(_complement(ranges) if inverted else ranges)
        else:
            return None
    ranges = _union(parts)
    return _complement(ranges) if negated else ranges


@cache
def _class_ranges(written: str) -> Ranges:
    return tuple(
        (int(low), int(high)) for low, high in (part.split("-") for part in written.split())
    )


def _union(ranges) -> Ranges:
    merged: list[list[int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    return tuple((low, high) for low, high in merged)


def _complement(ranges: Ranges) -> Ranges:
    gaps, start = [], 0
    for low, high in _union(ranges):
        if low > start:
            gaps.append((start, low - 1))
        start = high + 1
    if start <= 0x10FFFF:
        gaps.append((start, 0x10FFFF))
    return _union(
        part
        for low, high in gaps
        for part in ((low, min(high, 0xD7FF)), (max(low, 0xE000), high))
        if part[0] <= part[1]
    )


@cache
def _cased() -> str:
    """Every code point with a case, in order: all a case-insensitive literal can match besides itself. Read from
    unicode_tables.py where it lists the running Python's Unicode version (a superset of its cased points,
    among which `re` decides), else asked of each code point, about 80 ms."""
    if unicodedata.unidata_version in unicode_tables.UNICODE_VERSIONS:
        points = (point for low, high in unicode_tables.CASED for point in range(low, high + 1))
        return "".join(map(chr, points))
    return "".join(filter(lambda c: _sre.unicode_iscased(ord(c)), _every_code_point()))


def _asked_of_re(node: tuple, flags: int, among: str | None) -> Ranges:
    """Ask `re` itself which code points the node matches: every one, or `among` (with the literal itself)."""
    state = _parser.State()
    state.flags = flags
    one = _parser.SubPattern(state, [node])
    runs = _compiler.compile(
        _parser.SubPattern(state, [(_C.MAX_REPEAT, (1, _C.MAXREPEAT, one))]), flags
    )
    if among is not None:
        points = {ord(c) for c in runs.findall(among) for c in c} | {node[1]}
        return _union((point, point) for point in points)
    ranges = []
    for match in runs.finditer(_every_code_point()):
        start, end = match.span()
        first, last = _code_point(start), _code_point(end - 1)
        if first < 0xD800 <= last:  # a run across the surrogates: two ranges
            ranges += [(first, 0xD7FF), (0xE000, last)]
        else:
            ranges.append((first, last))
    return tuple(ranges)
