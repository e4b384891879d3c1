"""Make text from a submitted file safe to print on one line.

File names, model names and values come from whoever opened the pull
request. Printed raw, a newline could start a forged log line and a control
character could rewrite the terminal. Everything that reaches a human goes
through `one_line`.
"""

from __future__ import annotations

import unicodedata

MAX_CHARS = 300


def one_line(text: object, limit: int = MAX_CHARS) -> str:
    """Escape control and format characters, and truncate long values."""
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + f"...[{len(s) - limit} more chars]"
    if s.isprintable():
        return s
    return "".join(_escape(ch) for ch in s)


def _escape(ch: str) -> str:
    if ch.isprintable():
        return ch
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    if unicodedata.category(ch) == "Zs":
        return " "
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
