"""lm-eval's exact_match metric and regex filter (GSM8K's strict-match and flexible-extract), for known patterns.

Both take regular expressions from the task's config, which the submitter
writes: Python's `re` has no time limit, and a pattern can backtrack for
longer than any audit may take. So only the patterns the harness's own
leaderboard tasks ship are run (HARNESS_PATTERNS, from lm-eval's
tasks/gsm8k/gsm8k.yaml, gsm8k-cot.yaml and gsm8k-cot-llama.yaml, unchanged
from 0.4.0 to 0.4.13: each matches in time linear in the text); a config
with any other pattern is not re-scored, and the audit says so. Pure: no I/O.

- exact_match (api/metrics.py exact_match_hf_evaluate): each pattern of
  `regexes_to_ignore` removed from prediction and reference, in order; then
  lower case, punctuation and digits removed as asked; then equality.
- the regex filter (filters/extraction.py RegexFilter): the `group_select`-th
  of re.findall, the first non-empty group of a tuple, stripped; `fallback`
  ("[invalid]") without a match.
"""

from __future__ import annotations

import re
import string
from typing import Any, Protocol

FLEXIBLE_EXTRACT = "(-?[$0-9.,]{2,})|(-?[0-9]+)"  # gsm8k's flexible-extract
HARNESS_PATTERNS = frozenset(
    {
        ",",
        "\\$",
        "(?s).*#### ",
        "\\.$",  # gsm8k's regexes_to_ignore
        "#### (\\-?[0-9\\.\\,]+)",  # strict-match
        FLEXIBLE_EXTRACT,
        "The answer is (\\-?[0-9\\.\\,]+).",  # gsm8k-cot's strict-match
        "The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))",  # gsm8k-cot-llama's strict-match
    }
)
OPTIONS = frozenset({"regexes_to_ignore", "ignore_case", "ignore_punctuation", "ignore_numbers"})
_COMPILED = {pattern: re.compile(pattern) for pattern in HARNESS_PATTERNS}
_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)
_NO_DIGITS = str.maketrans("", "", string.digits)


def harness_regex(pattern: str) -> FindsAll | None:
    """One of the harness's own patterns, found as `re` finds it, as lm-eval runs it; None for any other
    pattern. Each runs in time linear in the text under `re` (a fixed start, or runs of one class with nothing
    after them to backtrack into; tests/unit/test_linear_regex.py holds them to 2 MB of the text each finds
    hardest), but `(?s).*#### `, which exact_match removes by a scan instead."""
    if pattern == "(?s).*#### ":
        return None
    return _WITHIN_CLASS.get(pattern) or _COMPILED.get(pattern)


class WithinClass:
    """`re`'s findall of a pattern each of whose matches is a run of characters of one ASCII class, with no
    anchor, look-around or word boundary, and no empty match (GSM8K's flexible-extract): the pattern is run over
    the text's runs of that class alone, joined by spaces. No match can hold a character outside the class,
    and the search starts afresh past one, so the matches are the same, in the same order. `re` tries the
    pattern at every position of the text, and most of a generated answer is words, where none can start."""

    def __init__(self, pattern: str, characters: bytes):
        self.compiled = re.compile(pattern)
        self.kept = bytes(byte if byte in characters else 0x20 for byte in range(256))

    def findall(self, text: str) -> list[Any]:
        return self.compiled.findall(b" ".join(self._runs(text)).decode("ascii"))

    def last_matches(self, text: str, count: int) -> list[Any]:
        """findall(text)[-count:]. A match never spans two runs, so the last ones are found in the last runs,
        each searched on its own: a generated answer ends with the number flexible-extract keeps (group -1),
        and searching its twenty numbers before that was most of the replay. Past a few runs from the end
        without enough matches, every run is searched at once, in C."""
        runs = self._runs(text)
        found: list[Any] = []
        for run in reversed(runs[-_TAIL_RUNS:]):
            found[:0] = self.compiled.findall(run.decode("ascii"))
            if len(found) >= count:
                return found[-count:]
        if len(runs) <= _TAIL_RUNS:
            return found
        return self.compiled.findall(b" ".join(runs).decode("ascii"))[-count:]

    def _runs(self, text: str) -> list[bytes]:
        return text.encode("utf-8", "surrogatepass").translate(self.kept).split()


