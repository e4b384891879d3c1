"""`lbnorm survey`: audit the sample logs of every run of a leaderboard into one table."""

import sys
from contextlib import nullcontext, suppress
from pathlib import Path
from typing import NamedTuple

import click

from ..core.errors import ExitCode
from ..findings.selection import RuleSelection
from .configuration import Effective, command_line_settings, effective
from .options import (
    config_file_options,
    limit_options,
    log_limit_option,
    proving_profile_options,
    remote_limit_options,
    selection_options,
)
from .stop_signals import Stopped, StopSignals


@click.command()
@click.argument("sources", nargs=-1, required=True)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder for units.jsonl (written as units finish), survey.csv/.jsonl/.parquet and summary.md/.html.",
)
@click.option(
    "--resume", is_flag=True, help="Continue the survey already in --out: units done are skipped."
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Local worker processes [default: one per CPU].",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Run on an existing Dask cluster, e.g. tcp://10.0.0.5:8786.",
)
@click.option(
    "--local-cluster",
    type=click.IntRange(min=1),
    metavar="N",
    help="Start a local Dask cluster of N worker processes and run on it.",
)
@click.option(
    "--published-scale",
    type=click.FloatRange(min=0, min_open=True),
    default=1.0,
    show_default=True,
    help="Scale of the manifest's published scores: 1 for fractions, 100 for percent.",
)
@click.option(
    "--published-tolerance",
    type=click.FloatRange(min=0),
    default=0.005,
    show_default=True,
    help="Largest |published - re-derived| (in the published scale) that counts as reproduced.",
)
@click.option(
    "--max-units",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Most units of work (logs plus runs) the sources may hold; more is an error.",
)
@proving_profile_options
@click.option(
    "--strict", is_flag=True, help="Warnings (the DROP pathologies among them) fail the survey too."
)
@config_file_options
@selection_options
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show progress on stderr: a bar with percent, elapsed time and ETA (weighted by bytes) on a "
    "terminal, a line every --progress-interval seconds and every 10% elsewhere [default: on].",
)
@click.option(
    "--progress-interval",
    type=click.FloatRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="Off a terminal (CI logs, batch jobs), seconds between two progress lines.",
)
@click.option(
    "--plots/--no-plots",
    default=True,
    show_default=True,
    help="Draw the summary's plots (needs lbnorm[survey]: matplotlib).",
)
@limit_options
@log_limit_option
@remote_limit_options
def survey(
    sources: tuple[str, ...],
    out: Path,
    resume: bool,
    workers: int | None,
    scheduler: str | None,
    local_cluster: int | None,
    published_scale: float,
    published_tolerance: float,
    max_units: int,
    profile_name: str | None,
    profile_file: Path | None,
    strict: bool,
    config_file: Path | None,
    isolated: bool,
    progress: bool | None,
    progress_interval: float,
    plots: bool,
    **options,
) -> None:
    """Audit every run's sample logs into one table, locally or on a Dask cluster.

    SOURCES are folders or URLs holding runs in lm-eval's layout (one folder
    per model: results_<date>.json beside samples_<task>_<date>.jsonl),
    results files, or manifests (.csv/.json) listing results files with
    optional `model` and published scores in `<task>/<metric>` columns.
    URLs (file://, http(s)://, s3://, gs://, hf://) need lbnorm[remote].
    Each log is one unit of work and is streamed, never copied. Exit 0: no
    errors; 1: errors, failed units or unreproduced published scores
    (warnings too with --strict); 2: usage; 3: internal error; 130 and 143:
    stopped by Ctrl-C or SIGTERM (then --resume goes on).
    """
    from ..survey.published import scale_hint
    from ..survey.work import Settings

    if scheduler and local_cluster:
        raise click.UsageError("give either --scheduler or --local-cluster, not both")
    if workers is not None and (scheduler or local_cluster):
        raise click.UsageError(
            f"--workers sets the local pool's processes, and --"
            f"{'scheduler' if scheduler else 'local-cluster'} runs on a Dask cluster's workers "
            "instead; give one of them (--local-cluster N sets a local cluster's workers)"
        )
    # The configuration file a check or audit here would read: its profile, strict and limits, which only add
    # claims, checks or bounds (not --root: sources are confined each to itself, wherever they are). Not its
    # rule selection: check's LB707 and LB111 are warnings a check configuration may ignore, and the survey's
    # errors, and its per-file-ignores match workspace paths, not a submitter's folder names in a source.
    typed = command_line_settings(
        strict=strict, profile=profile_name, profile_file=profile_file, **options
    )
    run = effective(typed, config_file, isolated, None)
    if run.config_path is not None:
        click.echo(f"lbnorm survey: profile, strict and limits from {run.config_path}", err=True)
        if _selection_of(run.settings) != _selection_of(typed):
            click.echo(
                f"lbnorm survey: note: the rule selection of {run.config_path} is check's and audit's; a "
                "survey takes rules from its own --select/--ignore/--warn/--error only",
                err=True,
            )
    profile = run.profile()  # the maintainer's; without one LB715 has no claim to check
    choice_counts = tuple(sorted(profile.choice_counts().items())) if profile else ()
    selection = Effective(typed, run.workspace, None).selection()
    settings = Settings(
        run.limits,
        published_scale,
        published_tolerance,
        choice_counts,
        canonical(selection),
        profile.pooled_groups() if profile else (),
        tuple(sorted(profile.split_sizes().items())) if profile else (),
    )
    strict = run.strict
    with StopSignals() as stops:
        try:
            outcome, files, note = _survey_and_write(
                list(sources),
                out,
                settings,
                resume,
                max_units,
                (progress, progress_interval),
                plots,
                Executor(workers, scheduler, local_cluster),
                stops,
            )
        except (
            KeyboardInterrupt
        ) as stop:  # Stopped, or Python's own where our handler was not the one
            _say_stopped(out)
            sys.exit(stop.exit_code if isinstance(stop, Stopped) else ExitCode.INTERRUPTED)
    _report(outcome, files, note)
    for note in [*outcome.notes, scale_hint(outcome.rows, published_scale)]:
        if note:
            click.echo(f"  note: {note}", err=True)
    sys.exit(ExitCode.DATA if _failed(outcome.rows, strict) else ExitCode.OK)


