"""One unit of work, as a worker runs it: audit one log (or a run's results file) into table rows.

Everything a unit needs travels in the Unit; everything it returns is plain
data (dicts of str/int/float/None), so the same function runs in a local
process pool or on a Dask worker. It never raises: whatever goes wrong
becomes a row with status "failed" and the reason, never a hole in the table.
"""

from __future__ import annotations

import functools
import posixpath
import traceback
from dataclasses import dataclass

from ..audit.reported_tasks import known_tasks, reported_tasks
from ..audit.spec import ProfileExpectations
from ..audit.work_budget import start_run
from ..core import version
from ..findings import ERROR, Finding, make_finding
from ..findings.selection import RuleSelection
from ..io.documents import Document, DocumentError, parse_document
from ..io.limits import DEFAULT_LIMITS, Limits
from ..io.loaders import read_at_most
from ..io.paths import PathRefused, confine_in
from ..io.readers import read_results
from ..io.safe_text import one_line
from ..io.sample_logs import UNPLACED_LOG, task_of
from . import deadlines, retries
from .groups import group_rows
from .journal import rows_text
from .layout import orphan_task
from .log_audit import audit_local, audit_stream, resolved_folder, source_root
from .published import compare, unlisted_task_rows
from .rows import SELECTION, blank_row, finding_row, plain, task_row
from .sources import Unit
from .stores import NOT_WALKED, FileRef, is_local, open_stream


@dataclass(frozen=True)
class Settings:
    limits: Limits = DEFAULT_LIMITS
    published_scale: float = 1.0  # published scores are on this scale (100: percent)
    published_tolerance: float = 5e-3  # in the published scale: two-decimal rounding of a percent
    # (task, num_choices) of a maintainer's profile (--profile): the logs prove each count (LB715).
    choice_counts: tuple[tuple[str, int], ...] = ()
    # The maintainer's --select/--ignore/--warn/--error (cli/survey.py, findings/selection).
    selection: RuleSelection = RuleSelection()
    # Groups a maintainer's profile scores from the size-weighted pool of their tasks (GPQA, MATH), with
    # each task's names and split size where known (Profile.pooled_groups): the group must pool exactly
    # those tasks, size-weighted.
    pooled_groups: tuple[tuple[str, tuple[tuple[tuple[str, ...], int | None], ...]], ...] = ()
    # (task, documents) of the splits a maintainer's profile scores: the logs must prove them (LB718, coverage).
    split_sizes: tuple[tuple[str, int], ...] = ()


DEFAULT_SETTINGS = Settings()


def run_unit(unit: Unit, settings: Settings = DEFAULT_SETTINGS) -> str:
    """The unit's rows as journal text (rows_text); an unexpected error is a "failed" row that says what broke."""
    token = SELECTION.set(None if settings.selection.is_default() else settings.selection)
    start_run()  # each unit is one run's work: its replays share one budget
    try:
        rows = _rows_of(unit, settings)
        # The retries of the unit's files, on its first row only, so that a sum counts each once. A unit that
        # writes no row (a run whose every task has its log) leaves its count to the next unit of its batch:
        # its run's first log, which reads the same results file.
        if rows:
            rows[0]["retries"] = retries.taken()
        try:
            return rows_text(rows)
        except (
            ValueError
        ):  # a number JSON cannot hold (a submitter's 1e308 - -1e308): rare, so blanked only then
            return rows_text([plain(row) for row in rows])
    except Exception as exc:  # a bug or an unforeseen input must not lose the unit
        detail = one_line(
            f"{type(exc).__name__}: {exc} at {traceback.extract_tb(exc.__traceback__)[-1].name}",
            300,
        )
        return rows_text(failed_rows(unit, f"internal error: {detail}; please report it"))
    finally:
        SELECTION.reset(token)


def run_batch(batch: list[Unit], settings: Settings = DEFAULT_SETTINGS) -> list[str]:
    """run_unit for each unit of a batch, in order (the task a worker receives).

    The results files parsed for the last batch, and the source folders it resolved, are forgotten first: a
    worker outlives surveys, a folder may be a symlink re-pointed between two, and a file's
    reference cannot always tell two contents apart (an HTTP server gives no size, a local edit can keep its
    size and mtime), so a file changed between two surveys was audited against its old parse."""
    results_document.cache_clear()
    results_model.cache_clear()
    resolved_folder.cache_clear()
    retries.taken()  # the batch's count starts here
    rows = []
    for index, unit in enumerate(batch):
        deadlines.started(index)  # the unit's deadline runs from here (deadlines.py)
        rows.append(run_unit(unit, settings))
    return rows


def prepare_worker() -> str:
    """In a worker, before its first task: import the audit's units and the tasks' replays (imported on first use,
    about 40 ms) and say which lbnorm it runs. A Dask worker does this when the survey connects; the local pool
    does it once in the survey's own process, before it forks its workers, so the two are timed alike."""
    from ..audit.checks import check_classes, import_replays

    check_classes()
    import_replays()
    return version.__version__


