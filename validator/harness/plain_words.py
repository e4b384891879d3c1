"""IFEval keywords of plain ASCII words, searched for with bytes methods instead of RE2. Pure.

The harness compiles each keyword as a regular expression, ignoring case:
re.search(keyword), len(re.findall(keyword)) and re.search(\\bword\\b). A
dataset's keywords are words ("coffee", "at least"), in which re reads no
character specially. Ignoring case, re matches such a word's characters with
their ASCII cases, and with four characters beyond ASCII only: İ and the
Kelvin sign (which re's simple case mapping lowers to i and k) and ı and ſ
(which re's case folding takes for i and s). In a text without those four,
re finds the word where the text's UTF-8 with its ASCII letters lower-cased
(bytes.lower()) holds it: no byte of a character beyond ASCII is an ASCII
one. Its \\b is looked at in place (word_boundaries.boundary_at). So a search
is bytes.find, a count bytes.count, and the keyword is not compiled for RE2,
which took a fresh IFEval audit a fifth of its time. A text with one of the
four, a lone surrogate (which UTF-8 cannot hold) or more than KEPT characters
goes to the compiled pattern. Each search RE2 would have run is still asked of
the reading in force (read_budget.py), and with it the comparisons the bytes
methods may make: CPython searches a text of under 30,000 bytes by comparing
the word at each place, up to its length a place, so a run is asked for that
many passes over the text, and a budget bounds its time as it bounds RE2's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .read_budget import ask, ask_searches
from .word_boundaries import boundary_at

# Characters that re reads as themselves, whatever the flags but VERBOSE (which the harness does not set)
_PLAIN = re.compile(r"[A-Za-z0-9 '-]+")
# İ, ı, ſ and the Kelvin sign (tests/unit/test_plain_words.py asks re about every code point)
_FOLDING_TO_ASCII = "\u0130\u0131\u017f\u212a"
# Places the word is found in one text before the compiled pattern decides (a reply of one letter repeated)
_LOOKS = 16


def is_plain(words: str, before: str, after: str, flags: int) -> bool:
    """Whether the harness's pattern before + words + after, under `flags`, is words PlainWords reads: plain
    ASCII words ignoring case, alone or between \\b."""
    return (
        flags == re.IGNORECASE
        and (before, after) in (("", ""), (r"\b", r"\b"))
        and reads_as_itself(words)
    )


def reads_as_itself(words: str) -> bool:
    """Whether every character of `words` is one re reads as itself, whatever the flags but VERBOSE."""
    return _PLAIN.fullmatch(words) is not None


class PlainWords:
    """A plain keyword (is_plain) with the searches the IFEval replay runs: `search` and `count` answer, and ask
    the reading in force what linear_regex.LinearPattern's ask, and for their comparisons; `compiled()` gives
    that pattern for a text bytes methods cannot read so."""

    __slots__ = ("words", "bounded_by_words", "compiled")

    def __init__(self, words: str, bounded: bool, compiled: Callable[[], Any]):
        self.words = words.lower().encode("ascii")
        self.bounded_by_words = bounded  # \b at each end
        self.compiled = compiled

    def search(self, text: str) -> bool:
        """Whether re.search finds the pattern."""
        lowered, words = lower_case(text), self.words
        if lowered is None:
            return self.compiled().search(text)
        _ask_comparisons(lowered, words)
        at = lowered.find(words)
        if not self.bounded_by_words:
            return at >= 0
        for _ in range(_LOOKS):
            if at < 0:
                return False
            if boundary_at(lowered, at) and boundary_at(lowered, at + len(words)):
                return True
            ask_searches(1)  # the next look: its scan is within the passes asked, its call is not
            at = lowered.find(words, at + 1)
        return at >= 0 and self.compiled().search(text)

    def count(self, text: str) -> int:
        """len(re.findall(pattern, text)): non-overlapping, from the left, as bytes.count counts."""
        lowered = None if self.bounded_by_words else lower_case(text)
        if lowered is None:
            return self.compiled().count(text)
        _ask_comparisons(lowered, self.words)
        found = lowered.count(self.words)
        ask_searches(found + 1)  # one search a match, and the last that finds none
        return found


def _ask_comparisons(lowered: bytes, words: bytes) -> None:
    """The passes past the one run() asked for (ifeval_reads.run) that comparing the word at each place may make."""
    if len(words) > 1:
        ask((len(words) - 1) * (len(lowered) + 1))


def lower_case(text: str) -> bytes | None:
    """The text in UTF-8 with its ASCII letters lower-cased, where a plain word stands where re finds it; None
    for a text with one of the four characters or a lone surrogate, and for one of more than KEPT characters.
    Kept: the keywords of a doc are searched for in turn in one reply and its loose variants."""
    return _kept_lower_case(text) if len(text) <= KEPT else None


def _lower_case(text: str) -> bytes | None:
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: RE2 cannot read it either, and says so
        return None
    # Looked for in the text, not in its UTF-8: their first bytes begin é and most letters beyond ASCII, where
    # bytes.find stops at each; a str of letters below U+0100 cannot hold them, and says so at once
    if not text.isascii() and any(character in text for character in _FOLDING_TO_ASCII):
        return None
    return encoded.lower()


KEPT = 64 * 1024
_kept_lower_case = lru_cache(maxsize=32)(_lower_case)
