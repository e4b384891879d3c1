"""Two small helpers of the DROP scorer (audit/drop.py): a bounded cache, and the trailing-number match."""

from __future__ import annotations

import re
from collections import OrderedDict

_REVERSED_TRAILING_NUMBER = re.compile(r"\d[\d,]*")


class BoundedCache(OrderedDict):
    """A dict that holds at most `entries` items: the oldest goes first. Looked up with .get, filled with .keep.

    An OrderedDict: evicting a plain dict's first key scans past every key deleted before it.
    """

    def __init__(self, entries: int):
        super().__init__()
        self.entries = entries

    def keep(self, key, value) -> None:
        if len(self) >= self.entries:
            self.popitem(last=False)
        self[key] = value


def trailing_number(text: str) -> str | None:
    """What re.search(r"([\\d,]*\\d)$") finds, matched forwards on the reversed text.

    The search retries from every start of a long run of digits and commas
    that does not end the text: quadratic in the run. Anchored at the start
    of the reversed text, a greedy match is one linear pass.
    """
    if text.endswith("\n"):  # `$` also matches before a final newline
        text = text[:-1]
    if not text[-1:].isdecimal():  # \d is a decimal digit: most predictions end otherwise, and are not reversed
        return None
    match = _REVERSED_TRAILING_NUMBER.match(text[::-1])
    return match.group()[::-1] if match else None
