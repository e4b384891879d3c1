"""lm-eval's doc_to_text and description, for the template shapes the leaderboards' tasks use.

A prompt's text is a template rendered with Jinja for the doc (lm-eval's
utils.apply_template; a doc_to_text that names a field of the doc is that
field). The audit never runs a submitter's Jinja; it evaluates text around
`{{ expr }}` blocks, where `expr` is a field path with `.name` and `[n]`
steps and an optional `.strip()` or `|trim` (MMLU's `{{question.strip()}}\\nA.
{{choices[0]}}...`), holding text or a number, exactly as Jinja prints it:

- Jinja makes every newline of the template's own text `\\n`;
- a template's last newline is dropped by lm-eval 0.4.0 to 0.4.3 and kept
  from 0.4.4 on (keep_trailing_newline): both texts are given;
- a field the doc lacks, or a value Jinja prints some other way (a list, a
  boolean, None), is UNTRACEABLE.

A few task functions (MATH's, MMLU-Pro's and MuSR's doc_to_text) are known
by their exact source and written as the parts they write, never run: their
loops over a doc's options are ItemLines parts.

Templates are found in one pass (str.find), and a text is not built past a
length the caller gives (the prompt it must fit in): a template and a doc
are the submitter's, and 50,000 blocks of a 10 KB field would be 500 MB.
Pure: no I/O.
"""

import ast
import functools
import re
from collections.abc import Callable
from typing import Any, NamedTuple, Self

from .doc_templates import DICT_METHODS, LETTERS, MAX_CACHED, NAME, UNTRACEABLE

TOO_LONG = object()  # what texts_of gives when the text would be longer than the caller's limit

_EXPRESSION = re.compile(rf"\s*({NAME}(?:\.{NAME}|\[\d+\])*?)(\.strip\(\)|\s*\|\s*trim)?\s*")
_STEP = re.compile(rf"\.({NAME})|\[(\d+)\]")
_CODE = (
    "def ",
    "async def ",
    "lambda",
    "@",
)  # a Python function's source, as lm-eval writes one into configs
_OBJECT_REPR = re.compile(r"<[^<>]*>|functools\.partial\(.*\)", re.S)  # 0.4.0 writes str(function)
# Task functions whose text lbnorm writes without running them, by their source as lm-eval dumps it into configs
# (stripped; checked in the 0.4.4 to 0.4.13 wheels): the leaderboard's MATH doc_to_text (a template), and its
# MMLU-Pro and MuSR doc_to_text, whose loops over the doc's options are ItemLines parts. MuSR's source names a
# module constant, DOC_TO_TEXT, "{narrative}\n\n{question}\n\n{choices}\nAnswer:" in every release. Any other
# function, or one of these edited, is not run (it is code) and not evaluated.
_MUSR_SOURCE = (
    'def doc_to_text(doc):\n    """\n    Convert a doc to text.\n    """\n    choices = ""\n    for i, choice in '
    'enumerate(ast.literal_eval(doc["choices"])):\n        choices += f"{i + 1} - {choice}\\n"\n\n    text = '
    'DOC_TO_TEXT.format(\n        narrative=doc["narrative"], question=doc["question"], choices=choices\n    )\n\n'
    "    return text"
)
_MMLU_PRO_SOURCE = (
    'def doc_to_text(doc):\n    doc_to_text = f"{doc[\'question\']}\\n"\n\n    for i in range(len(doc["options"])):\n'
    '        doc_to_text += f"{string.ascii_uppercase[i]}. {doc[\'options\'][i]}\\n"\n\n    doc_to_text += "Answer:"\n'
    "    return doc_to_text"
)


class ItemLines(NamedTuple):
    """A part no Jinja block writes: a task function's loop writing one line per item of a doc field."""

    field: str
    lines: Callable[[Any], str | Any]  # the field's value -> the lines, or UNTRACEABLE

    def render(self, doc: dict) -> str | Any:
        return self.lines(doc.get(self.field, UNTRACEABLE))


MAX_LITERAL = 16_384  # characters of MuSR's choices, a Python literal parsed per sample (the dataset's: a few hundred)


def lettered_lines(options: Any) -> str | Any:
    """MMLU-Pro: f"{string.ascii_uppercase[i]}. {option}\\n" for each option (past Z the harness fails)."""
    if (
        type(options) is not list
        or len(options) > len(LETTERS)
        or not all(type(option) is str for option in options)
    ):
        return UNTRACEABLE
    return "".join(
        f"{letter}. {option}\n" for letter, option in zip(LETTERS, options, strict=False)
    )


