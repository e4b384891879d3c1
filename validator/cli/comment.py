"""`lbnorm comment REPORT`: the pull request comment of a check report, in Markdown on stdout.

Run by the `workflow_run` workflow that holds the write token, on the report a
pull request's run uploaded (docs/action.md, examples/workflows/). The report is
untrusted: read under a size limit, parsed with duplicate keys refused, held to
schemas/report.schema.json, then rendered by report/comment.py. A report that is
none still gets a comment saying so, and exit 1.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.errors import DataError, ExitCode
from ..io.limits import Limits

REPORT_LIMITS = Limits(max_file_bytes=16 * 1024 * 1024, max_depth=16)


@click.command()
@click.argument("report", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--run-url",
    default=None,
    help="The address of the run that made the report (https://.../OWNER/REPO/actions/runs/ID); "
    "the comment's only link.",
)
@click.option(
    "--conclusion",
    default=None,
    help="How that run ended (the workflow_run event's conclusion): anything but `success` is a failure.",
)
def comment(report: Path, run_url: str | None, conclusion: str | None) -> None:
    """Render a check report (lbnorm-report.json) as the pull request's comment, on stdout."""
    import jsonschema

    from ..io.loaders import parse, read_text
    from ..report.comment import comment_markdown, safe_run_url, unreadable_comment
    from ..report.json_report import report_schema

    url = safe_run_url(run_url)
    if run_url and url is None:
        raise click.BadParameter(
            "not https://HOST/OWNER/REPO/actions/runs/ID; pass the run's html_url",
            param_hint="--run-url",
        )
    try:
        doc = parse(
            read_text(report, limits=REPORT_LIMITS), str(report), "json", limits=REPORT_LIMITS
        )
        error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(report_schema("check")).iter_errors(doc)
        )
        if error is not None:
            where = "/".join(map(str, error.absolute_path)) or "the top level"
            raise DataError(f"{report}: at {where}: {error.message[:200]}")
    except DataError as exc:
        sys.stdout.write(unreadable_comment(str(exc), url))
        click.echo(f"lbnorm comment: {exc}", err=True)
        sys.exit(ExitCode.DATA)
    sys.stdout.write(comment_markdown(doc, url, conclusion))
