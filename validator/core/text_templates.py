"""lm-eval's doc_to_text and description, for the template shapes the leaderboards' tasks use.

A prompt's text is a template rendered with Jinja for the doc (lm-eval's
utils.apply_template; a doc_to_text that names a field of the doc is that
field). The audit never runs a submitter's Jinja; it evaluates text around
`{{ expr }}` blocks, where `expr` is a field path with `.name` and `[n]`
steps and an optional `.strip()` (MMLU's `{{question.strip()}}\\nA.
{{choices[0]}}...`), holding text or a number, exactly as Jinja prints it:

- Jinja makes every newline of the template's own text `\\n`;
- a template's last newline is dropped by lm-eval 0.4.0 to 0.4.3 and kept
  from 0.4.5 on (keep_trailing_newline): both texts are given;
- a field the doc lacks, or a value Jinja prints some other way (a list, a
  boolean, None), is UNTRACEABLE.

Templates are found in one pass (str.find), and a text is not built past a
length the caller gives (the prompt it must fit in): a template and a doc
are the submitter's, and 50,000 blocks of a 10 KB field would be 500 MB.
Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from .doc_templates import BARE, DICT_METHODS, MAX_CACHED, NAME, UNTRACEABLE

TOO_LONG = object()  # what texts_of gives when the text would be longer than the caller's limit

_EXPRESSION = re.compile(rf"\s*({NAME}(?:\.{NAME}|\[\d+\])*?)(\.strip\(\))?\s*")
_STEP = re.compile(rf"\.({NAME})|\[(\d+)\]")
_CODE = ("def ", "async def ", "lambda", "@")  # a Python function's source, as lm-eval writes one into configs
_OBJECT_REPR = re.compile(r"<[^<>]*>|functools\.partial\(.*\)", re.S)  # 0.4.0 writes str(function)
# Task functions that write exactly what a template writes, by their source as lm-eval dumps it into configs
# (stripped): the leaderboard's MATH doc_to_text (lm_eval/tasks/leaderboard/math/utils.py, 0.4.9 to 0.4.13).
# Any other function, or this one edited, is not run (it is code) and not evaluated.
FUNCTION_TEMPLATES = {
    'def doc_to_text(doc: dict) -> str:\n    return "Problem:" + "\\n" + doc["problem"] + "\\n\\n" + "Solution:"':
        "Problem:\n{{problem}}\n\nSolution:",
}


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
        if not isinstance(value, str):
            return None
        # Every log of a task asks again for the same few templates; a long one (the submitter's) is not kept.
        return _text_template(value) if len(value) <= MAX_CACHED else _text_template.__wrapped__(value)

    @classmethod
    def parse(cls, value: str) -> TextTemplate | None:
        if value.lstrip().startswith(_CODE):
            same = FUNCTION_TEMPLATES.get(value.strip())
            return None if same is None else cls(value, cls.parse(same).parts)  # shown as the function it is
        if "{%" in value or "{#" in value or _OBJECT_REPR.fullmatch(value):
            return None
        parts: list = []
        position = 0
        while (start := value.find("{{", position)) >= 0:
            end = value.find("}}", start + 2)
            expression = _EXPRESSION.fullmatch(value, start + 2, end) if end >= 0 else None
            if expression is None:  # never closed, or not a path: not evaluated
                return None
            written = expression[1]
            first = BARE.match(written)[0]
            path = (first,) + tuple(name or int(index) for name, index in _STEP.findall(written, len(first)))
            parts += [_newlines(value[position:start]), (path, bool(expression[2]))]
            position = end + 2
        parts.append(_newlines(value[position:]))
        return cls(value, tuple(part for part in parts if part != ""), value if BARE.fullmatch(value) else None)


def prompt_template(doc_to_text: Any) -> TextTemplate | None:
    """The config's doc_to_text as a template prompts are built from, or None: a shape lbnorm does not evaluate,
    or plain text without a block, which is a function's name or repr written into the config, never a prompt."""
    text = TextTemplate.of(doc_to_text)
    if text is None or not (text.field or len(text.parts) > 1 or (text.parts and type(text.parts[0]) is tuple)):
        return None
    return text