def numbered_literal_lines(choices: Any) -> str | Any:
    """MuSR: f"{i + 1} - {choice}\\n" for each choice of ast.literal_eval(doc["choices"]), a list of strings."""
    if type(choices) is not str or len(choices) > MAX_LITERAL:
        return UNTRACEABLE
    try:
        items = ast.literal_eval(choices)  # what the function runs: literals only, never code
    except (
        Exception
    ):  # anything it refuses (SyntaxError, ValueError, too deep): the harness failed on it too
        return UNTRACEABLE
    if type(items) not in (list, tuple) or not all(type(item) is str for item in items):
        return UNTRACEABLE
    return "".join(f"{number} - {item}\n" for number, item in enumerate(items, 1))


_MUSR_PARTS = (
    (("narrative",), False),
    "\n\n",
    (("question",), False),
    "\n\n",
    ItemLines("choices", numbered_literal_lines),
    "\nAnswer:",
)
FUNCTION_TEMPLATES: dict[str, str | tuple] = {
    'def doc_to_text(doc: dict) -> str:\n    return "Problem:" + "\\n" + doc["problem"] + "\\n\\n" + "Solution:"': "Problem:\n{{problem}}\n\nSolution:",
    _MMLU_PRO_SOURCE: (
        (("question",), False),
        "\n",
        ItemLines("options", lettered_lines),
        "Answer:",
    ),
    _MUSR_SOURCE: _MUSR_PARTS,
    _MUSR_SOURCE.replace(
        "{i + 1}", "{i+1}"
    ): _MUSR_PARTS,  # as 0.4.4 to 0.4.7 wrote it: the same function
}


class TextTemplate(NamedTuple):
    """doc_to_text or description: literal text and ((first field, steps...), strip) expressions, in order."""

    text: str
    parts: tuple
    field: str | None = None  # a bare name: the doc's field of that name when the doc has one

    @classmethod
    def of(cls, value: Any) -> "TextTemplate | None":
        """None for a shape lbnorm does not evaluate (Jinja statements, filters, calls, a function's source or
        repr). Text without a block renders as itself: a description; a doc_to_text holds a block or is a name."""
        if not isinstance(value, str):
            return None
        # Every log of a task asks again for the same few templates; a long one (the submitter's) is not kept.
        return (
            _text_template(value) if len(value) <= MAX_CACHED else _text_template.__wrapped__(value)
        )

    @classmethod
    def parse(cls, value: str) -> Self | None:
        if value.lstrip().startswith(_CODE):
            same = FUNCTION_TEMPLATES.get(value.strip())
            if same is None:
                return None
            return cls(
                value,
                cls.parse(same).parts if type(same) is str else same,  # type: ignore[union-attr, arg-type]  # a listed template parses
            )  # shown as the function it is
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
            first = re.match(NAME, written)[0]  # type: ignore[index]  # _EXPRESSION starts with a name
            path = (first,) + tuple(
                name or int(index) for name, index in _STEP.findall(written, len(first))
            )
            parts += [_newlines(value[position:start]), (path, bool(expression[2]))]
            position = end + 2
        parts.append(_newlines(value[position:]))
        return cls(
            value,
            tuple(part for part in parts if part != ""),
            value if re.fullmatch(NAME, value) else None,
        )


def prompt_template(doc_to_text: Any) -> TextTemplate | None:
    """The config's doc_to_text as a template prompts are built from, or None: a shape lbnorm does not evaluate,
    or plain text without a block, which is a function's name or repr written into the config, never a prompt."""
    text = TextTemplate.of(doc_to_text)
    if text is None or not (
        text.field or len(text.parts) > 1 or (text.parts and type(text.parts[0]) is tuple)
    ):
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
    sets from 0.4.4 on (0.4.0 to 0.4.3 render "...\\n\\n" as "...\\n")."""
    if template.field is not None and template.field in doc:
        value = doc[template.field]
        return (
            UNTRACEABLE if type(value) is not str else (value,) if len(value) <= limit else TOO_LONG
        )
    text = _text_of(template, doc, limit)
    if type(text) is not str:
        return text
    last = template.parts[-1] if template.parts else ""
    return (text, text[:-1]) if type(last) is str and last.endswith("\n") else (text,)


def ends_in_newline(template: TextTemplate) -> bool:
    """Whether the template's own text ends with a newline: then texts_of gives two texts."""
    return (
        bool(template.parts)
        and type(template.parts[-1]) is str
        and template.parts[-1].endswith("\n")
    )


