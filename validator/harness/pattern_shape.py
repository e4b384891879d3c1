"""What a pattern parsed by `re`'s own parser holds, for linear_regex.py: its anchors, its capturing groups,
and whether each \\b stands where a boundary marker can be consumed once. Pure."""

import re
from re import _constants as _C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

_MULTILINE = int(re.MULTILINE)  # an int: `flags & re.MULTILINE` is a call of the enum's operator
# The anchors that hold at a position of the text, not between two characters
_POSITIONS = {_C.AT_BEGINNING, _C.AT_BEGINNING_STRING, _C.AT_END, _C.AT_END_STRING}


def nodes(items) -> list:
    """A parsed sequence's (op, argument) pairs: the list inside `re`'s SubPattern, which iterates by a call of
    its __getitem__ per node (a pattern is walked several times as it is compiled)."""
    return items.data if type(items) is _parser.SubPattern else items


def markers_placed(items) -> bool:
    r"""Whether each \b stands where its marker is consumed once: in the pattern's own sequence (or one of its
    alternatives), each neighbour an edge, an anchor or a node that matches at least one character and holds
    no anchor. Two \b at one place (`(\b)\b`, `\b a* \b`) would each ask for a marker of their own, and an
    anchor inside a group beside one (`(?:é$)+\b`) would meet the marker on the wrong side of it."""
    items = nodes(items)
    if len(items) == 1 and items[0][0] is _C.BRANCH:
        return all(markers_placed(alternative) for alternative in items[0][1][1])
    kept = [
        (op, argument)
        for op, argument in items
        if not (op is _C.AT and argument is not _C.AT_BOUNDARY)
    ]
    for index, (op, argument) in enumerate(kept):
        if op is _C.AT:
            beside = kept[index - 1 : index] + kept[index + 1 : index + 2]
            if any(
                _width(node)[0] == 0 or holds([node], _POSITIONS)
                for node in beside
                if node[0] is not _C.AT
            ):
                return False
        elif holds([(op, argument)], {_C.AT_BOUNDARY}):
            return False
    return True


def _width(node) -> tuple[int, int]:
    state = _parser.State()
    return _parser.SubPattern(state, [node]).getwidth()


def edge_bounded(items: _parser.SubPattern) -> bool:
    r"""Whether the pattern is \b, then what matches a fixed number of characters and holds no anchor, then \b
    (`\bword\b`, an IFEval forbidden word): each place its middle matches ends where a match would end, so
    the two boundaries can be looked at there."""
    sequence = nodes(items)
    if len(sequence) < 3 or not sequence[0] == sequence[-1] == (_C.AT, _C.AT_BOUNDARY):
        return False
    # measured with the pattern's own state, which knows its groups' widths (a group reference asks)
    middle = _parser.SubPattern(items.state, sequence[1:-1])
    shortest, widest = middle.getwidth()
    return shortest == widest > 0 and not holds(middle, set(_C.ATCODES))


def dollar_ends_text(items, flags: int) -> bool:
    """Whether the pattern holds a `$` read without MULTILINE, by the flags in force where it stands (a
    `(?-m:$)` under a MULTILINE pattern among them): there `re` also matches before a last line break."""
    for op, argument in nodes(items):
        if op is _C.AT and argument is _C.AT_END and not flags & _MULTILINE:
            return True
        inner, inner_flags = _inner(op, argument, flags)
        if any(dollar_ends_text(part, inner_flags) for part in inner):
            return True
    return False


def _inner(op, argument, flags: int) -> tuple[list, int]:
    """The sequences inside one node (a group's, each alternative, a repeat's body, a look-around's), and the
    flags in force there."""
    if op is _C.SUBPATTERN:
        return [argument[3]], (flags | argument[1]) & ~argument[2]
    if op is _C.BRANCH:
        return argument[1], flags
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT):
        return [argument[2]], flags
    if op in (_C.ASSERT, _C.ASSERT_NOT):
        return [argument[1]], flags
    return [], flags


def nesting(items) -> int:
    """How many groups, alternatives, repeats and look-arounds deep the parsed pattern nests (0: none)."""
    deepest, stack = 0, [(items, 0)]
    while stack:
        part, depth = stack.pop()
        deepest = max(deepest, depth)
        for op, argument in nodes(part):
            stack.extend((inner, depth + 1) for inner in _inner(op, argument, 0)[0])
    return deepest


def holds_group(items) -> bool:
    """Whether the parsed pattern holds a capturing group."""
    return any(
        op is _C.SUBPATTERN
        and (argument[0] is not None or holds_group(argument[3]))
        or op is _C.BRANCH
        and any(holds_group(part) for part in argument[1])
        or op in (_C.MAX_REPEAT, _C.MIN_REPEAT)
        and holds_group(argument[2])
        for op, argument in nodes(items)
    )


def holds(items, anchors: set) -> bool:
    """Whether the parsed pattern holds one of these anchors anywhere."""
    for op, argument in nodes(items):
        if op is _C.AT and argument in anchors:
            return True
        if any(holds(part, anchors) for part in _inner(op, argument, 0)[0]):
            return True
    return False


def reads_far(items, choice: bool = False, followed: bool = False) -> bool:
    """Whether a search may read on past its match's end: a repeat of more than one inside an optional part, an
    alternative or a lazy repeat, with something after it there that can fail (`a(?:.*X)?`, `a|a.*X`), so that
    a short match is found while a longer one is still being looked for, as far as that repeat reaches. A
    repeat elsewhere stops with its match (`(-?[0-9]+)`, `\\w+`, `a[^X]*b`): what it read, the match holds."""
    items = nodes(items)
    for index, (op, argument) in enumerate(items):
        after = followed or index < len(items) - 1
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT):
            low, high, body = argument
            if high > 1 and choice and after:
                return True
            inner = choice or low == 0 or op is _C.MIN_REPEAT
            if reads_far(body, inner, after or high > 1):
                return True
        elif op is _C.SUBPATTERN and reads_far(argument[3], choice, after):
            return True
        elif op is _C.BRANCH and any(reads_far(part, True, after) for part in argument[1]):
            return True
    return False
