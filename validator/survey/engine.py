"""A survey from start to end: plan the units, skip those already journaled, run the rest, write the table.

The final table is built from the journal, not from memory of this run,
and sorted, so it is the same whether the survey ran in one go or was
resumed, on a local pool or a cluster.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from ..core.version import __version__
from ..findings.selection import RuleSelection
from ..io.limits import Limits
from ..io.safe_text import one_line
from . import retries
from .batches import batches
from .journal import JOURNAL_NAME, Journal, rows_text
from .outputs import remove_previous
from .progress import Progress
from .rows import UNJUDGED, sort_key
from .sources import Unit, plan
from .stores import is_local, local_path
from .work import DEFAULT_SETTINGS, Settings, failed_rows, run_batch


@dataclass
class SurveyOutcome:
    rows: list[dict]
    units: int
    skipped: int  # already in the journal (--resume)
    seconds: float
    bytes_run: int | None = (
        None  # the files of the units run (not resumed); None if a store gave no size
    )
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(
        default_factory=list
    )  # what the user should know about how the survey ran

    def rate(self) -> str:
        """`, 28.2 MB in 0.23 s (123 MB/s)`: what the units run read, and how fast (blank sizes: time only)."""
        if self.bytes_run is None:
            return f" in {self.seconds:,.2f} s"
        return (
            f", {self.bytes_run / 1e6:,.1f} MB in {self.seconds:,.2f} s "
            f"({self.bytes_run / 1e6 / max(self.seconds, 1e-9):,.1f} MB/s)"
        )


def survey(
    sources: list[str],
    out: Path,
    executor,
    settings: Settings = DEFAULT_SETTINGS,
    resume: bool = False,
    max_units: int = 1_000_000,
    progress: TextIO | None = None,
    progress_interval: float = 30.0,
    on_unit: Callable[[int], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
) -> SurveyOutcome:
    """Run the survey into `out` (units.jsonl as it goes); return the sorted rows. SourceError, JournalExists.

    on_start(units planned, units to run) once the sources are read and the journal opened; on_unit(units done).
    Progress goes to `progress`: a bar on a terminal, else a line every `progress_interval` seconds."""
    started = time.monotonic()
    retries.taken()
    units = plan(sources, settings.limits, max_units, exclude=out)
    listing_retries = retries.taken()
    if hasattr(
        executor, "check_sources"
    ):  # before the journal: a survey that cannot run writes nothing
        executor.check_sources(local_paths(sources, units), remote_protocols(units))
    journal = Journal(out, resume, settings_record(settings))
    todo = [unit for unit in units if not _kept(unit, journal.done)]
    notes = ([journal.note] if journal.note else []) + _resume_notes(todo, journal.done)
    if listing_retries:
        notes.append(
            f"{listing_retries:,} requests listing the sources failed for a moment and were retried"
        )
    meter = Progress(todo, progress, progress_interval)
    if hasattr(executor, "deadline"):  # every unit's deadline (deadlines.py)
        executor.deadline = settings.limits.unit_timeout
    try:
        remove_previous(
            out
        )  # a survey that stops before its tables must not leave the last ones looking current
        if on_start is not None:
            on_start(len(units), len(todo))
        for batch, results in executor.run(
            functools.partial(run_batch, settings=settings), batches(todo, executor.workers)
        ):
            _record(journal, batch, results)
            for unit in batch:
                meter.step(unit)
                if on_unit is not None:
                    on_unit(meter.done)
    finally:
        meter.close()
        journal.close()
    notes += getattr(
        executor, "notes", []
    )  # e.g. a Dask worker past a deadline that could not restart
    return SurveyOutcome(
        table_rows(units, journal.done),
        len(units),
        len(units) - len(todo),
        time.monotonic() - started,
        bytes_of(todo),
        notes=notes,
    )


def local_paths(sources: list[str], units: list[Unit]) -> list[str]:
    """What a worker must see to read this survey's local files: the local sources, and the first and last
    runs' results files (a folder may be there and empty, or hold another copy)."""
    paths = [os.path.abspath(local_path(source)) for source in sources if is_local(source)]
    results = [unit.run.results.location for unit in units if is_local(unit.run.results.location)]
    for location in results[:1] + results[-1:]:
        path = os.path.abspath(local_path(location))
        if path not in paths:
            paths.append(path)
    return paths


def remote_protocols(units: list[Unit]) -> list[str]:
    """The URL schemes of the files the units read (http, s3, hf...): what a worker needs a file system for."""
    locations = {
        ref.location for unit in units for ref in (unit.run.results, unit.log) if ref is not None
    }
    return sorted(
        {location.split("://", 1)[0].lower() for location in locations if not is_local(location)}
    )


