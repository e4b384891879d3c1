"""The DROP scorer as lbnorm first wrote it: a line-by-line transcription of the harness, kept as the oracle.

validator/harness/drop.py is the same scorer with the work rearranged for speed
(gold answers normalized once, letters-only tokens never sent to float(),
punctuation removed by str.translate). tests/unit/test_fast_paths.py checks that the
two agree on generated predictions, and tests/unit/test_drop.py checks both against
vectors from the real harness functions. Do not optimize this file.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass, field

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION = frozenset(string.punctuation)
_TOKEN_SEPARATORS = re.compile(" |-")
_REVERSED_TRAILING_NUMBER = re.compile(r"\d[\d,]*")
_DECIMAL = re.compile(r"^-?(\d+)\.\d+$")
_ANY_WHITESPACE = re.compile(r"\s")

Gold = tuple[str, ...]


# --- the harness scorer ------------------------------------------------------------------


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def remove_punctuation(token: str) -> str:
    return token if is_number(token) else "".join(ch for ch in token if ch not in _PUNCTUATION)


def _fix_number(token: str) -> str:
    return str(float(token)) if is_number(token) else token


# Gold spans recur within a sample (scored once per repair) and across runs, and most predictions are
# short: short strings are normalized once. Long ones are not kept, so the cache stays under ~1 MB.
_CACHED_LENGTH = 256


def normalize(answer: str) -> str:
    """The harness's _normalize: per raw token lower, strip punctuation, fix numbers, drop articles, fix spaces."""
    return _normalize_short(answer) if len(answer) <= _CACHED_LENGTH else _normalize(answer)


@functools.lru_cache(maxsize=4096)
def _normalize_short(answer: str) -> str:
    return _normalize(answer)


def _normalize(answer: str) -> str:
    tokens = [
        " ".join(_ARTICLES.sub(" ", _fix_number(remove_punctuation(token.lower()))).split())
        for token in _TOKEN_SEPARATORS.split(answer)
    ]
    return " ".join(token for token in tokens if token.strip()).strip()


def answer_to_bags(
    answer: str | list[str] | tuple[str, ...],
) -> tuple[list[str], list[frozenset[str]]]:
    spans = list(answer) if isinstance(answer, (list, tuple)) else [answer]
    normalized = [normalize(span) for span in spans]
    return normalized, [frozenset(span.split()) for span in normalized]


def _numbers(bag: frozenset[str]) -> set[str]:
    return {word for word in bag if is_number(word)}


def _numbers_match(gold_bag: frozenset[str], predicted_bag: frozenset[str]) -> bool:
    gold_numbers = _numbers(gold_bag)
    return not gold_numbers or bool(gold_numbers & _numbers(predicted_bag))


def _bag_f1(predicted_bag: frozenset[str], gold_bag: frozenset[str]) -> float:
    intersection = len(gold_bag & predicted_bag)
    precision = intersection / float(len(predicted_bag)) if predicted_bag else 1.0
    recall = intersection / float(len(gold_bag)) if gold_bag else 1.0
    if precision == 0.0 and recall == 0.0:
        return 0.0
    return (2 * precision * recall) / (precision + recall)


def align_bags(predicted: list[frozenset[str]], gold: list[frozenset[str]]) -> list[float]:
    """Per gold row, the F1 of its partner in the best one-to-one alignment (zeros padded)."""
    scores = [[_bag_f1(p, g) if _numbers_match(g, p) else 0.0 for p in predicted] for g in gold]
    per_row = [0.0] * max(len(gold), len(predicted))
    for row, column in max_weight_assignment(scores):
        per_row[row] = max(per_row[row], scores[row][column])
    return per_row


def get_metrics(
    predicted: str | list[str] | tuple[str, ...], gold: str | list[str] | tuple[str, ...]
) -> tuple[float, float]:
    """(EM, F1) of one prediction against one gold answer, both a string or a list of spans."""
    return _metrics(answer_to_bags(predicted), answer_to_bags(gold))


Bags = tuple[list[str], list[frozenset[str]]]


def _metrics(predicted: Bags, gold: Bags) -> tuple[float, float]:
    (predicted_spans, predicted_bags), (gold_spans, gold_bags) = predicted, gold
    exact = set(predicted_spans) == set(gold_spans) and len(predicted_spans) == len(gold_spans)
    return (1.0 if exact else 0.0), numpy_round_2(numpy_mean(align_bags(predicted_bags, gold_bags)))


def process_results(golds: list[Gold], prediction: str) -> tuple[float, float]:
    """The per-sample (em, f1): each maximised over golds whose first span is not blank."""
    best_em, best_f1 = 0.0, 0.0
    predicted = answer_to_bags(
        [prediction]
    )  # once, not once per gold: golds x a long prediction was quadratic
    for gold in golds:
        em, f1 = _metrics(predicted, answer_to_bags(gold))
        if gold[0].strip():
            best_em, best_f1 = max(best_em, em), max(best_f1, f1)
    return best_em, best_f1


# --- numpy and scipy, as far as the scorer uses them ------------------------------------
# Not rearranged for speed, so taken from drop.py rather than copied; test_drop.py checks them
# against the harness's vectors directly.
from validator.harness.drop import max_weight_assignment, numpy_mean, numpy_round_2  # noqa: E402,F401

# --- the deep dive's failure modes -------------------------------------------------------