class Executor(NamedTuple):
    """The executor options: at most one of them is given (survey() refuses two)."""

    workers: int | None
    scheduler: str | None
    local_cluster: int | None


def _survey_and_write(
    sources: list[str],
    out: Path,
    settings,
    resume: bool,
    max_units: int,
    progress: tuple[bool | None, float],
    plots: bool,
    executor_options: Executor,
    stops: StopSignals,
):
    """The survey, then its tables: (outcome, files written, note). A stop (Stopped) leaves the journal and no
    table: one half-written would look like a survey's result."""
    from ..survey.dask_cluster import SourcesUnseen, WorkerMismatch
    from ..survey.engine import progress_stream
    from ..survey.engine import survey as run_survey
    from ..survey.isolation import ClusterLost
    from ..survey.journal import JournalExists
    from ..survey.outputs import OutputBlocked, remove_previous
    from ..survey.stores import SourceError
    from ..survey.summary import write_summaries
    from ..survey.tables import write_tables

    executor = None
    try:
        # A local cluster stopped half started was left to distributed's exit, with tracebacks: a SIGTERM waits
        # the second it takes to start (not an existing scheduler's wait for workers, which a stop may cut short).
        with stops.deferred() if executor_options.local_cluster else nullcontext():
            executor = _executor(*executor_options)
        stops.check()

        def announce(
            planned: int, todo: int
        ) -> None:  # after the sources are read: not before a usage error
            skipped = f" ({planned - todo:,} already in {out})" if planned > todo else ""
            click.echo(
                f"lbnorm survey: {todo:,} of {planned:,} units to run{skipped}, on {executor.describe()}",
                err=True,
            )
            dashboard = executor.dashboard() if hasattr(executor, "dashboard") else None
            if dashboard:
                click.echo(f"lbnorm survey: Dask dashboard at {dashboard}", err=True)

        outcome = run_survey(
            sources,
            out,
            executor,
            settings,
            resume,
            max_units,
            progress_stream(progress[0]),
            progress[1],
            on_start=announce,
            on_unit=stops.check,
        )
    except (
        SourceError,
        JournalExists,
        OutputBlocked,
        WorkerMismatch,
        SourcesUnseen,
        ClusterLost,
    ) as exc:
        raise click.UsageError(str(exc)) from None
    finally:
        if executor is not None and hasattr(executor, "close"):
            with stops.deferred():
                executor.close()
    try:
        stops.check()
        files, note = write_tables(outcome.rows, out)
        files += write_summaries(outcome.rows, out, plots)
        stops.check()
    except KeyboardInterrupt:
        with suppress(OutputBlocked), stops.deferred():
            remove_previous(out)
        raise
    return outcome, files, note


