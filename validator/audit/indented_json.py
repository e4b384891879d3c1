"""`json.dumps(value, indent=2, ensure_ascii=False)`, byte for byte, several times faster.

lm-eval's doc_hash is the sha256 of that text, so the audit must write every
logged doc that way again. With `indent`, the standard library falls back
from its C encoder to a generator per container and per item, which made
re-serialising the doc the largest single cost of auditing a log. This
writes the same text with one function call per value, and still lets the C
string escapers do the escaping.

Only what `json.loads` can return is written here (dict with str keys,
list, str, int, float, bool, None); anything else goes to `json.dumps`
itself, so the result is always json.dumps's, never an approximation of it.
tests/test_indented_json.py compares the two on generated documents.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any


class _NotPlainJson(Exception):
    """A value json.loads could not have returned: leave it to json.dumps."""


def dumps_indent2(value: Any) -> str:
    try:
        return _encode(value, "\n")
    except _NotPlainJson:
        return json.dumps(value, indent=2, ensure_ascii=False)


# What encode_basestring escapes: control characters, '"' and '\\'. A long ASCII string holding none of them
# (a passage, a prompt) is written as it is, between quotes: testing for them with bytes.translate costs about
# 1 ns a character, the escaper about 2.3.
_ESCAPED = bytes(range(0x20)) + b'"\\'
_LONG = 256


def _escape(text: str) -> str:
    """encode_basestring(text). On ASCII text the ensure_ascii escaper writes the same, half again as fast
    (both are C when the _json accelerator is built), except that it escapes DEL, which the other keeps."""
    if text.isascii():
        if len(text) > _LONG:
            raw = text.encode("ascii")
            if len(raw.translate(None, _ESCAPED)) == len(raw):
                return '"' + text + '"'
        if "\x7f" not in text:
            return encode_basestring_ascii(text)
    return encode_basestring(text)


# Every doc of a log has the same keys: each key's '"key": ' is written once and looked up after that. Only short
# keys are kept, and only so many (the logs are the submitter's): at most 4,096 keys of 64 characters, under 10 MB
# even when every character is escaped. When full it starts again, so one log's junk keys do not crowd out the
# next log's for the rest of a worker's survey.
_KEY_PREFIXES: dict[str, str] = {}
_KEY_PREFIXES_MAX = 4096
_KEY_LENGTH_MAX = 64


def _key_prefix(key: str) -> str:
    prefix = _escape(key) + ": "
    if len(key) <= _KEY_LENGTH_MAX:
        if len(_KEY_PREFIXES) >= _KEY_PREFIXES_MAX:
            _KEY_PREFIXES.clear()
        _KEY_PREFIXES[key] = prefix
    return prefix


def _encode(value: Any, newline: str) -> str:
    """`newline` is a line break followed by the current indentation."""
    kind = type(value)
    if kind is str:
        return _escape(value)
    if kind is dict:
        if not value:
            return "{}"
        inner = newline + "  "
        items = []
        prefixes = _KEY_PREFIXES
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlainJson
            prefix = prefixes.get(key) or _key_prefix(key)
            # Most values of a doc are strings: escaped here, without a call of _encode each.
            items.append(prefix + (_escape(item) if type(item) is str else _encode(item, inner)))
        return "{" + inner + ("," + inner).join(items) + newline + "}"
    if kind is list:
        if not value:
            return "[]"
        inner = newline + "  "
        return "[" + inner + ("," + inner).join([_escape(item) if type(item) is str else _encode(item, inner)
                                                 for item in value]) + newline + "]"
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
