"""IFEval's instruction checkers, replayed where they decide the same way every time. Pure: no I/O.

lm-eval's IFEval (tasks/ifeval and tasks/leaderboard/ifeval: instructions.py,
instructions_registry.py, utils.py, the same code from 0.4.0 to 0.4.13) builds
one checker per instruction of a doc from `{k: v for k, v in kwargs.items() if
v}` and logs, per instruction, whether the response follows it: strict on the
response itself, loose on any of eight variants (first and/or last line
removed, asterisks removed). A submitter who flips an outcome, with the
prompt level and the aggregates redone, agrees with everything else in the
files; the response still says otherwise.

`replay` gives (strict, loose) as the harness would, or None for either when
the harness's own answer is not settled by the doc and the response:
- the checker draws what a kwarg leaves out at random (a falsy or missing
  kwarg), or would raise on the doc's kwargs (a wrong type, an unknown relation);
- it asks langdetect (unseeded: language:response_language, and
  change_case:english_capital/english_lowercase once their case test passes;
  a failed case test settles them) or nltk's punkt data
  (length_constraints:number_sentences, change_case:capital_word_frequency);
- a kwarg the harness reads as a regular expression (keywords, a section
  splitter, a postscript marker) is longer than PATTERN_MAX (PAST_LENGTH), does
  not compile (HARNESS_RAISES: the harness raised on it, so no run logged the
  outcome), or holds what RE2 cannot run as `re` does (a back-reference, a
  look-around: linear_regex.NotLinear names it). Every such pattern runs under
  RE2 (linear_regex.py), in time linear in the response, whatever the
  submitter wrote. A list of more than MAX_WORDS words is not replayed at all
  (PAST_WORDS). replay_explained gives each of these reasons; the others
  (langdetect, punkt, a kwarg drawn at random) come without one.
A caller bounds the work with `spend`, told of every read of a response before
it is done (the checker's own, each pattern's, each loose variant's), in
characters; past what it grants, the outcome is unsettled, for PAST_BUDGET.
The harness's own patterns that backtrack without bound on some texts (bullet
lines, titles, placeholders: quadratic in a run of blank lines or brackets) are
counted by ifeval_patterns.py in linear time; tests/unit/test_ifeval.py holds the
replay to outcomes recorded from lm-eval 0.4.9.2's checkers.

A character's Unicode class (`\\w`, lower case) is this Python's: a Python
with an older Unicode table may differ on a character assigned since.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .ifeval_kwargs import RELATIONS, draws_at_random, rejected  # noqa: F401 (callers take them from here)
from .ifeval_patterns import bullet_count, divider_parts, placeholder_count, titles, word_count
from .ifeval_reads import (  # noqa: F401 (callers take them from here)
    HARNESS_RAISES,
    PAST_BUDGET,
    PAST_LENGTH,
    PATTERN_MAX,
    unbounded,
)
from .ifeval_reads import Unsettled as _Unsettled
from .ifeval_reads import pattern as _pattern
from .ifeval_reads import read as _read
from .ifeval_reads import read_items as _read_items
from .ifeval_reads import read_lines as _read_lines
from .ifeval_reads import run as _run
from .literal_patterns import known_marker
from .lowered import count_lowered, ends_lowered, starts_lowered
from .read_budget import READS

CONSTRAINED_RESPONSES = ("My answer is yes.", "My answer is no.", "My answer is maybe.")
MAX_WORDS = 16  # keywords or forbidden words replayed per instruction (a dataset's list a few)
PAST_WORDS = f"a list of over {MAX_WORDS} words, more than the replay searches"
BEYOND_BOUNDS = frozenset({PAST_LENGTH, PAST_WORDS})  # the replay's own limits, not the harness's
_HIGHLIGHT = re.compile(r"\*[^\n\*]*\*")
_DOUBLE_HIGHLIGHT = re.compile(r"\*\*[^\n\*]*\*\*")
_POSTSCRIPTS = {"P.P.S": r"\s*p\.\s?p\.\s?s.*$", "P.S.": r"\s*p\.\s?s\..*$"}

Check = Callable[[dict, str], Any]


def replay(instruction: str, kwargs: Any, response: str) -> tuple[bool | None, bool | None]:
    """(strict, loose) outcome of one instruction, as the harness's test_instruction_following_* give them, each
    None where it is not settled (see the module's docstring)."""
    return replay_explained(instruction, kwargs, response)[0]


def replay_explained(
    instruction: str, kwargs: Any, response: str, spend: Callable[[int], bool] = unbounded
) -> tuple[tuple[bool | None, bool | None], str | None]:
    """replay's outcomes, and why one is unsettled where the reason is the replay's own: the feature RE2
    cannot run (linear_regex.NotLinear), or PAST_BUDGET where `spend` refused a read."""
    check = CHECKS.get(instruction) if isinstance(instruction, str) else None
    if check is None or not isinstance(kwargs, dict) or not isinstance(response, str):
        return (None, None), None
    given = {key: value for key, value in kwargs.items() if value}
    reasons: list[str] = []
    token = READS.set(spend)  # `with reading(spend)` without its object: once an instruction
    try:
        strict = _strict(check, given, response, reasons)
        loose = True if strict else _loose(check, given, response, strict, reasons)
    finally:
        READS.reset(token)
    return (strict, loose), PAST_BUDGET if PAST_BUDGET in reasons else next(iter(reasons), None)


def _loose(
    check: Check, given: dict, response: str, strict: bool | None, reasons: list[str]
) -> bool | None:
    """Whether any of the eight loose responses follows (the first is the response itself, checked already). Each
    text is checked once: a checker gives one text one answer, and a reply without asterisks or of one line
    has only a few distinct variants (the harness checks the same text again; any() is the same)."""
    unsettled = strict is None
    try:
        _read(response, 8)  # the eight variants, made before any is checked
    except _Unsettled as past:
        reasons.extend(past.args)
        return None
    checked = [response]  # compared, not hashed: hashing reads each new text whole
    for variant in _loose_variants(response)[1:]:
        if variant not in checked:
            checked.append(variant)
            followed = _strict(check, given, variant, reasons)
            if followed:
                return True
            unsettled = unsettled or followed is None
    return None if unsettled else False


def _strict(check: Check, given: dict, response: str, reasons: list[str]) -> bool | None:
    try:
        _read(response)  # the checker's own reads: a few scans of the response, each linear
        # first, as the harness builds the checker before it reads the response
        followed = check(given, response)
    except _Unsettled as unsettled:
        reasons.extend(unsettled.args[:1])
        return None
    return followed if response.strip() else False


def _loose_variants(response: str) -> list[str]:
    """utils.test_instruction_following_loose's eight responses, in its order; its lines joined without the
    first, the last or both are the text past the first line break, before the last, or between (else none)."""
    start, end = response.find("\n"), response.rfind("\n")
    first = response[start + 1 :].strip() if start >= 0 else ""
    last = response[:end].strip() if end >= 0 else ""
    both = response[start + 1 : end].strip() if start < end else ""
    return [
        response,
        response.replace("*", ""),
        first,
        last,
        both,
        first.replace("*", ""),
        last.replace("*", ""),
        both.replace("*", ""),
    ]


def _count(given: dict, key: str) -> int | float:
    value = given.get(key)  # a falsy one was dropped: the harness draws it at random
    if not isinstance(value, (int, float)) or value < 0:  # bool is an int, kept as 1
        raise _Unsettled  # a negative one is drawn at random too; a string would raise (True is kept, as 1)
    return value


def _text(given: dict, key: str) -> str:
    value = given.get(key)
    if not isinstance(value, str):
        raise _Unsettled
    _read(value)  # a doc's kwarg is as long as its log line lets it be
    return value


def _relation(given: dict, key: str = "relation") -> str:
    relation = given.get(key)
    if relation not in RELATIONS:
        raise _Unsettled  # missing: drawn at random; anything else: ValueError
    return relation


def _compare(actual: int, relation: str, threshold: int | float) -> bool:
    return actual < threshold if relation == RELATIONS[0] else actual >= threshold


def _words(given: dict, key: str) -> list[str]:
    words = given.get(key)
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise _Unsettled
    if len(words) > MAX_WORDS:
        raise _Unsettled(PAST_WORDS)
    return sorted(set(words))  # the harness's order (sorted, the forbidden words deduplicated)


# --- the checkers, in instructions.py's order; each takes the kept kwargs and one response --------------


def _number_placeholders(given: dict, value: str) -> bool:
    _read_items(value.count("["))  # a turn of placeholder_count's loop for each '['
    return placeholder_count(value) >= _count(given, "num_placeholders")


def _number_bullet_lists(given: dict, value: str) -> bool:
    _read_lines(value, 2)  # each kind of bullet, looked for at the head of each line
    return bullet_count(value) == _count(given, "num_bullets")


def _constrained_response(given: dict, value: str) -> bool:
    value = value.strip()
    return any(option in value for option in CONSTRAINED_RESPONSES)


def _number_highlighted_sections(given: dict, value: str) -> bool:
    # two patterns' findall, each tried at every '*' (a reply of asterisks: about 15 ns a character each)
    _read(value, 2)
    wanted = _count(given, "num_highlights")
    found = sum(1 for h in _HIGHLIGHT.findall(value) if h.strip("*").strip())
    found += sum(
        1
        for h in _DOUBLE_HIGHLIGHT.findall(value)
        if h.removeprefix("**").removesuffix("**").strip()
    )
    return found >= wanted


def _multiple_sections(given: dict, value: str) -> bool:
    splitter = _pattern(_text(given, "section_spliter").strip(), r"\s?", r"\s?\d+\s?")
    wanted = _count(given, "num_sections")
    return _run(splitter, "split_count", value) - 1 >= wanted


def _number_paragraphs(given: dict, value: str) -> bool:
    wanted = _count(given, "num_paragraphs")
    paragraphs = divider_parts(value)  # how many, and whether each is blank
    found = len(paragraphs)
    for index, paragraph in enumerate(paragraphs):
        if not paragraph.strip():
            if index in (0, len(paragraphs) - 1):
                found -= 1
            else:
                return False
    return found == wanted


def _postscript(given: dict, value: str) -> bool:
    marker = _text(given, "postscript_marker").strip()
    known = _POSTSCRIPTS.get(marker)
    pattern = (
        known_marker(known) if known else _pattern(marker.lower(), r"\s*", r".*$", re.MULTILINE)
    )
    return _run(
        pattern, "search", value.lower()
    )  # re.findall's list is empty where search finds none


def _keywords_existence(given: dict, value: str) -> bool:
    return all(  # one keyword at a time, as the harness compiles and searches them
        _run(_pattern(word, flags=re.IGNORECASE), "search", value)
        for word in _words(given, "keywords")
    )


def _keyword_frequency(given: dict, value: str) -> bool:
    keyword = _pattern(_text(given, "keyword").strip(), flags=re.IGNORECASE)
    threshold, relation = _count(given, "frequency"), _relation(given)
    return _compare(_run(keyword, "count", value), relation, threshold)


def _number_words(given: dict, value: str) -> bool:
    if not value.isascii():
        # a reply dense with letters beyond ASCII is counted by findall, about 50 ns a character
        _read(value, 32)
    threshold, relation = _count(given, "num_words"), _relation(given)
    return _compare(word_count(value), relation, threshold)  # nltk's RegexpTokenizer(r"\w+")


def _json_format(given: dict, value: str) -> bool:
    _read(value, 16)  # json.loads of many small values: up to about 30 ns a character
    value = value.strip().removeprefix("```json").removeprefix("```Json").removeprefix("```JSON")
    value = value.removeprefix("```").removesuffix("```").strip()
    try:
        json.loads(value)
    except ValueError as error:
        if "integer string conversion" in str(error):
            raise _Unsettled from None  # a limit Python 3.10.7 and 3.11 brought: the run's Python decided
        return False
    except RecursionError:
        raise _Unsettled from None  # the harness's except ValueError lets it through: the run would have stopped
    return True


def _nth_paragraph_first_word(given: dict, value: str) -> bool:
    wanted, nth = _count(given, "num_paragraphs"), _count(given, "nth_paragraph")
    if type(nth) is not int or not 0 < nth <= wanted:
        raise _Unsettled  # drawn at random (a float would raise as a list index)
    first_word = _text(given, "first_word").lower()
    paragraphs = value.split("\n\n")
    found = sum(1 for paragraph in paragraphs if paragraph.strip())
    if nth > found or not (paragraph := paragraphs[nth - 1].strip()):
        return False
    word = paragraph.split(None, 1)[0].strip().lstrip("'").lstrip('"')  # the rest not split
    letters = []
    for letter in word:
        if letter in {".", ",", "?", "!", "'", '"'}:
            break
        letters.append(letter.lower())
    return found == wanted and "".join(letters) == first_word


def _forbidden_words(given: dict, value: str) -> bool:
    return not any(  # one word at a time, as the harness compiles and searches them
        _run(_pattern(word, r"\b", r"\b", re.IGNORECASE), "search", value)
        for word in _words(given, "forbidden_words")
    )


def _two_responses(given: dict, value: str) -> bool:
    kept = []
    parts = value.split("******")
    for index, part in enumerate(parts):
        if part.strip():
            kept.append(part)
        elif index not in (0, len(parts) - 1):
            return False
    return len(kept) == 2 and kept[0].strip() != kept[1].strip()


def _repeat_prompt(given: dict, value: str) -> bool:
    return starts_lowered(value.strip(), _text(given, "prompt_to_repeat").strip().lower())


def _end_checker(given: dict, value: str) -> bool:
    return ends_lowered(value.strip().strip('"'), _text(given, "end_phrase").strip().lower())


def _title(given: dict, value: str) -> bool:
    _read_lines(value)  # each line looked at for its title
    return any(title.lstrip("<").rstrip(">").strip() for title in titles(value))


def _letter_frequency(given: dict, value: str) -> bool:
    letter = given.get("letter")
    lowered = letter.lower() if isinstance(letter, str) and len(letter) == 1 else ""
    if not (len(lowered) == 1 and "a" <= lowered <= "z"):
        raise _Unsettled  # drawn at random (or, for a letter whose lower case is two characters, a TypeError)
    threshold, relation = _count(given, "let_frequency"), _relation(given, "let_relation")
    return _compare(count_lowered(value, lowered), relation, threshold)


def _english_capital(given: dict, value: str) -> bool:
    if not value.isupper():
        return False
    raise _Unsettled  # then langdetect decides


def _english_lowercase(given: dict, value: str) -> bool:
    if not value.islower():
        return False
    raise _Unsettled


def _no_comma(given: dict, value: str) -> bool:
    return "," not in value


def _quotation(given: dict, value: str) -> bool:
    value = value.strip()
    return len(value) > 1 and value[0] == '"' and value[-1] == '"'


def _unsettled(given: dict, value: str) -> bool:
    raise _Unsettled


CHECKS: dict[str, Check] = {
    "keywords:existence": _keywords_existence,
    "keywords:frequency": _keyword_frequency,
    "keywords:forbidden_words": _forbidden_words,
    "keywords:letter_frequency": _letter_frequency,
    "language:response_language": _unsettled,  # langdetect
    "length_constraints:number_sentences": _unsettled,  # nltk's punkt
    "length_constraints:number_paragraphs": _number_paragraphs,
    "length_constraints:number_words": _number_words,
    "length_constraints:nth_paragraph_first_word": _nth_paragraph_first_word,
    "detectable_content:number_placeholders": _number_placeholders,
    "detectable_content:postscript": _postscript,
    "detectable_format:number_bullet_lists": _number_bullet_lists,
    "detectable_format:constrained_response": _constrained_response,
    "detectable_format:number_highlighted_sections": _number_highlighted_sections,
    "detectable_format:multiple_sections": _multiple_sections,
    "detectable_format:json_format": _json_format,
    "detectable_format:title": _title,
    "combination:two_responses": _two_responses,
    "combination:repeat_prompt": _repeat_prompt,
    "startend:end_checker": _end_checker,
    "change_case:capital_word_frequency": _unsettled,  # nltk's word_tokenize
    "change_case:english_capital": _english_capital,
    "change_case:english_lowercase": _english_lowercase,
    "punctuation:no_comma": _no_comma,
    "startend:quotation": _quotation,
}
INSTRUCTIONS = frozenset(
    CHECKS
)  # instructions_registry.INSTRUCTION_DICT's keys: any other id raises KeyError