def failed_rows(unit: Unit, reason: str) -> list[dict]:
    """A unit that could not run: a "failed" row, and for a run's own unit its published tasks without a log
    (what that unit would have judged), not reproduced."""
    row = blank_row(
        unit.run.run,
        unit.run.model or "",
        _task_from_name(unit.log),
        unit.log.name if unit.log else "",
    )
    row.update(status="failed", error=reason)
    if unit.log is not None:
        return [_unjudged(row, unit)]
    return [
        row,
        *(
            _not_audited(unit, task, "", "the run's unit failed")
            for task in _published_unlogged(unit.run)
        ),
    ]


def _not_audited(
    unit: Unit, task: str, log: str, why: str = "the results file cannot be read"
) -> dict:
    """A row of a task that was not audited (`why`): its published scores stay, not reproduced."""
    row = blank_row(unit.run.run, unit.run.model or "", task, log)
    row.update(status="not audited", error=why)
    return compare(row, unit.run.published, task, 1.0, 0.0)


def _unjudged(row: dict, unit: Unit) -> dict:
    """A row whose log was not audited still carries its task's published scores, not reproduced (with nothing
    re-derived, the scale and tolerance do not matter): a published number never leaves the table."""
    return compare(row, unit.run.published, row["task"], 1.0, 0.0)


def _published_unlogged(run) -> list[str]:
    """The run's published tasks that no log of it is named for (the run's own unit judges them)."""
    logged = {_task_from_name(log) for log in run.logs}
    return sorted({task for task, _, _ in run.published} - logged)


def _rows_of(unit: Unit, settings: Settings) -> list[dict]:
    if (
        unit.run.results.problem
    ):  # a stand-in: a folder that could not be listed, or a run's repeat (sources.py)
        return [_stand_in_row(unit)]
    try:
        document = results_document(unit.run.results, settings.limits)
    except DocumentError as exc:
        if unit.log is not None:  # the run's own unit reports the results file once
            return [_not_audited(unit, _task_from_name(unit.log), unit.log.name)]
        finding = make_finding(
            exc.rule, unit.run.results.name, exc.message, line=exc.line, column=exc.column
        )
        published = [_not_audited(unit, task, "") for task in _published_unlogged(unit.run)]
        return [
            finding_row(
                unit.run.run, unit.run.model or "", "", "", "unreadable results", [finding]
            ),
            *published,
        ]
    model = one_line(unit.run.model or results_model(unit.run.results, settings.limits), 300)
    if unit.log is None:
        return _run_rows(unit, document, model, settings)
    return [_log_row(unit, document, model, settings)]


def _stand_in_row(unit: Unit) -> dict:
    ref = unit.run.results
    if unit.run.orphan:  # a sample log no results file expectations: the log's row, unaudited
        finding = make_finding("LB700", ref.name, ref.problem)
        return finding_row(
            unit.run.run, "", orphan_task(ref.name), ref.name, "unplaced log", [finding]
        )
    if (
        ref.fingerprint == NOT_WALKED
    ):  # LB111 warns in check; here a run may hide behind it: an error
        finding = survey_error("LB111", unit.run.run, ref.problem)
        return finding_row(unit.run.run, unit.run.model or "", "", "", "unlisted folder", [finding])
    if ref.name.endswith(
        "/"
    ):  # a folder that could not be listed stands in for the runs it may hold
        finding = make_finding(
            "LB101",
            unit.run.run,
            f"{ref.problem}; the runs in it are not surveyed: fix the "
            "server or survey that folder on its own",
        )
        return finding_row(unit.run.run, unit.run.model or "", "", "", "unlisted folder", [finding])
    finding = make_finding("LB101", ref.name, ref.problem)
    return finding_row(unit.run.run, unit.run.model or "", "", "", "duplicate run", [finding])


@functools.lru_cache(maxsize=8)
def results_document(ref: FileRef, limits: Limits) -> Document:
    """The parsed results file (a few MB); a worker auditing several logs of one run in a batch reads it once
    (run_batch empties the cache before each batch). A local one is confined to its source folder, as its logs
    are: a link out of the tree is not read."""
    if is_local(ref.location):
        try:
            confine_in(resolved_folder(source_root(ref)), ref.name)
        except PathRefused as exc:
            raise DocumentError("LB101", str(exc)) from None
    with open_stream(
        ref, limits.max_file_bytes, "max_file_bytes", limits.remote_timeout, limits.remote_retries
    ) as handle:
        data = read_at_most(handle, limits.max_file_bytes + 1)
    if len(data) > limits.max_file_bytes:
        raise DocumentError(
            "LB106", f"the results file is larger than {limits.max_file_bytes:,} bytes"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            "LB101", f"byte offset {exc.start} is not UTF-8; save the file as UTF-8"
        ) from None
    return parse_document(text, ref.name, "json", limits)


