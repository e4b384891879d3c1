"""lm-eval's output layout: which files of a listing are runs, and which logs belong to each.

lm-eval writes `<model>/results_<date>.json` beside `samples_<task>_<date>.jsonl`
(0.4.3 on); with `--output_path NAME.json` it writes `NAME_<date>.json`
instead, beside the same logs; 0.4.0-0.4.2 wrote `results.json` beside
`<model args>_<task>.jsonl`. A `samples_*.jsonl` that no results file of its
folder claims is a run of its own whose unit says so (ORPHAN_LOG): a log the
survey cannot place must be a row, not a file it passed over in silence.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace

from ..io.sample_logs import (
    LEGACY_RESULTS,
    ORPHAN_LOG,
    RESULTS_NAME,
    claims,
    is_unclaimed,
    named_results_beside_logs,
)
from .stores import FileRef


@dataclass(frozen=True)
class Run:
    run: str  # the results file as shown in the table
    results: FileRef
    logs: tuple[FileRef, ...]
    model: str | None = None  # from the manifest; else read from the results file
    published: tuple[tuple[str, str, float], ...] = ()  # (task, metric, value) from the manifest

    @property
    def orphan(self) -> bool:
        """Whether this "run" is a sample log no results file claims (ORPHAN_LOG), standing in for one."""
        return self.results.problem == ORPHAN_LOG


def orphan_task(name: str) -> str:
    """The task an unclaimed log's file name gives, when it carries lm-eval's date; "" otherwise: an undated
    samples_arc_challenge.jsonl would read as task 'arc' of the date 'challenge'."""
    match = _DATED_LOG.match(posixpath.basename(name))
    return match["task"] if match else ""


_DATED_LOG = re.compile(r"^samples_(?P<task>.+)_\d{4}-\d\d-\d\dT[^_/]+\.jsonl$")


def is_results_name(name: str) -> bool:
    return bool(RESULTS_NAME.match(name)) or name == LEGACY_RESULTS


def runs_in(files: list[FileRef]) -> list[Run]:
    """Runs of a listing: each results file with the logs of its folder that belong to it. A folder that could not
    be listed is a run of its own, with no logs, whose unit reports why (it may have held runs); so is a
    `samples_*.jsonl` no results file of its folder claims."""
    by_folder: dict[str, list[FileRef]] = {}
    runs = [Run(ref.name, ref, ()) for ref in files if ref.problem]
    for ref in files:
        if not ref.problem:
            by_folder.setdefault(posixpath.dirname(ref.name), []).append(ref)
    for folder_files in by_folder.values():
        runs += _folder_runs(folder_files)
    return sorted(runs, key=lambda run: run.run)


def named_run(name: str, files: list[FileRef]) -> Run | None:
    """The run of the results file `name` in `files` (a folder's listing, names relative to it), named as such (a
    source, a manifest's entry): as runs_in finds it, or, a JSON file runs_in does not take for one (NAME_<date>.json
    without logs of its date, or beside a results_<date>.json of it), with the logs sample_logs.claims gives it.
    None if there is no such file."""
    found = [run for run in runs_in(files) if run.results.name == name and not run.orphan]
    if found:
        return found[0]
    ref = next((ref for ref in files if ref.name == name and not ref.problem), None)
    if ref is None or not name.endswith(".json"):
        return None
    return Run(
        ref.name, ref, tuple(log for log in files if claims(name, posixpath.basename(log.name)))
    )


def _folder_runs(folder_files: list[FileRef]) -> list[Run]:
    names = {posixpath.basename(ref.name): ref for ref in folder_files}
    folder_names, runs = list(names), []
    for name, ref in names.items():
        if (
            RESULTS_NAME.match(name)
            or name == LEGACY_RESULTS
            or named_results_beside_logs(name, folder_names)
        ):
            # The logs audit takes too (sample_logs.claims): a legacy results.json takes every .jsonl beside it.
            runs.append(
                Run(
                    ref.name,
                    ref,
                    tuple(log for log_name, log in names.items() if claims(name, log_name)),
                )
            )
    results_names = [posixpath.basename(run.results.name) for run in runs]
    runs += [
        Run(ref.name, replace(ref, problem=ORPHAN_LOG), ())
        for name, ref in names.items()
        if is_unclaimed(name, results_names)
    ]
    return runs
