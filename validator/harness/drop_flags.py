"""The DROP deep dive's failure modes and repairs, per sample: W, D, D' and L, and newline rescoring.

The Open LLM Leaderboard's DROP deep dive (2023) scored lm-eval's DROP
(lm_eval/tasks/drop/utils.py, harness commit b281b09) again with these repairs.
Built on the harness scorer in drop.py (pure: strings in, numbers out). The
flags are those of docs/reference/drop.md: W, a number glued to text by a newline or tab (the
blog's bug); D, a decimal gold cut at its point by the '.' stop; D', a
prediction ending in a digit under that stop; L, a gold answer inside a
longer one. The rescoring is the deep dive's: split at the first newline (the blog's
literal rule, and after stripping leading whitespace), and every whitespace
character made a space. score_sample does all of it for one sample, sharing
the work.
"""

import re
from typing import NamedTuple

from .drop import (
    Bags,
    Gold,
    GoldAnswer,
    bag_f1,
    bag_metrics,
    best_scores,
    gold_answer,
    is_number,
    numbers_in,
    numbers_match,
    numpy_round_2,
    prediction_bags,
    remove_punctuation,
)
from .drop_helpers import ends_in_a_fraction, trailing_number

_ANY_WHITESPACE = re.compile(r"\s")
_WHITESPACE_NOT_SPACE = re.compile(r"[^\S ]")
_JOINERS = frozenset(
    {"and", "or"}
)  # what joins the spans of a multi-span answer (commas are punctuation)

# --- the deep dive's failure modes -------------------------------------------------------


class SampleFlags(NamedTuple):
    """What one DROP prediction shows (docs/reference/drop.md): W, D, D' and L, with the evidence."""

    # W: numbers glued to text by \n, \t... (the default is shared: read, never written)
    glued: list[str] = []
    glued_lost_gold: bool = False  # W-impacting: one of them was a gold number
    decimal_cut: str | None = None  # D: the gold decimal the '.' stop cut
    possibly_cut: bool = False  # D': ends in a digit under a '.' stop, no decimal gold
    long_answer_loss: float | None = None  # L: F1 lost to extra words around a complete gold

    def any(self) -> bool:
        return bool(self.glued or self.decimal_cut or self.possibly_cut or self.long_answer_loss)


def glued_numbers(prediction: str, other_whitespace: bool | None = None) -> list[str]:
    """W: parts of a token that would be numbers but are glued to other text by non-space whitespace.

    `other_whitespace`: whether the prediction holds whitespace other than spaces, when known."""
    if other_whitespace is None:
        other_whitespace = _WHITESPACE_NOT_SPACE.search(prediction) is not None
    if not other_whitespace:  # nothing can be glued: most predictions
        return []
    glued: list[str] = []
    for token in prediction.replace("-", " ").split(" "):
        if is_number(token) or not _WHITESPACE_NOT_SPACE.search(token):
            continue
        parts = token.split()
        if len(parts) >= 2:
            glued.extend(part for part in parts if is_number(remove_punctuation(part.lower())))
    return glued


def gold_numbers(golds: list[Gold]) -> set[str]:
    return _gold_numbers([gold_answer(gold) for gold in golds])


def _gold_numbers(golds: list[GoldAnswer]) -> set[str]:
    return {word for gold in golds for numbers in gold.bags.numbers for word in numbers}


def decimal_cut(prediction: str, golds: list[Gold], until: list[str]) -> str | None:
    """D: the gold decimal whose integer part the prediction ends with, under a '.' stop sequence."""
    return _decimal_cut(prediction, [gold_answer(gold) for gold in golds], until)


def _decimal_cut(prediction: str, golds: list[GoldAnswer], until: list[str]) -> str | None:
    if "." not in until or not _has_decimal(golds):
        return None
    trailing = trailing_number(prediction)
    if trailing is None or ends_in_a_fraction(prediction):
        return None
    digits = trailing.replace(",", "")
    for gold in golds:
        for integer_part, span in gold.decimals:
            if integer_part == digits:
                return span
    return None


