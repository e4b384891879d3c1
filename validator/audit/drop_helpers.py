"""Small helpers of the DROP scorer (audit/drop.py): a bounded cache, the trailing-number match, decimal golds."""

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
    if not text[-1:].isdecimal():  # \d is a decimal digit: most predictions end otherwise, and are not reversed
        return None
    match = _REVERSED_TRAILING_NUMBER.match(text[::-1])
    return match.group()[::-1] if match else None


def decimal_spans(gold: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(integer part, stripped span) of each span of a gold answer that is a decimal number ("1,012.5" -> "1012")."""
    decimals = ((_DECIMAL.match(span.strip().replace(",", "")), span.strip()) for span in gold)
    return tuple((match.group(1), span) for match, span in decimals if match)


def answers_of(doc: dict) -> list[tuple[str, ...]] | None:
    """doc["answers"] as lm-eval's DROP process_docs builds it from doc["answer"] and doc["validated_answers"]
    (lm_eval/tasks/drop/utils.py get_answers: each parsed, duplicates dropped, in order); None when the doc does
    not hold both in the dataset's shape (another dataset, or the fields taken out)."""
    answer, validated = doc.get("answer"), doc.get("validated_answers")
    if not isinstance(validated, dict):
        return None
    numbers, dates, spans = validated.get("number"), validated.get("date"), validated.get("spans")
    if not (isinstance(numbers, list) and isinstance(dates, list) and isinstance(spans, list)
            and len(dates) >= len(numbers) and len(spans) >= len(numbers)):  # the harness indexes by number
        return None
    answers: list[tuple[str, ...]] = []
    for candidate in [answer, *({"number": n, "date": d, "spans": s} for n, d, s in zip(numbers, dates, spans))]:
        parsed = _parsed_answer(candidate)
        if parsed is None:
            return None
        if parsed not in answers:
            answers.append(parsed)
    return answers


def _parsed_answer(answer) -> tuple[str, ...] | None:
    """The harness's parse_answer: the number, else the spans, else "day month year" stripped."""
    if not isinstance(answer, dict):
        return None
    number, spans, date = answer.get("number"), answer.get("spans"), answer.get("date")
    if not isinstance(number, str) or not isinstance(spans, list):
        return None
    if number != "":
        return (number,)
    if spans:
        return tuple(spans) if all(isinstance(span, str) for span in spans) else None
    if not isinstance(date, dict) or not all(isinstance(date.get(k), str) for k in ("day", "month", "year")):
        return None
    return (" ".join([date["day"], date["month"], date["year"]]).strip(),)
