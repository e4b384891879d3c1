"""DROP scoring exactly as the harness does it (drop_flags.py: the failure modes the DROP deep dive found).

Pure: strings in, numbers out. The scorer follows lm-eval's
`lm_eval/tasks/drop/utils.py`, unchanged from harness commit b281b09 (the
Open LLM Leaderboard v1 run, 2023) to 0.4.13 (docs/reference/drop.md), down to its
quirks, because the point is to reproduce what a submission was scored with:

- tokens split only on U+0020 and "-", so "10\\n\\nPassage:" stays one token
  and escapes number normalization (the blog's bug);
- numbers are whatever Python's float() accepts, "nan" and "1_000" included;
- F1 is the mean over an optimal one-to-one alignment of answer spans, then
  rounded the way numpy rounds (x * 100, round half to even, / 100).

tests/data/drop_golden holds vectors from the real harness functions and
the script that made them.
"""

import re
import string
from typing import NamedTuple

from .drop_helpers import BoundedCache, decimal_spans
from .numerics import max_weight_assignment, numpy_mean, numpy_round_2  # noqa: F401  (drop.* for tests)

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_ARTICLE_WORDS = frozenset({"a", "an", "the"})
_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)
_FLOAT_WORDS = frozenset(
    {"nan", "inf", "infinity"}
)  # the only letters-only strings float() reads (any case)

Gold = tuple[str, ...]


# --- the harness scorer ------------------------------------------------------------------
# The harness runs each token through lower -> remove punctuation -> fix number -> drop articles ->
# fix spaces. _normalize_token gets the same result with less work; tests/support/drop_reference.py is
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
# whatever the logs hold (tests/unit/test_drop.py fills them with the largest entries they keep).
_CACHE_ENTRIES = 16_384
_CACHED_LENGTH = 256  # characters of an answer
_CACHED_GOLD_LENGTH = 64  # characters of a gold answer's spans together (DROP's are a few words)
_CACHED_SPANS = 4  # spans of a gold answer
_CACHED_GOLD_BREAKS = 8  # spaces and hyphens in them: each set of words costs hundreds of bytes


def _cacheable(gold: Gold) -> bool:
    if len(gold) > _CACHED_SPANS:
        return False
    joined = "".join(gold)
    return (
        len(joined) <= _CACHED_GOLD_LENGTH
        and joined.isascii()
        and joined.count(" ") + joined.count("-") <= _CACHED_GOLD_BREAKS
    )


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
    return " ".join(
        str(float(word)) if word in _FLOAT_WORDS else word
        for word in spaced.split()
        if word not in _ARTICLE_WORDS
    )


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
    if (
        isinstance(answer, str) or len(answer) == 1
    ):  # a gold of one span (most) is bagged as a prediction is
        return prediction_bags(answer if isinstance(answer, str) else answer[0])
    spans = [normalize(span) for span in answer]
    bags = [frozenset(span.split()) for span in spans]
    return Bags(spans, bags, [numbers_in(span, bag) for span, bag in zip(spans, bags, strict=True)])


def prediction_bags(prediction: str) -> Bags:
    """answer_to_bags of one span, as a prediction is scored."""
    span = normalize(prediction)
    bag = frozenset(span.split())
    return Bags([span], [bag], [numbers_in(span, bag)])


def numbers_in(span: str, bag: frozenset[str]) -> frozenset[str]:
    """The words of a normalized span that float() reads."""
    if span.replace(
        " ", ""
    ).isalpha():  # letters only (most spans): no word is a number but nan, inf, infinity
        return bag & _FLOAT_WORDS  # normalized words are lower case
    return frozenset(word for word in bag if is_number(word))


class GoldAnswer(NamedTuple):
    """A gold answer as the scorer and the flags use it."""

    bags: Bags
    scored: bool  # its first span is not blank (the harness scores a blank one, then ignores it)
    decimals: tuple[
        tuple[str, str], ...
    ]  # (integer part, stripped span) of each span that is a decimal number


def gold_answer(gold: Gold) -> GoldAnswer:
    """A gold answer's bags and decimals; a short one worked out once per process (see the caches above)."""
    if type(gold) is not tuple:  # a list of spans from a caller: the cache needs a hashable key
        gold = tuple(gold)
    answer = _GOLD_ANSWERS.get(gold)
    if answer is None:
        answer = GoldAnswer(
            answer_to_bags(gold), bool(gold) and bool(gold[0].strip()), decimal_spans(gold)
        )
        if _cacheable(gold):
            _GOLD_ANSWERS.keep(gold, answer)
    return answer


def numbers_match(gold_numbers: frozenset[str], predicted_numbers: frozenset[str]) -> bool:
    return not gold_numbers or not gold_numbers.isdisjoint(predicted_numbers)


def bag_f1(predicted_bag: frozenset[str], gold_bag: frozenset[str]) -> float:
    intersection = len(gold_bag & predicted_bag)
    precision = intersection / float(len(predicted_bag)) if predicted_bag else 1.0
    recall = intersection / float(len(gold_bag)) if gold_bag else 1.0
    if precision == 0.0 and recall == 0.0:
        return 0.0
    return (2 * precision * recall) / (precision + recall)


def align_bags(predicted: Bags, gold: Bags) -> list[float]:
    """Per gold row, the F1 of its partner in the best one-to-one alignment (zeros padded)."""
    scores = [
        [
            bag_f1(p, g) if numbers_match(g_numbers, p_numbers) else 0.0
            for p, p_numbers in zip(predicted.bags, predicted.numbers, strict=True)
        ]
        for g, g_numbers in zip(gold.bags, gold.numbers, strict=True)
    ]
    per_row = [0.0] * max(len(gold.bags), len(predicted.bags))
    for row, column in max_weight_assignment(scores):
        per_row[row] = max(per_row[row], scores[row][column])
    return per_row


def get_metrics(
    predicted: str | list[str] | tuple[str, ...], gold: str | list[str] | tuple[str, ...]
) -> tuple[float, float]:
    """(EM, F1) of one prediction against one gold answer, both a string or a list of spans."""
    return bag_metrics(answer_to_bags(predicted), answer_to_bags(gold))


def bag_metrics(predicted: Bags, gold: Bags) -> tuple[float, float]:
    exact = set(predicted.spans) == set(gold.spans) and len(predicted.spans) == len(gold.spans)
    return (1.0 if exact else 0.0), numpy_round_2(numpy_mean(align_bags(predicted, gold)))


def process_results(golds: list[Gold], prediction: str) -> tuple[float, float]:
    """The per-sample (em, f1): each maximised over golds whose first span is not blank."""
    # The prediction's bags once, not once per gold: golds x a long prediction was quadratic.
    return best_scores(prediction_bags(prediction), [gold_answer(gold) for gold in golds])


def best_scores(predicted: Bags, golds: list[GoldAnswer]) -> tuple[float, float]:
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
    """bag_metrics of a one-span prediction; against a one-span gold (most DROP answers) there is nothing to align."""
    if len(gold.spans) != 1:
        return bag_metrics(predicted, gold)
    (predicted_span,), (predicted_bag,), (predicted_numbers,) = predicted
    f1 = (
        bag_f1(predicted_bag, gold.bags[0])
        if numbers_match(gold.numbers[0], predicted_numbers)
        else 0.0
    )
    return (1.0 if predicted_span == gold.spans[0] else 0.0), numpy_round_2(
        f1
    )  # the mean of one value is itself


# Every cache above, and those keyed by gold answers alone (what a survey worker carries from one run to the next).
CACHES = (_NORMALIZED, _GOLD_ANSWERS)
GOLD_CACHES = (_GOLD_ANSWERS,)
