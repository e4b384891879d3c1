"""The fields of a sample lm-eval logs, read as lm-eval writes them. Pure: no I/O.

Mirrors lm-evaluation-harness 0.4.0 to 0.4.13: lm_eval/evaluator.py and
lm_eval/loggers/evaluation_tracker.py write each sample's arguments, resps,
filtered_resps and hashes; lm_eval/api/task.py computes the metrics from them.
Formulas are lm-eval's (docs/reference/results-formats.md):
- doc_hash = sha256(json.dumps(doc, indent=2, ensure_ascii=False)) (written by indented_json.py),
  prompt_hash = sha256(first request's prompt), target_hash = sha256(str(target)), computed in
  audit/checks/hashes.py;
- task_hashes[task] = sha256 of every doc_hash + prompt_hash + target_hash, in file order;
- multiple choice: acc = [argmax(ll) == gold], acc_norm = [argmax(ll / len(choice)) == gold],
  where len counts characters of the choice without the target delimiter
  (lm_eval/api/task.py ConfigurableTask.process_results);
- a task's aggregate is sum(values) / len(values) in log order (lm_eval/api/metrics.py
  mean); IFEval's instruction level flattens the per-prompt lists first.
"""

from __future__ import annotations

import math
from typing import Any, cast


def requests(arguments: Any) -> list[list[Any]]:
    """The logged request arguments as lists: {"gen_args_0": {"arg_0": ...}} (>= 0.4.3) or [[...]] (older)."""
    if isinstance(arguments, dict):
        return [
            list(args.values()) if isinstance(args, dict) else [] for args in arguments.values()
        ]
    if isinstance(arguments, list):
        return [list(args) if isinstance(args, (list, tuple)) else [args] for args in arguments]
    return []


def first_request(arguments: Any) -> list[Any]:
    """requests(arguments)[0] (or [] when there is none), without building the other requests."""
    if isinstance(arguments, dict):
        first = next(iter(arguments.values()), None)
        return list(first.values()) if isinstance(first, dict) else []
    if isinstance(arguments, list) and arguments:
        first = arguments[0]
        return list(first) if isinstance(first, (list, tuple)) else [first]
    return []


def first_response(filtered_resps: Any) -> Any:
    """filtered_resps[0]: what the task's process_results scores (lm-eval logs one filtered response per request)."""
    return filtered_resps[0] if type(filtered_resps) is list and filtered_resps else None


def first_prompt(arguments: Any) -> str | None:
    """requests(arguments)[0][0], without building the other requests (a multiple-choice log has one per choice)."""
    if isinstance(arguments, dict):
        first = next(iter(arguments.values()), None)
        prompt = next(iter(first.values()), None) if isinstance(first, dict) else None
    elif isinstance(arguments, list) and arguments:
        first = arguments[0]
        prompt = (first[0] if first else None) if isinstance(first, (list, tuple)) else first
    else:
        prompt = None
    if (
        type(prompt) is list and len(prompt) == 1
    ):  # a chat API's messages: lm-eval's JsonChatStr, a 1-tuple
        prompt = prompt[0]
    return prompt if isinstance(prompt, str) else None


def generation_until(arguments: Any) -> list[str] | None:
    """The stop sequences the first generation request was made with."""
    if (
        type(arguments) is dict
    ):  # lm-eval >= 0.4.3, every DROP sample: the second value of the first request
        first = next(iter(arguments.values()), None)
        settings = None
        if isinstance(first, dict) and len(first) > 1:
            keys = iter(
                first
            )  # by its key: the first value is the prompt (see choice_continuations)
            next(keys)
            settings = first[next(keys)]
        # A multiple-choice request's continuation: stop_sequences' None, without its call
        if not isinstance(settings, dict):
            return None
    else:
        call = first_request(arguments)
        settings = call[1] if len(call) > 1 else None
    return stop_sequences(settings)


