"""Command line: gathers options and hands them to loaders, the core and a reporter.

Exit codes (see errors.py): 0 ok, 1 a data file is bad, 2 usage, 3 profile
or internal error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from . import __version__
from .audit_report import REPORTERS as AUDIT_REPORTERS
from .check_report import REPORTERS as CHECK_REPORTERS
from .check_report import ReportOptions, use_color
from .checker import DEFAULT_TOLERANCE, CheckOptions, run_check
from .errors import ConfigError, DataError, ExitCode, LbnormError
from .limits import DEFAULT_LIMITS, Limits, describe_size, parse_size
from .loaders import builtin_profile_names, load_builtin_profile, load_profile_file, load_results
from .normalization import score_results
from .normalize_report import REPORTERS, Outcome
from .profile import Profile
from .safe_text import one_line

DEFAULT_PROFILE = "open-llm-leaderboard-v2"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lbnorm")
def cli() -> None:
    """lbnorm: recompute leaderboard normalized scores from harness results."""


class SizeType(click.ParamType):
    name = "size"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        try:
            return parse_size(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def limit_options(command):
    """--max-file-size, --max-files, --max-depth, --max-string-length, gathered into `limits`."""
    defaults = DEFAULT_LIMITS
    options = [
        click.option("--max-file-size", "max_file_bytes", type=SizeType(), default=defaults.max_file_bytes,
                     help=f"Largest file read, e.g. 64M [default: {describe_size(defaults.max_file_bytes)}]."),
        click.option("--max-files", type=click.IntRange(min=1), default=defaults.max_files, show_default=True,
                     help="Most files one run checks; more is an error (LB107), not a partial check."),
        click.option("--max-depth", type=click.IntRange(min=1), default=defaults.max_depth, show_default=True,
                     help="Deepest nesting of objects and arrays."),
        click.option("--max-string-length", type=click.IntRange(min=1), default=defaults.max_string_length,
                     show_default=True, help="Longest string or key, in characters."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def log_limit_option(command):
    """--max-log-size, for commands that read sample logs."""
    return click.option("--max-log-size", "max_log_bytes", type=SizeType(), default=DEFAULT_LIMITS.max_log_bytes,
                        help="Largest sample log read (logs are streamed, so this bounds time, not memory) "
                             f"[default: {describe_size(DEFAULT_LIMITS.max_log_bytes)}].")(command)


def limits_from(max_file_bytes: int, max_files: int, max_depth: int, max_string_length: int,
                max_log_bytes: int = DEFAULT_LIMITS.max_log_bytes) -> Limits:
    return Limits(max_file_bytes=max_file_bytes, max_files=max_files, max_depth=max_depth,
                  max_string_length=max_string_length, max_log_bytes=max_log_bytes)


@cli.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--profile", "profile_name", type=click.Choice(builtin_profile_names()),
              help=f"Built-in leaderboard profile [default: {DEFAULT_PROFILE}].")
@click.option("--profile-file", type=click.Path(path_type=Path),
              help="Your own profile (YAML or JSON) following schemas/profile.schema.json.")
@click.option("--output-format", type=click.Choice(sorted(REPORTERS)), default="text", show_default=True,
              help="text: two decimals for people; json: full precision for scripts.")
@click.option("--explain", is_flag=True,
              help="Show every subtask's raw value, choice count, lower bound and normalized value.")
@limit_options
def normalize(results: tuple[Path, ...], profile_name: str | None, profile_file: Path | None,
              output_format: str, explain: bool, **limits: int) -> None:
    """Compute the leaderboard's normalized scores for each RESULTS file.

    Reads lm-eval 0.4.x, lm-eval 0.3 and lighteval / Open LLM Leaderboard v1
    results files. Each score is max(raw - 1/num_choices, 0) / (1 - 1/num_choices) * 100,
    subtasks are clipped before they are averaged, and nothing is rounded
    before the output.
    """
    profile = profile_for_options(profile_name, profile_file) or load_builtin_profile(DEFAULT_PROFILE)
    failed: list[Outcome] = []

    def scored():  # one file at a time: memory stays flat over thousands of files
        for path in results:
            outcome = _normalize_one(path, profile, limits_from(**limits))
            if outcome.error:
                failed.append(outcome)
            yield outcome

    REPORTERS[output_format](scored(), sys.stdout, explain)
    for outcome in failed:
        click.echo(f"lbnorm: error: {one_line(outcome.error, 2000)}", err=True)
    sys.exit(ExitCode.DATA if failed else ExitCode.OK)


@cli.command()
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
          strict: bool, root: Path, output_format: str, verbose: int, quiet: int, jobs: int, **limits: int) -> None:
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
                           limits=limits_from(**limits), jobs=jobs or os.cpu_count() or 1)
    result = run_check(list(paths), options, _progress_line if sys.stderr.isatty() and quiet == 0 else None)
    report = ReportOptions(strict=strict, verbosity=verbose - quiet, color=use_color(sys.stdout))
    CHECK_REPORTERS[output_format](result, sys.stdout, report)
    sys.exit(ExitCode.OK if result.ok(strict) else ExitCode.DATA)


@cli.command()
@click.argument("results", type=click.Path(path_type=Path))
@click.argument("samples", nargs=-1, type=click.Path(path_type=Path))
@click.option("--root", type=click.Path(file_okay=False, path_type=Path),
              help="Workspace: the results file and every log must be inside it [default: the folder of RESULTS].")
@click.option("--strict", is_flag=True, help="Warnings (the DROP pathologies among them) fail the audit too.")
@click.option("--output-format", type=click.Choice(sorted(AUDIT_REPORTERS)), default="text", show_default=True)
@click.option("-v", "--verbose", count=True, help="Also list the flagged DROP samples.")
@click.option("-q", "--quiet", count=True, help="Show errors only.")
@limit_options
@log_limit_option
def audit(results: Path, samples: tuple[Path, ...], root: Path | None, strict: bool, output_format: str,
          verbose: int, quiet: int, **limits: int) -> None:
    """Recompute a results file's raw numbers from its per-sample logs.

    RESULTS is an lm-eval 0.4.x results file. SAMPLES are its logs
    (samples_<task>_<date>.jsonl, or the 0.4.0-0.4.2 JSON-array form); without
    them, the logs beside RESULTS with the same date are used. Checks hashes,
    coverage of doc_ids, every aggregate, acc/acc_norm from log-likelihoods,
    and DROP's EM/F1 with the deep dive's failure modes. Exit 0: no errors;
    1: errors (or warnings with --strict); 2: usage; 3: internal error.
    """
    from .audit import audit_files

    workspace = Path(os.path.abspath(root if root is not None else results.parent))
    if not workspace.is_dir():
        raise click.UsageError(f"--root {root} is not a directory")
    inside = [Path(os.path.relpath(os.path.abspath(path), workspace)) for path in (results, *samples)]
    result = audit_files(workspace, inside[0], inside[1:] or None, limits_from(**limits))
    report = ReportOptions(strict=strict, verbosity=verbose - quiet, color=use_color(sys.stdout))
    AUDIT_REPORTERS[output_format](result, sys.stdout, report)
    sys.exit(ExitCode.OK if result.ok(strict) and result.tasks else ExitCode.DATA)


@cli.command()
@click.option("--output-format", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True)
def rules(output_format: str) -> None:
    """List every check with its id, severity and documentation."""
    from .rules import all_rules
    import json

    listed = all_rules()
    if output_format == "json":
        click.echo(json.dumps([{"id": r.id, "name": r.name, "severity": r.severity, "doc": r.doc}
                               for r in listed], indent=2))
    elif output_format == "markdown":
        click.echo("| id | name | severity | what it checks |\n|---|---|---|---|")
        for r in listed:
            text = " ".join(r.doc.split()).replace("|", "\\|")
            click.echo(f"| {r.id} | {r.name} | {r.severity} | {text} |")
    else:
        for r in listed:
            click.echo(f"{r.id} {r.name} ({r.severity})")
            click.echo("".join(f"    {line}\n" for line in r.doc.splitlines()))


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("ignored", nargs=-1, type=click.UNPROCESSED)
def action(ignored: tuple[str, ...]) -> None:
    """Run as the GitHub Action (reads INPUT_* and GITHUB_* variables; see action.yml)."""
    from .action import main as action_main

    sys.exit(action_main())


def _progress_line(done: int, total: int) -> None:
    """On a terminal, long runs show how far they are (stderr, so reports stay clean)."""
    if total >= 200:
        end = "\n" if done == total else ""
        click.echo(f"\rchecked {done:,} of {total:,} files", err=True, nl=False)
        click.echo(end, err=True, nl=False)


def profile_for_options(name: str | None, file: Path | None) -> Profile | None:
    """The maintainer's profile from --profile / --profile-file, or None when neither is given."""
    if name and file:
        raise click.UsageError("give either --profile or --profile-file, not both")
    if file:
        return load_profile_file(file)
    return load_builtin_profile(name) if name else None


