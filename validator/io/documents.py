"""Parsed documents that can say where a value is.

Python's json gives no positions, so a Document keeps its text and maps a
JSON path to line:column with a position-aware pass that runs only when a
finding needs it: files without findings never pay for it. YAML positions
come from the node marks PyYAML records while composing.
"""

from __future__ import annotations

import json
import math
import re
import sys
from bisect import bisect_right
from pathlib import Path
from typing import Any

from .budgets import (
    json_too_deep,
    json_too_deep_offset,
    json_too_many_values,
    json_too_many_values_offset,
    too_deep_message,
    too_many_values_message,
    yaml_budget_problem,
)
from .limits import DEFAULT_LIMITS, LIMIT_OPTIONS, Limits

JsonPath = tuple[str | int, ...]


class DocumentError(Exception):
    """A file that cannot be read or parsed, with the rule id it breaks."""

    def __init__(self, rule: str, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.rule, self.message, self.line, self.column = rule, message, line, column


class Document:
    """A parsed file and its text, which maps a JSON path to the line and column a finding names."""

    def __init__(
        self,
        display_path: str,
        text: str,
        data: Any,
        kind: str,
        _yaml_marks: dict[JsonPath, tuple[int, int]] | None = None,
    ) -> None:
        self.display_path, self.text, self.data = display_path, text, data
        self.kind = kind  # "json" or "yaml"
        self._positions: dict[JsonPath, int] | None = None
        self._line_starts: list[int] | None = None
        self._yaml_marks = _yaml_marks

    def position(self, path: JsonPath) -> tuple[int | None, int | None]:
        """Line and column (1-based) of the value at `path`, or of its nearest ancestor."""
        if self.kind == "yaml":
            marks = self._yaml_marks or {}
            for prefix in _prefixes(path):
                if prefix in marks:
                    return marks[prefix]
            return None, None
        if self._positions is None:
            self._positions, _ = scan_json(self.text)
            self._line_starts = line_starts(self.text)
        for prefix in _prefixes(path):
            if prefix in self._positions:
                return line_col(self._line_starts, self._positions[prefix])
        return None, None


def _prefixes(path: JsonPath):
    for end in range(len(path), -1, -1):
        yield path[:end]


def line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def line_col(starts: list[int], offset: int) -> tuple[int, int]:
    line = bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


# --- loading ---------------------------------------------------------------------------


def parse_document(
    text: str, display_path: str, kind: str, limits: Limits = DEFAULT_LIMITS
) -> Document:
    if kind == "yaml":
        data, marks = _parse_yaml(text, limits)
        document = Document(display_path, text, data, "yaml", _yaml_marks=marks)
    else:
        document = Document(display_path, text, _parse_json(text, limits), "json")
    problem = shape_problem(document.data, limits)
    if problem:
        rule, message, path = problem
        raise DocumentError(rule, message, *document.position(path))
    return document


def kind_of(path: Path) -> str:
    return "yaml" if path.suffix.lower() in (".yaml", ".yml") else "json"


def _parse_json(text: str, limits: Limits) -> Any:
    _refuse_deep_json(text, limits)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise DocumentError("LB102", f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except _Duplicate:
        _, duplicates = scan_json(text)
        key, offset = duplicates[0]
        line, column = line_col(line_starts(text), offset)
        raise DocumentError(
            "LB103", f"key {key!r} appears twice in one object; keep one value", line, column
        ) from None
    except RecursionError:
        raise DocumentError("LB108", _too_deep(limits)) from None
    except ValueError:  # Python refuses to convert integers of more than 4,300 digits
        match = re.search(_LONG_INTEGER, text) or re.match(_LONG_TOP_LEVEL_INTEGER, text)
        if match is None:
            raise
        start = match.start() + len(match[0]) - len(match[0].lstrip())
        line, column = line_col(line_starts(text), start)
        raise DocumentError(
            "LB109",
            f"a number has {len(match[0].strip()):,} digits; write a number of normal length",
            line,
            column,
        ) from None


_MAX_INT_DIGITS = 4300  # Python's int() refuses more: re compiles these when it did
_LONG_INTEGER = rf"(?<=[:\[,])\s*-?\d{{{_MAX_INT_DIGITS + 1},}}"
_LONG_TOP_LEVEL_INTEGER = rf"\s*-?\d{{{_MAX_INT_DIGITS + 1},}}"


def _refuse_deep_json(text: str, limits: Limits) -> None:
    if json_too_deep(text, limits.max_depth):
        offset = json_too_deep_offset(text, limits.max_depth)
        raise DocumentError("LB108", _too_deep(limits), *_line_col_of(text, offset))
    if json_too_many_values(text, limits.max_values):
        offset = json_too_many_values_offset(text, limits.max_values)
        raise DocumentError("LB112", too_many_values_message(limits), *_line_col_of(text, offset))


def _line_col_of(text: str, offset: int | None) -> tuple[int | None, int | None]:
    return line_col(line_starts(text), offset) if offset is not None else (None, None)


def _too_deep(limits: Limits) -> str:
    return too_deep_message(limits)


def _too_long(limits: Limits, length: int) -> str:
    return (
        f"a string of {length:,} characters is longer than the limit of {limits.max_string_length:,} "
        f"(raise {LIMIT_OPTIONS['max_string_length']} if this file is honest)"
    )


# Integers past the float range cannot be a score or a count, and every
# float operation on them raises OverflowError.
LARGEST_INTEGER = int(sys.float_info.max)


def shape_problem(data: Any, limits: Limits) -> tuple[str, str, JsonPath] | None:
    """The first value nested too deep (LB108), or string too long or integer too large (LB109), with its path."""
    longest = limits.max_string_length
    if isinstance(data, str) and len(data) > longest:
        return "LB109", _too_long(limits, len(data)), ()
    stack: list[tuple[Any, JsonPath]] = [(data, ())] if isinstance(data, (dict, list)) else []
    while stack:
        container, path = stack.pop()
        if len(path) >= limits.max_depth:
            return "LB108", _too_deep(limits), path
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, value in items:
            if isinstance(value, (dict, list)):
                stack.append((value, (*path, key)))
            elif isinstance(value, str) and len(value) > longest:
                return "LB109", _too_long(limits, len(value)), (*path, key)
            elif type(value) is int and not -LARGEST_INTEGER <= value <= LARGEST_INTEGER:
                digits = (
                    int(value.bit_length() * 0.30103) + 1
                )  # str() refuses more than 4,300 digits
                return (
                    "LB109",
                    (
                        f"an integer of about {digits:,} digits is beyond the range of any "
                        "score or count; write a number of normal size"
                    ),
                    (*path, key),
                )
            if isinstance(key, str) and len(key) > longest:
                return "LB109", _too_long(limits, len(key)), path
    return None


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate
    return obj


def _parse_yaml(text: str, limits: Limits) -> tuple[Any, dict[JsonPath, tuple[int, int]]]:
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        problem = yaml_budget_problem(loader_class, text, limits)  # before any node exists
        if problem:
            raise DocumentError(*problem)
        loader = loader_class(text)
        try:
            node = loader.get_single_node()
            marks: dict[JsonPath, tuple[int, int]] = {}
            if node is not None:
                _walk_yaml(node, (), marks, [limits.max_values])
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except DocumentError:
        raise
    except RecursionError:
        raise DocumentError("LB108", _too_deep(limits)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        problem = exc.problem or exc.context or "syntax error"
        raise DocumentError(
            "LB102",
            f"not valid YAML: {problem}",
            mark.line + 1 if mark else None,
            mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        raise DocumentError("LB102", f"not valid YAML: {str(exc).splitlines()[0]}") from None
    return data, marks


_YAML_INT = "tag:yaml.org,2002:int"
_YAML_STR = "tag:yaml.org,2002:str"


def _walk_yaml(node, path: JsonPath, marks: dict, budget: list[int]) -> None:
    import yaml

    budget[0] -= 1
    if budget[0] < 0:
        raise DocumentError(
            "LB112",
            "YAML aliases expand to more values than --max-values "
            "(an alias bomb?); write the values out instead of using anchors",
        )
    here = (node.start_mark.line + 1, node.start_mark.column + 1)
    marks[path] = here
    # Depth and string length are judged after construction (shape_problem),
    # as for JSON; only what would break construction is refused here.
    if node.tag == _YAML_INT and len(node.value) > _MAX_INT_DIGITS:
        raise DocumentError(
            "LB109",
            f"a number has {len(node.value):,} digits; write a number of normal length",
            *here,
        )
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            where = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _YAML_STR:
                raise DocumentError(
                    "LB102",
                    "a mapping key is not a string (a number, true/false, null, a date, "
                    "a list or a merge key); results and submissions use string keys only, as "
                    "JSON does: quote the key",
                    *where,
                )
            key = key_node.value
            if key in seen:
                raise DocumentError(
                    "LB103", f"key {key!r} appears twice in one mapping; keep one value", *where
                )
            seen.add(key)
            _walk_yaml(value_node, (*path, key), marks, budget)
            # a member's position is its key's (the value's walk set the value's)
            marks[(*path, key)] = where
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk_yaml(item, (*path, index), marks, budget)


# --- the position-aware JSON pass -------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")
# Unrolled form: the alternation form keeps backtracking state per character
# (700 MB for a 5 MB string).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SCALAR = re.compile(r"-?Infinity|NaN|true|false|null|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def scan_json(text: str) -> tuple[dict[JsonPath, int], list[tuple[str, int]]]:
    """Offsets of every value in valid JSON (object members: the offset of the key).

    Also returns the duplicate keys found, with their offsets. Iterative, so
    any nesting json.loads accepted can be scanned.
    """
    positions: dict[JsonPath, int] = {(): _WS.match(text, 0).end()}
    duplicates: list[tuple[str, int]] = []
    stack: list[_Frame] = []
    pos = positions[()]
    while True:
        char = text[pos] if pos < len(text) else ""
        if char in ("{", "["):
            parent = stack[-1].member_path() if stack else ()
            stack.append(_Frame(parent, char == "{"))
            pos = _WS.match(text, pos + 1).end()
            if text[pos] not in "}]":
                pos = stack[-1].enter(text, pos, positions, duplicates)
                continue
            pos += 1
            stack.pop()
        elif char == '"':
            pos = _STRING.match(text, pos).end()
        else:
            match = _SCALAR.match(text, pos)
            if match is None:
                raise ValueError(f"unexpected character at offset {pos}")
            pos = match.end()
        # After a value: move to the next member, or close containers.
        while stack:
            pos = _WS.match(text, pos).end()
            if text[pos] == ",":
                pos = stack[-1].enter(text, _WS.match(text, pos + 1).end(), positions, duplicates)
                break
            pos += 1  # the closing } or ]
            stack.pop()
        else:
            return positions, duplicates


class _Frame:
    """One open object or array of the scan."""

    __slots__ = ("path", "is_object", "count", "keys", "current")

    def __init__(self, path: JsonPath, is_object: bool):
        self.path, self.is_object, self.count, self.keys, self.current = (
            path,
            is_object,
            0,
            set(),
            None,
        )

    def member_path(self) -> JsonPath:
        return (*self.path, self.current)

    def enter(self, text: str, pos: int, positions: dict, duplicates: list) -> int:
        """Record the member starting at pos; return the offset of its value."""
        if not self.is_object:
            self.current, self.count = self.count, self.count + 1
            positions[self.member_path()] = pos
            return pos
        end = _STRING.match(text, pos).end()
        self.current = json.loads(text[pos:end])
        if self.current in self.keys:
            duplicates.append((self.current, pos))
        self.keys.add(self.current)
        positions[self.member_path()] = pos
        colon = _WS.match(text, end).end()
        return _WS.match(text, colon + 1).end()


# --- non-finite numbers --------------------------------------------------------------


def non_finite_paths(value: Any, path: JsonPath = ()) -> list[JsonPath]:
    """Paths of every NaN / Infinity in a parsed value."""
    found: list[JsonPath] = []
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            found.append(where)
        elif isinstance(item, dict):
            stack.extend(((*where, k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend(((*where, i), v) for i, v in enumerate(item))
    return sorted(found, key=lambda p: [str(x) for x in p])
