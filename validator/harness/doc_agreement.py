"""Fields of one doc that encode the same gold, choices or id, held to each other. Pure.

A benchmark's doc often says its gold twice: MMLU-Pro's `answer` letter and its
`answer_index`, MuSR's `answer_index` into `choices` and its `answer_choice`,
GPQA's `answer` letter and its `Correct Answer` text, HellaSwag's `label` and
`gold`, ARC's `answerKey` among `choices.label`. The harness scores one of
them; a submitter who moves it to the model's answer leaves the other saying
otherwise. A profile declares which fields agree (`doc_fields_agree`, by one
of RELATIONS); `disagreement` says how two of them differ, or None.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_LITERAL = 100_000  # characters of a list written as text (MuSR's choices) parsed here
_MISSING = object()


def _field(doc: dict, path: str) -> Any:
    """doc[a][b] for the path "a.b"; a name with a dot of its own is looked up whole first."""
    if path in doc:
        return doc[path]
    value: Any = doc
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _index(value: Any) -> int | None:
    return value if type(value) is int else None


def _as_list(value: Any) -> list | None:
    """A list, or one written as Python text (MuSR logs `choices` as "['a', 'b']"), as the harness reads it."""
    if isinstance(value, list):
        return value
    if isinstance(value, str) and len(value) <= MAX_LITERAL:
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
            return None
        return parsed if isinstance(parsed, list) else None
    return None


def gpqa_text(text: Any) -> Any:
    """lm-eval's leaderboard GPQA preprocess: strip, ' [title]' to '. ', each '[...]' on a line removed, double
    spaces made single (re.sub(r"\\[.*?\\]", "", ...) written as a scan, in linear time)."""
    if not isinstance(text, str):
        return " " if text is None else text
    text = text.strip().replace(" [title]", ". ")
    kept, at = [], 0
    while (opening := text.find("[", at)) >= 0:
        line_end = text.find("\n", opening)
        closing = text.find("]", opening + 1, len(text) if line_end < 0 else line_end)
        if closing < 0:
            if line_end < 0:
                break
            kept.append(text[at : line_end + 1])
            at = line_end + 1
            continue
        kept.append(text[at:opening])
        at = closing + 1
    kept.append(text[at:])
    return "".join(kept).replace("  ", " ")


def _letter_of_index(letter: Any, index: Any) -> bool:
    position = _index(index)
    return position is not None and 0 <= position < len(LETTERS) and letter == LETTERS[position]


def _same_number(first: Any, second: Any) -> bool:
    def number(value: Any) -> int | None:
        if type(value) is int:
            return value
        if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 20:
            return int(value)
        return None

    return number(first) is not None and number(first) == number(second)


# A list the harness could not read either (no Python literal) is no evidence here: the run failed on it.
def _index_within(index: Any, items: Any) -> bool:
    position, listed = _index(index), _as_list(items)
    return listed is None or (position is not None and 0 <= position < len(listed))


def _item_at_index(items: Any, index: Any, value: Any) -> bool:
    position, listed = _index(index), _as_list(items)
    if listed is None:
        return True
    return position is not None and 0 <= position < len(listed) and listed[position] == value


def _member_of(value: Any, items: Any) -> bool:
    listed = _as_list(items)
    return listed is None or value in listed


def _choice_of_letter(letter: Any, value: Any, *choices: Any) -> bool:
    """GPQA: the choice its `answer` names ("(B)", or "B") is its Correct Answer, preprocessed as the harness
    builds its choices."""
    if not isinstance(letter, str):
        return False
    bare = letter.strip().removeprefix("(").removesuffix(")")
    if len(bare) != 1 or bare not in LETTERS[: len(choices)]:
        return False
    return choices[LETTERS.index(bare)] == gpqa_text(value)


# relation -> (how many fields it relates, whether they agree, how a message says they do not)
RELATIONS: dict[str, tuple[int, Callable[..., bool], str]] = {
    "letter-of-index": (2, _letter_of_index, "is not the letter of"),
    "same-number": (2, _same_number, "is not the number of"),
    "index-within": (2, _index_within, "is no index into"),
    "item-at-index": (3, _item_at_index, "at the index of the second is not the third,"),
    "member-of": (2, _member_of, "is not among"),
    "choice-of-letter": (3, _choice_of_letter, "names a choice other than"),
}


def disagreement(relation: str, fields: tuple[str, ...], doc: dict) -> tuple[str, str] | None:
    """(the field named first, how it differs from the second) where the doc's fields do not agree by the
    relation; None where they agree or the doc lacks one of them (the harness's own docs hold them all)."""
    _arity, agrees, how = RELATIONS[relation]
    values = [_field(doc, name) for name in fields]
    if any(value is _MISSING for value in values):
        return None
    if agrees(*values):
        return None
    return fields[0], f"{how} {fields[1]!r}"