def _normalize_one(path: Path, profile: Profile, limits: Limits) -> Outcome:
    try:
        return Outcome(path=str(path), scores=score_results(profile, load_results(path, limits)))
    except DataError as exc:
        message = str(exc)
        if not message.startswith(str(path)):
            message = f"{path}: {message}"
        return Outcome(path=str(path), error=message + _profile_hint(path, profile, message))


def _profile_hint(path: Path, profile: Profile, message: str) -> str:
    """When every task is missing, the file probably belongs to another leaderboard."""
    if "no task of profile" not in message:
        return ""
    for name in builtin_profile_names():
        if name == profile.name:
            continue
        try:
            score_results(load_builtin_profile(name), load_results(path))
        except LbnormError:
            continue
        return f" (the file fits profile '{name}': try --profile {name})"
    return ""


def main() -> None:
    try:
        # Without standalone mode click returns the code of --help/--version
        # and raises everything else, so every exit code is decided here.
        code = cli.main(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else ExitCode.OK)
    except click.ClickException as exc:
        exc.show()
        sys.exit(ExitCode.USAGE)
    except click.exceptions.Abort:
        click.echo("lbnorm: aborted", err=True)
        sys.exit(ExitCode.USAGE)
    except ConfigError as exc:
        click.echo(f"lbnorm: configuration error: {one_line(exc, 2000)}", err=True)
        sys.exit(ExitCode.CONFIG)
    except LbnormError as exc:
        click.echo(f"lbnorm: error: {one_line(exc, 2000)}", err=True)
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        sys.exit(ExitCode.OK)
    except Exception as exc:  # an internal error must still say what to do
        if os.environ.get("LBNORM_DEBUG"):
            raise
        click.echo(f"lbnorm: internal error: {type(exc).__name__}: {one_line(exc)}; "
                   "please report it with the command you ran", err=True)
        sys.exit(ExitCode.CONFIG)