@dataclass
class SampleFlags:
    """What one DROP prediction shows (docs/reference/drop.md): W, D, D' and L, with the evidence."""

    glued: list[str] = field(default_factory=list)  # W: numbers glued to text by \n, \t...
    glued_lost_gold: bool = False  # W-impacting: one of them was a gold number
    decimal_cut: str | None = None  # D: the gold decimal the '.' stop cut
    possibly_cut: bool = False  # D': ends in a digit under a '.' stop, no decimal gold
    long_answer_loss: float | None = None  # L: F1 lost to extra words around a complete gold


def glued_numbers(prediction: str) -> list[str]:
    """W: parts of a token that would be numbers but are glued to other text by non-space whitespace."""
    glued = []
    for token in _TOKEN_SEPARATORS.split(prediction):
        if is_number(token) or not any(ch.isspace() and ch != " " for ch in token):
            continue
        parts = token.split()
        if len(parts) >= 2:
            glued.extend(part for part in parts if is_number(remove_punctuation(part.lower())))
    return glued


def gold_numbers(golds: list[Gold]) -> set[str]:
    return {
        word for gold in golds for bag in answer_to_bags(gold)[1] for word in bag if is_number(word)
    }


def _trailing_number(text: str) -> str | None:
    """What re.search(r"([\\d,]*\\d)$") finds, matched forwards on the reversed text.

    The search retries from every start of a long run of digits and commas
    that does not end the text: quadratic in the run. Anchored at the start
    of the reversed text, a greedy match is one linear pass.
    """
    if text.endswith("\n"):  # `$` also matches before a final newline
        text = text[:-1]
    match = _REVERSED_TRAILING_NUMBER.match(text[::-1])
    return match.group()[::-1] if match else None


def _after_a_point(prediction: str) -> bool:
    """The final digit run follows a '.' (" 1.1"): a decimal written in full, so the '.' stop cut nothing (a
    departure from the deep dive's D, which reads the final digit run alone; docs/audit.md says why)."""
    match = re.search(r"\.[\d,]*\d\n?\Z", prediction)
    return match is not None


def decimal_cut(prediction: str, golds: list[Gold], until: list[str]) -> str | None:
    """D: the gold decimal whose integer part the prediction ends with, under a '.' stop sequence."""
    if "." not in until:
        return None
    trailing = _trailing_number(prediction)
    if trailing is None or _after_a_point(prediction):
        return None
    digits = trailing.replace(",", "")
    for gold in golds:
        for span in gold:
            decimal = _DECIMAL.match(span.strip().replace(",", ""))
            if decimal and decimal.group(1) == digits:
                return span.strip()
    return None


def long_answer_loss(prediction: str, golds: list[Gold], f1: float) -> float | None:
    """L: F1 lost although every token of the best gold span is in the prediction (recall 1, precision < 1)."""
    predicted_bag = answer_to_bags([prediction])[1][0]
    best: float | None = None
    for gold in golds:
        if not gold[0].strip():
            continue
        bags = answer_to_bags(gold)[1]
        if len(bags) > 1 and all(bag and bag <= predicted_bag for bag in bags):
            # every span of a multi-span gold: the words beyond all of them are the extra ones
            union = set().union(*bags)
            extra = set(predicted_bag) - union - {"and", "or"}  # "X and Y" is no long answer
            cut = get_metrics(" ".join(sorted(union)), gold)[1] if extra else f1
            best = max(best or 0.0, cut - f1)
            continue
        for bag in bags:
            if (
                bag and _numbers_match(bag, predicted_bag) and bag < predicted_bag
            ):  # recall 1, precision < 1
                ceiling = 1.0 / max(len(bags), 1)  # one predicted span can match one gold span
                best = max(best or 0.0, ceiling - f1)
    return best if best is not None and best > 0 else None


def flag_sample(prediction: str, golds: list[Gold], until: list[str], f1: float) -> SampleFlags:
    flags = SampleFlags()
    flags.glued = glued_numbers(prediction)
    if flags.glued:
        wanted = gold_numbers(golds)
        flags.glued_lost_gold = any(
            str(float(remove_punctuation(part.lower()))) in wanted for part in flags.glued
        )
    flags.decimal_cut = decimal_cut(prediction, golds, until)
    flags.possibly_cut = (
        flags.decimal_cut is None
        and "." in until
        and bool(prediction)
        and prediction[-1].isdigit()
        and not _after_a_point(prediction)
    )
    flags.long_answer_loss = long_answer_loss(prediction, golds, f1)
    return flags


# --- the blog's diagnostic rescoring -----------------------------------------------------


@dataclass(frozen=True)
class Rescored:
    """The scores a prediction would get under the deep dive's repairs (split at the first newline, whitespace as spaces)."""

    newline: tuple[float, float]  # split at the first "\n", literally (blog)
    newline_lstrip: tuple[float, float]  # leading whitespace stripped first
    whitespace: tuple[float, float]  # every whitespace character made a space


def rescore(
    prediction: str, golds: list[Gold], scored: tuple[float, float] | None = None
) -> Rescored:
    """`scored`: process_results(golds, prediction), when known; a repair that changes nothing is not rescored."""
    # The scorer splits on spaces and drops empty tokens, so spaces at either end never change a score.
    known = {prediction.strip(" "): scored} if scored is not None else {}

    def score(text: str) -> tuple[float, float]:
        key = text.strip(" ")
        if key not in known:
            known[key] = process_results(golds, text)
        return known[key]

    return Rescored(
        newline=score(prediction.split("\n", 1)[0]),
        newline_lstrip=score(prediction.lstrip().split("\n", 1)[0]),
        whitespace=score(_ANY_WHITESPACE.sub(" ", prediction)),
    )


def has_decimal_gold(golds: list[Gold]) -> bool:
    return any(_DECIMAL.match(span.strip().replace(",", "")) for gold in golds for span in gold)
