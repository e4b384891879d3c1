"""Natural order for names people read: org2 before org10 (runs of digits compare as numbers)."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple:
    """A sort key: runs of digits compare as numbers, the rest case-insensitively."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part.lower())
        for part in _DIGITS.split(text)
        if part
    )
