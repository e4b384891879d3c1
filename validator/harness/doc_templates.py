"""lm-eval's doc_to_target and doc_to_choice, for the template shapes the leaderboards' tasks use.

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
- `{{ a.b.c|int }}` and `{{ a.b.c|string }}`: Jinja's int filter (0 where
  int() and float() both fail) and str();
- `{{ a.b.index(c) }}`: a list's index of a value (ARC's
  `{{choices.label.index(answerKey)}}`, OpenBookQA's with `answerKey.lstrip()`);
- `{{ a if b is undefined else c }}`: the field `a`, or `c` when the doc
  has `b` (the leaderboard's MATH target: answer, or an example's solution);
- `{{ a.split(s)[i].strip() }}`, with or without the strip (or lstrip,
  rstrip), alone or as `... if b is defined else c` (GSM8K-CoT's
  `answer.split('####')[-1].strip()`): str.split of a string field, its
  i-th part; where Jinja would find no such part or no string, the harness
  fails (None);
- a number (doc_to_target), a list or a mapping (doc_to_choice);
- the leaderboard MMLU-Pro's doc_to_choice function, known by its exact
  source (never run): a capital letter per option.
Then as lm-eval: a rendered target of digits is a number when the task has
choices, a rendered target in brackets is a list of answers (ast.literal_eval;
the text itself where that fails), and rendered choices are read with
ast.literal_eval. Pure: no I/O.
"""

import ast
import collections
import functools
import math
import re
from typing import Any, NamedTuple, Self

UNTRACEABLE = (
    object()
)  # what a template gives when lbnorm cannot say (another shape, a list target, ...)
MAX_LITERAL = 64 * 1024  # characters of a rendered list read with literal_eval (a submitter's doc)
MAX_CACHED = 2048  # characters of one kept in the cache: 4,096 entries stay within tens of MB

NAME = r"[A-Za-z_]\w*"
_PATH = rf"{NAME}(?:\.{NAME})*"
# The template patterns below are texts for re's functions, which compile each the first time a config's
# template needs it (a template is parsed once a process): a fresh audit compiles only those its configs reach.
# Each is matched whole (fullmatch): "{{a}}\n" renders its newline.
_FIELDS = rf"\{{\{{\s*({_PATH})\s*(?:\|\s*(int|string)\s*)?\}}\}}"
_INDEX = rf"\{{\{{\s*({_PATH})\.index\(\s*({_PATH})(\.(?:l|r)?strip\(\))?\s*\)\s*\}}\}}"
# The leaderboard MMLU-Pro's doc_to_choice (lm_eval/tasks/leaderboard/mmlu_pro/utils.py, 0.4.4 to 0.4.13) by its source
# as lm-eval dumps it into the config, stripped. Any other function, or this one edited, is code and not evaluated.
LETTER_CHOICES = 'def doc_to_choice(doc):\n    return [string.ascii_uppercase[i] for i in range(len(doc["options"]))]'
# {{ a if b is undefined else c }}: the leaderboard's MATH target (answer for a doc, solution for an example)
_UNLESS = rf"\{{\{{\s*({_PATH})\s+if\s+({NAME})\s+is\s+undefined\s+else\s+({_PATH})\s*\}}\}}"
# {{ a.split('####')[-1].strip() if a is defined else b }}: GSM8K-CoT's target. A separator without quotes or
# backslashes inside it (Jinja would read escapes), an index of a few digits, a strip without arguments
_SPLIT = (
    rf"""\{{\{{\s*({_PATH})\.split\(\s*(?:'([^'\\]*)'|"([^"\\]*)")\s*\)\s*\[\s*(-?\d{{1,3}})\s*\]"""
    rf"(\.(?:l|r)?strip\(\))?(?:\s+if\s+({NAME})\s+is\s+defined\s+else\s+({_PATH}))?\s*\}}\}}"
)
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # string.ascii_uppercase: the string module compiles a regex at import
DICT_METHODS = frozenset(
    dir(dict)
)  # Jinja's a.b is getattr first: a dict's own methods are not its keys
_MISSING = object()


class Template(NamedTuple):
    """A config's doc_to_target or doc_to_choice, in a shape lbnorm evaluates on a doc."""

    kind: str  # "value", "name", "fields", "index", "unless", "split", "letters"
    text: Any  # the config's value, as written
    parts: tuple = ()

    @classmethod
    def of(cls, value: Any) -> "Template | None":
        """The template in a config's doc_to_target or doc_to_choice; None for a shape lbnorm does not evaluate."""
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, (int, list, dict)):
            return cls("value", value)
        if not isinstance(value, str):
            return None
        return _template(value) if len(value) <= MAX_CACHED else _template.__wrapped__(value)

    @classmethod
    def parse(cls, value: str) -> Self | None:
        if value.strip() == LETTER_CHOICES:
            return cls("letters", value, ("options",))
        if re.fullmatch(NAME, value):
            return cls("name", value, (value,))
        if match := re.fullmatch(_FIELDS, value):
            return cls("fields", value, (tuple(match[1].split(".")), match[2]))
        if match := re.fullmatch(_INDEX, value):
            return cls(
                "index", value, (tuple(match[1].split(".")), tuple(match[2].split(".")), match[3])
            )
        if match := re.fullmatch(_UNLESS, value):
            return cls(
                "unless", value, (tuple(match[1].split(".")), match[2], tuple(match[3].split(".")))
            )
        if match := re.fullmatch(_SPLIT, value):
            separator = match[2] if match[2] is not None else match[3]
            otherwise = (match[6], tuple(match[7].split("."))) if match[6] else None
            return cls(
                "split",
                value,
                (tuple(match[1].split(".")), separator, int(match[4]), match[5], otherwise),
            )
        return None


