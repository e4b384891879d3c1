"""IFEval's backtracking patterns counted in linear time. Pure.

The harness's bullet, placeholder and title patterns (lm-eval's
tasks/ifeval/instructions.py) backtrack without bound on some texts: runs of
blank lines or brackets make them quadratic, and the submitter writes the
response. These scans give what `re` finds, in one pass;
tests/unit/test_ifeval.py holds them to `re` with hypothesis. The word count
(`\\w+`, the one pattern every number_words check runs on the response and its
loose variants) is taken on a mask of the text made in C, without building
the words.
"""

from __future__ import annotations

import codecs
import re
from operator import methodcaller

_WORDS = re.compile(r"\w+")
_DASH_HEAD = methodcaller("startswith", "-")
# A text's mask: each character "a" where `re`'s \w matches it, " " elsewhere. ASCII by a table; beyond ASCII
# by the encoder's error handler, which `re`'s rule decides: alphanumeric (str.isalnum()) or "_", which is ASCII.
_WORD_OR_SPACE = (
    bytes(0x61 if chr(byte).isalnum() or byte == 0x5F else 0x20 for byte in range(128)) + b" " * 128
)
_MASK_ERRORS = "lbnorm-ifeval-word-mask"


def _mask_beyond_ascii(error: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    run = error.object[error.start : error.end]
    return bytes(0x61 if char.isalnum() else 0x20 for char in run), error.end


codecs.register_error(_MASK_ERRORS, _mask_beyond_ascii)


def word_mask(value: str) -> bytes:
    """One byte per character of `value`: b"a" where re's \\w matches it, b" " elsewhere."""
    return value.encode("ascii", _MASK_ERRORS).translate(_WORD_OR_SPACE)


def word_count(value: str) -> int:
    """len(re.findall(r"\\w+", value)): the runs of word characters, each begun by an "a" at the mask's start or
    after a " ". A 2 kB reply in 3 to 5 us, where findall built its words in 35. The error handler is a call
    per run of characters beyond ASCII: a text dense with them (over one byte in 32 past its length in UTF-8,
    "é é é ..." eight times findall's time) is counted by findall."""
    beyond = 0 if value.isascii() else len(value.encode("utf-8", "surrogatepass")) - len(value)
    if beyond * 32 > len(value):
        return len(_WORDS.findall(value))
    mask = word_mask(value)
    return mask.count(b" a") + mask.startswith(b"a")


def bullet_count(value: str) -> int:
    """len(re.findall(r"^\\s*\\*[^\\*].*$", value, re.M)) + len(re.findall(r"^\\s*-.*$", value, re.M)).

    Either pattern is tried at a line's start, where its \\s* (str.isspace(), as lstrip() reads it) runs on
    over blank lines to the next line holding anything else: so each such line is tried once, on its first
    character past whitespace, and the scan goes on at the next line. A dash's `.*$` ends with its line; a
    star's `[^\\*]` may be the line break after a line holding only the star, its `.*$` then taking the next
    line whole. Read a line at a time, where `re` tried each start of a run of blank lines (quadratic), and
    a scan per match took twice as long."""
    lines = list(map(str.lstrip, value.split("\n")))
    dashes = sum(map(_DASH_HEAD, lines)) if "-" in value else 0
    return dashes + (_star_lines(lines) if "*" in value else 0)


def _star_lines(lines: list[str]) -> int:
    """The lines, each past its whitespace, on which the star pattern matches (see bullet_count)."""
    count, last, taken = 0, len(lines) - 1, False
    for index, line in enumerate(lines):
        if taken:  # the line after a lone star: inside its match
            taken = False
        elif line.startswith("*") and (line[1:2] not in ("*", "") or line == "*" and index < last):
            count += 1
            taken = line == "*"
    return count


def divider_parts(value: str) -> list[str]:
    """re.split(r"\\s?\\*\\*\\*\\s?", value)'s parts, the harness's paragraphs, but for a whitespace character the
    divider may take at either end of each, which number_paragraphs strips anyway: str.split at each "***". re
    matches at the same "***", left to right: the first past its last match (with the whitespace character
    before it, where that is past the last match too), then the one after it (the whitespace character it may
    take cannot start a "***"). `re` tried the pattern at every position of the reply, about 15 us for 2 kB."""
    return value.split("***")


def placeholder_count(value: str) -> int:
    """len(re.findall(r"\\[.*?\\]", value)): each '[' to the first ']' after it on its line. Each line's end is
    looked for once, not once a '[' (`[][][]...` on one line would be read again for each)."""
    # line_end: where the line of the last '[' ends (-1: at the text's end), looked for once a line
    count, at, line_end = 0, 0, None
    while (opening := value.find("[", at)) >= 0:
        if line_end is None or 0 <= line_end < opening:
            line_end = value.find("\n", opening)
        closing = value.find("]", opening + 1, len(value) if line_end < 0 else line_end)
        if closing >= 0:
            count, at = count + 1, closing + 1
        elif line_end < 0:
            break
        else:
            at = line_end + 1  # every later '[' of this line has no ']' after it either
    return count


def titles(value: str) -> list[str]:
    """re.findall(r"<<[^\\n]+>>", value): on each line, from its first '<<' to its last '>>' at least one
    character further (greedy, so at most one per line)."""
    found = []
    for line in value.split("\n"):
        opening = line.find("<<")
        if opening >= 0 and (closing := line.rfind(">>", opening + 3)) >= 0:
            found.append(line[opening : closing + 2])
    return found
