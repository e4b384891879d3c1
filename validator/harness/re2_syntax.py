"""A Python pattern, parsed by `re`'s own parser, written in RE2's syntax so that RE2 finds what `re` finds. Pure.

Node by node: every one-character node (a literal, a class, `.`) becomes the
explicit set of code points `re` matches with it under the flags in force
(regex_classes.py); anchors and boundaries become RE2's, or a text's boundary
marker (word_boundaries.py); what RE2 cannot follow as `re` does raises
NotLinear naming the feature. The writer also sizes the pattern as it writes
it, so that one too large to compile quickly is refused before RE2 sees it.
"""

from __future__ import annotations

import re
from re import _compiler, _constants, _parser  # type: ignore[attr-defined]  # `re`'s own parser and compiler

from .not_linear import NotLinear
from .pattern_shape import holds, holds_group, nodes
from .regex_classes import Ranges, members

_C = _constants
MAX_RE2_REPEAT = 1000  # RE2's largest counted repeat
# A pattern's size before it is compiled: for each one-character node, its ranges of code points plus one, and
# for each other node one, times the copies its enclosing repeats make (RE2 writes `x{3}` as `xxx`). Past this
# many units, few patterns fit RE2's memory bound (`\w{22}` does not): such a pattern is refused before RE2
# spends time on it.
_MOST_UNITS = 16_000
TOO_LARGE = "a pattern larger than RE2's memory bound"
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
_NOTHING = r"[^\x00-\x{10ffff}]"  # a class RE2 matches nowhere
_SURROGATE = 0xD800  # a code point no UTF-8 text holds (a text with a lone surrogate is NotLinear)
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


def _class_steps(ranges: Ranges, marked: bool) -> int:
    """What RE2's step-by-step matcher does at one byte for a class (RE2Writer.steps), measured: it tries each
    of the class's byte ranges (about 1.4 ns a range of ASCII, less past it); a character beyond ASCII is
    several bytes; a marked text puts an optional marker before the class; and a class reaching beyond ASCII
    that leaves out some letter in both its cases but holds another in both (`[^cC]`, what `[^c]` is ignoring
    case) costs RE2 about four times another of as many ranges (`[tT]` and `[a-cA-C]` do not: measured)."""
    beyond = 1 if ranges and ranges[-1][1] > 0x7F else 0
    steps = 1 + (min(len(ranges), 64) - 1) // 2 + beyond + marked
    return steps + 4 if beyond and _folds_a_hole(ranges) else steps


def _folds_a_hole(ranges: Ranges) -> bool:
    """Whether the class holds some ASCII letter in both cases and leaves out another in both. Only its ranges
    that start at most at `z` are looked at (the ranges are in order)."""
    letters = []
    for low, high in ranges:
        if low > 0x7A:
            break
        letters.append((low, high))
    cases = [
        (
            any(low <= upper <= high for low, high in letters),
            any(low <= upper + 32 <= high for low, high in letters),
        )
        for upper in range(0x41, 0x5B)
    ]
    return (True, True) in cases and (False, False) in cases


class RE2Writer:
    """One pattern in RE2's syntax, for texts whose word characters are all ASCII (no marker), for texts that
    carry boundary markers, or for the empty text; or with its \\b and \\B left out (`boundaries` False);
    its groups capturing or not (`captures`: a search needs only where the whole match is).

    As it writes, it sizes the pattern: `units` (_MOST_UNITS), and `steps`, what RE2's step-by-step matcher
    may do at one byte, for a pattern whose DFA needs more states than its memory holds: each node once per
    copy, a class as _class_steps says."""

    def __init__(
        self,
        marker: str | None,
        empty_text: bool = False,
        boundaries: bool = True,
        captures: bool = True,
    ):
        self.marker, self.empty_text, self.boundaries = marker, empty_text, boundaries
        self.captures = captures
        self.skip = f"\\x{{{ord(marker):x}}}?" if marker else ""
        self.units, self.steps, self.copies = 0, 0, 1  # copies: how many RE2 makes of this node

    def source(self, parsed) -> str:
        """The pattern written for RE2; NotLinear where it is too large to compile (_MOST_UNITS), raised as
        soon as the size is past it."""
        return self.sequence(parsed, parsed.state.flags)

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
            ranges = members((op, argument), flags & _ATOM_FLAGS)
            self.units += self.copies * (len(ranges) + 1)
            if self.units > _MOST_UNITS:
                raise NotLinear(TOO_LARGE)
            self.steps += self.copies * _class_steps(ranges, bool(self.skip))
            return self.skip + _class(ranges, self.marker)
        self.units += self.copies
        self.steps += self.copies
        if op is _C.SUBPATTERN:
            group, add, remove, items = argument
            if add & _parser.TYPE_FLAGS and add & _parser.TYPE_FLAGS != flags & _parser.TYPE_FLAGS:
                # `re` matches such a group with its own flags, but skips ahead to where a match may start by
                # the pattern's first class read with the outer ones: (?a:\W) is not found in "é"
                raise NotLinear("a group that switches between ASCII and Unicode classes")
            inner = self.sequence(items, _compiler._combine_flags(flags, add, remove))
            return f"({inner})" if group and self.captures else f"(?:{inner})"
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
        outer = self.copies
        self.copies *= max(low if high == _C.MAXREPEAT else high, 1)
        body = self.sequence(items, flags)
        self.copies = outer
        return f"(?:{body}){count}{lazy}"

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
