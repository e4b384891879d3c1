"""`lbnorm profile init | derive | check`: start, draft and validate a leaderboard's own profile."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..core.errors import DataError, ExitCode
from ..io.documents import kind_of
from ..io.loaders import builtin_profile_names, load_builtin_profile, parse, read_text
from .configuration import limits_from
from .options import limit_options, log_limit_option

_OUTPUT = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default="profile.yaml",
    show_default=True,
    help="Where to write the profile.",
)
_FORCE = click.option("--force", is_flag=True, help="Overwrite an existing file.")


@click.group()
def profile() -> None:
    """Start, draft and check your leaderboard's own profile."""


@profile.command("init")
@click.option(
    "--from",
    "builtin",
    type=click.Choice(builtin_profile_names()),
    required=True,
    help="The built-in profile to start from.",
)
@click.option("--name", help="Name of your profile (what submissions write under 'profile').")
@_OUTPUT
@_FORCE
def init(builtin: str, name: str | None, output: Path, force: bool) -> None:
    """Write a built-in profile as an editable starting point, with comments."""
    from ..authoring.profile_init import builtin_profile_text  # lazy: authoring loads the audit

    _write(builtin_profile_text(builtin, str(output), name), output, force)
    click.echo(f"wrote {output} (from the built-in profile {builtin})")
    click.echo(f"next: edit it, then lbnorm profile check {output}")


@profile.command("derive")
@click.argument("results", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("samples", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--name",
    default="my-leaderboard",
    show_default=True,
    help="Name of the profile (what submissions write under 'profile').",
)
@click.option(
    "--title", default="My leaderboard", show_default=True, help="Title shown in reports."
)
@_OUTPUT
@_FORCE
@limit_options
@log_limit_option
def derive(
    results: Path,
    samples: tuple[Path, ...],
    name: str,
    title: str,
    output: Path,
    force: bool,
    **limits: int,
) -> None:
    """Draft a profile from a run of your tasks: RESULTS (lm-eval results file) and its SAMPLES logs.

    Tasks, groups, metrics, sizes and few-shot counts come from RESULTS;
    choice counts from the configs where doc_to_choice is a literal list,
    else from the sample logs (one log-likelihood request per choice).
    Without SAMPLES, the logs beside RESULTS are read. Every value the run
    cannot tell is written as "FILL IN: ..." and fails `profile check`.
    """
    from ..authoring.profile_derive import (
        derive_profile_text,  # lazy: authoring loads the audit
    )
    from ..authoring.run_evidence import read_run

    limit = limits_from(**limits)
    try:
        data = parse(read_text(results, limits=limit), str(results), kind_of(results), limits=limit)
        if not isinstance(data, dict):
            raise DataError(f"{results}: top level is not an object; pass an lm-eval results file")
        run = read_run(results, data, list(samples) if samples else None, limit)
        text, placeholders = derive_profile_text(run, name, title)
    except DataError as exc:
        message = str(exc)
        click.echo(
            f"lbnorm: error: {message if message.startswith(str(results)) else f'{results}: {message}'}",
            err=True,
        )
        sys.exit(ExitCode.DATA)
    _write(text, output, force)
    click.echo(
        f"wrote {output}: {len(run.tasks)} task(s) from {results}, {len(run.logs_used)} sample log(s) read"
    )
    for problem in run.log_problems:
        click.echo(f"  sample logs: {problem}")
    if placeholders:
        click.echo(
            f"{placeholders} value(s) are FILL IN placeholders the run cannot decide; "
            f"lbnorm profile check {output} lists them with their lines"
        )
    else:
        click.echo(f"no placeholders left; review it, then lbnorm profile check {output}")
    builtin = _builtin_covering(run.tasks)
    if builtin:
        click.echo(
            f"these are the tasks of the built-in profile {builtin}: lbnorm profile init --from {builtin} "
            "gives its verified facts to start from"
        )


def _builtin_covering(tasks) -> str | None:
    """A built-in profile that knows most of the run's tasks: its checked facts beat a draft."""
    for name in builtin_profile_names():
        known = load_builtin_profile(name).task_index()
        if tasks and sum(task in known for task in tasks) * 2 >= len(tasks):
            return name
    return None


@profile.command("check")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def check(file: Path) -> None:
    """Validate a profile: every problem, with its line. Exit 0 when it can be used, 1 when not."""
    from ..authoring.profile_check import check_profile_file  # lazy: authoring loads the audit

    problems = check_profile_file(file)
    for problem in problems:
        click.echo(problem.shown(str(file)))
    if problems:
        click.echo(f"{file}: {len(problems)} problem(s); fix them, then run this again", err=True)
        sys.exit(ExitCode.DATA)
    click.echo(f"ok: {file} is a valid profile")


def _write(text: str, output: Path, force: bool) -> None:
    from ..authoring.submission import write_draft  # lazy: authoring loads the audit

    try:
        write_draft(text, output, force)
    except FileExistsError:
        click.echo(
            f"lbnorm: error: {output} exists; pass --force to overwrite it, or -o to write elsewhere",
            err=True,
        )
        sys.exit(ExitCode.DATA)
