"""DROP scoring exactly as the harness does it, and the failure modes the DROP deep dive found.

Pure: strings in, numbers out. The scorer follows lm-eval's
`lm_eval/tasks/drop/utils.py`, unchanged from harness commit b281b09 (the
Open LLM Leaderboard v1 run, 2023) to 0.4.13 (spec B.1.5), down to its
quirks, because the point is to reproduce what a submission was scored with:

- tokens split only on U+0020 and "-", so "10\\n\\nPassage:" stays one token
  and escapes number normalization (the blog's bug);
- numbers are whatever Python's float() accepts, "nan" and "1_000" included;
- F1 is the mean over an optimal one-to-one alignment of answer spans, then
  rounded the way numpy rounds (x * 100, round half to even, / 100).

tests/data/drop_golden holds vectors from the real harness functions and
the script that made them.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import NamedTuple

from .drop_helpers import BoundedCache, decimal_spans, trailing_number, whole_multi_span
from .harness_numerics import max_weight_assignment, numpy_mean, numpy_round_2  # noqa: F401  (drop.* for tests)

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_ARTICLE_WORDS = frozenset({"a", "an", "the"})
_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)
_FLOAT_WORDS = frozenset({"nan", "inf", "infinity"})  # the only letters-only strings float() reads (any case)
_ANY_WHITESPACE = re.compile(r"\s")
_WHITESPACE_NOT_SPACE = re.compile(r"[^\S ]")

Gold = tuple[str, ...]


# --- the harness scorer ------------------------------------------------------------------
# The harness runs each token through lower -> remove punctuation -> fix number -> drop articles ->
# fix spaces. _normalize_token gets the same result with less work; tests/drop_reference.py is
# the harness's order, kept to check this one against.

def is_number(text: str) -> bool:
    if text.isalpha():  # a word: float() would only raise, and raising costs more than this test
        return text.lower() in _FLOAT_WORDS
    try:
        float(text)
    except ValueError:
        return False
    return True


def remove_punctuation(token: str) -> str:
    return token if is_number(token) else token.translate(_NO_PUNCTUATION)


# --- caches -------------------------------------------------------------------------------
# Every model of a leaderboard answers the same questions, so a survey worker meets each gold answer
# once per run: with room for a whole split (DROP has 9,536 questions), each gold is normalized once per
# worker, not once per run. Golds and predictions are the submitter's bytes, so only short ASCII values
# are kept (one byte a character; normalizing makes a number at most 4.5 times longer, "1e15" ->
# "1000000000000000.0"); others are recomputed each time, and the caches together stay under 100 MB
# whatever the logs hold (tests/test_drop.py fills them with the largest entries they keep).
_CACHE_ENTRIES = 16_384
_CACHED_LENGTH = 256      # characters of an answer
_CACHED_GOLD_LENGTH = 64  # characters of a gold answer's spans together (DROP's are a few words)
_CACHED_SPANS = 4         # spans of a gold answer
_CACHED_GOLD_BREAKS = 8   # spaces and hyphens in them: each set of words costs hundreds of bytes


def _cacheable(gold: Gold) -> bool:
    if len(gold) > _CACHED_SPANS:
        return False
    joined = "".join(gold)
    return (len(joined) <= _CACHED_GOLD_LENGTH and joined.isascii()
            and joined.count(" ") + joined.count("-") <= _CACHED_GOLD_BREAKS)


_NORMALIZED = BoundedCache(_CACHE_ENTRIES)  # answer -> normalize(answer)
_GOLD_ANSWERS = BoundedCache(_CACHE_ENTRIES)  # gold -> gold_answer(gold)


def normalize(answer: str) -> str:
    """The harness's _normalize: per raw token lower, strip punctuation, fix numbers, drop articles, fix spaces."""
    normalized = _NORMALIZED.get(answer)
    if normalized is None:
        normalized = _normalize(answer)
        if len(answer) <= _CACHED_LENGTH and answer.isascii():
            _NORMALIZED.keep(answer, normalized)
    return normalized