@functools.lru_cache(maxsize=256)
def _text_template(value: str) -> TextTemplate | None:
    return TextTemplate.parse(value)


def texts_of(template: TextTemplate, doc: dict, limit: int) -> tuple[str, ...] | Any:
    """What lm-eval's doc_to_text (or apply_template, for a description) gives for `doc`; UNTRACEABLE (a value
    Jinja would print some other way, a field the doc lacks: the harness would have failed), or TOO_LONG when
    the text would be longer than `limit` characters.

    Two texts when the template ends with a newline: Jinja drops it unless keep_trailing_newline, which lm-eval
    sets from 0.4.5 on (0.4.0 to 0.4.3 render "...\\n\\n" as "...\\n")."""
    if template.field is not None and template.field in doc:
        value = doc[template.field]
        return UNTRACEABLE if type(value) is not str else (value,) if len(value) <= limit else TOO_LONG
    text = _text_of(template, doc, limit)
    if type(text) is not str:
        return text
    last = template.parts[-1] if template.parts else ""
    return (text, text[:-1]) if type(last) is str and last.endswith("\n") else (text,)


def ends_in_newline(template: TextTemplate) -> bool:
    """Whether the template's own text ends with a newline: then texts_of gives two texts."""
    return bool(template.parts) and type(template.parts[-1]) is str and template.parts[-1].endswith("\n")


def ending_of(template: TextTemplate, doc: dict, text: str) -> int | None | Any:
    """The length of what the template gives for `doc` when `text` ends with it, None when it does not,
    UNTRACEABLE as texts_of; for a template that does not end in a newline (one text). The audit's common
    case: each piece is compared with the end of `text` where it lies, and nothing is built or copied."""
    if template.field is not None and template.field in doc:
        value = doc[template.field]
        return UNTRACEABLE if type(value) is not str else len(value) if text.endswith(value) else None
    end = len(text)
    for part in reversed(template.parts):
        if type(part) is not str:
            part = _printed(doc, part)
            if part is UNTRACEABLE:
                return part
        if not text.endswith(part, 0, end):
            return None
        end -= len(part)
    return len(text) - end


def _text_of(template: TextTemplate, doc: dict, limit: int) -> str | Any:
    pieces = []
    length = 0
    for part in template.parts:
        if type(part) is not str:
            part = _printed(doc, part)
            if part is UNTRACEABLE:
                return part
        length += len(part)
        if length > limit:  # before the join: the pieces are references, the join would be the copy
            return TOO_LONG
        pieces.append(part)
    return "".join(pieces)


def _printed(doc: dict, block: tuple) -> str | Any:
    """What Jinja prints for one block, ((path...), strip), or UNTRACEABLE."""
    path, strip = block
    if len(path) == 1:  # {{ field }}: most blocks, looked up without the walk
        value = doc.get(path[0], UNTRACEABLE)
    elif len(path) == 2 and type(path[1]) is int and type(listed := doc.get(path[0])) is list:
        value = listed[path[1]] if path[1] < len(listed) else UNTRACEABLE  # {{ choices[0] }}
    else:
        value = _walk(doc, path)
    kind = type(value)
    if kind is str:
        return value.strip() if strip else value
    if strip or kind is bool or kind not in (int, float):
        return UNTRACEABLE
    return str(value)


def _walk(doc: dict, path: tuple) -> Any:
    """Jinja's a.b[0].c on JSON values (`a` is a variable: render(**doc)); UNTRACEABLE where Jinja would find
    something else (a dict's method, a string's attribute) or nothing (StrictUndefined: the harness fails)."""
    value: Any = doc
    for depth, step in enumerate(path):
        if type(step) is int:
            if not isinstance(value, (list, str)) or step >= len(value):
                return UNTRACEABLE
            value = value[step]
        elif not isinstance(value, dict) or (depth and step in DICT_METHODS) or step not in value:
            return UNTRACEABLE
        else:
            value = value[step]
    return value


def _newlines(text: str) -> str:
    """Jinja's lexer turns every newline of a template's own text into newline_sequence ("\\n")."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
