"""Make text from a submitted file safe to print on one line.

File names, model names and values come from whoever opened the pull
request. Printed raw, a newline could start a forged log line, a control
character could rewrite the terminal, and on GitHub Actions a line starting
with `::` or containing `##[` anywhere is a workflow command. Everything that
reaches a log goes through `one_line` (or `neutralize_json` for JSON text).
"""

from __future__ import annotations

import re
import unicodedata
from typing import TextIO

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
    """The runner reads `##[cmd]` anywhere in a line and `::cmd` at its start (after blanks)."""
    s = s.replace("##[", "##\\[")
    return _LINE_START_COMMAND.sub(r"\1\\::", s)


# `::` at the start of the text or of any line the runner sees (it splits at CR and LF).
_LINE_START_COMMAND = re.compile(r"(^|[\r\n])[^\S\r\n]*::")


class CommandSafeWriter:
    """A text stream that no text can turn into a workflow command, whatever wrote it.

    one_line() makes each value safe where it is formatted; this is the guard
    at the one place everything passes: the stream. Whole lines go through
    the same rule; a line is held back until its end arrives, so `#` + `#[`
    written in two calls is still caught. Used for every report the CLI and
    the Action print (never for the Action's own commands).
    """

    def __init__(self, stream: TextIO):
        self._stream, self._pending = stream, ""

    def write(self, text: str) -> int:
        data = self._pending + text
        cut = max(data.rfind("\n"), data.rfind("\r")) + 1
        self._pending = data[cut:]
        if cut:
            self._stream.write(_no_workflow_commands(data[:cut]))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(_no_workflow_commands(self._pending))
            self._pending = ""
        self._stream.flush()

    def __getattr__(self, name: str):  # isatty, encoding, fileno...: those of the real stream
        return getattr(self._stream, name)


def command_stream(out: TextIO) -> TextIO:
    """The stream under the guard, for the one writer of lbnorm's own workflow commands (escaped annotations)."""
    if isinstance(out, CommandSafeWriter):
        out.flush()
        return out._stream
    return out


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
