"""Read a step's output the way the GitHub runner does, to see which workflow commands it would run.

Rules (docs/reference/workflow-commands.md): output is split into lines on CR,
LF or CRLF; a line whose text after leading whitespace starts with `::` is a
command `::name key=value,...::data`; the legacy form `##[name key=value;...]data`
is recognised anywhere in a line. Names are case-insensitive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LEGACY = re.compile(r"##\[(?P<name>[^\]\s;]+)(?:\s(?P<props>[^\]]*))?\](?P<data>.*)")
UNESCAPE = [("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")]


@dataclass(frozen=True)
class Command:
    name: str
    properties: dict[str, str]
    data: str
    line: str


def unescape(text: str) -> str:
    for escaped, plain in UNESCAPE:
        text = text.replace(escaped, plain)
    return text


def commands(output: str) -> list[Command]:
    found = []
    for line in re.split(r"\r\n|\r|\n", output):
        stripped = line.lstrip()
        if stripped.startswith("::"):
            head, sep, data = stripped[2:].partition("::")
            if sep:
                name, _, props = head.partition(" ")
                found.append(Command(name.lower(), _properties(props, ","), unescape(data), line))
        for match in LEGACY.finditer(line):
            found.append(
                Command(
                    match["name"].lower(),
                    _properties(match["props"] or "", ";"),
                    match["data"],
                    line,
                )
            )
    return found


def _properties(text: str, separator: str) -> dict[str, str]:
    props = {}
    for part in filter(None, text.split(separator)):
        key, _, value = part.partition("=")
        props[key.strip().lower()] = unescape(value)
    return props
