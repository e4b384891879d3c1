"""lm-eval's response filters, replayed on a logged response: regex (any pattern), take_first,
remove_whitespace, lowercase, uppercase and map. Pure.

A task's `filter_list` names a pipeline of filters (lm_eval/filters/: extraction.py RegexFilter and
WhitespaceFilter, selection.py TakeFirstFilter, transformation.py LowercaseFilter, UppercaseFilter and
MapFilter, the same from 0.4.0 to 0.4.13). Each but take_first maps every response of a request alone, so a
pipeline holding take_first once makes of the first response what it makes of the request. The submitter
writes the pattern: it runs under RE2 (linear_regex.py), with `re`'s results, unless it is one of the
harness's own (exact_match.HARNESS_PATTERNS), which `re` runs in time linear in the text and several times
faster than RE2 on a short response. `pipeline_of` gives the
pipeline, or a short reason it is not replayed: a filter it does not know (multi_choice_regex reads the doc's
choices; majority_vote and take_first_k keep several), or a pattern RE2 cannot run as `re` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .exact_match import FindsAll, apply_regex_filter, harness_regex
from .linear_regex import NotLinear, compile_linear
from .read_budget import ReadsRefused

DEFAULT_PATTERN = r"#### (\-?[0-9\.\,]+)"  # RegexFilter's default (GSM8K's strict-match)
MAX_PATTERN = 1_000  # characters of a filter's pattern replayed (a task's are a line)
MAX_STEPS = 16
_FAILED = object()  # the harness would have raised on this response (no run logged it)

Step = Callable[[Any], Any]


class Pipeline:
    """A filter pipeline with take_first in it, replayed on one request's first response. `counts_matches`: one
    of its patterns is the submitter's, run by RE2, whose match count a caller may bound (read_budget.py)."""

    def __init__(self, steps: list[Step], text: str, counts_matches: bool = False):
        self.steps, self.text, self.counts_matches = steps, text, counts_matches

    def apply(self, response: Any) -> Any:
        """What the pipeline makes of the response; None where the harness would have raised. NotLinear where
        RE2 cannot run a pattern on this response as `re` does."""
        for step in self.steps:
            response = step(response)
            if response is _FAILED:
                return None
        return response


def _regex(step: dict) -> Step | str:
    if set(step) - {"function", "regex_pattern", "group_select", "fallback"}:
        return "its regex step holds arguments RegexFilter does not take"
    pattern = step.get("regex_pattern", DEFAULT_PATTERN)
    group, fallback = step.get("group_select", 0), step.get("fallback", "[invalid]")
    if type(pattern) is not str or len(pattern) > MAX_PATTERN:
        return f"its regex is not a pattern of at most {MAX_PATTERN:,} characters"
    if type(group) is not int or not isinstance(fallback, str):
        return "its regex's group_select or fallback is not what RegexFilter takes"
    compiled: FindsAll | None = harness_regex(pattern)
    try:
        compiled = compiled or compile_linear(pattern)
    except (re.error, RecursionError, OverflowError):
        return "its regex does not compile (the harness failed on it)"
    except NotLinear as error:
        return f"its regex holds {error.feature}, which RE2 cannot run"
    except ReadsRefused:
        return "its regex's compile runs past the run's work budget"

    def run(response: Any) -> Any:
        if not isinstance(response, str):
            return _FAILED  # re.findall raises on what is not text
        result = apply_regex_filter(response, compiled, group, fallback)
        return _FAILED if result is None else result

    return run


def _map(step: dict) -> Step | str:
    if set(step) - {"function", "mapping_dict", "default_value"}:
        return "its map step holds arguments MapFilter does not take"
    mapping, default = step.get("mapping_dict") or {}, step.get("default_value")
    if not isinstance(mapping, dict):
        return "its map step's mapping_dict is not a mapping"

    def run(response: Any) -> Any:
        try:
            return mapping.get(response, default)
        except TypeError:  # an unhashable response: the harness raised
            return _FAILED

    return run


def _text_step(method: Callable[[str], str]) -> Step:
    def run(response: Any) -> Any:
        return method(response) if isinstance(response, str) else _FAILED

    return run


_PLAIN = {
    "remove_whitespace": _text_step(str.lstrip),
    "lowercase": _text_step(str.lower),
    "uppercase": _text_step(str.upper),
}


def pipeline_of(steps: Any) -> Pipeline | str:
    """The filter_list entry's steps as a Pipeline, or why they are not replayed (a short phrase)."""
    if type(steps) is not list or not 0 < len(steps) <= MAX_STEPS:
        return "its steps are not a list lbnorm reads"
    functions = [step.get("function") if type(step) is dict else None for step in steps]
    if functions.count("take_first") != 1:
        return "it does not take each request's first response once (take_first)"
    replayed: list[Step] = []
    described = []
    counts_matches = False
    for step, function in zip(steps, functions, strict=True):
        if function == "take_first":
            if len(step) != 1:
                return "its take_first step holds arguments"
            continue
        if function == "regex":
            made = _regex(step)
            if isinstance(made, str):
                return made
            replayed.append(made)
            pattern = step.get("regex_pattern", DEFAULT_PATTERN)
            described.append(f"regex {pattern!r}")
            counts_matches = counts_matches or harness_regex(pattern) is None
        elif function == "map":
            mapped = _map(step)
            if isinstance(mapped, str):
                return mapped
            replayed.append(mapped)
            described.append("map")
        elif function in _PLAIN:
            if len(step) != 1:
                return f"its {function} step holds arguments"
            replayed.append(_PLAIN[function])
            described.append(function)
        else:
            shown = function if isinstance(function, str) else "a step without a function"
            return f"its step {shown[:40]!r} is not one lbnorm replays"
    described.append("take_first")
    return Pipeline(replayed, ", ".join(described), counts_matches)
