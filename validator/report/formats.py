"""The output formats every command that reports findings offers: text, json, github, sarif, junit.

text and json are each command's own (report/check.py, report/audit.py);
github, sarif and junit only need findings and the files looked at, so one
implementation serves `check` and `audit`. `github` is chosen when
GITHUB_ACTIONS=true and no format is given, as yamllint does.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, TextIO

from .github import annotation_lines
from .junit import report_junit
from .sarif import report_sarif
from .text_style import ReportOptions

Reporter = Callable[[Any, TextIO, ReportOptions], None]
FORMATS = ("text", "json", "github", "sarif", "junit")
GITHUB_DETAILS = "every finding is listed in this step's log; upload SARIF to see them all on the diff"


def reporters(text: Reporter, json: Reporter) -> dict[str, Reporter]:
    def github(result: Any, out: TextIO, options: ReportOptions) -> None:
        """Workflow-command annotations (GitHub shows 10 per severity), then the plain text report."""
        # Behind the CLI's guard (io/safe_text.py) the annotations, built from escaped data, go out as
        # commands; everything else written to `out` is still neutralised.
        command = getattr(out, "command", lambda line: out.write(line + "\n"))
        for line in annotation_lines(result, GITHUB_DETAILS):
            command(line)
        text(result, out, replace(options, color=False))

    return {"text": text, "json": json, "github": github, "sarif": report_sarif, "junit": report_junit}


def default_format(chosen: str | None, env: Mapping[str, str]) -> str:
    if chosen:
        return chosen
    return "github" if env.get("GITHUB_ACTIONS") == "true" else "text"