def _say_stopped(out: Path) -> None:
    from ..survey.journal import JOURNAL_NAME

    journal = out / JOURNAL_NAME
    if journal.exists():
        click.echo(
            f"\nlbnorm survey: interrupted; the units finished so far are in {journal}: run the same "
            "command with --resume to go on",
            err=True,
        )
    else:
        click.echo(
            "\nlbnorm survey: interrupted before any unit ran; nothing was written", err=True
        )


def _selection_of(settings) -> tuple:
    return (
        settings.selected(),
        settings.ignored(),
        settings.warn,
        settings.error,
        settings.per_file_ignores,
    )


def canonical(selection: RuleSelection) -> RuleSelection:
    """The same selection with its codes sorted: the journal's settings compare equal however they were typed."""
    select, ignore, warn, error = (
        tuple(sorted(set(codes)))
        for codes in (selection.select, selection.ignore, selection.warn, selection.error)
    )
    return RuleSelection(
        select,
        ignore,
        warn,
        error,
        tuple(
            sorted((glob, tuple(sorted(set(codes)))) for glob, codes in selection.per_file_ignores)
        ),
    )


def _executor(workers: int | None, scheduler: str | None, local_cluster: int | None):
    from ..survey.dask_cluster import DaskCluster
    from ..survey.local_pool import LocalPool

    if scheduler or local_cluster:
        try:
            return DaskCluster(scheduler, local_cluster)
        except RuntimeError as exc:
            raise click.UsageError(str(exc)) from None
        except OSError as exc:
            raise click.UsageError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    return LocalPool(workers)


def _failed(rows: list[dict], strict: bool) -> bool:
    from ..survey.rows import UNJUDGED

    return any(
        row["errors"]
        or row["status"] in UNJUDGED
        or row["reproduced"] is False
        or (strict and row["warnings"])
        for row in rows
    )


def _report(outcome, files: list[Path], note: str | None) -> None:
    from ..survey.rows import UNJUDGED, is_unclaimed_log

    rows = outcome.rows
    runs = len({row["run"] for row in rows if not is_unclaimed_log(row)})
    unclaimed = sum(1 for row in rows if is_unclaimed_log(row))
    errors = sum(row["errors"] for row in rows)
    warnings = sum(row["warnings"] for row in rows)
    unreproduced = sum(1 for row in rows if row["reproduced"] is False)
    failed = sum(1 for row in rows if row["status"] in UNJUDGED)
    retried = sum(row.get("retries") or 0 for row in rows)
    logs = f" and {unclaimed:,} unplaced logs" if unclaimed else ""
    click.echo(
        f"{outcome.units:,} units ({outcome.skipped:,} resumed){outcome.rate()}: {runs:,} runs{logs}, "
        f"{len(rows):,} rows, {errors:,} errors, {warnings:,} warnings, {unreproduced:,} published scores "
        f"not reproduced, {failed:,} units not audited"
        + (f", {retried:,} remote reads retried" if retried else "")
    )
    for path in files:  # tables, summaries and plots: a dozen at most
        click.echo(f"  wrote {path}")
    if note:
        click.echo(f"  note: {note}", err=True)