def _normalize(answer: str) -> str:
    # The harness splits on re.split(" |-"): every single space or hyphen, empty tokens kept.
    spaced = answer.replace("-", " ")
    if spaced.isascii() and spaced.replace(" ", "").isalpha():
        return _normalize_ascii_words(spaced.lower())
    return " ".join(token for token in map(_normalize_token, spaced.split(" ")) if token)


def _normalize_ascii_words(spaced: str) -> str:
    """_normalize of lower-case ASCII words and spaces (most answers): no punctuation, no digits, no \\b inside."""
    return " ".join(str(float(word)) if word in _FLOAT_WORDS else word
                    for word in spaced.split() if word not in _ARTICLE_WORDS)


def _normalize_token(token: str) -> str:
    token = remove_punctuation(token.lower())
    if is_number(token):
        return str(float(token))  # "19.0", "nan", "1e+20": no article, no whitespace left to fix
    if token.isalnum():  # word characters only, so \b can only match at its ends
        return "" if token in _ARTICLE_WORDS else token
    return " ".join(_ARTICLES.sub(" ", token).split())


class Bags(NamedTuple):
    """An answer as the scorer compares it: its normalized spans, their bags of words, the numbers in each bag."""

    spans: list[str]
    bags: list[frozenset[str]]
    numbers: list[frozenset[str]]  # the harness's _match_numbers_if_present looks at these


def answer_to_bags(answer: str | list[str] | tuple[str, ...]) -> Bags:
    if isinstance(answer, str):
        return prediction_bags(answer)
    spans = [normalize(span) for span in answer]
    bags = [frozenset(span.split()) for span in spans]
    return Bags(spans, bags, [_numbers_in(span, bag) for span, bag in zip(spans, bags)])


def prediction_bags(prediction: str) -> Bags:
    """answer_to_bags of one span, as a prediction is scored."""
    span = normalize(prediction)
    bag = frozenset(span.split())
    return Bags([span], [bag], [_numbers_in(span, bag)])


def _numbers_in(span: str, bag: frozenset[str]) -> frozenset[str]:
    """The words of a normalized span that float() reads."""
    if span.replace(" ", "").isalpha():  # letters only (most spans): no word is a number but nan, inf, infinity
        return bag & _FLOAT_WORDS  # normalized words are lower case
    return frozenset(word for word in bag if is_number(word))


class GoldAnswer(NamedTuple):
    """A gold answer as the scorer and the flags use it."""

    bags: Bags
    scored: bool  # its first span is not blank (the harness scores a blank one, then ignores it)
    decimals: tuple[tuple[str, str], ...]  # (integer part, stripped span) of each span that is a decimal number


def gold_answer(gold: Gold) -> GoldAnswer:
    """A gold answer's bags and decimals; a short one worked out once per process (see the caches above)."""
    if type(gold) is not tuple:  # a list of spans from a caller: the cache needs a hashable key
        gold = tuple(gold)
    answer = _GOLD_ANSWERS.get(gold)
    if answer is None:
        answer = GoldAnswer(answer_to_bags(gold), bool(gold) and bool(gold[0].strip()), decimal_spans(gold))
        if _cacheable(gold):
            _GOLD_ANSWERS.keep(gold, answer)
    return answer


def _numbers_match(gold_numbers: frozenset[str], predicted_numbers: frozenset[str]) -> bool:
    return not gold_numbers or not gold_numbers.isdisjoint(predicted_numbers)


def _bag_f1(predicted_bag: frozenset[str], gold_bag: frozenset[str]) -> float:
    intersection = len(gold_bag & predicted_bag)
    precision = intersection / float(len(predicted_bag)) if predicted_bag else 1.0
    recall = intersection / float(len(gold_bag)) if gold_bag else 1.0
    if precision == 0.0 and recall == 0.0:
        return 0.0
    return (2 * precision * recall) / (precision + recall)