def _journaled(unit: Unit, done: dict[str, list[dict]]) -> bool:
    """Whether the journal holds the unit's rows: a log's unit always writes exactly one row (a run's, any)."""
    rows = done.get(unit.key)
    return rows is not None and (unit.log is None or len(rows) == 1)


def _kept(unit: Unit, done: dict[str, list[dict]]) -> bool:
    """Whether --resume keeps the unit's journaled rows: they are whole, its files provably the ones audited
    (Unit.verifiable), and they judged it. A unit that was not judged (a worker lost, a store that timed out or
    failed: LB101) runs again: a resume is how a survey recovers from what went wrong in its last pass."""
    # A log no results file claims is judged by its listing alone: its own row stands until its fingerprint changes
    # (but a failed row, its batch's, runs again).
    if not (_journaled(unit, done) and unit.verifiable):
        return False
    rows = done[unit.key]
    return (
        all(row["status"] == "unplaced log" for row in rows)
        if unit.run.orphan
        else not _unjudged(rows)
    )


def _unjudged(rows: list[dict]) -> bool:
    return any(row["status"] in UNJUDGED or "LB101" in row["rules"] for row in rows)


def _resume_notes(todo: list[Unit], done: dict[str, list[dict]]) -> list[str]:
    """Why units the journal holds run again, counted by reason."""
    notes = []
    rowless = sum(1 for unit in todo if unit.key in done and not _journaled(unit, done))
    if rowless:
        notes.append(
            f"{JOURNAL_NAME}: {rowless:,} of its log units hold no row or several (a log's unit writes "
            "one); they run again"
        )
    unverified = sum(1 for unit in todo if _journaled(unit, done) and not unit.verifiable)
    if unverified:
        notes.append(
            f"{unverified:,} journaled units run again: their store gives no content hash (an HTTP "
            "server's listing), so a file changed since could not be told from the one audited"
        )
    unjudged = sum(
        1
        for unit in todo
        if _journaled(unit, done) and unit.verifiable and _unjudged(done[unit.key])
    )
    if unjudged:
        notes.append(
            f"{unjudged:,} journaled units run again: they were not judged last time (failed, not "
            "audited, or unreadable: LB101)"
        )
    return notes


def _record(journal: Journal, batch: list[Unit], results: list[str]) -> None:
    """Journal a batch's rows; a unit whose rows cannot be written gets a failed row saying why, and the rest of
    its batch is kept (one file's unwritable name must not lose every unit of its batch and the survey)."""
    refused = journal.record([(unit.key, rows) for unit, rows in zip(batch, results, strict=False)])
    if not refused:
        return
    units = {unit.key: unit for unit in batch}
    again = journal.record(
        [
            (
                key,
                rows_text(
                    failed_rows(
                        units[key],
                        f"internal error: its rows cannot be journaled "
                        f"({one_line(why, 200)}); please report it",
                    )
                ),
            )
            for key, why in refused
        ]
    )
    if (
        again
    ):  # a failed row is built to be written: this would be a bug, and a unit must not go missing
        raise RuntimeError(f"a failed row cannot be journaled: {again[0][1]}")


def bytes_of(units: list[Unit]) -> int | None:
    """The size of what the units read: each log, and each run's results file once."""
    sizes = [(unit.log or unit.run.results).size for unit in units]
    known = [size for size in sizes if size is not None]
    return None if len(known) < len(sizes) else sum(known)


# Limits on waiting, not on what is read: a unit that was read gives the same rows under any of them, and one
# that timed out is not judged, so a resume runs it again (_kept) under the timeouts given then.
WAITS = frozenset({"remote_timeout", "listing_timeout", "unit_timeout", "remote_retries"})


def settings_record(settings: Settings) -> dict:
    """What a journal's rows depend on besides the files: the lbnorm version and every option of the survey."""
    record = {"lbnorm": __version__}
    for name, value in asdict(settings).items():
        if isinstance(value, (Limits, RuleSelection)):  # a key per field in settings.json
            value = value._asdict()
        if isinstance(value, dict):  # how long to wait is not what a row says (see _kept)
            record.update(
                {f"{name}.{key}": item for key, item in value.items() if key not in WAITS}
            )
        else:
            record[name] = value
    return json.loads(json.dumps(record))  # tuples become lists, as settings.json reads back


def table_rows(units: list[Unit], done: dict[str, list[dict]]) -> list[dict]:
    """The rows of this plan's units (a journal line of a unit no longer planned is left out), sorted."""
    rows = [row for unit in units for row in done.get(unit.key, [])]
    return sorted(rows, key=sort_key)


def progress_stream(enabled: bool | None) -> TextIO | None:
    """stderr (a bar on a terminal, lines in CI logs and pipes), unless progress is turned off."""
    return sys.stderr if enabled is not False else None