@functools.lru_cache(maxsize=256)
def _template(value: str) -> Template | None:
    return Template.parse(value)


def target_of(template: Template, doc: dict, has_choices: bool) -> Any:
    """What lm-eval's doc_to_target gives for `doc`: a value, None (the harness would have failed on this doc),
    or UNTRACEABLE."""
    if template.kind == "value":
        return template.text if isinstance(template.text, int) else UNTRACEABLE
    if (
        template.kind == "letters"
    ):  # a doc_to_choice function written as a doc_to_target: not evaluated
        return UNTRACEABLE
    if template.kind == "name":
        name = template.text
        return doc[name] if name in doc else _typed(name, has_choices)
    if template.kind == "split":
        return _split_target(template.parts, doc, has_choices)
    if template.kind in ("fields", "unless"):
        parts = template.parts
        path = parts[0] if template.kind == "fields" or parts[1] not in doc else parts[2]
        value = _lookup(doc, path)
        if (
            value is UNTRACEABLE or value is _MISSING
        ):  # StrictUndefined: the harness fails on a missing field
            return None if value is _MISSING else UNTRACEABLE
        if template.kind == "fields" and parts[1] == "int":
            value = _jinja_int(value)
        return value if value is UNTRACEABLE else _typed(_render(value), has_choices)
    listed, item = _lookup(doc, template.parts[0]), _lookup(doc, template.parts[1])
    if listed is UNTRACEABLE or item is UNTRACEABLE:
        return UNTRACEABLE
    if (
        template.parts[2] and item is not _MISSING
    ):  # openbookqa's answerKey.lstrip(): a string's method
        item = getattr(item, template.parts[2][1:-2])() if type(item) is str else UNTRACEABLE
        if item is UNTRACEABLE:
            return item
    if not isinstance(listed, (list, str)) or item is _MISSING or listed is _MISSING:
        return None
    try:
        position = listed.index(item)
    except (ValueError, TypeError):
        return None
    return _typed(str(position), has_choices)


def _split_target(parts: tuple, doc: dict, has_choices: bool) -> Any:
    """{{ a.split(s)[i].strip() [if b is defined else c] }} for `doc` (Template.parse's "split" parts)."""
    path, separator, index, strip, otherwise = parts
    if (
        otherwise is not None and otherwise[0] not in doc
    ):  # `b is defined`: a name of the doc (lm-eval: **doc)
        value = _lookup(doc, otherwise[1])
        return (
            None
            if value is _MISSING
            else value
            if value is UNTRACEABLE
            else _typed(_render(value), has_choices)
        )
    value = _lookup(doc, path)
    if value is _MISSING or value is UNTRACEABLE:
        return None if value is _MISSING else value
    if type(value) is not str:
        return UNTRACEABLE  # Jinja would look for another type's split attribute
    if not separator:
        return None  # str.split("") raises: the harness failed on this doc
    # At most |i| + 1 parts are cut (a submitter's long field with many separators costs no list of them all)
    if index >= 0:
        pieces = value.split(separator, index + 1)
        part = pieces[index] if index < len(pieces) else None
    else:
        part = _part_from_end(value, separator, -index)
    if part is None:
        return None  # no such part: Jinja's undefined, which StrictUndefined refuses to render
    if strip:
        part = getattr(part, strip[1:-2])()
    return _typed(part, has_choices)


def _part_from_end(value: str, separator: str, back: int) -> str | None:
    """value.split(separator)[-back], or None where there is no such part, keeping only the last separators.
    Not rsplit: separators that can overlap ("##" in "###") are found from the left by split, from the right
    by rsplit, which then cuts other parts (a property test found it)."""
    last: collections.deque[int] = collections.deque(
        maxlen=back
    )  # where the last `back` separators start
    found, at = 0, value.find(separator)
    while at >= 0:
        last.append(at)
        found += 1
        at = value.find(separator, at + len(separator))
    part = found + 1 - back  # the part's number from the left, 0 first
    if part < 0:
        return None
    first_kept = found - len(last) + 1  # the number (1 first) of the earliest separator kept
    start = 0 if part == 0 else last[part - first_kept] + len(separator)
    end = len(value) if part == found else last[part + 1 - first_kept]
    return value[start:end]


