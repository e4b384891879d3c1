"""`lbnorm leaderboard`: the published table, built from the accepted submissions."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import click

from ..check.checker import DEFAULT_TOLERANCE, CheckOptions, CheckResult, run_check
from ..check.leaderboard import Refused, build
from ..core.errors import ExitCode
from ..io.loaders import load_builtin_profile
from ..report.check import REPORTERS as CHECK_REPORTERS
from ..report.check import ReportOptions
from .arguments import scoped_arguments
from .configuration import command_line_settings, effective
from .options import DEFAULT_PROFILE, config_options, limit_options, profile_options


@click.command()
@click.argument("submissions", nargs=-1, required=True)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder for leaderboard.csv, .json, .md and .html (files of those names are replaced).",
)
@profile_options(
    f"The leaderboard's built-in profile [default: {DEFAULT_PROFILE}].",
    "The leaderboard's own profile (YAML or JSON).",
    f"As check's: largest accepted |reported - recomputed| [default: {DEFAULT_TOLERANCE}].",
)
@click.option("--strict", is_flag=True, help="A submission with warnings is refused too.")
@config_options
@limit_options
def leaderboard(
    submissions: tuple[str, ...],
    out: Path,
    profile_name: str | None,
    profile_file: Path | None,
    tolerance: float | None,
    strict: bool,
    config_file: Path | None,
    isolated: bool,
    root: Path | None,
    **limits,
) -> None:
    """Build the leaderboard table from accepted submissions.

    SUBMISSIONS are submission files, folders or globs. Each is checked as
    `lbnorm check` checks it (its sample logs audited when it lists them);
    if any fails, nothing is written and the command exits 1. Every score is
    recomputed from the submission's results file, never copied from its
    `reported`; rows are ranked by average and traced to their results file's
    path and SHA-256. Two submissions of the same results file or the same
    model are refused. The output is byte-for-byte the same for the same
    submissions.
    """
    run = effective(
        command_line_settings(
            tolerance=tolerance,
            profile=profile_name,
            profile_file=profile_file,
            strict=strict,
            **limits,
        ),
        config_file,
        isolated,
        root,
    )
    settings, cwd = run.settings, Path(os.getcwd())
    profile = run.profile() or load_builtin_profile(DEFAULT_PROFILE)
    scopes, outside = scoped_arguments(run.workspace, submissions, cwd)
    if outside:
        raise click.UsageError(
            f"{outside[0]} is outside the workspace {run.workspace}; move it in or give --root"
        )
    options = CheckOptions(
        root=cwd,
        tolerance=settings.tolerance if settings.tolerance is not None else DEFAULT_TOLERANCE,
        profile=profile,
        limits=run.limits,
        jobs=1,
        selection=run.selection(),
    )
    result = CheckResult()
    for boundary, patterns in scopes.items():
        part = run_check(patterns, replace(options, boundary=boundary))
        result.merge(part)
        result.files.extend(part.files)
    result.close()
    result.files.sort(key=lambda report: report.path)
    try:
        board = build(result, profile, cwd, run.strict, run.limits)
    except Refused as exc:
        if result.findings:
            CHECK_REPORTERS["text"](
                result, sys.stderr, ReportOptions(strict=run.strict, root=str(cwd))
            )
        click.echo(f"lbnorm leaderboard: {exc}; nothing was written", err=True)
        sys.exit(ExitCode.DATA)
    from ..report.leaderboard import write

    for path in write(board, out):
        click.echo(f"wrote {path}")
    click.echo(f"{len(board.entries):,} submissions ranked on profile {board.profile}")
