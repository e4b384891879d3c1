"""Small helpers of the DROP scorer (harness/drop.py): a bounded cache, the trailing-number match, decimal golds.

The gold answers are read as lm-eval's lm_eval/tasks/drop/utils.py reads them (harness commit b281b09
to 0.4.13: get_answers, parse_answer); the cache and the trailing-number match serve drop_flags.py.
"""

from __future__ import annotations

import re
from collections import OrderedDict

_REVERSED_TRAILING_NUMBER = re.compile(r"\d[\d,]*")
_DECIMAL = re.compile(r"^-?(\d+)\.\d+$")


class BoundedCache(OrderedDict):
    """A dict that holds at most `entries` items: the oldest goes first. Looked up with .get, filled with .keep.

    An OrderedDict: evicting a plain dict's first key scans past every key deleted before it.
    """

    def __init__(self, entries: int):
        super().__init__()
        self.entries = entries

    def keep(self, key, value) -> None:
        if len(self) >= self.entries:
            self.popitem(last=False)
        self[key] = value


def trailing_number(text: str) -> str | None:
    """What re.search(r"([\\d,]*\\d)$") finds, matched forwards on the reversed text.

    The search retries from every start of a long run of digits and commas
    that does not end the text: quadratic in the run. Anchored at the start
    of the reversed text, a greedy match is one linear pass.
    """
    if text.endswith("\n"):  # `$` also matches before a final newline
        text = text[:-1]
    if not text[
        -1:
    ].isdecimal():  # \d is a decimal digit: most predictions end otherwise, and are not reversed
        return None
    match = _REVERSED_TRAILING_NUMBER.match(text[::-1])
    return match.group()[::-1] if match else None


def ends_in_a_fraction(text: str) -> bool:
    """Whether the digits (and commas) text ends with follow a '.': the fraction of a decimal written in full
    (" 1.1"). The '.' stop leaves no '.' in a prediction, so such a number was not cut by it: a prediction
    that holds one ran past its stop, which LB720 reports. The deep dive's D reads only the final digit run, and
    would take the "1" of " 1.1" for the integer part of the gold 1.1."""
    trailing = trailing_number(text)
    return trailing is not None and text.removesuffix("\n")[: -len(trailing)].endswith(".")


def decimal_spans(gold: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(integer part, stripped span) of each span of a gold answer that is a decimal number ("1,012.5" -> "1012")."""
    if (
        len(gold) == 1 and "." not in gold[0]
    ):  # most golds: one span, and no decimal without a point
        return ()
    decimals = ((_DECIMAL.match(span.strip().replace(",", "")), span.strip()) for span in gold)
    return tuple((match.group(1), span) for match, span in decimals if match)


def answers_of(doc: dict) -> list[tuple[str, ...]] | None:
    """doc["answers"] as lm-eval's DROP process_docs builds it from doc["answer"] and doc["validated_answers"]
    (lm_eval/tasks/drop/utils.py get_answers: each parsed, duplicates dropped, in order); None when the doc does
    not hold both in the dataset's shape (another dataset, or the fields taken out). Runs once per DROP sample."""
    answer, validated = doc.get("answer"), doc.get("validated_answers")
    if type(answer) is not dict or type(validated) is not dict:
        return None
    numbers, dates, spans = validated.get("number"), validated.get("date"), validated.get("spans")
    if not (
        type(numbers) is list
        and type(dates) is list
        and type(spans) is list
        and len(dates) >= len(numbers)
        and len(spans) >= len(numbers)
    ):  # the harness indexes by number
        return None
    first = _parsed_answer(answer.get("number"), answer.get("spans"), answer.get("date"))
    if first is None:
        return None
    answers, seen = (
        [first],
        {first},
    )  # a set beside the list: `in` on the list alone made 140,000 golds take minutes
    for number, date, span in zip(numbers, dates, spans, strict=False):
        parsed = _parsed_answer(number, span, date)
        if parsed is None:
            return None
        if parsed not in seen:
            seen.add(parsed)
            answers.append(parsed)
    return answers


def _parsed_answer(number, spans, date) -> tuple[str, ...] | None:
    """The harness's parse_answer: the number, else the spans, else "day month year" stripped."""
    if type(number) is not str or type(spans) is not list:
        return None
    if number != "":
        return (number,)
    if spans:
        for span in spans:
            if type(span) is not str:
                return None
        return tuple(spans)
    if type(date) is not dict:
        return None
    day, month, year = date.get("day"), date.get("month"), date.get("year")
    if type(day) is not str or type(month) is not str or type(year) is not str:
        return None
    return (" ".join([day, month, year]).strip(),)
