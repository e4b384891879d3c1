"""`lbnorm submission init`: draft a submission from an lm-eval run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..core.errors import DataError, ExitCode
from ..io.limits import DEFAULT_LIMITS
from ..io.loaders import builtin_profile_names, load_builtin_profile
from ..io.paths import display_path, expand
from ..report.check import REPORTERS as CHECK_REPORTERS
from ..report.check import ReportOptions
from .check import check, check_arguments
from .configuration import OWN_TASKS_HINT, command_line_settings, effective
from .options import DEFAULT_PROFILE, config_file_options, limit_options


@click.group()
def submission() -> None:
    """Draft leaderboard submissions."""


@submission.command("init")
@click.argument("run", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the submission [default: submission.json beside the results file].",
)
@click.option(
    "--profile",
    "profile_name",
    type=click.Choice(builtin_profile_names()),
    help=f"Built-in leaderboard profile [default: the configuration's, else {DEFAULT_PROFILE}].",
)
@click.option(
    "--profile-file",
    type=click.Path(path_type=Path),
    help="The leaderboard's own profile (YAML or JSON) [default: the configuration's].",
)
@click.option("--model", help="Model id to submit under [default: the one the run recorded].")
@click.option("--force", is_flag=True, help="Overwrite an existing submission.")
@config_file_options
@limit_options
def init(
    run: Path,
    output: Path | None,
    profile_name: str | None,
    profile_file: Path | None,
    model: str | None,
    force: bool,
    config_file: Path | None,
    isolated: bool,
    **limits: int,
) -> None:
    """Write a submission for RUN: an lm-eval results file or its output folder, then check it.

    The scores are recomputed from the results file with the leaderboard's
    profile (the option, else the configuration file's, as `check` reads it);
    the results file and the sample logs beside it are referenced by paths
    relative to the submission. The written file is then checked as `lbnorm
    check` would: exit 0 when it passes, 1 with the findings when it does not.
    Nothing is overwritten without --force.
    """
    from ..authoring.run_files import find_results_file  # lazy: authoring loads the audit
    from ..authoring.submission import draft_submission, write_draft

    if model is not None and (not model or any(c.isspace() for c in model)):
        raise click.BadParameter(
            "a model id has no spaces, e.g. EleutherAI/pythia-1b", param_hint="--model"
        )
    settings = effective(
        command_line_settings(profile=profile_name, profile_file=profile_file, **limits),
        config_file,
        isolated,
        None,
    )
    profile = settings.profile() or load_builtin_profile(DEFAULT_PROFILE)
    try:
        results = find_results_file(run)
        draft = draft_submission(
            results,
            output,
            profile,
            profile_file is None,  # a profile the configuration names, check reads too
            model,
            settings.limits,
        )
        write_draft(draft.text(), draft.path, force)
    except FileExistsError as exc:
        click.echo(
            f"lbnorm: error: {exc} exists; pass --force to overwrite it, or -o to write elsewhere",
            err=True,
        )
        sys.exit(ExitCode.DATA)
    except DataError as exc:
        hint = ""
        if "no task of profile" in str(exc) and settings.settings.profile_file is None:
            hint = f"; {OWN_TASKS_HINT}"
        click.echo(f"lbnorm: error: {exc}{hint}", err=True)
        sys.exit(ExitCode.DATA)
    command = _check_command(draft.path, profile_name, profile_file, config_file, isolated)
    _report(draft)
    _check_what_was_written(settings, draft.path, command)


def _check_command(path: Path, profile_name, profile_file, config_file, isolated) -> str:
    """The `lbnorm check` that judges the written file under the same settings."""
    options = [f"--profile {profile_name}"] if profile_name else []
    options += [f"--profile-file {profile_file}"] if profile_file else []
    options += [f"--config {config_file}"] if config_file else []
    options += ["--isolated"] if isolated else []
    return " ".join(["lbnorm check", *options, display_path(Path(os.getcwd()), path)])


def _check_what_was_written(settings, path: Path, command: str) -> None:
    cwd = Path(os.getcwd())
    result = check_arguments(settings, (str(path),), cwd)
    if result.ok(settings.strict):
        click.echo(f"checked: {command} passes")
        return
    click.echo(f"checked: {command} fails; the submission as written would be refused:")
    CHECK_REPORTERS["text"](
        result, sys.stdout, ReportOptions(strict=settings.strict, root=str(cwd))
    )
    sys.exit(ExitCode.DATA)


def _report(draft) -> None:
    scores = draft.scores
    click.echo(f"wrote {draft.path}")
    click.echo(
        f"recomputed from {draft.results} with profile {scores.profile} "
        f"(rounded to 2 decimals, as leaderboards show them):"
    )
    for bench_id, value in draft.data["reported"].items():
        exact = scores.average if bench_id == "average" else scores.benchmarks[bench_id].score
        click.echo(f"  {bench_id:<12} {value:>6.2f}   (exact {exact:.4f})")
    if draft.logs:
        click.echo(
            f"listed {len(draft.logs)} sample log(s) under 'samples'; check re-derives the raw numbers "
            "from them"
        )
    click.echo("still yours to decide:")
    for decision in draft.decisions:
        click.echo(f"  - {decision}")


@submission.command("recheck")
@click.argument("changed", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--submissions",
    "patterns",
    multiple=True,
    default=["**/*.json", "**/*.yaml", "**/*.yml"],
    show_default=True,
    help="Where the submissions are (globs relative to --root; repeat for several).",
)
@click.option(
    "--profile",
    "profile_name",
    type=click.Choice(builtin_profile_names()),
    help="As in check: the built-in profile every submission is checked with.",
)
@click.option(
    "--profile-file", type=click.Path(path_type=Path), help="As in check: your own profile."
)
@click.option("--tolerance", type=float, help="As in check.")
@click.option("--strict", is_flag=True, help="As in check: warnings fail too.")
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="Workspace: every file read must be inside it.",
)
@click.pass_context
def recheck(
    ctx: click.Context,
    changed: tuple[Path, ...],
    patterns: tuple[str, ...],
    root: Path,
    tolerance: float | None,
    **options,
) -> None:
    """Check the submissions that reference CHANGED results files or sample logs.

    For pre-commit, which passes only the changed files: a results file or
    log edited alone still re-checks every submission built on it. CHANGED
    results files are checked too; with none referenced and none changed,
    there is nothing to do (exit 0).
    """
    from ..authoring.run_files import submissions_referencing  # lazy: authoring loads the audit

    if not root.is_dir():
        raise click.UsageError(f"--root {root} is not a directory")
    candidates = expand(root.resolve(), list(patterns), DEFAULT_LIMITS.max_files).paths
    relative = [Path(path) for path in changed]
    found = submissions_referencing(root.resolve(), relative, candidates)
    results_files = [str(path) for path in relative if path.suffix.lower() == ".json"]
    if not found and not results_files:
        click.echo(
            f"no submission in {' '.join(patterns)} references {len(changed)} changed file(s); nothing to check"
        )
        sys.exit(ExitCode.OK)
    if found:
        click.echo(
            f"re-checking {len(found)} submission(s) that reference the changed files: "
            + ", ".join(str(p) for p in found[:5])
            + (" ..." if len(found) > 5 else "")
        )
    extra = {"tolerance": tolerance} if tolerance is not None else {}
    ctx.invoke(
        check, paths=(*results_files, *(str(p) for p in found)), root=root, **extra, **options
    )