def long_answer_loss(prediction: str, golds: list[Gold], f1: float) -> float | None:
    """L: F1 lost although every token of the best gold span is in the prediction (recall 1, precision < 1)."""
    return _long_answer_loss(prediction_bags(prediction), [gold_answer(gold) for gold in golds], f1)


def _long_answer_loss(predicted: Bags, golds: list[GoldAnswer], f1: float) -> float | None:
    (predicted_bag,), (predicted_numbers,) = predicted.bags, predicted.numbers
    if len(predicted_bag) < 2:  # no gold bag can be a non-empty proper subset of it
        return None
    best: float | None = None
    for gold in golds:
        if not gold.scored:
            continue
        bags = gold.bags
        whole = (
            _cut_to_spans(bags.bags, predicted_bag) if len(bags.bags) > 1 else None
        )  # most golds: one span
        if (
            whole is not None
        ):  # every span of a multi-span gold: its words, not one span's, are the answer
            extra = predicted_bag - whole.bags[0]
            loss = (
                bag_metrics(whole, bags)[1] - f1 if extra - _JOINERS else 0.0
            )  # "X and Y" is no long answer
            best = max(best or 0.0, loss)
            continue
        for bag, numbers in zip(bags.bags, bags.numbers, strict=True):
            if (
                bag and numbers_match(numbers, predicted_numbers) and bag < predicted_bag
            ):  # recall 1, precision < 1
                ceiling = 1.0 / max(len(bags.bags), 1)  # one predicted span can match one gold span
                best = max(best or 0.0, ceiling - f1)
    return best if best is not None and best > 0 else None


def _cut_to_spans(gold_bags: list[frozenset[str]], predicted_bag: frozenset[str]) -> Bags | None:
    """A prediction holding every span of a gold of several, cut to those spans' words; else None. The harness
    scores a prediction as one span, so "Tom Brady and Peyton Manning" cannot pass 1/spans against that gold:
    its extra words (L) are those beyond every span, so honest two-span answers carry no L."""
    if len(gold_bags) < 2 or not all(bag and bag <= predicted_bag for bag in gold_bags):
        return None
    words = frozenset().union(*gold_bags)
    span = " ".join(sorted(words))
    return Bags([span], [words], [numbers_in(span, words)])


def flag_sample(prediction: str, golds: list[Gold], until: list[str], f1: float) -> SampleFlags:
    return _flags(
        prediction, [gold_answer(gold) for gold in golds], until, f1, prediction_bags(prediction)
    )


def _flags(
    prediction: str,
    golds: list[GoldAnswer],
    until: list[str],
    f1: float,
    predicted: Bags,
    other_whitespace: bool | None = None,
) -> SampleFlags:
    """The flags of one prediction; `other_whitespace` as for glued_numbers."""
    glued = glued_numbers(prediction, other_whitespace)
    lost_gold = False
    if glued:
        wanted = _gold_numbers(golds)
        lost_gold = any(str(float(remove_punctuation(part.lower()))) in wanted for part in glued)
    cut = _decimal_cut(prediction, golds, until)
    possibly_cut = (
        cut is None
        and "." in until
        and prediction[-1:].isdigit()
        and not ends_in_a_fraction(prediction)
    )
    return SampleFlags(glued, lost_gold, cut, possibly_cut, _long_answer_loss(predicted, golds, f1))


# --- the blog's diagnostic rescoring -----------------------------------------------------


class Rescored(NamedTuple):
    """The scores a prediction would get under the deep dive's repairs (split at the first newline, whitespace as spaces).

    A tuple: one is built for every sample, and a frozen dataclass costs 2 us to build.
    """

    newline: tuple[float, float]  # split at the first "\n", literally (blog)
    newline_lstrip: tuple[float, float]  # leading whitespace stripped first
    whitespace: tuple[float, float]  # every whitespace character made a space


def rescore(
    prediction: str, golds: list[Gold], scored: tuple[float, float] | None = None
) -> Rescored:
    """`scored`: process_results(golds, prediction), when known; a repair that changes nothing is not rescored."""
    return _rescore(prediction, [gold_answer(gold) for gold in golds], scored)


