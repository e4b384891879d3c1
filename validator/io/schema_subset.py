"""Proof that a document matches a JSON Schema, for the schemas' plain keywords, without jsonschema.

Importing jsonschema costs a pull request's check about as much as all of lbnorm's own work, and
nearly every submission is valid. `certainly_valid` answers True only when it can prove the
instance valid under Draft 2020-12 with the keywords it knows; anything else (a keyword it does
not know, a value it is not sure of) is False, and the caller asks jsonschema, which then finds
the errors or none. So a True never hides an error, and a False costs only time.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

# Keywords that never make an instance invalid.
ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "default", "examples"}
)
TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def certainly_valid(schema: Any, instance: Any) -> bool:
    """True only if `instance` is valid against `schema`; False if that is not proven."""
    if schema is True:
        return True
    if not isinstance(schema, dict):
        return False
    for keyword, value in schema.items():
        if keyword in ANNOTATIONS:
            continue
        check = KEYWORDS.get(keyword)
        if check is None or not check(value, instance, schema):
            return False
    return True


def _type(expected: Any, instance: Any, _schema: dict) -> bool:
    names = [expected] if isinstance(expected, str) else expected
    return isinstance(names, list) and any(_is_type(instance, name) for name in names)


def _is_type(instance: Any, name: str) -> bool:
    kinds = TYPES.get(name)
    if kinds is None:
        return False
    if isinstance(instance, bool):  # JSON's true is no number
        return name == "boolean"
    if isinstance(instance, float) and name == "integer":
        return math.isfinite(instance) and instance.is_integer()
    return type(instance) in kinds


def _const(expected: Any, instance: Any, _schema: dict) -> bool:
    # Numbers of one kind, strings and null compare plainly; anything else is left to jsonschema.
    return (
        type(instance) is type(expected)
        and type(expected) in (int, str, type(None))
        and (instance == expected)
    )


def _required(names: Any, instance: Any, _schema: dict) -> bool:
    return not isinstance(instance, dict) or all(name in instance for name in names)


def _properties(properties: Any, instance: Any, _schema: dict) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(
        certainly_valid(properties[key], value)
        for key, value in instance.items()
        if key in properties
    )


def _additional_properties(extra: Any, instance: Any, schema: dict) -> bool:
    if not isinstance(instance, dict):
        return True
    if "patternProperties" in schema:
        return False
    known = schema.get("properties", {})
    return all(certainly_valid(extra, value) for key, value in instance.items() if key not in known)


def _property_names(names: Any, instance: Any, _schema: dict) -> bool:
    return not isinstance(instance, dict) or all(certainly_valid(names, key) for key in instance)


def _bounded(test):
    def check(bound: Any, instance: Any, _schema: dict) -> bool:
        if isinstance(instance, bool) or not isinstance(instance, int | float):
            return True  # the keyword applies to numbers only
        return isinstance(bound, int | float) and test(instance, bound)

    return check


def _length(test):
    def check(bound: Any, instance: Any, _schema: dict) -> bool:
        return not isinstance(instance, str) or test(len(instance), bound)

    return check


def _items_count(test):
    def check(bound: Any, instance: Any, _schema: dict) -> bool:
        return not isinstance(instance, list) or test(len(instance), bound)

    return check


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _pattern(pattern: Any, instance: Any, _schema: dict) -> bool:
    return not isinstance(instance, str) or _compiled(pattern).search(instance) is not None


def _items(items: Any, instance: Any, _schema: dict) -> bool:
    return not isinstance(instance, list) or all(certainly_valid(items, item) for item in instance)


def _unique_items(unique: Any, instance: Any, _schema: dict) -> bool:
    if unique is False or not isinstance(instance, list):
        return True
    # Only strings: two equal JSON strings are equal Python strings and nothing else is.
    return all(type(item) is str for item in instance) and len(set(instance)) == len(instance)


def _one_of(branches: Any, instance: Any, _schema: dict) -> bool:
    """Exactly one branch: proven valid against one, and the others are of another `type`."""
    if not isinstance(branches, list):
        return False
    valid = [certainly_valid(branch, instance) for branch in branches]
    return valid.count(True) == 1 and all(
        ok
        or (
            isinstance(branch, dict)
            and "type" in branch
            and not _type(branch["type"], instance, {})
        )
        for ok, branch in zip(valid, branches, strict=True)
    )


KEYWORDS = {
    "type": _type,
    "const": _const,
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "propertyNames": _property_names,
    "minimum": _bounded(lambda value, bound: value >= bound),
    "maximum": _bounded(lambda value, bound: value <= bound),
    "minLength": _length(lambda size, bound: size >= bound),
    "maxLength": _length(lambda size, bound: size <= bound),
    "pattern": _pattern,
    "items": _items,
    "minItems": _items_count(lambda size, bound: size >= bound),
    "maxItems": _items_count(lambda size, bound: size <= bound),
    "uniqueItems": _unique_items,
    "oneOf": _one_of,
}
