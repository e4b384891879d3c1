"""Finding the results file and sample logs of one lm-eval run.

lm-eval writes <output_path>/<model_name_sanitized>/results_<date>.json, with
samples_<task>_<date>.jsonl beside it under --log_samples; 0.4.0-0.4.2 wrote
a single results.json. A run folder is either that model folder or the
output path above it.
"""

from __future__ import annotations

from pathlib import Path

from ..core.errors import DataError

MAX_LISTED = 8  # names shown when a folder holds several results files


def find_results_file(run: Path) -> Path:
    """The one results file of RUN (a file, a model folder, or the output folder above one)."""
    if run.is_file():
        return run
    if not run.is_dir():
        raise DataError(f"{run}: no such file or folder; pass an lm-eval results file or its output folder")
    found = _results_in(run)
    if not found:
        found = [path for child in sorted(run.iterdir()) if child.is_dir() and not child.is_symlink()
                 for path in _results_in(child)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise DataError(f"{run}: no results_<date>.json or results.json here or one folder down; "
                        "pass the results file lm-eval wrote")
    shown = ", ".join(str(p) for p in found[:MAX_LISTED]) + (" ..." if len(found) > MAX_LISTED else "")
    raise DataError(f"{run}: {len(found)} results files ({shown}); pass the one to submit")


def _results_in(folder: Path) -> list[Path]:
    names = sorted(p for p in folder.glob("results_*.json") if p.is_file())
    legacy = folder / "results.json"
    return names + ([legacy] if legacy.is_file() else [])
