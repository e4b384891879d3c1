"""Nesting and value budgets, checked on untrusted text before any parser builds or recurses.

libyaml's composer recurses in C (a few thousand levels of `[`, `- ` or
`? ` kill the process), json.loads and, on Python 3.12, json.dumps recurse
once per level, and three bytes of `{},` become 72 bytes of dict. So depth
and value count are judged first, in passes that run at C speed over the
text (JSON) or stop at the first event over budget (YAML). A short log line
of too few openers to nest past MAX_DEPTH_CEILING, which parsers take safely,
is parsed first and its depth read from its value (depth_read_after_parse).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

from .limits import LIMIT_OPTIONS, MAX_DEPTH_CEILING, Limits

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # unrolled: no backtracking state on long strings
# Every byte but '[', ']', '{' and '}' (no byte of a character beyond ASCII is one of them): deleted at C speed
_NOT_BRACKET_BYTES = bytes(set(range(256)) - set(b"[]{}"))
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
# Where a budget was passed is looked for only once it was: re compiles these then
_NESTING_TOKEN = r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]'
_VALUE_TOKEN = r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{,]'
# What nested_past splits at its quotes (its parts, at most a few MB): a MATH line is 7 kB with 70 quotes
SPLIT_CHARS, SPLIT_QUOTES = 1 << 20, 4096
# A longer log line is judged on its text: walking its values would cost more (depth_read_after_parse)
PARSED_FIRST_CHARS = 1 << 16
# Finding the line of the offending bracket walks tokens in Python; past this many it is not worth it.
_LOCATE_TOKENS = 2_000_000


def json_too_deep(text: str, max_depth: int) -> bool:
    """Whether brackets outside strings nest deeper than max_depth.

    A text with no more openers than max_depth cannot be too deep (most log
    lines). Otherwise nested_past says.
    """
    return not _openers_at_most(text, max_depth) and nested_past(text, max_depth)


def nested_past(text: str, max_depth: int) -> bool:
    """json_too_deep without its count of openers, for a caller that has counted them (the log reader).

    Strings are cut out and everything but brackets dropped (C speed); the
    running depth is a prefix sum over the brackets' steps, which itertools
    computes in C: about 70 ns a bracket, whatever the shape. Where the quotes
    pair up and no quote or line break follows a backslash, the strings _STRING
    finds are the text's odd parts split at its quotes, found by a few passes of
    str methods: a MATH solution's LaTeX (a hundred braces behind backslashes)
    takes the regex, which steps over each escape, 26 us a line, the split 8.
    The split makes a string of each part: only a text of at most SPLIT_CHARS
    characters is split, at its first SPLIT_QUOTES quotes (a hostile line of
    64 MiB of quotes would make millions), and only one with fewer quotes is
    read so. Any other text takes the regex.
    """
    outside = None
    if len(text) <= SPLIT_CHARS:
        parts = text.split('"', SPLIT_QUOTES)
        if len(parts) <= SPLIT_QUOTES and len(parts) % 2 and not _escaped(parts, text):
            outside = "".join(parts[::2])
    if outside is None:
        outside = _STRING.sub("", text)
    brackets = outside.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKET_BYTES)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > max_depth


def _escaped(parts: list[str], text: str) -> bool:
    """Whether a backslash comes before a quote or a line break (`parts`: the text split at its quotes): there
    _STRING's view of the strings may differ from the split's. A log line's one line break ends it: then only
    its end is looked at, where a search of the whole line for the pair cost 4.5 us of a MATH line's 15."""
    if "\\" in "".join([part[-1:] for part in parts[:-1]]):
        return True  # a quote after a backslash
    line_break = text.find("\n")
    if line_break < 0 or line_break == len(text) - 1:
        return text.endswith("\\\n")
    return "\\\n" in text


def json_plainly_within(text: str, max_depth: int, max_values: int) -> bool:
    """Whether the text is within both budgets by its length and its openers alone, as most log lines are (a
    record's reader asks this first, and the two checks above only when it is not so)."""
    return len(text) <= max_values and _openers_at_most(text, max_depth)


# Every byte but '[' and '{': deleting them leaves a line's openers, counted by one pass at C speed.
_NOT_OPENERS = bytes(set(range(256)) - set(b"[{"))


def line_openers(raw: bytes) -> int:
    """The '[' and '{' of a line's UTF-8 bytes, strings' too: one bytes.translate pass (finding them one by one
    was a twentieth of the audit of a multiple-choice log, forty openers a line). A line with no more openers
    than the depth budget and no more bytes than the value budget is within both as text: a line is never
    shorter in bytes than in characters, and '[' and '{' are one byte each (line_within)."""
    return len(raw.translate(None, _NOT_OPENERS))


def line_within(text: str, size: int, openers: int, max_depth: int, max_values: int) -> bool:
    """Whether a decoded line of `size` UTF-8 bytes holding `openers` is within both budgets: plainly, or, past
    the depth budget's count of openers but within the value budget by its size, by its brackets' depth (its
    openers already counted, so nested_past alone)."""
    if size > max_values:
        return False
    return openers <= max_depth or not nested_past(text, max_depth)


