"""Multiple-choice scores of one logged sample, as lm-eval computes them. Pure: no I/O.

Mirrors lm-evaluation-harness 0.4.0 to 0.4.13: lm_eval/api/task.py
(ConfigurableTask.process_results: acc = [argmax(ll) == gold], acc_norm =
[argmax(ll / len(choice)) == gold] where len counts the characters of the choice
without the target delimiter, acc_mutual_info, multiple_input), and
lm_eval/tasks/truthfulqa/utils.py (process_results_mc2) and Winogrande's
preprocess_winogrande.py.
"""

import math
from itertools import repeat
from operator import truediv
from typing import Any, NamedTuple, cast

from .samples import choice_continuations, log_likelihoods, request_contexts


class ChoiceScores(
    NamedTuple
):  # a tuple: built once per sample, ten times faster than a frozen dataclass
    acc: float
    acc_norm: float | None  # None when a choice is empty (numpy would divide by zero)
    acc_mutual_info: float | None = None  # with one request without context per choice


class NotRecomputable(ValueError):
    """The sample lacks what a recomputation needs; the message says what."""


class ScoredOtherwise(NotRecomputable):
    """The task scores its choices in a way the log cannot replay (winogrande's multiple_input: the gold is what
    doc_to_text, a function, gives): not a fault of the sample."""


def choice_scores(
    filtered_resps: Any,
    arguments: Any,
    target: Any,
    target_delimiter: str,
    mutual_info: bool = False,
    continuations: list | None = None,
    typed: bool = False,
) -> ChoiceScores:
    """acc, acc_norm (and acc_mutual_info) of a multiple-choice sample, from its log-likelihoods and choices, as
    lm-eval's process_results computes them (lm_eval/api/task.py). `continuations`: choice_continuations(arguments),
    when the caller has them. `typed`: the target is doc_to_target's value, not the log's str() of it."""
    if not isinstance(filtered_resps, list) or not filtered_resps:
        raise NotRecomputable("filtered_resps is not a list of [log-likelihood, is_greedy] pairs")
    # Annotated, not cast(): a call per sample for the type checker alone
    lls: list[float] = log_likelihoods(filtered_resps)  # type: ignore[assignment]
    if None in lls:
        raise NotRecomputable("a log-likelihood in filtered_resps is not a number")
    if continuations is None:
        continuations = choice_continuations(arguments)
    if len(continuations) != len(lls) or not all(map(isinstance, continuations, repeat(str))):
        raise NotRecomputable(
            f"{len(lls)} log-likelihoods but {len(continuations)} choice requests"
        )
    unconditional = None
    if (
        mutual_info and len(lls) % 2 == 0
    ):  # lm-eval splits only for a task that scores acc_mutual_info
        lls, continuations, unconditional = _mutual_info_split(
            lls, continuations, request_contexts(arguments)
        )
    if (
        is_multiple_input(continuations, request_contexts(arguments), target, target_delimiter)
        if continuations.count(continuations[0]) == len(continuations) > 1
        else False
    ):
        raise ScoredOtherwise(
            "the choices are in the contexts and every continuation is the same (multiple_input: "
            "the gold is what the task's doc_to_text gives)"
        )
    delimited = len(target_delimiter)
    if delimited and all(map(str.startswith, continuations, repeat(target_delimiter))):
        # The usual log: every continuation is the delimiter and the choice. Its length is all acc_norm needs,
        # and an index target (the usual traced one) no choice's text.
        lengths = [len(continuation) - delimited for continuation in continuations]
        choices = None
    else:
        choices = _without_delimiter(continuations, target_delimiter)
        lengths = list(map(len, choices))
    gold = (
        (target if target < len(lengths) else -100)  # _index_gold's, without its call
        if type(target) is int
        else _gold_index(
            target,
            _without_delimiter(continuations, target_delimiter) if choices is None else choices,
            typed,
        )
    )
    finite = math.isfinite(
        sum(lls)
    )  # then every value is finite: none is inf, and no two cancel to NaN
    acc = 1.0 if (lls.index(max(lls)) if finite else _argmax(lls)) == gold else 0.0
    mutual = (
        None
        if unconditional is None
        else 1.0
        if _argmax([c - u for c, u in zip(lls, unconditional, strict=False)]) == gold
        else 0.0
    )
    if (
        finite and 0 not in lengths
    ):  # a finite value over a positive length is finite: argmax at C speed
        normalized = list(map(truediv, lls, lengths))
        best = normalized.index(max(normalized))
    else:
        best = _argmax(
            [
                ll / n if n else _numpy_divided_by_zero(ll)
                for ll, n in zip(lls, lengths, strict=False)
            ]
        )
    # tuple.__new__ is what ChoiceScores(...) calls, without the named tuple's __new__ in Python before it
    return _tuple_new(ChoiceScores, (acc, 1.0 if best == gold else 0.0, mutual))