@functools.lru_cache(maxsize=8)
def results_model(ref: FileRef, limits: Limits) -> str:
    """The model a results file names, once per run like its document (read_results builds the whole run)."""
    return _model_of(results_document(ref, limits), ref.name)


def _model_of(document: Document, results_name: str) -> str:
    try:
        model = read_results(document.data).model
    except Exception:  # the check command reports malformed results; here only a name is wanted
        model = None
    return model or posixpath.basename(posixpath.dirname(results_name)) or results_name


def _run_rows(unit: Unit, document: Document, model: str, settings: Settings) -> list[dict]:
    """What only the results file can say: tasks that have no log, or no log at all, and published tasks it lacks."""
    run = unit.run
    tasks = reported_tasks(document.data)
    groups = [
        _with_published(row, run, row["task"], settings)
        for row in group_rows(
            run.run, run.results.name, model, document.data, run.published, settings.pooled_groups
        )
    ]
    unlisted = unlisted_task_rows(
        run,
        model,
        tasks | {row["task"] for row in groups},
        settings.published_scale,
        settings.published_tolerance,
    )
    if not run.logs:
        finding = make_finding(
            "LB700",
            run.results.name,
            "no sample log beside this results file; lm-eval writes "
            "samples_<task>_<date>.jsonl next to results_<date>.json with --log_samples",
        )
        published = [
            _with_published(
                finding_row(run.run, model, task, "", "no log", []), run, task, settings
            )
            for task in sorted({task for task, _, _ in run.published} & tasks)
        ]
        return [
            finding_row(run.run, model, "", "", "no logs", [finding]),
            *published,
            *groups,
            *unlisted,
        ]
    logged = {task_of(posixpath.basename(log.name), tasks) for log in run.logs}
    unlogged = sorted(tasks - logged)
    rows = [_no_log_row(run, model, task, settings) for task in unlogged[:MAX_UNLOGGED_ROWS]]
    if (
        len(unlogged) > MAX_UNLOGGED_ROWS
    ):  # a results file naming millions of tasks must not cost gigabytes
        more = len(unlogged) - MAX_UNLOGGED_ROWS
        finding = survey_error(
            "LB707",
            run.results.name,
            f"{more:,} more tasks have no sample log (not "
            f"listed: a row each stops at {MAX_UNLOGGED_ROWS:,})",
        )
        rows.append(finding_row(run.run, model, "", "", "no log", [finding]))
    return rows + groups + unlisted


MAX_UNLOGGED_ROWS = 10_000  # a leaderboard's run has hundreds of tasks at most (MMLU: 57)


def survey_error(rule_id: str, file: str, message: str) -> Finding:
    """A finding of a rule that warns in check and audit, as an error: a survey exists to audit every number,
    so a task without a log (LB707) or a folder not walked (LB111) must not pass (rules.py)."""
    return make_finding(rule_id, file, message)._replace(severity=ERROR)


def _no_log_row(run, model: str, task: str, settings: Settings) -> dict:
    finding = survey_error(
        "LB707",
        run.results.name,
        f"{task} has no sample log, so its numbers are "
        f"not audited; add samples_{task}_<date>.jsonl",
    )
    return _with_published(
        finding_row(run.run, model, task, "", "no log", [finding]), run, task, settings
    )


def _log_row(unit: Unit, document: Document, model: str, settings: Settings) -> dict:
    run, log = unit.run, unit.log
    assert log is not None  # _rows_of sends only a unit with a log here
    task = task_of(posixpath.basename(log.name), known_tasks(document.data))
    if task is None:
        finding = make_finding("LB700", log.name, UNPLACED_LOG)
        return finding_row(
            run.run, model, _task_from_name(log), log.name, "unplaced log", [finding]
        )
    expectations = _expectations_of(settings, task)
    result = (
        audit_local(document, task, log, settings.limits, expectations)
        if is_local(log.location)
        else audit_stream(document, task, log, settings.limits, expectations)
    )
    row = task_row(
        run.run, model, task, log.name, result.tasks[0] if result.tasks else None, result.findings
    )
    return _with_published(row, run, task, settings)


def _expectations_of(settings: Settings, task: str) -> ProfileExpectations:
    """What the profile expects of this task (its num_choices, its split's size), for its log to prove."""
    choices, split = dict(settings.choice_counts).get(task), dict(settings.split_sizes).get(task)
    return ProfileExpectations(
        {task: choices} if choices is not None else {}, {task: split} if split is not None else {}
    )


def _with_published(row: dict, run, task: str, settings: Settings) -> dict:
    return compare(row, run.published, task, settings.published_scale, settings.published_tolerance)


def _task_from_name(log: FileRef | None) -> str:
    if log is None:
        return ""
    base = posixpath.basename(log.name)
    if base.startswith("samples_") and base.endswith(".jsonl"):
        return base[len("samples_") : -len(".jsonl")].rpartition("_")[0]
    return ""