def ending_of(template: TextTemplate, doc: dict, text: str) -> int | None:
    """The length of what the template gives for `doc` when `text` ends with it, None when it does not or
    when a block is UNTRACEABLE (texts_of says which); for a template that does not end in a newline (one
    text). The audit's common case: the template's text (a doc's few fields and the template's own words) is
    built and compared with the end of `text` at once, about twice as fast as piece by piece in a loop."""
    if template.field is not None and template.field in doc:
        value = doc[template.field]
        return len(value) if type(value) is str and text.endswith(value) else None
    built = _text_of(template, doc, len(text))
    return len(built) if type(built) is str and text.endswith(built) else None


def _text_of(template: TextTemplate, doc: dict, limit: int) -> str | Any:
    """texts_of's first text, UNTRACEABLE, or TOO_LONG past `limit` characters. Each block is what Jinja prints
    for it, looked up here without a call: this runs for every sample's prompt."""
    pieces = []
    length = 0
    for part in template.parts:
        if type(part) is tuple:  # ((path...), strip)
            path, strip = part
            if len(path) == 1:  # {{ field }}: most blocks, looked up without the walk
                value = doc.get(path[0], UNTRACEABLE)
            elif (
                len(path) == 2 and type(path[1]) is int and type(listed := doc.get(path[0])) is list
            ):
                value = (
                    listed[path[1]] if path[1] < len(listed) else UNTRACEABLE
                )  # {{ choices[0] }}
            else:
                value = _walk(doc, path)
            kind = type(value)
            if kind is str:
                part = value.strip() if strip else value
            elif strip or kind is bool or kind not in (int, float):
                return UNTRACEABLE
            else:
                part = str(value)
        elif type(part) is not str:  # an ItemLines part: what it writes
            part = part.render(doc)
            if part is UNTRACEABLE:
                return part
        length += len(part)
        if length > limit:  # before the join: the pieces are references, the join would be the copy
            return TOO_LONG
        pieces.append(part)
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
        elif not isinstance(value, dict) or (depth and step in DICT_METHODS) or step not in value:
            return UNTRACEABLE
        else:
            value = value[step]
    return value


# Names Jinja defines whatever the doc holds: its default globals, its constants, and the template itself
JINJA_NAMES = frozenset(
    {"range", "dict", "lipsum", "cycler", "joiner", "namespace", "self"}
    | {"true", "false", "none", "True", "False", "None"}
)


def undefined_block(template: TextTemplate, doc: dict) -> str | None:
    """The first block of the template that names what the doc lacks, as written, or None. lm-eval renders its
    templates with StrictUndefined, so such a template fails on the doc: a run cannot have been made with it.

    Only what Jinja surely fails on counts: a variable the doc lacks, a key its object lacks, an index past the
    end of its list. A text or a number in the log may have been another object when the template ran (lm-eval
    logs a value JSON cannot hold, a date, as its str()), so a name or index taken from one is not claimed, nor
    a step through `_` names (StrictUndefined has attributes of its own)."""
    if template.field is not None and template.field in doc:
        return None
    for part in template.parts:
        if type(part) is tuple and _undefined(doc, part[0]):
            return "{{ " + _written(part[0]) + " }}"
    return None


def _undefined(doc: dict, path: tuple) -> bool:
    """Whether Jinja surely finds nothing at the path: render(**doc)'s variable, then at each step getattr first,
    then getitem (a.b and a[0] alike)."""
    if path[0] in JINJA_NAMES or any(type(step) is str and step.startswith("_") for step in path):
        return False  # Jinja's own, whatever the doc holds; an attribute StrictUndefined may have
    if path[0] not in doc:
        return True
    value: Any = doc[path[0]]
    for step in path[1:]:
        if type(value) is list and type(step) is int:
            if step >= len(value):
                return True
        elif type(value) is dict and type(step) is str and step not in DICT_METHODS:
            if step not in value:
                return True
        else:
            return False  # a method Jinja prints, or a value that may have been another object
        value = value[step]
    return False


def _written(path: tuple) -> str:
    return path[0] + "".join(f"[{step}]" if type(step) is int else f".{step}" for step in path[1:])


def _newlines(text: str) -> str:
    """Jinja's lexer turns every newline of a template's own text into newline_sequence ("\\n")."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
