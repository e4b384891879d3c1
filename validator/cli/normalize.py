"""`lbnorm normalize`: the leaderboard's normalized scores of results files."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from ..check.rules import all_rules
from ..core.errors import DataError, ExitCode, LbnormError
from ..core.normalization import score_results
from ..core.profile import Profile
from ..findings.internal import internal_error_finding
from ..io.limits import Limits
from ..io.loaders import builtin_profile_names, load_builtin_profile, load_results
from ..io.safe_text import one_line
from ..report.normalize import REPORTERS, Outcome
from .options import DEFAULT_PROFILE, limit_options, limits_from, profile_for_options


@click.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--profile", "profile_name", type=click.Choice(builtin_profile_names()),
              help=f"Built-in leaderboard profile [default: {DEFAULT_PROFILE}].")
@click.option("--profile-file", type=click.Path(path_type=Path),
              help="Your own profile (YAML or JSON) following schemas/profile.schema.json.")
@click.option("--output-format", type=click.Choice(sorted(REPORTERS)), default="text", show_default=True,
              help="text: two decimals for people; json: full precision for scripts.")
@click.option("--explain", is_flag=True,
              help="Show every subtask's raw value, choice count, lower bound and normalized value.")
@click.option("--require-complete", is_flag=True,
              help="Exit 1 unless every benchmark of the profile is scored and the run met the leaderboard's "
                   "conditions (no sample limit, full n-samples, the profile's few-shot counts and task versions). "
                   "Without it, a partial run gives the scores it has, marked incomplete, with no average.")
@limit_options
def normalize(results: tuple[Path, ...], profile_name: str | None, profile_file: Path | None,
              output_format: str, explain: bool, require_complete: bool, **limits: int) -> None:
    """Compute the leaderboard's normalized scores for each RESULTS file.

    Reads lm-eval 0.4.x, lm-eval 0.3 and lighteval / Open LLM Leaderboard v1
    results files. Each score is max(raw - 1/num_choices, 0) / (1 - 1/num_choices) * 100,
    subtasks are clipped before they are averaged, and nothing is rounded
    before the output. A run of some benchmarks gets their scores and no
    average; each file also lists the run-condition caveats `check` reports
    (LB5xx: sample limit, partial n-samples, few-shot, split sizes, stale
    scorers, version gates, another harness's task names).
    """
    profile = profile_for_options(profile_name, profile_file) or load_builtin_profile(DEFAULT_PROFILE)
    failed: list[str] = []
    warned: list[str] = []

    def scored():  # one file at a time: memory stays flat over thousands of files
        for path in results:
            outcome = _normalize_one(path, profile, limits_from(**limits))
            if outcome.error:
                failed.append(outcome.error)
            elif why := _incomplete(outcome):
                if require_complete:
                    failed.append(f"{outcome.path}: {why} (--require-complete)")
                else:
                    warned.append(f"{outcome.path}: {why}; these are not the leaderboard's numbers")
            yield outcome

    REPORTERS[output_format](scored(), sys.stdout, explain)
    for message in warned:
        click.echo(f"lbnorm: warning: {one_line(message, 2000)}", err=True)
    for message in failed:
        click.echo(f"lbnorm: error: {one_line(message, 2000)}", err=True)
    sys.exit(ExitCode.DATA if failed else ExitCode.OK)


def _incomplete(outcome: Outcome) -> str:
    """Why a scored file is not a complete leaderboard run ('' when it is)."""
    scores = outcome.scores
    reasons = [f"{', '.join(scores.missing)} missing"] if scores.missing else []
    # A warning (an older scorer) also means the numbers are not the leaderboard's.
    counts = Counter(c.rule for c in scores.caveats)
    if counts:
        names = {r.id: r.name for r in all_rules()}
        reasons.append("run conditions " + ", ".join(
            f"{rule} {names[rule]}" + (f" (x{count})" if count > 1 else "") for rule, count in counts.items()))
    return "; ".join(reasons)


def _normalize_one(path: Path, profile: Profile, limits: Limits) -> Outcome:
    try:
        return Outcome(path=str(path), scores=score_results(profile, load_results(path, limits)))
    except DataError as exc:
        message = str(exc)
        if not message.startswith(str(path)):
            message = f"{path}: {message}"
        return Outcome(path=str(path), error=message + _profile_hint(path, profile, message))
    except Exception as exc:  # noqa: BLE001 - one file's failure fails that file; the report is still complete
        return Outcome(path=str(path), error=f"{path}: LB110 {internal_error_finding(str(path), exc).message}")


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
        return f" (the file fits profile '{name}': try --profile {name})"
    return ""
