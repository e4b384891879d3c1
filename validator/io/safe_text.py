"""Make text from a submitted file safe to print on one line.

File names, model names and values come from whoever opened the pull
request. Printed raw, a newline could start a forged log line, a control
character could rewrite the terminal, and on GitHub Actions a line starting
with `::` or containing `##[` anywhere is a workflow command. Everything that
reaches a log goes through `one_line` (or `neutralize_json` for JSON text).
"""

from __future__ import annotations

import unicodedata

MAX_CHARS = 300


def one_line(text: object, limit: int = MAX_CHARS) -> str:
    """Escape control and format characters, and truncate long values."""
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + f"...[{len(s) - limit} more chars]"
    if not s.isprintable():
        s = "".join(_escape(ch) for ch in s)
    return _no_workflow_commands(s)


def _no_workflow_commands(s: str) -> str:
    """The runner reads `##[cmd]` anywhere in a line and `::cmd` at its start."""
    s = s.replace("##[", "##\\[")
    if s.lstrip().startswith("::"):
        s = "\\" + s.lstrip()
    return s


def neutralize_json(text: str) -> str:
    """JSON text that no runner reads as a command: '#' inside strings becomes \\u0023.

    `##[` can only occur inside JSON strings, where the escape keeps the value.
    Lines of indented JSON never start with `::` outside a string.
    """
    return text.replace("##[", "\\u0023#[")


def _escape(ch: str) -> str:
    if ch.isprintable():
        return ch
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    if unicodedata.category(ch) == "Zs":
        return " "
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
