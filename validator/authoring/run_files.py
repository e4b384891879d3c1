"""Finding the files of runs: the results file of a run folder, the submissions that point at a file.

lm-eval writes <output_path>/<model_name_sanitized>/results_<date>.json, with
samples_<task>_<date>.jsonl beside it under --log_samples; 0.4.0-0.4.2 wrote
a single results.json. A run folder is either that model folder or the
output path above it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.errors import DataError
from ..io.documents import DocumentError, kind_of, parse_document
from ..io.limits import DEFAULT_LIMITS
from ..io.loaders import read_untrusted
from ..io.sample_logs import named_results_beside_logs

MAX_LISTED = 8  # names shown when a folder holds several results files


def find_results_file(run: Path) -> Path:
    """The one results file of RUN (a file, a model folder, or the output folder above one)."""
    if run.is_file():
        return run
    if not run.is_dir():
        raise DataError(
            f"{run}: no such file or folder; pass an lm-eval results file or its output folder"
        )
    found = _results_in(run)
    if not found:
        found = [
            path
            for child in sorted(run.iterdir())
            if child.is_dir() and not child.is_symlink()
            for path in _results_in(child)
        ]
    if len(found) == 1:
        return found[0]
    if not found:
        raise DataError(
            f"{run}: no results_<date>.json, NAME_<date>.json or results.json here or one folder down; "
            "pass the results file lm-eval wrote"
        )
    shown = ", ".join(str(p) for p in found[:MAX_LISTED]) + (
        " ..." if len(found) > MAX_LISTED else ""
    )
    raise DataError(f"{run}: {len(found)} results files ({shown}); pass the one to submit")


def _results_in(folder: Path) -> list[Path]:
    """results_<date>.json, NAME_<date>.json beside logs of its date (--output_path NAME.json), results.json:
    the results files check and normalize find in a folder."""
    names = sorted(os.listdir(folder))
    found = [
        folder / name
        for name in names
        if (name.startswith("results_") and name.endswith(".json"))
        or named_results_beside_logs(name, names)
    ]
    legacy = folder / "results.json"
    return [p for p in found if p.is_file()] + ([legacy] if legacy.is_file() else [])


# --- which submissions a changed results file or log touches (the pre-commit re-check) ----

MAX_SUBMISSION_BYTES = (
    1 << 20
)  # submissions are small; a bigger file is a results file, not worth parsing here


def submissions_referencing(root: Path, changed: list[Path], candidates: list[Path]) -> list[Path]:
    """The candidates (paths relative to root) whose `results` or `samples` resolve to a changed file.

    Files that are not submissions, cannot be read or are too big are passed
    over: the check of the submissions themselves reports those.
    """
    targets = {(root / path).resolve() for path in changed}
    found = []
    for candidate in candidates:
        full = root / candidate
        if full.resolve() in targets or not _small_file(full):
            continue
        data = _data_or_none(full)
        if not (isinstance(data, dict) and "reported" in data):
            continue
        listed = data.get("samples")
        samples = listed if isinstance(listed, list) else []
        references = [
            ref
            for ref in [data.get("results"), *samples]
            if isinstance(ref, str) and "\x00" not in ref
        ]
        if any((full.parent / ref).resolve() in targets for ref in references):
            found.append(candidate)
    return found


def _small_file(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size <= MAX_SUBMISSION_BYTES
    except OSError:
        return False


def _data_or_none(path: Path):
    """The parsed JSON or YAML, with the reader's own limits (a YAML alias bomb stops early); None if unreadable."""
    limits = DEFAULT_LIMITS._replace(max_file_bytes=MAX_SUBMISSION_BYTES)
    try:
        return parse_document(read_untrusted(path, limits), str(path), kind_of(path), limits).data
    except (DocumentError, OSError, ValueError, RecursionError):
        return None
