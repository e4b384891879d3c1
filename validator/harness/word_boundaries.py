"""A text as linear_regex.py hands it to RE2: in UTF-8, with `re`'s word boundaries marked in it, or looked at
one place at a time. Pure.

RE2's `\\b` is ASCII. `re`'s is Unicode: it holds where a word character
(`\\w`: str.isalnum() or "_") stands on one side and not on the other, the
text's two ends not being word characters. In a text whose word characters
are all ASCII the two agree; in another, a marker (a noncharacter the text
does not hold) is written at each place `re` finds a boundary, and the
pattern, rewritten, looks for the marker instead.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .not_linear import NotLinear

MARKERS = ("\U0010fffd", "\U000ffffd", "\U0010fffc")  # noncharacters no honest text holds
# Characters of a text whose marking is kept: an IFEval reply is a few kB; a string may hold a million
MAX_MARKED = 64 * 1024
# A text split at its runs of word characters, kept: joined with a marker, the marker stands at every place `re`
# finds \b (each run's two ends, the text's own ends among them), a quarter faster than re.sub at each \b.
_WORD_RUNS = re.compile(r"(\w+)")
_WORD_BEYOND_ASCII = re.compile(r"[^\W\x00-\x7f]")


def utf8(text: str) -> bytes:
    """The text as RE2 reads it; NotLinear for a lone surrogate, which UTF-8 cannot hold."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise NotLinear("a lone surrogate in the text") from error


def marked(text: str) -> tuple[str | None, bytes]:
    """(the marker, the text in UTF-8 with the marker at each place `re` finds a word boundary), kept for texts
    up to MAX_MARKED characters. (None, the text in UTF-8) when no character beyond ASCII is a word character
    (curly quotes and dashes are not): `re`'s \\b then stands where RE2's ASCII one does."""
    return _kept_marking(text) if len(text) <= MAX_MARKED else _marking(text)


def _marking(text: str) -> tuple[str | None, bytes]:
    encoded = utf8(text)  # a lone surrogate is told before anything else, as for a text without \b
    if _WORD_BEYOND_ASCII.search(text) is None:
        return None, encoded
    marker = next((m for m in MARKERS if m not in text), None)
    if marker is None:
        raise NotLinear("a text holding every boundary marker")
    return marker, marker.join(_WORD_RUNS.split(text)).encode("utf-8")


# Once per text: several \b patterns are searched for in an IFEval reply and each of its loose variants, and
# marking a reply of 2 kB costs several times a search. At most 32 texts of MAX_MARKED characters: about 20 MB.
_kept_marking = lru_cache(maxsize=32)(_marking)


def boundary_at(encoded: bytes, at: int) -> bool:
    """Whether `re`'s Unicode \\b holds at this offset of the UTF-8 text, which starts a character (or ends it)."""
    before = encoded[max(at - 4, 0) : at].decode("utf-8", "ignore")[-1:]
    after = encoded[at : at + 4].decode("utf-8", "ignore")[:1]
    return (before.isalnum() or before == "_") != (after.isalnum() or after == "_")


def next_character(encoded: bytes, at: int) -> int:
    """The offset of the character after the one that starts at `at`, in UTF-8."""
    at += 1
    while at < len(encoded) and encoded[at] & 0xC0 == 0x80:
        at += 1
    return at