def _rescore(
    prediction: str, golds: list[GoldAnswer], scored: tuple[float, float] | None
) -> Rescored:
    if scored is not None and not _WHITESPACE_NOT_SPACE.search(prediction):
        return Rescored(
            scored, scored, scored
        )  # no whitespace but spaces: no repair changes the prediction
    # The scorer splits on spaces and drops empty tokens, so spaces at either end never change a score.
    known = {prediction.strip(" "): scored} if scored is not None else {}

    def score(text: str) -> tuple[float, float]:
        key = text.strip(" ")
        if key not in known:
            known[key] = best_scores(prediction_bags(text), golds)
        return known[key]

    return Rescored(
        newline=score(prediction.split("\n", 1)[0]),
        newline_lstrip=score(prediction.lstrip().split("\n", 1)[0]),
        whitespace=score(_ANY_WHITESPACE.sub(" ", prediction)),
    )


def has_decimal_gold(golds: list[Gold]) -> bool:
    return _has_decimal([gold_answer(gold) for gold in golds])


def _has_decimal(golds: list[GoldAnswer]) -> bool:
    return any(
        [gold.decimals for gold in golds]
    )  # a list, not a generator: this runs once or twice per sample


# --- one sample, all of the above -----------------------------------------------------


class SampleScore(NamedTuple):
    em: float
    f1: float
    flags: SampleFlags
    rescored: Rescored
    decimal_gold: bool  # has_decimal_gold


def score_sample(golds: list[Gold], prediction: str, until: list[str]) -> SampleScore:
    """process_results, flag_sample, rescore and has_decimal_gold of one sample, sharing their work.

    What the audit runs per sample: the score, the flags and the rescoring share one
    normalization of the prediction and one look-up of each gold; rescoring scores again
    only a prediction a repair changes (tests/unit/test_fast_paths.py holds it to the plain functions).
    The usual sample (one-span golds, no whitespace but spaces, nothing glued) is scored and
    flagged here without the calls of the general functions, a fifth of a DROP sample's scoring.
    """
    answers, predicted = [gold_answer(gold) for gold in golds], prediction_bags(prediction)
    em, f1, decimal = _scores_and_decimals(predicted, answers)
    # Whitespace other than spaces is what both the W flag and the repairs look for: searched for once.
    scored = (em, f1)
    if _WHITESPACE_NOT_SPACE.search(prediction) is not None:
        flags = _flags(prediction, answers, until, f1, predicted, True)
        return SampleScore(em, f1, flags, _rescore(prediction, answers, scored), decimal)
    dot_stop = "." in until
    cut = _decimal_cut(prediction, answers, until) if dot_stop and decimal else None
    possibly_cut = (
        cut is None
        and dot_stop
        and prediction[-1:].isdigit()
        and not ends_in_a_fraction(prediction)
    )
    loss = _long_answer_loss(predicted, answers, f1) if len(predicted.bags[0]) > 1 else None
    flags = SampleFlags(
        [], False, cut, possibly_cut, loss
    )  # nothing is glued without other whitespace
    return SampleScore(em, f1, flags, Rescored(scored, scored, scored), decimal)


def _scores_and_decimals(predicted: Bags, golds: list[GoldAnswer]) -> tuple[float, float, bool]:
    """best_scores and _has_decimal in one pass over the golds; a one-span gold is scored in place."""
    (predicted_span,), (predicted_bag,), (predicted_numbers,) = predicted
    best_em, best_f1, decimal = 0.0, 0.0, False
    for gold in golds:
        if gold.decimals:
            decimal = True
        if not gold.scored:
            continue
        bags = gold.bags
        if len(bags.spans) == 1:
            numbers = bags.numbers[0]
            f1 = (
                numpy_round_2(bag_f1(predicted_bag, bags.bags[0]))
                if not numbers or not numbers.isdisjoint(predicted_numbers)
                else 0.0
            )
            em = 1.0 if predicted_span == bags.spans[0] else 0.0
        else:
            em, f1 = bag_metrics(predicted, bags)
        if em > best_em:
            best_em = em
        if f1 > best_f1:
            best_f1 = f1
    return best_em, best_f1, decimal