_tuple_new = tuple.__new__


def _without_delimiter(continuations: list[str], delimiter: str) -> list[str]:
    """Each choice's text: its continuation without the target delimiter lm-eval put before it."""
    size = len(delimiter)
    return [c[size:] if c.startswith(delimiter) else c for c in continuations]


def _numpy_divided_by_zero(value: float) -> float:
    """numpy's value / 0.0 (lm-eval's lls / completion_len for an empty choice, a warning there, not an error):
    -inf, inf, or NaN for 0, so an honest run with an empty choice is re-scored as lm-eval scored it."""
    return -math.inf if value < 0 else math.inf if value > 0 else math.nan


def is_multiple_input(
    continuations: list, contexts: list, target: Any, target_delimiter: str
) -> bool:
    """winogrande's layout (lm-eval's multiple_input, api/task.py): one request per choice with the choice in its
    context and the target, after the delimiter, as every request's continuation. A log made to look so (every
    continuation one choice's) would pass for it only with the target edited too, which LB722 traces."""
    return (
        len(continuations) > 1
        and continuations.count(continuations[0]) == len(continuations)
        and continuations[0] == target_delimiter + str(target)
        and len(set(map(str, contexts))) > 1
    )  # two choices alike (["0", "0", "1"]) give two contexts alike


def mc2_acc(filtered_resps: Any, doc: Any) -> float:
    """TruthfulQA mc2's acc (lm_eval/tasks/truthfulqa/utils.py process_results_mc2): the share of the choices'
    probability (exp of each log-likelihood) that the true ones (doc.mc2_targets.labels 1) hold."""
    targets = doc.get("mc2_targets") if type(doc) is dict else None
    labels = targets.get("labels") if type(targets) is dict else None
    if (
        type(labels) is not list
        or not labels
        or not all(type(label) is int and label in (0, 1) for label in labels)
    ):
        raise NotRecomputable(
            "doc.mc2_targets.labels is not a list of 0s and 1s (TruthfulQA mc2's)"
        )
    logged = log_likelihoods(filtered_resps) if type(filtered_resps) is list else [None]
    if None in logged or len(logged) != len(labels):
        raise NotRecomputable(
            f"filtered_resps holds no log-likelihood for each of the {len(labels)} labels"
        )
    lls = cast("list[float]", logged)
    if max(lls) > 700:  # exp() overflows past 709; a log-likelihood is at most 0
        raise NotRecomputable("a log-likelihood is above 700, which no model gives")
    probabilities = [math.exp(ll) for ll in lls]
    total = sum(probabilities)
    if not total > 0:
        raise NotRecomputable("every choice's probability is 0 (lm-eval divides by their sum)")
    return sum(p / total for p, label in zip(probabilities, labels, strict=False) if label == 1)


