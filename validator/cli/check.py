"""`lbnorm check`: check submissions against their raw results."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..check.checker import DEFAULT_TOLERANCE, CheckOptions, run_check
from ..core.errors import ExitCode
from ..io.loaders import builtin_profile_names
from ..report.check import REPORTERS as CHECK_REPORTERS
from ..report.check import ReportOptions, use_color
from .options import (
    DEFAULT_PROFILE,
    limit_options,
    limits_from,
    log_limit_option,
    profile_for_options,
)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--profile", "profile_name", type=click.Choice(builtin_profile_names()),
              help="Check every file with this built-in profile. Without it (and without --profile-file), "
                   f"each submission's 'profile' field picks a built-in one [default: {DEFAULT_PROFILE}].")
@click.option("--profile-file", type=click.Path(path_type=Path),
              help="Check every file with your own profile (YAML or JSON).")
@click.option("--tolerance", type=click.FloatRange(min=0.0, max=100.0), default=DEFAULT_TOLERANCE,
              show_default=True,
              help="Largest accepted |reported - recomputed|, in normalized points. Published values carry "
                   "two decimals, and the average of six rounded scores can differ from the rounded "
                   "average by one unit in the last place, hence 0.01.")
@click.option("--stale-scorer-bound", type=click.FloatRange(min=0.0, max=100.0), default=None,
              help="Accept a reported score that differs from the recomputed one by at most this many normalized "
                   "points when the results say an older scorer made them (MATH before Math-Verify) as a warning "
                   "(LB607) instead of an error (LB606). Off by default: such a number cannot be verified.")
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=".", show_default=True,
              help="Workspace: every file read, including a submission's results file, must be inside it.")
@click.option("--output-format", type=click.Choice(sorted(CHECK_REPORTERS)), default="text", show_default=True)
@click.option("-v", "--verbose", count=True, help="Also show each file's reported and recomputed scores.")
@click.option("-q", "--quiet", count=True, help="Show errors only.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0,
              help="Worker processes for runs of many files (a re-audit); 0 = one per CPU [default: 0]. "
                   "Fewer than 64 files are always checked in one process.")
@limit_options
@log_limit_option
def check(paths: tuple[str, ...], profile_name: str | None, profile_file: Path | None, tolerance: float,
          stale_scorer_bound: float | None, strict: bool, root: Path, output_format: str, verbose: int, quiet: int,
          jobs: int, **limits: int) -> None:
    """Check submissions: recompute their scores from the raw results and compare.

    PATHS are files, directories or globs (quote globs), relative to --root.
    A submission pairs reported scores with a results file; a bare results
    file gets only the raw-file checks. Exit 0: no errors; 1: errors (or
    warnings with --strict); 2: usage; 3: bad profile or internal error.
    See `python -m validator rules` for every check.
    """
    if not root.is_dir():
        raise click.UsageError(f"--root {root} is not a directory")
    options = CheckOptions(root=root, tolerance=tolerance, profile=profile_for_options(profile_name, profile_file),
                           limits=limits_from(**limits), jobs=jobs or os.cpu_count() or 1,
                           stale_scorer_bound=stale_scorer_bound)
    result = run_check(list(paths), options, _progress_line if sys.stderr.isatty() and quiet == 0 else None)
    report = ReportOptions(strict=strict, verbosity=verbose - quiet, color=use_color(sys.stdout))
    CHECK_REPORTERS[output_format](result, sys.stdout, report)
    sys.exit(ExitCode.OK if result.ok(strict) else ExitCode.DATA)


def _progress_line(done: int, total: int) -> None:
    """On a terminal, long runs show how far they are (stderr, so reports stay clean)."""
    if total >= 200:
        end = "\n" if done == total else ""
        click.echo(f"\rchecked {done:,} of {total:,} files", err=True, nl=False)
        click.echo(end, err=True, nl=False)
