"""`lbnorm normalize`: the leaderboard's normalized scores of results files."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import click

from ..check.rules import all_rules
from ..core.errors import DataError, ExitCode, FoldedKeys
from ..core.normalization import score_results
from ..core.profile import Profile
from ..findings.internal import internal_error_finding, not_walked_findings
from ..io.discovery import results_files
from ..io.limits import Limits
from ..io.loaders import builtin_profile_names, load_builtin_profile, load_results, where
from ..io.paths import PathRefused, confine, display_path
from ..io.safe_text import one_line
from ..report.normalize import REPORTERS, Outcome, is_blocking
from ..report.text_style import ReportOptions
from .arguments import expand_arguments
from .configuration import OWN_TASKS_HINT, command_line_settings, effective
from .options import DEFAULT_PROFILE, config_options, limit_options


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--profile",
    "profile_name",
    type=click.Choice(builtin_profile_names()),
    help=f"Built-in leaderboard profile [default: {DEFAULT_PROFILE}].",
)
@click.option(
    "--profile-file",
    type=click.Path(path_type=Path),
    help="Your own profile (YAML or JSON) following schemas/profile.schema.json.",
)
@click.option(
    "--output-format",
    type=click.Choice(sorted(REPORTERS)),
    default="text",
    show_default=True,
    help="text: two decimals for people; json: full precision for scripts.",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Show every subtask's raw value, choice count, lower bound and normalized value.",
)
@click.option(
    "--require-complete",
    is_flag=True,
    help="Exit 1 unless every benchmark of the profile is scored and the run met the leaderboard's "
    "conditions (no sample limit, full n-samples, the profile's few-shot counts and task versions). "
    "Without it, a partial run gives the scores it has, marked incomplete, with no average.",
)
@config_options
@limit_options
def normalize(
    paths: tuple[str, ...],
    profile_name: str | None,
    profile_file: Path | None,
    output_format: str,
    explain: bool,
    require_complete: bool,
    config_file: Path | None,
    isolated: bool,
    root: Path | None,
    **limits: int,
) -> None:
    """Compute the leaderboard's normalized scores for results files.

    PATHS are results files, folders (every results*.json below them, as in
    an lm-eval --output_path folder) or globs, relative to the current
    directory. Reads lm-eval 0.4.x, lm-eval 0.3 and lighteval / Open LLM
    Leaderboard v1 results files. Each score is
    max(raw - 1/num_choices, 0) / (1 - 1/num_choices) * 100, subtasks are
    clipped before they are averaged, and nothing is rounded before the output.
    A run of some benchmarks gets their scores and no average; each file also
    lists the run-condition caveats `check` reports (LB5xx: sample limit,
    partial n-samples, few-shot, split sizes, stale scorers, version gates,
    another harness's task names).
    """
    run = effective(
        command_line_settings(profile=profile_name, profile_file=profile_file, **limits),
        config_file,
        isolated,
        root,
    )
    profile = run.profile() or load_builtin_profile(DEFAULT_PROFILE)
    found = expand_arguments(run.workspace, paths, run.limits.max_files)
    if found.too_many:
        raise click.UsageError(
            f"more than {run.limits.max_files:,} files match; narrow the globs or raise --max-files"
        )
    failed: list[str] = []
    warned: list[str] = []

    def scored():  # one file at a time: memory stays flat over thousands of files
        for argument, message in found.problems:  # outside --root, or matched nothing
            failed.append(message)
            yield Outcome(
                path=argument, error=message, rule="LB101" if "outside" in message else "LB100"
            )
        cwd = Path(os.getcwd())
        for path in results_files(found.paths, found.literal, cwd):
            outcome = _normalize_one(cwd, path, found.boundary.get(path), profile, run.limits)
            if outcome.error:
                failed.append(outcome.error)
            elif blocking := [c.rule for c in outcome.scores.caveats if is_blocking(c)]:
                failed.append(f"{outcome.path}: {', '.join(sorted(set(blocking)))}")
            elif why := _incomplete(outcome):
                if require_complete:
                    failed.append(f"{outcome.path}: {why} (--require-complete)")
                else:
                    warned.append(f"{outcome.path}: {why}; these are not the leaderboard's numbers")
            yield outcome

    REPORTERS[output_format](scored(), sys.stdout, ReportOptions(explain=explain))
    warned += [
        f"{finding.file}: {finding.message}" for finding in not_walked_findings(found.skipped)
    ]
    for message in warned:
        click.echo(f"lbnorm: warning: {one_line(message, 2000)}", err=True)
    sys.exit(ExitCode.DATA if failed else ExitCode.OK)


def _incomplete(outcome: Outcome) -> str:
    """Why a scored file is not a complete leaderboard run ('' when it is)."""
    scores = outcome.scores
    assert scores is not None  # asked only of an outcome without an error, which is scored
    reasons = [f"{', '.join(scores.missing)} missing"] if scores.missing else []
    # A warning (an older scorer) also means the numbers are not the leaderboard's.
    counts = Counter(c.rule for c in scores.caveats)
    if counts:
        names = {r.id: r.name for r in all_rules()}
        reasons.append(
            "run conditions "
            + ", ".join(
                f"{rule} {names[rule]}" + (f" (x{count})" if count > 1 else "")
                for rule, count in counts.items()
            )
        )
    return "; ".join(reasons)


def _normalize_one(
    root: Path, path: Path, boundary: Path | None, profile: Profile, limits: Limits
) -> Outcome:
    """Scores of one results file, named as the user typed it: relative to the current directory."""
    shown = display_path(root, path)
    try:
        confine(root, path, boundary)
        return Outcome(path=shown, scores=score_results(profile, load_results(Path(shown), limits)))
    except PathRefused as exc:
        return Outcome(path=shown, error=str(exc), rule="LB101")
    except FoldedKeys as exc:
        message = str(exc)
        if not message.startswith(shown):
            message = f"{where(Path(shown), exc.path, limits)}: {message}"
        return Outcome(path=shown, error=message, rule="LB103")
    except DataError as exc:
        message = str(exc)
        if not message.startswith(shown):
            message = f"{shown}: {message}"
        hint = _profile_hint(root / path, profile, message)
        if hint:  # what is wrong first, the way out last; the tasks the file has in between
            found = message.removeprefix(f"{shown}: ")
            message = f"{shown}: no task of profile {profile.name} is in the file; {found}{hint}"
        return Outcome(path=shown, error=message, rule=getattr(exc, "rule", "LB202"))
    except Exception as exc:  # noqa: BLE001 - one file's failure fails that file; the report is still complete
        return Outcome(path=shown, error=internal_error_finding(shown, exc).message, rule="LB110")


def _profile_hint(path: Path, profile: Profile, message: str) -> str:
    """When every task is missing, the file probably belongs to another leaderboard."""
    if "no task of profile" not in message:
        return ""
    for name in builtin_profile_names():
        if name == profile.name:
            continue
        try:
            score_results(load_builtin_profile(name), load_results(path))
        except Exception:  # noqa: BLE001 - only a hint: any failure means "no"
            continue
        return f"; the file fits profile '{name}': try --profile {name}"
    return f"; {OWN_TASKS_HINT}"
