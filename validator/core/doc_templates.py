"""lm-eval's doc_to_target, doc_to_choice and doc_to_text, for the template shapes the leaderboards' tasks use.

lm-eval renders a task's templates with Jinja (lm_eval/api/task.py,
utils.apply_template). The audit cannot run a submitter's Jinja (a template
is code, and can loop or allocate without bound), so it evaluates the shapes
that cover the leaderboards' tasks, exactly as Jinja would, and leaves every
other one untraced:

- a name: the doc's field of that name (lm-eval's `in self.features`); a
  name the doc lacks is a template without braces, which renders as itself;
- `{{ a.b.c }}`: a path of fields (Jinja looks up `a.b` as `a["b"]` for a
  dict); lm-eval renders with StrictUndefined, so a missing field fails the
  run (no target);
- `{{ a.b.index(c) }}`: a list's index of a value (ARC's
  `{{choices.label.index(answerKey)}}`);
- `{{ a if b is undefined else c }}`: the field `a`, or `c` when the doc
  has `b` (the leaderboard's MATH target: answer, or an example's solution);
- a number (doc_to_target), a list or a mapping (doc_to_choice);
- for doc_to_text and description (TextTemplate): text around `{{ expr }}`
  blocks, each a path as above with `[n]` subscripts and an optional
  `.strip()` (MMLU's `{{question.strip()}}\nA. {{choices[0]}}...`), holding
  text or a number. Jinja makes every newline of the template's own text
  `\n`, and a template's last newline is dropped by some harness versions
  and kept by others: both texts are given.

Then as lm-eval: a rendered target of digits is a number when the task has
choices, and rendered choices are read with ast.literal_eval. Pure: no I/O.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from typing import Any

UNTRACEABLE = object()  # what a template gives when lbnorm cannot say (another shape, a list target, ...)
MAX_LITERAL = 64 * 1024  # characters of a rendered list read with literal_eval (a submitter's doc)
MAX_CACHED = 2048  # characters of one kept in the cache: 4,096 entries stay within tens of MB

_NAME = r"[A-Za-z_]\w*"
_PATH = rf"{_NAME}(?:\.{_NAME})*"
_BARE = re.compile(rf"{_NAME}")  # all three are matched whole (fullmatch): "{{a}}\n" renders its newline
_FIELDS = re.compile(rf"\{{\{{\s*({_PATH})\s*\}}\}}")
_INDEX = re.compile(rf"\{{\{{\s*({_PATH})\.index\(\s*({_PATH})\s*\)\s*\}}\}}")
# {{ a if b is undefined else c }}: the leaderboard's MATH target (answer for a doc, solution for an example)
_UNLESS = re.compile(rf"\{{\{{\s*({_PATH})\s+if\s+({_NAME})\s+is\s+undefined\s+else\s+({_PATH})\s*\}}\}}")
_EXPRESSION = re.compile(rf"\s*({_NAME}(?:\.{_NAME}|\[\d+\])*?)(\.strip\(\))?\s*")
_STEP = re.compile(rf"\.({_NAME})|\[(\d+)\]")
_BLOCK = re.compile(r"\{\{(.*?)\}\}", re.S)
_CODE = ("def ", "async def ", "lambda", "@")  # a Python function's source, as lm-eval writes one into configs
_OBJECT_REPR = re.compile(r"<[^<>]*>|functools\.partial\(.*\)", re.S)  # 0.4.0 writes str(function)
_DICT_METHODS = frozenset(dir(dict))  # Jinja's a.b is getattr first: a dict's own methods are not its keys
_MISSING = object()


@dataclass(frozen=True)
class Template:
    kind: str  # "value", "name", "fields", "index", "unless"
    text: Any  # the config's value, as written
    parts: tuple = ()

    @classmethod
    def of(cls, value: Any) -> Template | None:
        """The template in a config's doc_to_target or doc_to_choice; None for a shape lbnorm does not evaluate."""
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, (int, list, dict)):
            return cls("value", value)
        if not isinstance(value, str):
            return None
        if _BARE.fullmatch(value):
            return cls("name", value, (value,))
        if match := _FIELDS.fullmatch(value):
            return cls("fields", value, (tuple(match[1].split(".")),))
        if match := _INDEX.fullmatch(value):
            return cls("index", value, (tuple(match[1].split(".")), tuple(match[2].split("."))))
        if match := _UNLESS.fullmatch(value):
            return cls("unless", value, (tuple(match[1].split(".")), match[2], tuple(match[3].split("."))))
        return None


