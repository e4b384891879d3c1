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
from collections.abc import Callable

_SPACES = re.compile(r"\s*")
_WORDS = re.compile(r"\w+")
_DIVIDER = re.compile(r"\s?\*\*\*\s?")
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
    """len(re.findall(r"^\\s*\\*[^\\*].*$", value, re.M)) + len(re.findall(r"^\\s*-.*$", value, re.M))."""
    return _line_heads(value, _star_head) + _line_heads(value, _dash_head)


def _star_head(value: str, at: int) -> int:
    return (
        at + 2 if value.startswith("*", at) and at + 1 < len(value) and value[at + 1] != "*" else -1
    )


def _dash_head(value: str, at: int) -> int:
    return at + 1 if value.startswith("-", at) else -1


def _line_heads(value: str, head: Callable[[str, int], int]) -> int:
    """Matches of ^\\s*<head>.*$ (re.M), found left to right as findall does. The whitespace may span lines;
    where the head fails after it, every line start inside that whitespace fails the same way, so the scan
    resumes at the first line start past it (re tries each, each time re-reading the whitespace)."""
    count, start, size = 0, 0, len(value)
    while start <= size:
        after_spaces = _SPACES.match(value, start).end()  # type: ignore[union-attr]  # \s* matches anywhere
        body = head(value, after_spaces)
        if body >= 0:
            count += 1
            end = value.find("\n", body)
            resume = size if end < 0 else end
            if (
                resume > 0 and value[resume - 1] == "\n"
            ):  # the match ended on a line start: re tries it next
                start = resume
                continue
        else:
            resume = after_spaces
        newline = value.find("\n", resume)
        if newline < 0:
            return count
        start = newline + 1
    return count


def divider_split(value: str) -> list[str]:
    """re.split(r"\\s?\\*\\*\\*\\s?", value), the harness's paragraph divider, found with str.find: each "***" left
    to right, with the whitespace before it (when the last divider did not take it) and after it. `re` tried the
    pattern at every position of the reply, about 15 us for 2 kB. (`re`'s \\s is str.isspace().) A text
    dense with dividers (over one in 64 characters: a line of stars) is split by `re`, four times faster there."""
    if value.count("***") * 64 > len(value):
        return _DIVIDER.split(value)
    parts, start = [], 0
    while (found := value.find("***", start)) >= 0:
        begin = found - 1 if found > start and value[found - 1].isspace() else found
        end = found + 4 if value[found + 3 : found + 4].isspace() else found + 3
        parts.append(value[start:begin])
        start = end
    parts.append(value[start:])
    return parts


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
