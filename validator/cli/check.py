"""`lbnorm check`: check submissions against their raw results."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import click

from ..check.checker import DEFAULT_TOLERANCE, CheckOptions, CheckResult, run_check
from ..core.errors import ExitCode
from ..findings import make_finding
from ..io.workspace import outside_message
from ..report.check import REPORTERS as CHECK_REPORTERS
from ..report.check import ReportOptions, use_color
from ..report.formats import default_format
from .arguments import scoped_arguments
from .configuration import OWN_TASKS_HINT, Effective, command_line_settings, effective
from .options import (
    DEFAULT_PROFILE,
    config_options,
    limit_options,
    log_limit_option,
    profile_options,
    report_options,
    selection_options,
)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@profile_options(
    "Check every file with this built-in profile. Without it (and without --profile-file), "
    f"each submission's 'profile' field picks a built-in one [default: {DEFAULT_PROFILE}].",
    "Check every file with your own profile (YAML or JSON).",
    "Largest accepted |reported - recomputed|, in normalized points. Published values carry "
    "two decimals, and the average of six rounded scores can differ from the rounded "
    f"average by one unit in the last place, hence {DEFAULT_TOLERANCE} [default: {DEFAULT_TOLERANCE}].",
)
@click.option(
    "--stale-scorer-bound",
    type=click.FloatRange(min=0.0, max=100.0),
    default=None,
    help="Accept a reported score that differs from the recomputed one by at most this many normalized "
    "points when the results say an older scorer made them (MATH before Math-Verify) as a warning "
    "(LB607) instead of an error (LB606). Off by default: such a number cannot be verified.",
)
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
@click.option(
    "--audit-samples/--no-audit-samples",
    default=None,
    help="Also audit the sample logs lm-eval wrote beside a results file (an --output_path run "
    "folder) [default: on].",
)
@config_options
@selection_options
@report_options
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=0),
    default=0,
    help="Worker processes for runs of many files (a re-audit); 0 = one per CPU [default: 0]. "
    "Fewer than 64 files are always checked in one process.",
)
@limit_options
@log_limit_option
def check(
    paths: tuple[str, ...],
    profile_name: str | None,
    profile_file: Path | None,
    tolerance: float | None,
    stale_scorer_bound: float | None,
    strict: bool,
    audit_samples: bool | None,
    config_file: Path | None,
    isolated: bool,
    root: Path | None,
    output_format: str | None,
    color: str,
    verbose: int,
    quiet: int,
    jobs: int,
    **options,
) -> None:
    """Check submissions: recompute their scores from the raw results and compare.

    PATHS are files, folders (an lm-eval --output_path folder too) or globs
    (quote them), relative to the current directory. A submission pairs
    reported scores with a results file; a bare results file gets the
    raw-file checks and an audit of the sample logs beside it. Exit 0: no
    errors; 1: errors (or warnings with --strict); 2: usage; 3: bad profile,
    configuration or internal error. `lbnorm rules` lists every check.
    """
    run = effective(
        command_line_settings(
            tolerance=tolerance,
            profile=profile_name,
            profile_file=profile_file,
            strict=strict,
            audit_samples=audit_samples,
            **options,
        ),
        config_file,
        isolated,
        root,
    )
    cwd = Path(os.getcwd())
    progress = _progress_line if sys.stderr.isatty() and quiet == 0 else None
    result = check_arguments(
        run, paths, cwd, jobs or os.cpu_count() or 1, stale_scorer_bound, progress
    )
    report = ReportOptions(
        strict=run.strict,
        verbosity=verbose - quiet,
        color=use_color(sys.stdout, color),
        root=str(cwd),
    )
    CHECK_REPORTERS[default_format(output_format, os.environ)](result, sys.stdout, report)
    if run.profile() is None and _all_tasks_unknown(result):
        click.echo(f"lbnorm: hint: {OWN_TASKS_HINT}", err=True)
    sys.exit(ExitCode.OK if result.ok(run.strict) else ExitCode.DATA)


def check_arguments(
    run: Effective,
    paths: tuple[str, ...],
    cwd: Path,
    jobs: int = 1,
    stale_scorer_bound: float | None = None,
    progress=None,
) -> CheckResult:
    """What `lbnorm check PATHS` finds under these settings (submission init runs it on what it wrote)."""
    settings, workspace = run.settings, run.workspace
    scopes, outside = scoped_arguments(workspace, paths, cwd)
    check_options = CheckOptions(
        root=cwd,
        tolerance=settings.tolerance if settings.tolerance is not None else DEFAULT_TOLERANCE,
        profile=run.profile(),
        limits=run.limits,
        jobs=jobs,
        selection=run.selection(),
        audit_beside=settings.audit_samples is not False,
        stale_scorer_bound=stale_scorer_bound,
    )
    result = CheckResult()
    for boundary, patterns in scopes.items():
        part = run_check(patterns, replace(check_options, boundary=boundary), progress)
        result.merge(part)
        result.files.extend(part.files)
        result.suppressed += part.suppressed
    _refuse_outside(result, outside, workspace)
    result.close()
    result.files.sort(key=lambda f: f.path)
    return result


def _all_tasks_unknown(result: CheckResult) -> bool:
    """A file whose every profile task is missing while it holds tasks the profile does not know."""
    rules_by_file: dict[str, set[str]] = {}
    for finding in result.findings:
        rules_by_file.setdefault(finding.file, set()).add(finding.rule)
    return any({"LB301", "LB303"} <= rules for rules in rules_by_file.values())


def _refuse_outside(result: CheckResult, outside: list[str], workspace) -> None:
    result.findings.extend(
        make_finding("LB101", argument, outside_message(workspace, argument))
        for argument in outside
    )


def _progress_line(done: int, total: int) -> None:
    """On a terminal, long runs show how far they are (stderr, so reports stay clean)."""
    if total >= 200:
        end = "\n" if done == total else ""
        click.echo(f"\rchecked {done:,} of {total:,} files", err=True, nl=False)
        click.echo(end, err=True, nl=False)
