"""IFEval's checkers' kwargs: which ones each checker draws at random, and which it refuses. Pure: no I/O.

lm-eval's IFEval (tasks/ifeval/instructions.py, 0.4.1 to 0.4.13) builds each
checker from `{k: v for k, v in kwargs.items() if v}`: a kwarg it needs that
is dropped (null or falsy) is drawn at random, anew for strict and for loose;
one it does not take, a relation it does not know, or a count that is not a
number makes the build fail, so no run logs such a doc.
"""

from __future__ import annotations

from typing import Any

RELATIONS = ("less than", "at least")

# The kwargs each checker draws at random when they are dropped (falsy), or a count when it is negative.
DRAWN_UNLESS_GIVEN = {
    "keywords:existence": ("keywords",),
    "keywords:frequency": ("keyword", "frequency", "relation"),
    "keywords:forbidden_words": ("forbidden_words",),
    "keywords:letter_frequency": ("letter", "let_frequency", "let_relation"),
    "language:response_language": ("language",),
    "length_constraints:number_sentences": ("num_sentences", "relation"),
    "length_constraints:number_paragraphs": ("num_paragraphs",),
    "length_constraints:number_words": ("num_words", "relation"),
    "length_constraints:nth_paragraph_first_word": (
        "num_paragraphs",
        "nth_paragraph",
        "first_word",
    ),
    "detectable_content:number_placeholders": ("num_placeholders",),
    "detectable_content:postscript": ("postscript_marker",),
    "detectable_format:number_bullet_lists": ("num_bullets",),
    "detectable_format:number_highlighted_sections": ("num_highlights",),
    "detectable_format:multiple_sections": ("section_spliter", "num_sections"),
    "startend:end_checker": ("end_phrase",),
    "change_case:capital_word_frequency": ("capital_frequency", "capital_relation"),
}
# What each checker's build_description takes: any other truthy kwarg is a TypeError.
PARAMETERS = {
    **DRAWN_UNLESS_GIVEN,
    "combination:repeat_prompt": ("prompt_to_repeat",),
    **dict.fromkeys(
        (
            "detectable_format:constrained_response",
            "detectable_format:json_format",
            "detectable_format:title",
            "combination:two_responses",
            "change_case:english_capital",
            "change_case:english_lowercase",
            "punctuation:no_comma",
            "startend:quotation",
        ),
        (),
    ),
}
_RELATIONS = frozenset({"relation", "let_relation", "capital_relation"})
_COMPARED_WHEN_BUILT = frozenset(
    {
        "num_placeholders",
        "num_bullets",
        "num_highlights",
        "num_sections",
        "num_paragraphs",
        "nth_paragraph",
        "frequency",
        "let_frequency",
        "num_words",
        "num_sentences",
    }
)
_TEXT_KWARGS = frozenset(
    {
        "keywords",
        "keyword",
        "relation",
        "forbidden_words",
        "letter",
        "let_relation",
        "language",
        "first_word",
        "postscript_marker",
        "section_spliter",
        "end_phrase",
        "capital_relation",
    }
)


def draws_at_random(instruction: str, kwargs: Any) -> bool:
    """Whether the harness's checker for these kwargs is drawn anew each time it is built (strict and loose
    build their own): a kwarg it needs dropped as falsy, a negative count, an nth paragraph out of range, a
    letter that is not one. Kwargs it would fail on count as drawn too: nothing can be said of them."""
    if not isinstance(instruction, str):
        return True
    given = (
        {key: value for key, value in kwargs.items() if value} if isinstance(kwargs, dict) else {}
    )
    for key in DRAWN_UNLESS_GIVEN.get(instruction, ()):
        value = given.get(key)
        if key in _TEXT_KWARGS:
            if not isinstance(value, (str, list)):
                return True
        elif not isinstance(value, (int, float)) or value < 0:  # bool is an int
            return True
    if instruction == "length_constraints:nth_paragraph_first_word":
        return not 0 < given["nth_paragraph"] <= given["num_paragraphs"]
    if instruction == "keywords:letter_frequency":
        letter = given["letter"]
        return not (isinstance(letter, str) and len(letter) == 1 and "a" <= letter.lower() <= "z")
    return False


def rejected(instruction: str, kwargs: Any) -> str | None:
    """Why the harness fails to build this instruction's checker from these kwargs (so no run logged it), or
    None: an entry that is not a dict, a kwarg the checker does not take, a relation it does not know, a count
    that is not a number, a repeat_prompt without its prompt."""
    if not isinstance(instruction, str) or instruction not in PARAMETERS:
        return None  # the registry's KeyError: told by the caller, which knows the id
    if not isinstance(kwargs, dict):
        return "its kwargs entry is not an object (the harness calls .items() on it)"
    given = {key: value for key, value in kwargs.items() if value}
    taken = PARAMETERS[instruction]
    for key, value in given.items():
        if key not in taken:
            return f"the checker takes no kwarg {key!r} (a TypeError)"
        if key in _RELATIONS and value not in RELATIONS:
            return f"{key} is {value!r}, not 'less than' or 'at least' (a ValueError)"
        if key in _COMPARED_WHEN_BUILT and type(value) not in (int, float, bool):
            return f"{key} is {type(value).__name__}, not a number (a TypeError when compared)"
    if taken == ("prompt_to_repeat",) and "prompt_to_repeat" not in given:
        return "it has no prompt_to_repeat (a ValueError)"
    return None
