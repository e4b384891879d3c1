"""The output formats every command that reports findings offers: text, json, github, sarif, junit.

text and json are each command's own (report/check.py, report/audit.py);
github, sarif and junit only need findings and the files looked at, so one
implementation serves `check` and `audit`. `github` is chosen when
GITHUB_ACTIONS=true and no format is given, as yamllint does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TextIO

from ..io.safe_text import command_stream
from .text_style import ReportOptions

Reporter = Callable[[Any, TextIO, ReportOptions], None]
FORMATS = ("text", "json", "github", "sarif", "junit")
GITHUB_DETAILS = (
    "every finding is listed in this step's log; upload SARIF to see them all on the diff"
)


def reporters(text: Reporter, json: Reporter) -> dict[str, Reporter]:
    def github(result: Any, out: TextIO, options: ReportOptions) -> None:
        """Workflow-command annotations (GitHub shows 10 per severity), then the plain text report."""
        from .github import annotation_lines

        commands = command_stream(
            out
        )  # our own ::error lines (their text escaped), past the stdout guard
        for line in annotation_lines(result, GITHUB_DETAILS):
            commands.write(line + "\n")
        text(result, out, options._replace(color=False))

    # SARIF and JUnit load (and with them hashlib and an XML library) only when asked for.
    def sarif(result: Any, out: TextIO, options: ReportOptions) -> None:
        from .sarif import report_sarif

        report_sarif(result, out, options)

    def junit(result: Any, out: TextIO, options: ReportOptions) -> None:
        from .junit import report_junit

        report_junit(result, out, options)

    return {"text": text, "json": json, "github": github, "sarif": sarif, "junit": junit}


def default_format(chosen: str | None, env: Mapping[str, str]) -> str:
    if chosen:
        return chosen
    return "github" if env.get("GITHUB_ACTIONS") == "true" else "text"