_TAIL_RUNS = 8  # runs from the end searched one by one (last_matches)

_WITHIN_CLASS = {FLEXIBLE_EXTRACT: WithinClass(FLEXIBLE_EXTRACT, b"-$0123456789.,")}


def scorable_options(options: dict) -> str | None:
    """Why lbnorm cannot re-score exact_match with these metric_list options (a sentence), or None if it can."""
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        return f"exact_match options {unknown} are not lm-eval's exact_match_hf_evaluate's"
    patterns = options.get("regexes_to_ignore")
    if patterns is not None and (
        not isinstance(patterns, list)
        or not all(type(p) is str and p in HARNESS_PATTERNS for p in patterns)
    ):
        return "regexes_to_ignore holds patterns the harness's leaderboard tasks do not ship (a pattern is not run)"
    return None


def _up_to_last_marker(text: str) -> str:
    """re.sub("(?s).*#### ", "", text) in linear time: the greedy match from the start ends at the last marker,
    and nothing after it matches again. Python's re takes quadratic time on a long text without the marker (a
    submitter's 300,000 characters took 17 s)."""
    end = text.rfind("#### ")
    return text if end < 0 else text[end + len("#### ") :]


def _without(character: str):
    """re.sub of a pattern that is one literal character: str.replace, without the regex engine's call."""
    return lambda text: text.replace(character, "")


def _without_final_dot(text: str) -> str:
    """re.sub(r"\\.$", "", text): `$` holds at the end and before a newline that ends the text, and the text
    ends either in a dot or in a newline, so at most one dot goes."""
    if text.endswith("."):
        return text[:-1]
    return text[:-2] + "\n" if text.endswith(".\n") else text


_LINEAR = {
    "(?s).*#### ": _up_to_last_marker,
    ",": _without(","),
    "\\$": _without("$"),
    "\\.$": _without_final_dot,
}


def exact_match(prediction: str, reference: str, options: dict) -> float:
    """lm-eval's exact_match of one prediction (options: checked by scorable_options first)."""
    for pattern in options.get("regexes_to_ignore") or ():
        strip = _LINEAR.get(pattern)
        if strip is not None:
            prediction, reference = strip(prediction), strip(reference)
            continue
        compiled = _COMPILED[pattern]
        prediction, reference = compiled.sub("", prediction), compiled.sub("", reference)
    if options.get("ignore_case"):
        prediction, reference = prediction.lower(), reference.lower()
    if options.get("ignore_punctuation"):
        prediction, reference = (
            prediction.translate(_NO_PUNCTUATION),
            reference.translate(_NO_PUNCTUATION),
        )
    if options.get("ignore_numbers"):
        prediction, reference = prediction.translate(_NO_DIGITS), reference.translate(_NO_DIGITS)
    # numpy's string arrays, which the harness compares in, drop trailing NULs
    return 1.0 if prediction.rstrip("\x00") == reference.rstrip("\x00") else 0.0


class FindsAll(Protocol):
    """A compiled pattern: `re`'s, or linear_regex.LinearPattern (RE2 for a submitter's pattern)."""

    def findall(self, string: str) -> list[Any]: ...


def apply_regex_filter(response: Any, pattern: FindsAll, group: int, fallback: str) -> str | None:
    """What lm-eval's RegexFilter makes of one response; None where the harness would have failed (a
    group_select past the matches), which no honest log holds."""
    text = response if isinstance(response, str) else ""
    if group < 0 and isinstance(pattern, WithinClass):
        found = pattern.last_matches(text, -group)  # found[group] is among the last -group matches
    else:
        found = pattern.findall(text)
    if not found:
        return fallback
    try:
        match = found[group]
    except IndexError:
        return None
    if isinstance(match, tuple):
        groups = [part for part in match if part]
        match = groups[0] if groups else fallback
    return match.strip()