def align_bags(predicted: Bags, gold: Bags) -> list[float]:
    """Per gold row, the F1 of its partner in the best one-to-one alignment (zeros padded)."""
    scores = [[_bag_f1(p, g) if _numbers_match(g_numbers, p_numbers) else 0.0
               for p, p_numbers in zip(predicted.bags, predicted.numbers)]
              for g, g_numbers in zip(gold.bags, gold.numbers)]
    per_row = [0.0] * max(len(gold.bags), len(predicted.bags))
    for row, column in max_weight_assignment(scores):
        per_row[row] = max(per_row[row], scores[row][column])
    return per_row


def get_metrics(predicted: str | list[str] | tuple[str, ...], gold: str | list[str] | tuple[str, ...]) -> tuple[float, float]:
    """(EM, F1) of one prediction against one gold answer, both a string or a list of spans."""
    return _metrics(answer_to_bags(predicted), answer_to_bags(gold))


def _metrics(predicted: Bags, gold: Bags) -> tuple[float, float]:
    exact = set(predicted.spans) == set(gold.spans) and len(predicted.spans) == len(gold.spans)
    return (1.0 if exact else 0.0), numpy_round_2(numpy_mean(align_bags(predicted, gold)))


def process_results(golds: list[Gold], prediction: str) -> tuple[float, float]:
    """The per-sample (em, f1): each maximised over golds whose first span is not blank."""
    # The prediction's bags once, not once per gold: golds x a long prediction was quadratic.
    return _best_scores(prediction_bags(prediction), [gold_answer(gold) for gold in golds])


def _best_scores(predicted: Bags, golds: list[GoldAnswer]) -> tuple[float, float]:
    best_em, best_f1 = 0.0, 0.0
    for gold in golds:
        if gold.scored:
            em, f1 = _one_span_metrics(predicted, gold.bags)
            if em > best_em:
                best_em = em
            if f1 > best_f1:
                best_f1 = f1
    return best_em, best_f1


def _one_span_metrics(predicted: Bags, gold: Bags) -> tuple[float, float]:
    """_metrics of a one-span prediction; against a one-span gold (most DROP answers) there is nothing to align."""
    if len(gold.spans) != 1:
        return _metrics(predicted, gold)
    (predicted_span,), (predicted_bag,), (predicted_numbers,) = predicted
    f1 = _bag_f1(predicted_bag, gold.bags[0]) if _numbers_match(gold.numbers[0], predicted_numbers) else 0.0
    return (1.0 if predicted_span == gold.spans[0] else 0.0), numpy_round_2(f1)  # the mean of one value is itself


# --- the deep dive's failure modes -------------------------------------------------------

@dataclass(slots=True)
class SampleFlags:
    """What one DROP prediction shows (spec B.2.3): W, D, D' and L, with the evidence."""

    glued: list[str] = field(default_factory=list)    # W: numbers glued to text by \n, \t...
    glued_lost_gold: bool = False                     # W-impacting: one of them was a gold number
    decimal_cut: str | None = None                    # D: the gold decimal the '.' stop cut
    possibly_cut: bool = False                        # D': ends in a digit under a '.' stop, no decimal gold
    long_answer_loss: float | None = None             # L: F1 lost to extra words around a complete gold

    def any(self) -> bool:
        return bool(self.glued or self.decimal_cut or self.possibly_cut or self.long_answer_loss)


def glued_numbers(prediction: str, other_whitespace: bool | None = None) -> list[str]:
    """W: parts of a token that would be numbers but are glued to other text by non-space whitespace.

    `other_whitespace`: whether the prediction holds whitespace other than spaces, when known."""
    if other_whitespace is None:
        other_whitespace = _WHITESPACE_NOT_SPACE.search(prediction) is not None
    if not other_whitespace:  # nothing can be glued: most predictions
        return []
    glued = []
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
    if trailing is None:
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
    if any(whole_multi_span(gold.bags.bags, predicted_bag) for gold in golds if gold.scored):
        return None
    best: float | None = None
    for gold in golds:
        if not gold.scored:
            continue
        bags = gold.bags
        for bag, numbers in zip(bags.bags, bags.numbers):
            if bag and _numbers_match(numbers, predicted_numbers) and bag < predicted_bag:  # recall 1, precision < 1
                ceiling = 1.0 / max(len(bags.bags), 1)  # one predicted span can match one gold span
                best = max(best or 0.0, ceiling - f1)
    return best if best is not None and best > 0 else None