def winogrande_scores(filtered_resps: Any, doc: Any, contexts: list) -> ChoiceScores | None:
    """acc and acc_norm of a multiple_input sample of Winogrande's layout (and XWinograd's): the gold is what its
    doc_to_text gives, {"1": 0, "2": 1}[doc.answer], and each choice is the sentence up to its "_" followed by
    option1 or option2 (preprocess_winogrande.py), which request i's context ends with (requests swapped with
    their log-likelihoods would turn a wrong answer right). None for a doc not of that shape (another task)."""
    if type(doc) is not dict:
        return None
    sentence, answer, options = (
        doc.get("sentence"),
        doc.get("answer"),
        (doc.get("option1"), doc.get("option2")),
    )
    if (
        type(sentence) is not str
        or "_" not in sentence
        or answer not in ("1", "2")
        or not all(type(option) is str for option in options)
    ):
        return None
    logged = log_likelihoods(filtered_resps) if type(filtered_resps) is list else [None]
    if None in logged or len(logged) != 2:
        raise NotRecomputable(
            "filtered_resps holds no log-likelihood for each of the doc's two options"
        )
    lls = cast("list[float]", logged)
    gold = int(answer) - 1
    choices = [sentence[: sentence.index("_")] + cast(str, option) for option in options]
    if len(contexts) != 2 or not all(
        type(context) is str and _ends_with(context, choice, other)
        for context, choice, other in zip(contexts, choices, reversed(choices), strict=False)
    ):
        raise NotRecomputable(
            "request 0's context must end with the sentence up to its '_' and option1, request "
            "1's with option2, as lm-eval's Winogrande builds them"
        )
    lengths = [float(len(choice)) for choice in choices]
    finite = math.isfinite(
        sum(lls)
    )  # then every value is finite: none is inf, and no two cancel to NaN
    acc = 1.0 if (lls.index(max(lls)) if finite else _argmax(lls)) == gold else 0.0
    return ChoiceScores(
        acc, 1.0 if _argmax([ll / n for ll, n in zip(lls, lengths, strict=False)]) == gold else 0.0
    )


def _ends_with(context: str, choice: str, other: str) -> bool:
    """The context ends with its choice (a chat template may add markup after it, so: holds it, and not the other
    option's choice, unless that is a prefix of its own)."""
    if context.endswith(choice):
        return True
    return choice in context and (other not in context or choice.startswith(other))


def _mutual_info_split(
    lls: list[float], continuations: list, contexts: list
) -> tuple[list, list, list | None]:
    """A task with acc_mutual_info adds one request without context per choice: after the others (0.4.4 on) or
    each right after its choice's (0.4.3, without the delimiter). (conditional lls, their continuations,
    unconditional lls); the unconditional None when the requests are no such pairs."""
    half = len(lls) // 2
    if len(contexts) == len(lls):
        if all(c == "" for c in contexts[half:]) and all(c != "" for c in contexts[:half]):
            return lls[:half], continuations[:half], lls[half:]
        if all(c == "" for c in contexts[1::2]) and all(c != "" for c in contexts[::2]):
            return lls[::2], continuations[::2], lls[1::2]
    return lls, continuations, None


def _gold_index(target: Any, choices: list[str], typed: bool = False) -> int:
    """The harness's gold: a choice's position when the target is one of the choices, else an index when it is
    digits (a template's digits, which lm-eval reads as a number), else -100. A `typed` string (doc_to_target's own
    value) is a choice's text or nothing: lm-eval has already made a template's digits a number."""
    if isinstance(
        target, int
    ):  # a bool too: lm-eval compares True < len(choices), an index (yes/no labels)
        return _index_gold(target, len(choices))
    if not isinstance(target, str):
        raise NotRecomputable("target is neither an index nor a choice")
    if typed:  # a field's string "3" not among the choices: lm-eval's choices.index fails, gold -100 (never right)
        return choices.index(target) if target in choices else -100
    if target.isdigit() and target in choices:
        # lm-eval reads a str gold as a choice's text (task.py: choices.index): a doc_to_target naming a field keeps
        # the doc's string, so "1" among the choices ["2", "0", "1"] is the third, not the second
        return choices.index(target)
    if target.isdigit():
        if not target.isascii():  # "²" is a digit to str.isdigit, but int() refuses it
            raise NotRecomputable("the target is a digit character int() cannot read")
        if len(target) > 18:  # past any choice list; int() refuses more than 4,300 digits
            return -100
        index = int(target)
        return index if index < len(choices) else -100
    if target.startswith("["):
        raise NotRecomputable("several gold answers (multiple_target) are not recomputed")
    return choices.index(target) if target in choices else -100


def _index_gold(target: int, choices: int) -> int:
    """An index target's gold: itself below the number of choices, else -100 (never right)."""
    return int(target) if target < choices else -100


def _argmax(values: list[float]) -> int:
    """numpy.argmax: the first largest value (a NaN counts as largest, as in numpy)."""
    if math.isfinite(
        sum(values)
    ):  # no NaN nor infinity: max() and index() agree with numpy, at C speed
        return values.index(max(values))
    best = 0
    for i, value in enumerate(values):
        if math.isnan(value):
            return i
        if value > values[best]:
            best = i
    return best