@dataclass(frozen=True)
class TextTemplate:
    """doc_to_text or description: literal text and ((first field, steps...), strip) expressions, in order."""

    text: str
    parts: tuple
    field: str | None = None  # a bare name: the doc's field of that name when the doc has one

    @classmethod
    def of(cls, value: Any) -> TextTemplate | None:
        """None for a shape lbnorm does not evaluate (Jinja statements, filters, calls, a function's source or
        repr). Text without a block renders as itself: a description; a doc_to_text holds a block or is a name."""
        if not isinstance(value, str) or value.lstrip().startswith(_CODE) or "{%" in value or "{#" in value \
                or _OBJECT_REPR.fullmatch(value):
            return None
        parts: list = []
        position = 0
        for block in _BLOCK.finditer(value):
            expression = _EXPRESSION.fullmatch(block[1])
            if expression is None:
                return None
            written = expression[1]
            first = _BARE.match(written)[0]
            path = (first,) + tuple(name or int(index) for name, index in _STEP.findall(written, len(first)))
            parts += [_newlines(value[position:block.start()]), (path, bool(expression[2]))]
            position = block.end()
        parts.append(_newlines(value[position:]))
        if "{{" in "".join(part for part in parts if isinstance(part, str)):
            return None  # a block the pattern did not close
        return cls(value, tuple(part for part in parts if part != ""), value if _BARE.fullmatch(value) else None)


def texts_of(template: TextTemplate, doc: dict) -> tuple[str, ...] | Any:
    """What lm-eval's doc_to_text (or apply_template, for a description) gives for `doc`, or UNTRACEABLE (a
    value Jinja would print some other way, a field the doc lacks: the harness would have failed).

    Two texts when the template ends with a newline: Jinja drops it unless keep_trailing_newline, which lm-eval
    sets from 0.4.5 on (0.4.0 to 0.4.3 render "...\n\n" as "...\n")."""
    if template.field is not None and template.field in doc:
        value = doc[template.field]
        return (value,) if type(value) is str else UNTRACEABLE
    text = _text_of(template, doc)
    if text is UNTRACEABLE:
        return text
    last = template.parts[-1] if template.parts else ""
    return (text, text[:-1]) if type(last) is str and last.endswith("\n") else (text,)


def _text_of(template: TextTemplate, doc: dict) -> str | Any:
    pieces = []
    for part in template.parts:
        if type(part) is str:
            pieces.append(part)
            continue
        value = _walk(doc, part[0])
        kind = type(value)
        if part[1]:
            if kind is not str:
                return UNTRACEABLE
            value = value.strip()
        elif kind is not str:
            if kind is bool or kind not in (int, float):
                return UNTRACEABLE
            value = str(value)
        pieces.append(value)
    return "".join(pieces)


def _walk(doc: dict, path: tuple) -> Any:
    """Jinja's a.b[0].c on JSON values (`a` is a variable: render(**doc)); UNTRACEABLE where Jinja would find
    something else (a dict's method, a string's attribute) or nothing (StrictUndefined: the harness fails)."""
    value: Any = doc
    for depth, step in enumerate(path):
        if type(step) is int:
            if not isinstance(value, (list, str)) or step >= len(value):
                return UNTRACEABLE
            value = value[step]
        elif not isinstance(value, dict) or (depth and step in _DICT_METHODS) or step not in value:
            return UNTRACEABLE
        else:
            value = value[step]
    return value


