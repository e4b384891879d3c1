"""What IFEval's checkers read of a lower-cased reply, found without lowering all of it. Pure.

Three checkers lower the whole reply to count one letter in it or to compare its start or its end with a
kwarg; beyond ASCII, str.lower() of 2 kB takes about 5 µs. It maps each character on its own, to one
character or more (İ to two), but for Σ, whose lower case depends on the letters around it (final sigma).
So a part of the text without Σ lowers alone to what it lowers to within the text, and a start or an end
as long as the kwarg, lowered, is at least as long as the lowered kwarg. And of all characters beyond
ASCII only İ (to "i̇") and the Kelvin sign (to "k") lower to text holding an ASCII letter, so a letter's
count is the count of its two cases and of those two. tests/unit/test_lowered.py asks str.lower() about
every code point.
"""

from __future__ import annotations

SIGMA = "\u03a3"
# The characters beyond ASCII whose lower case holds an ASCII letter (one of it), by that letter
BEYOND_ASCII = {"i": "\u0130", "k": "\u212a"}


def count_lowered(text: str, letter: str) -> int:
    """text.lower().count(letter), for a letter from a to z."""
    found = text.count(letter) + text.count(letter.upper())
    beyond = BEYOND_ASCII.get(letter)
    return found + text.count(beyond) if beyond else found


def starts_lowered(text: str, prefix: str) -> bool:
    """text.lower().startswith(prefix)."""
    head = text[: len(prefix)]
    return (text if SIGMA in head else head).lower().startswith(prefix)


def ends_lowered(text: str, suffix: str) -> bool:
    """text.lower().endswith(suffix)."""
    tail = text[max(len(text) - len(suffix), 0) :]
    return (text if SIGMA in tail else tail).lower().endswith(suffix)
