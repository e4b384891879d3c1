"""From SOURCES to runs and units of work.

A source is a folder or URL holding runs in lm-eval's output layout
(`<model>/results_<date>.json` beside `samples_<task>_<date>.jsonl`), a single
results file, or a manifest (CSV or JSON) naming results files, optionally
with model names and published scores. A run is one results file and the
logs beside it; the unit of work is one log, plus one unit per run for what
only the results file can say (tasks without a log), so one huge model does
not serialise the survey.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote

from ..io.limits import Limits
from ..io.sample_logs import NAMED_RESULTS
from .journal import JOURNAL_NAME, SETTINGS_NAME
from .layout import Run, is_results_name, named_run, runs_in
from .manifests import ResultsFileGiven, manifest_entries, published_scores
from .outputs import SUMMARIES, TABLES
from .repeats import Runs, refuse_repeated_sources
from .stores import (
    FileRef,
    SourceError,
    SourceMissing,
    is_local,
    is_url,
    list_files,
    local_path,
)

MANIFEST_SUFFIXES = (".csv", ".json")
UNIT_KEY_VERSION = "lbnorm-survey-1"  # changes when rows of the same inputs would change


@dataclass(frozen=True)
class Unit:
    run: Run
    log: FileRef | None  # None: the run's own unit (the results file, tasks without a log)

    @functools.cached_property  # asked for by the plan, the journal, the batches and the table
    def key(self) -> str:
        """What the unit reads, by content fingerprint: a changed file is a new unit."""
        parts = [
            UNIT_KEY_VERSION,
            self.run.run,
            self.run.results.fingerprint,
            repr(self.run.model),
            repr(self.run.published),
        ]
        parts += (
            [self.log.name, self.log.fingerprint]
            if self.log
            else [repr([log.name for log in self.run.logs])]
        )
        return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def verifiable(self) -> bool:
        """Whether every file the unit reads has a fingerprint that changes with its content (FileRef.verifiable):
        only then may --resume keep its journaled rows. (A run's unit reads its results file and its logs' names.)"""
        return self.run.results.verifiable and (self.log is None or self.log.verifiable)

    def __dask_tokenize__(self) -> str:
        """What Dask hashes a task's arguments by: without it, client.map pickled every unit, run and file
        reference of a survey to hash them, 70-90 ms per survey of 600 small units. The key is a content hash."""
        return self.key


OWN_FILES = frozenset(
    (JOURNAL_NAME, SETTINGS_NAME, *TABLES, *SUMMARIES)
)  # what a survey writes into --out


def plan(
    sources: list[str], limits: Limits, max_units: int, exclude: Path | None = None
) -> list[Unit]:
    """Every unit of every source, in a stable order; SourceError when a source cannot be read.

    `exclude`: the survey's own output folder, whose files are never surveyed (an --out inside a run folder
    would otherwise have its journal read as a log on --resume)."""
    refuse_repeated_sources(sources)
    runs = Runs()
    for source in sources:
        found = runs_of(source, limits, max_units)
        if all(
            run.orphan for run in found
        ):  # a mistyped path must not pass as a survey that found nothing wrong
            logs = f", only {len(found):,} sample logs" if found else ""
            raise SourceError(
                f"{source}: no run found (no results_*.json or results.json file under it{logs}); "
                "check the path"
            )
        for run in _outside(found, exclude):
            runs.add(run, source, _is_manifest(source))
    units = [Unit(run, log) for run in runs.by_name.values() for log in (None, *run.logs)]
    if len(units) > max_units:
        raise SourceError(
            f"the sources hold {len(units):,} units of work, more than --max-units {max_units:,}"
        )
    return sorted(units, key=lambda unit: (unit.run.run, unit.log.name if unit.log else ""))


def _outside(runs: list[Run], out: Path | None) -> list[Run]:
    """The runs, without the survey's own files in its output folder `out` (its journal, settings, tables)."""
    if out is None:
        return runs
    top = os.path.realpath(out)
    resolved = functools.lru_cache(maxsize=None)(
        os.path.realpath
    )  # once per folder: a run's files share one

    def inside(ref: FileRef) -> bool:
        if not is_local(ref.location):
            return False
        folder, name = os.path.split(ref.location.removeprefix("file://"))
        return (name in OWN_FILES or name.startswith(".") and name.endswith(".tmp")) and resolved(
            folder
        ) == top

    return [
        replace(run, logs=tuple(log for log in run.logs if not inside(log)))
        for run in runs
        if not inside(run.results)
    ]


def _is_manifest(source: str) -> bool:
    """A .csv or .json source that is not a results file by its name, nor a local folder (a run folder may be
    named `runs.json`)."""
    name = source.rstrip("/").rsplit("/", 1)[-1]
    if not name.endswith(MANIFEST_SUFFIXES) or is_results_name(name):
        return False
    return not (is_local(source) and local_path(source).is_dir())