def stop_sequences(settings: Any) -> list[str] | None:
    """A generation request's settings' `until` as a list of strings (a string is one); None for any other."""
    until = settings.get("until") if isinstance(settings, dict) else None
    if isinstance(until, str):
        return [until]
    if not isinstance(until, list):
        return None
    for stop in until:  # a loop, not all(<generator>): this runs once per DROP sample
        if not isinstance(stop, str):
            return None
    return until


# --- logged values -----------------------------------------------------------------------


def as_number(value: Any) -> float | int | None:
    """A per-sample metric value the harness could have averaged: bool, int or finite float."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value if abs(value) <= 2**53 else None
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


def as_number_list(value: Any) -> list[float | int] | None:
    """IFEval's instruction-level value: a list of booleans (or numbers)."""
    if not isinstance(value, list):
        return None
    numbers = [as_number(item) for item in value]
    return None if any(n is None for n in numbers) else cast("list[float | int]", numbers)


def _float(value: Any) -> float | None:
    """A logged log-likelihood: a JSON number (<= 0.4.2) or its string (>= 0.4.3)."""
    if type(value) is str and len(value) < 64:  # the usual case first: this runs once per choice
        try:
            return float(value)
        except ValueError:
            return None
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) <= 2**1000 else None  # float() raises past ~1.8e308
    if isinstance(value, str) and len(value) < 64:
        try:
            return float(value)
        except ValueError:
            return None
    return None


def request_contexts(arguments: Any) -> list[Any]:
    """The first argument of every request (its context; a chat API's: a one-element list), as logged."""
    if isinstance(arguments, dict):
        try:  # each request's first value by its first key: two calls fewer a request than by its values
            return [
                args[next(iter(args))] if type(args) is dict else None
                for args in arguments.values()
            ]
        except StopIteration:  # an empty request
            return [
                next(iter(args.values()), None) if type(args) is dict else None
                for args in arguments.values()
            ]
    return [call[0] if call else None for call in requests(arguments)]


def log_likelihoods(filtered_resps: list) -> list[float | None]:
    """Each pair's log-likelihood as _float reads it (None where it is none). The usual pair, [str, str], is
    read in the comprehension, without a call per choice; anything else, or a string float() refuses, goes
    through _float."""
    try:
        return [
            float(first)
            if type(pair) is list and type(first := pair[0]) is str and len(first) < 64
            else _first_float(pair)
            for pair in filtered_resps
        ]
    except (ValueError, IndexError):  # "abc", or an empty pair: the slow path says None for it
        return [_first_float(pair) for pair in filtered_resps]


def _first_float(pair: Any) -> float | None:
    return _float(pair[0]) if isinstance(pair, (list, tuple)) and pair else None


def choice_continuations(arguments: Any) -> list[Any]:
    """The second argument of every request (the choice), as [call[1] for call in requests(arguments)]."""
    if isinstance(arguments, dict):
        continuations = []
        for args in (
            arguments.values()
        ):  # a loop: a call of _second_value per request was a third of the time
            if type(args) is dict and len(args) == 2:
                # By its key, not by unpacking values(): that takes a reference to the context too, and reaching
                # a long prompt's object, far off in memory, cost more than the rest of this loop.
                _, second_key = args
                continuations.append(args[second_key])
            else:
                continuations.append(_second_value(args) if type(args) is dict else None)
        return continuations
    return [_second(call) for call in requests(arguments)]


def _second_value(args: dict) -> Any:
    """The second value of a request's {"arg_0": ..., "arg_1": ...}, whatever its key."""
    values = iter(args.values())
    next(values, None)
    return next(values, None)


def _second(call: list) -> Any:
    return call[1] if len(call) > 1 else None


DROP_METRICS = ("em", "f1")


def is_drop_sample(data: dict) -> bool:
    """A DROP-style sample: em and f1 logged, gold answers in doc.answers (never in target)."""
    if "em" not in data or "f1" not in data:  # DROP_METRICS, spelled out: this runs on every sample
        return False
    doc = data.get("doc")
    return isinstance(doc, dict) and "answers" in doc