def depth_read_after_parse(openers: int, length: int, max_depth: int) -> bool:
    """Whether a log line of `length` characters, holding `openers` '[' and '{' (strings' too) past the depth
    budget, is parsed first and its depth read from its value (value_within_depth): at most MAX_DEPTH_CEILING
    openers, which a parser nests safely (no option allows more), and at most PARSED_FIRST_CHARS characters,
    so that a walk of its values costs less than a pass over its text. A MATH line's LaTeX braces, inside
    its strings, count as openers: its walk takes a fifth of nested_past's time."""
    return max_depth < openers <= MAX_DEPTH_CEILING and length <= PARSED_FIRST_CHARS


def value_within_depth(value: Any, max_depth: int) -> bool:
    """Whether a parsed JSON value nests objects and arrays at most max_depth deep."""
    if type(value) is not dict and type(value) is not list:
        return True
    stack = [(value, 1)]
    while stack:
        container, depth = stack.pop()
        if depth > max_depth:
            return False
        for child in container.values() if type(container) is dict else container:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return True


def _openers_at_most(text: str, limit: int) -> bool:
    """Whether text holds at most `limit` of '[' and '{' (inside strings too).

    str.find jumps to the next opener with memchr and the loop stops past
    `limit`, so a 15 KB line with twenty openers costs twenty jumps. Two
    str.count calls compare every character instead: they were a fifth of
    the audit's instructions on multiple-choice logs.
    """
    if limit < 0:
        return False
    find, seen = text.find, 0
    for opener in "[{":
        at = find(opener)
        while at >= 0:
            seen += 1
            if seen > limit:
                return False
            at = find(opener, at + 1)
    return True


def json_too_deep_offset(text: str, max_depth: int) -> int | None:
    """The offset of the first bracket deeper than max_depth (call when json_too_deep is true), if cheap to find."""
    depth = 0
    for count, match in enumerate(re.finditer(_NESTING_TOKEN, text)):
        if count > _LOCATE_TOKENS:
            return None
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > max_depth:
                return match.start()
        elif char in "]}":
            depth -= 1
    return None


def json_too_many_values(text: str, max_values: int) -> bool:
    """Whether the text holds more than max_values values: every value but the first follows ',' or an opener."""
    # Each value has a character of its own (a scalar's first, a container's opener), so a text
    # no longer than the budget is within it: most log lines are, and cost no scan at all.
    if len(text) <= max_values or text.count(",") + text.count("[") + text.count("{") < max_values:
        return False
    bare = _STRING.sub('""', text)
    return 1 + bare.count(",") + bare.count("[") + bare.count("{") > max_values


def json_too_many_values_offset(text: str, max_values: int) -> int | None:
    """Where the count passes max_values (call when json_too_many_values is true); at most max_values tokens."""
    count = 1
    for match in re.finditer(_VALUE_TOKEN, text):
        if match.group()[0] != '"':
            count += 1
            if count > max_values:
                return match.start()
    return None


def too_deep_message(limits: Limits) -> str:
    return (
        f"objects and arrays are nested more than {limits.max_depth} levels deep; "
        f"results files need far fewer (raise {LIMIT_OPTIONS['max_depth']} if this file is honest)"
    )


def too_many_values_message(limits: Limits) -> str:
    return (
        f"more than {limits.max_values:,} values (numbers, strings, objects and arrays); results files hold "
        f"far fewer (raise {LIMIT_OPTIONS['max_values']} if this file is honest)"
    )


def yaml_budget_problem(
    loader_class, text: str, limits: Limits
) -> tuple[str, str, int, int] | None:
    """(rule, message, line, column) of the first level or value over budget, from libyaml's event stream.

    Runs before the composer builds (and recurses over) nodes. The parser
    keeps its own stack; the pass stops at the first event over budget, so a
    60 KB file of `[` costs microseconds.
    """
    import yaml

    opening = {yaml.SequenceStartEvent, yaml.MappingStartEvent}
    closing = {yaml.SequenceEndEvent, yaml.MappingEndEvent}
    loader = loader_class(text)
    try:
        depth, events = 0, 0
        while loader.check_event():
            event = loader.get_event()
            events += 1
            kind = type(event)
            if kind in opening:
                depth += 1
                if depth > limits.max_depth:
                    return "LB108", too_deep_message(limits), *_where(event)
            elif kind in closing:
                depth -= 1
            if events > limits.max_values:
                return "LB112", too_many_values_message(limits), *_where(event)
    except yaml.MarkedYAMLError as exc:
        # libyaml 0.2.6 on (PyYAML 6.0.4's wheels) stops past 1,000 levels in its scanner, which may look that far
        # ahead before the first event: deeper than any budget (MAX_DEPTH_CEILING), so it is this budget's finding.
        if exc.problem != LIBYAML_TOO_DEEP or exc.problem_mark is None:
            raise
        return (
            "LB108",
            too_deep_message(limits),
            exc.problem_mark.line + 1,
            exc.problem_mark.column + 1,
        )
    finally:
        loader.dispose()
    return None


LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"  # libyaml's MAX_NESTING_LEVEL (1,000)


def _where(event) -> tuple[int, int]:
    return event.start_mark.line + 1, event.start_mark.column + 1