def _newlines(text: str) -> str:
    """Jinja's lexer turns every newline of a template's own text into newline_sequence ("\n")."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def target_of(template: Template, doc: dict, has_choices: bool) -> Any:
    """What lm-eval's doc_to_target gives for `doc`: a value, None (the harness would have failed on this doc),
    or UNTRACEABLE."""
    if template.kind == "value":
        return template.text if isinstance(template.text, int) else UNTRACEABLE
    if template.kind == "name":
        name = template.text
        return doc[name] if name in doc else _typed(name, has_choices)
    if template.kind in ("fields", "unless"):
        parts = template.parts
        path = parts[0] if template.kind == "fields" or parts[1] not in doc else parts[2]
        value = _lookup(doc, path)
        if value is UNTRACEABLE or value is _MISSING:  # StrictUndefined: the harness fails on a missing field
            return None if value is _MISSING else UNTRACEABLE
        return _typed(_render(value), has_choices)
    listed, item = _lookup(doc, template.parts[0]), _lookup(doc, template.parts[1])
    if listed is UNTRACEABLE or item is UNTRACEABLE:
        return UNTRACEABLE
    if not isinstance(listed, (list, str)) or item is _MISSING or listed is _MISSING:
        return None
    try:
        position = listed.index(item)
    except (ValueError, TypeError):
        return None
    return _typed(str(position), has_choices)


def choices_of(template: Template, doc: dict) -> list | None | Any:
    """What lm-eval's doc_to_choice gives for `doc`: a list, None (the harness would have failed), or
    UNTRACEABLE."""
    if template.kind == "value":
        choices = template.text
        return list(choices.values()) if isinstance(choices, dict) else choices if isinstance(choices, list) \
            else UNTRACEABLE
    if template.kind == "name":
        if template.text not in doc:
            return None  # literal_eval of a bare name fails
        value = doc[template.text]
        return value if _plain_list(value) else UNTRACEABLE
    if template.kind == "fields":
        value = _lookup(doc, template.parts[0])
        if value is UNTRACEABLE:
            return UNTRACEABLE
        if _plain_list(value):
            return value  # rendered as its repr and read back with literal_eval: the same list
        if not isinstance(value, str):
            return None if value is _MISSING else UNTRACEABLE
        if len(value) > MAX_LITERAL:
            return UNTRACEABLE
        read = _literal_list(value) if len(value) <= MAX_CACHED else _literal_list.__wrapped__(value)
        return read if read is UNTRACEABLE else (list(read) if read is not None else None)
    return UNTRACEABLE


def _lookup(doc: dict, path: tuple[str, ...]) -> Any:
    """Jinja's a.b.c on JSON values: _MISSING when a field is absent, UNTRACEABLE where Jinja would find an
    attribute of the value instead (a dict's own methods, a string's)."""
    value: Any = doc
    for part in path:
        if not isinstance(value, dict) or part in _DICT_METHODS:
            return UNTRACEABLE if value is not _MISSING else _MISSING
        value = value.get(part, _MISSING)
    return value


def _render(value: Any) -> str:
    """A value as Jinja prints it: str()."""
    return value if isinstance(value, str) else str(value)


def _typed(rendered: str, has_choices: bool) -> Any:
    """lm-eval: a rendered target of digits is a number for a task with choices; a rendered list is a list."""
    if rendered.isdigit():
        return int(rendered) if rendered.isascii() and has_choices else rendered if rendered.isascii() else UNTRACEABLE
    if len(rendered) >= 2 and rendered[0] == "[" and rendered[-1] == "]":
        return UNTRACEABLE  # several targets: not traced
    return rendered


_PLAIN = (str, int, float)


def _plain_list(value: Any) -> bool:
    if type(value) is not list:
        return False
    for item in value:  # a loop, not all(<generator>): this runs once per multiple-choice sample
        if type(item) not in _PLAIN:
            return False
    return True


@functools.lru_cache(maxsize=4096)  # MuSR keeps its choices as a string; every model meets the same docs
def _literal_list(text: str) -> tuple | None:
    """ast.literal_eval of a rendered list of choices; None when it is none (the harness would have failed)."""
    try:
        value = ast.literal_eval(text)
    except Exception:  # noqa: BLE001 - a submitter's string: any failure is "no list", never a crash
        return None
    if isinstance(value, (list, tuple)) and all(type(item) in (str, int, float) for item in value):
        return tuple(value)
    return UNTRACEABLE if isinstance(value, (list, tuple)) else None
