"""One line of a sample log as text and as JSON: UTF-8, within the nesting and value budgets (LB701, LB108,
LB112), a log cut off mid-record named as such. The local reader (sample_logs.py) and the survey's
streams (survey/records.py) read every record through these."""

from __future__ import annotations

import json
from typing import Any

from .budgets import (
    PARSED_FIRST_CHARS,
    depth_read_after_parse,
    json_plainly_within,
    json_too_deep,
    json_too_many_values,
    too_deep_message,
    too_many_values_message,
    value_within_depth,
)
from .documents import DocumentError
from .limits import Limits

CUT_OFF = "the log is cut off: its last line ends without a newline in the middle of a record"
CUT_OFF_FIX = "write the log again, or survey a complete copy"


def decode_line(raw: bytes, line: int, cut: bool = False) -> str:
    """One log line as text; bytes that are not UTF-8 are LB701 at that line (`cut`: see load_record)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if (
            cut and exc.end == len(raw) and exc.reason == "unexpected end of data"
        ):  # a character cut in two
            raise DocumentError(
                "LB701", f"{CUT_OFF} (inside a character); {CUT_OFF_FIX}", line, 1
            ) from None
        raise DocumentError(
            "LB701",
            f"byte {exc.start} of this line is not UTF-8; logs are written as UTF-8",
            line,
            1,
        ) from None


def within_budgets(text: str, line: int, column: int, limits: Limits) -> None:
    """LB108 or LB112 at the record's place when its text is past the nesting or value budget."""
    if json_too_deep(text, limits.max_depth):
        raise DocumentError("LB108", "this record: " + too_deep_message(limits), line, column)
    if json_too_many_values(text, limits.max_values):
        raise DocumentError(
            "LB112", "this record: " + too_many_values_message(limits), line, column
        )


# What json.loads runs (the C scanner where _json is built); JSONDecoder sets it in __init__, which
# typeshed does not declare.
SCAN_ONCE = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def parse_json(text: str) -> Any:
    """json.loads(text), the same value or error; a usual log line (one value, then at most a newline) skips
    json.loads's Python wrapper, about a microsecond of the few dozen a line costs. (With two Python frames
    fewer, it reaches the interpreter's recursion limit two levels deeper; load_record's nesting budget, at
    most 500 levels, stops a line long before either.)"""
    try:
        value, end = SCAN_ONCE(text, 0)
    except (
        StopIteration
    ):  # no value at the start: whitespace, a BOM or no JSON first; json.loads says which
        return json.loads(text)
    if end == len(text) or (end + 1 == len(text) and text[end] == "\n"):
        return value
    return json.loads(
        text
    )  # more after the value: whitespace json.loads skips, or extra data it refuses


def load_record(text: str, line: int, column: int, limits: Limits, cut: bool = False) -> Any:
    """One record's JSON, within the nesting and value budgets (LB108, LB112; LB701 when it is not JSON).

    Its text is judged before it is parsed, too deep told before broken, except a record that
    budgets.depth_read_after_parse takes (MATH's, whose LaTeX holds a hundred braces) and within the value
    budget: it is parsed first and held to the depth budget by its value, where a key is repeated by its last
    value, the one json keeps (sample_logs.py reads such lines so too).

    `cut`: the line is the log's last and has no newline, so JSON that breaks off is a log cut off while
    it was written, and the message says so rather than naming the parser's complaint alone."""
    if json_plainly_within(text, limits.max_depth, limits.max_values):
        return _parsed(text, line, column, cut)
    if not _parsed_first(text, limits):
        within_budgets(text, line, column, limits)
        return _parsed(text, line, column, cut)
    try:
        value = _parsed(text, line, column, cut)
    except DocumentError:
        # Too deep is told before broken, as for any record
        within_budgets(text, line, column, limits)
        raise
    if not value_within_depth(value, limits.max_depth):
        raise DocumentError("LB108", "this record: " + too_deep_message(limits), line, column)
    return value


def _parsed_first(text: str, limits: Limits) -> bool:
    """depth_read_after_parse of a record within the value budget; its openers are counted only where its
    length lets it be parsed first."""
    return (
        len(text) <= PARSED_FIRST_CHARS
        and depth_read_after_parse(text.count("[") + text.count("{"), len(text), limits.max_depth)
        and not json_too_many_values(text, limits.max_values)
    )


def _parsed(text: str, line: int, column: int, cut: bool) -> Any:
    """parse_json, its errors as LB701 (LB108 where the interpreter's recursion limit stopped it)."""
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        if (
            cut and exc.msg != "Extra data"
        ):  # "Extra data": a whole record with something after it, not a cut
            raise DocumentError(
                "LB701", f"{CUT_OFF} ({exc.msg}); {CUT_OFF_FIX}", line, exc.colno
            ) from None
        raise DocumentError("LB701", f"not valid JSON: {exc.msg}", line, exc.colno) from None
    except RecursionError:
        raise DocumentError("LB108", "the record is nested too deeply", line, column) from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise DocumentError("LB701", f"not valid JSON: {exc}", line, column) from None