def flag_sample(prediction: str, golds: list[Gold], until: list[str], f1: float) -> SampleFlags:
    return _flags(prediction, [gold_answer(gold) for gold in golds], until, f1, prediction_bags(prediction))


def _flags(prediction: str, golds: list[GoldAnswer], until: list[str], f1: float, predicted: Bags,
           other_whitespace: bool | None = None) -> SampleFlags:
    """The flags of one prediction; `other_whitespace` as for glued_numbers."""
    glued = glued_numbers(prediction, other_whitespace)
    lost_gold = False
    if glued:
        wanted = _gold_numbers(golds)
        lost_gold = any(str(float(remove_punctuation(part.lower()))) in wanted for part in glued)
    cut = _decimal_cut(prediction, golds, until)
    possibly_cut = cut is None and "." in until and prediction[-1:].isdigit()
    return SampleFlags(glued, lost_gold, cut, possibly_cut, _long_answer_loss(predicted, golds, f1))


# --- the blog's diagnostic rescoring -----------------------------------------------------

class Rescored(NamedTuple):
    """The scores a prediction would get under the deep dive's repairs (spec B.2.4).

    A tuple: one is built for every sample, and a frozen dataclass costs 2 us to build.
    """

    newline: tuple[float, float]          # split at the first "\n", literally (blog)
    newline_lstrip: tuple[float, float]   # leading whitespace stripped first
    whitespace: tuple[float, float]       # every whitespace character made a space


def rescore(prediction: str, golds: list[Gold], scored: tuple[float, float] | None = None) -> Rescored:
    """`scored`: process_results(golds, prediction), when known; a repair that changes nothing is not rescored."""
    return _rescore(prediction, [gold_answer(gold) for gold in golds], scored)


def _rescore(prediction: str, golds: list[GoldAnswer], scored: tuple[float, float] | None) -> Rescored:
    if scored is not None and not _WHITESPACE_NOT_SPACE.search(prediction):
        return Rescored(scored, scored, scored)  # no whitespace but spaces: no repair changes the prediction
    # The scorer splits on spaces and drops empty tokens, so spaces at either end never change a score.
    known = {prediction.strip(" "): scored} if scored is not None else {}

    def score(text: str) -> tuple[float, float]:
        key = text.strip(" ")
        if key not in known:
            known[key] = _best_scores(prediction_bags(text), golds)
        return known[key]

    return Rescored(newline=score(prediction.split("\n", 1)[0]),
                    newline_lstrip=score(prediction.lstrip().split("\n", 1)[0]),
                    whitespace=score(_ANY_WHITESPACE.sub(" ", prediction)))


def has_decimal_gold(golds: list[Gold]) -> bool:
    return _has_decimal([gold_answer(gold) for gold in golds])


def _has_decimal(golds: list[GoldAnswer]) -> bool:
    return any([gold.decimals for gold in golds])  # a list, not a generator: this runs once or twice per sample


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
    only a prediction a repair changes (tests/test_fast_paths.py holds it to the plain functions).
    """
    answers, predicted = [gold_answer(gold) for gold in golds], prediction_bags(prediction)
    em, f1 = _best_scores(predicted, answers)
    # Whitespace other than spaces is what both the W flag and the repairs look for: searched for once.
    other_whitespace = _WHITESPACE_NOT_SPACE.search(prediction) is not None
    flags = _flags(prediction, answers, until, f1, predicted, other_whitespace)
    scored = (em, f1)
    rescored = _rescore(prediction, answers, scored) if other_whitespace else Rescored(scored, scored, scored)
    return SampleScore(em, f1, flags, rescored, _has_decimal(answers))


# Every cache above, and those keyed by gold answers alone (what a survey worker carries from one run to the next).
CACHES = (_NORMALIZED, _GOLD_ANSWERS)
GOLD_CACHES = (_GOLD_ANSWERS,)
