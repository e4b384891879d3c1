"""`json.dumps(value, indent=2, ensure_ascii=False)`, byte for byte, several times faster.

lm-eval's doc_hash (lm_eval/evaluator.py, 0.4.3 to 0.4.13, with
`default=handle_non_serializable`) is the sha256 of that text, so the audit must write every
logged doc that way again. With `indent`, the standard library falls back
from its C encoder to a generator per container and per item, which made
re-serialising the doc the largest single cost of auditing a log. This
writes the same text into one list of parts, joined once, and still lets the C
string escapers do the escaping.

Only what `json.loads` can return is written here (dict with str keys,
list, str, int, float, bool, None); anything else goes to `json.dumps`
itself, so the result is always json.dumps's, never an approximation of it.

`indent2_utf8`, the bytes doc_hash is taken over, leaves most docs to orjson,
which writes them in C five to eight times faster than this module: with two
spaces of indentation, orjson writes the same bytes as json.dumps for every
value of a doc but for floats outside [1e-4, 1e16) (json.dumps writes 1e-05,
orjson 0.00001), NaN and infinities (orjson writes null), integers past 64
bits and lone surrogates (orjson refuses both). A doc holding any of these is
written here instead.

tests/unit/test_indented_json.py compares both writers with json.dumps on
generated documents, every code point and floats of every exponent.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

import orjson


def indent2_utf8(value: Any, plain: bool | None = None) -> bytes:
    """`json.dumps(value, indent=2, ensure_ascii=False)` in UTF-8, a lone surrogate passed through: the bytes
    lm-eval's doc_hash is the sha256 of. `plain`: orjson_writes_it(value), when the caller has it."""
    if orjson_writes_it(value) if plain is None else plain:
        # orjson refuses an integer past 64 bits, a lone surrogate, nesting past 254 levels
        try:
            return orjson.dumps(value, option=orjson.OPT_INDENT_2)
        except orjson.JSONEncodeError:
            pass
    return dumps_indent2(value).encode("utf-8", "surrogatepass")


# Written by orjson as json.dumps writes them, or refused
_ORJSON_SCALARS = frozenset({str, int, bool, type(None)})
_ORJSON_DEPTH = 254  # orjson refuses a value nested deeper


def orjson_writes_it(value: Any, depth: int = 0) -> bool:
    """Whether orjson writes `value` as json.dumps does (see the module's docstring): JSON's types (orjson refuses
    a key that is no string), no float outside [1e-4, 1e16), no deeper than orjson goes (a doc nested past it,
    which --max-depth may allow, is not walked to the interpreter's recursion limit). A container whose items are
    all strings, integers, booleans or null is passed by one test at C speed; in another, only its items that are
    not strings or integers are looked at one by one."""
    kind = type(value)
    if kind is dict:
        value = value.values()
    elif kind is not list:
        return kind in _ORJSON_SCALARS or (
            kind is float and (value == 0 or 1e-4 <= abs(value) < 1e16)  # NaN compares false
        )
    if _ORJSON_SCALARS.issuperset(map(type, value)):
        return True
    if depth >= _ORJSON_DEPTH:
        return False
    for item in value:  # a loop: a call per item, a string's too, was most of a doc's test
        kind = type(item)
        if kind is str or kind is int:
            continue
        # a list of scalars (a doc's choices) passed by the one test in C the call would make first
        if kind is list and _ORJSON_SCALARS.issuperset(map(type, item)):
            continue
        if not orjson_writes_it(item, depth + 1):
            return False
    return True


class _NotPlainJson(Exception):
    """A value json.loads could not have returned: leave it to json.dumps."""


def dumps_indent2(value: Any) -> str:
    parts: list[str] = []
    try:
        _write(value, "\n", parts)
    except _NotPlainJson:
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(parts)


# What encode_basestring escapes: control characters, '"' and '\\'. A long ASCII string holding none of them
# (a passage, a prompt) is written as it is, between quotes: testing for them with bytes.translate costs about
# 1 ns a character, the escaper about 2.3.
_ESCAPED = bytes(range(0x20)) + b'"\\'
_LONG = 256


def _escape(text: str) -> str:
    """encode_basestring(text). On ASCII text the ensure_ascii escaper writes the same, half again as fast
    (both are C when the _json accelerator is built), except that it escapes DEL, which the other keeps."""
    if text.isascii() and "\x7f" not in text:
        return encode_basestring_ascii(text)
    return encode_basestring(text)


def _write_string(text: str, parts: list[str]) -> None:
    """_escape(text) into parts; a long plain string goes in as it is, not copied between quotes first. (Written
    out, not a call of _escape: this runs for nearly every value of a doc.)"""
    if text.isascii():
        if len(text) > _LONG:
            raw = text.encode("ascii")
            if len(raw.translate(None, _ESCAPED)) == len(raw):
                parts += ('"', text, '"')
                return
        if "\x7f" not in text:
            parts.append(encode_basestring_ascii(text))
            return
    parts.append(encode_basestring(text))


# Every doc of a log has the same keys: each key's '"key": ' is written once and looked up after that. Only short
# keys are kept, and only so many (the logs are the submitter's): at most 4,096 keys of 64 characters, under 10 MB
# even when every character is escaped. When full it starts again, so one log's junk keys do not crowd out the
# next log's for the rest of a worker's survey.
_KEY_PREFIXES: dict[str, str] = {}
_KEY_PREFIXES_MAX = 4096
_KEY_LENGTH_MAX = 64


def _key_prefix(key: str) -> str:
    """A key's '"key": ', kept for the next doc; only a key first met is tested for being a string."""
    if type(key) is not str:
        raise _NotPlainJson
    prefix = _escape(key) + ": "
    if len(key) <= _KEY_LENGTH_MAX:
        if len(_KEY_PREFIXES) >= _KEY_PREFIXES_MAX:
            _KEY_PREFIXES.clear()
        _KEY_PREFIXES[key] = prefix
    return prefix


def _write(value: Any, newline: str, parts: list[str]) -> None:
    """Append the text of `value` to parts, joined once at the end: a nested value's text is not copied into
    its parent's, and its parent's into the doc's (a passage was copied four times). `newline` is a line break
    followed by the current indentation. Objects and arrays are written here, not in functions of their own:
    a call per container was a tenth of the time."""
    kind = type(value)
    if kind is str:
        _write_string(value, parts)
        return
    if kind is dict:
        if not value:
            parts.append("{}")
            return
        inner = newline + "  "
        separator, append = "," + inner, parts.append
        append("{" + inner)
        prefixes, first = _KEY_PREFIXES, True
        for key, item in value.items():
            if first:
                first = False
            else:
                append(separator)
            append(prefixes.get(key) or _key_prefix(key))
            if type(item) is str:  # most values of a doc: written without a call of _write each
                _write_string(item, parts)
            else:
                _write(item, inner, parts)
        append(newline + "}")
        return
    if kind is not list:
        parts.append(_scalar(value))
        return
    if not value:
        parts.append("[]")
        return
    inner = newline + "  "
    separator, append = "," + inner, parts.append
    append("[" + inner)
    first = True
    for item in value:
        if first:
            first = False
        else:
            append(separator)
        if type(item) is str:
            _write_string(item, parts)
        else:
            _write(item, inner, parts)
    append(newline + "]")


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        return _float(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise _NotPlainJson


def _float(value: float) -> str:
    """json's floatstr with allow_nan=True: json.loads reads NaN and Infinity, so logs can hold them."""
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == float("-inf"):
        return "-Infinity"
    return float.__repr__(value)