def runs_of(source: str, limits: Limits, max_units: int) -> list[Run]:
    name = source.rstrip("/").rsplit("/", 1)[-1]
    if NAMED_RESULTS.match(name) and not is_results_name(name):
        named = _run_beside_its_logs(source, limits, max_units)
        if named:  # lm-eval's --output_path NAME.json: a run by its logs, even if the file itself is broken
            return named
    if _is_manifest(source):
        try:
            return _manifest_runs(source, limits, max_units)
        except (
            ResultsFileGiven
        ):  # NAME_<date>.json of lm-eval's --output_path NAME.json, or another name
            return _results_file_runs(source, limits, max_units)
    if is_results_name(name):
        return _results_file_runs(source, limits, max_units)
    return runs_in(list_files(source, max_units, limits=limits))


def _results_file_runs(source: str, limits: Limits, max_units: int) -> list[Run]:
    """The run of a results file given as a source, with the logs of its folder that belong to it."""
    name = source.rstrip("/").rsplit("/", 1)[-1]
    run = _named_in(
        name, source, list_files(_parent(source), max_units, recursive=False, limits=limits)
    )
    if run is None:
        raise SourceError(f"{source}: no such results file; check the path{_path_hint(source)}")
    # Named as given, not by its bare name: two models' results files of one date are two runs.
    return [replace(run, run=source)]


def _run_beside_its_logs(source: str, limits: Limits, max_units: int) -> list[Run]:
    """NAME_<date>.json as a folder's listing takes it (logs of its date beside it), or nothing: a file of
    another kind may end in a date (a manifest), and a folder that cannot be listed leaves it to be read."""
    name = source.rstrip("/").rsplit("/", 1)[-1]
    try:
        files = list_files(_parent(source), max_units, recursive=False, limits=limits)
    except SourceError:
        return []
    return [
        replace(run, run=source)
        for run in runs_in(files)
        if run.results.name == name and not run.orphan
    ]


def _named_in(name: str, location: str, files: list[FileRef]):
    """named_run for a name as the user typed it: over HTTP, a listing names files as they are named on disk
    (listing.py), and a URL may give the same name percent-encoded (`my%20eval_<date>.json`)."""
    run = named_run(name, files)
    if run is None and location.lower().startswith(("http://", "https://")) and "%" in name:
        run = named_run(unquote(name), files)
    return run


def _parent(location: str) -> str:
    """The folder (or URL) a file is in: "." for a bare name, "/" for a file at the root."""
    folder, slash, _ = location.rstrip("/").rpartition("/")
    return (folder or "/") if slash else "."


# --- manifests -------------------------------------------------------------------------------


def _manifest_runs(source: str, limits: Limits, max_units: int) -> list[Run]:
    entries = manifest_entries(source, limits)
    if (
        not entries
    ):  # the generic "no run found" would send the user looking at the path, not the manifest
        raise SourceError(
            f"{source}: the manifest lists no runs; give it one entry per results file "
            "(a 'results' column or key)"
        )
    base = _parent(source)
    runs = []
    listings: dict[str, list[FileRef]] = {}
    for number, entry in enumerate(entries, start=1):
        results = entry.get("results")
        if not isinstance(results, str) or not results:
            raise SourceError(
                f"{source}: entry {number} has no 'results' (the results file of the run)"
            )
        location = (
            results
            if is_url(results) or results.startswith("/")
            else f"{'' if base == '/' else base}/{results}"
        )
        folder, name = _parent(location), location.rpartition("/")[2]
        if folder not in listings:
            try:
                listings[folder] = list_files(folder, max_units, recursive=False, limits=limits)
            except SourceMissing as exc:
                raise SourceError(
                    f"{source}: entry {number}: {results!r} cannot be reached ({exc}); fix the "
                    f"entry's path (relative to the manifest's folder){_path_hint(results)}"
                ) from None
            except (
                SourceError
            ) as exc:  # the path may be right: too many files, no fsspec, the network
                raise SourceError(f"{source}: entry {number}: {results}: {exc}") from None
        found = _named_in(name, location, listings[folder])
        if found is None and not any(ref.name == name for ref in listings[folder]):
            raise SourceError(
                f"{source}: entry {number}: {results!r} does not exist; fix the entry's path "
                f"(relative to the manifest's folder){_path_hint(results)}"
            )
        if found is None:
            raise SourceError(
                f"{source}: entry {number}: {results!r} is not a results file (a .json file)"
            )
        model = entry.get("model")
        runs.append(
            Run(
                results,
                found.results,
                found.logs,
                model if isinstance(model, str) and model else None,
                published_scores(entry, source, number),
            )
        )
    return runs


def _path_hint(path: str) -> str:
    """What is likely wrong with a manifest's path that names no results file, when it shows."""
    if "\\" in path:
        return "; write its path with '/', as on every system a manifest is read on"
    if any(part != part.strip() for part in path.split("/")):
        return "; a name in its path begins or ends with a space"
    return ""