def choices_of(template: Template, doc: dict) -> list | None | Any:
    """What lm-eval's doc_to_choice gives for `doc`: a list, None (the harness would have failed), or
    UNTRACEABLE."""
    if template.kind == "value":
        choices = template.text
        return (
            list(choices.values())
            if isinstance(choices, dict)
            else choices
            if isinstance(choices, list)
            else UNTRACEABLE
        )
    if template.kind == "name":
        if template.text not in doc:
            return None  # literal_eval of a bare name fails
        value = doc[template.text]
        return value if _plain_list(value) else UNTRACEABLE
    if template.kind == "fields":
        if template.parts[1]:  # a filtered value is no list of choices lm-eval would read back
            return UNTRACEABLE
        value = _lookup(doc, template.parts[0])
        if value is UNTRACEABLE:
            return UNTRACEABLE
        if _plain_list(value):
            return value  # rendered as its repr and read back with literal_eval: the same list
        if not isinstance(value, str):
            return None if value is _MISSING else UNTRACEABLE
        if len(value) > MAX_LITERAL:
            return UNTRACEABLE
        read = (
            _literal_list(value) if len(value) <= MAX_CACHED else _literal_list.__wrapped__(value)
        )
        return read if read is UNTRACEABLE else (list(read) if read is not None else None)
    if template.kind == "letters":
        return _letters(doc.get(template.parts[0], _MISSING))
    return UNTRACEABLE


def _letters(options: Any) -> list | None | Any:
    """MMLU-Pro's [string.ascii_uppercase[i] for i in range(len(doc["options"]))]: None where it fails (no
    options, more than 26), UNTRACEABLE for options that are not a list (len() of another value)."""
    if options is _MISSING:
        return None
    if type(options) is not list:
        return UNTRACEABLE
    return list(LETTERS[: len(options)]) if len(options) <= len(LETTERS) else None


def _lookup(doc: dict, path: tuple[str, ...]) -> Any:
    """Jinja's a.b.c on JSON values: _MISSING when a field is absent, UNTRACEABLE where Jinja would find an
    attribute of the value instead (a dict's own methods, a string's)."""
    value: Any = doc
    for part in path:
        if not isinstance(value, dict) or part in DICT_METHODS:
            return UNTRACEABLE if value is not _MISSING else _MISSING
        value = value.get(part, _MISSING)
    return value


def _jinja_int(value: Any) -> int | Any:
    """Jinja's int filter on a JSON value: int() of a number or a string (of a float's text, truncated), 0 where
    both fail (its default); UNTRACEABLE for other values."""
    if type(value) is int:
        return value
    if type(value) is float:
        return int(value) if math.isfinite(value) else 0
    if type(value) is not str or len(value) > 64:
        return UNTRACEABLE
    try:
        return int(value)
    except ValueError:
        try:
            number = float(value)
        except ValueError:
            return 0
        return int(number) if math.isfinite(number) else 0


def _render(value: Any) -> str:
    """A value as Jinja prints it: str()."""
    return value if isinstance(value, str) else str(value)


def _typed(rendered: str, has_choices: bool) -> Any:
    """lm-eval: a rendered target of digits is a number for a task with choices; a rendered list is a list."""
    if rendered.isdigit():
        if (
            len(rendered) > 4300 and has_choices
        ):  # int() refuses more digits: the harness failed on this doc
            return None
        return (
            int(rendered)
            if rendered.isascii() and has_choices
            else rendered
            if rendered.isascii()
            else UNTRACEABLE
        )
    if len(rendered) >= 2 and rendered[0] == "[" and rendered[-1] == "]":
        if has_choices or len(rendered) > MAX_LITERAL:
            return UNTRACEABLE  # several golds of a choice task: not traced
        # Several answers (TriviaQA's aliases): lm-eval reads them back with literal_eval, or keeps the text
        read = (
            _literal_list(rendered)
            if len(rendered) <= MAX_CACHED
            else _literal_list.__wrapped__(rendered)
        )
        if read is None:
            return rendered
        return (
            list(read)
            if read is not UNTRACEABLE and all(type(item) is str for item in read)
            else UNTRACEABLE
        )
    return rendered


_PLAIN = frozenset((str, int, float))


def _plain_list(value: Any) -> bool:
    # every item's type looked up in C: this runs once per multiple-choice sample
    return type(value) is list and _PLAIN.issuperset(map(type, value))


@functools.lru_cache(
    maxsize=4096
)  # MuSR keeps its choices as a string; every model meets the same docs
def _literal_list(text: str) -> tuple | Any:
    """ast.literal_eval of a rendered list of choices; None when it is none (the harness would have failed)."""
    try:
        value = ast.literal_eval(text)
    except Exception:  # noqa: BLE001 - a submitter's string: any failure is "no list", never a crash
        return None
    if isinstance(value, (list, tuple)) and all(type(item) in (str, int, float) for item in value):
        return tuple(value)
    return UNTRACEABLE if isinstance(value, (list, tuple)) else None
