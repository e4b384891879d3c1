"""lm-eval output folders: which files a folder or glob argument brings to each command.

lm-eval's --output_path writes `<output_path>/<org>__<model>/results_<date>.json`
with `samples_<task>_<date>.jsonl` beside it (--log_samples). `check`,
`normalize` and `audit` accept such folders as they accept files and globs;
paths.expand() walks them (JSON and YAML files) and this module sorts what
it found. A file named on the command line is always taken as given.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

SAMPLE_LOG_SUFFIX = ".jsonl"
_RESULTS_NAME = re.compile(
    r"^results.*\.json$"
)  # results_<date>.json, results.json, results_lm_eval_03.json

SAMPLE_LOG_PASSED_TO_CHECK = (
    "a sample log is audited with its results file, and none in this run takes it: "
    "pass the run folder, or run `lbnorm audit RESULTS_FILE LOG`"
)


def only_logs_message(pattern: str) -> str:
    return (
        f"'{pattern}' matched only sample logs (.jsonl); audit them with their results file: "
        "`lbnorm audit RUN_FOLDER` or `lbnorm audit RESULTS_FILE LOG...`"
    )


def is_sample_log(path: Path | str) -> bool:
    return Path(path).suffix.lower() == SAMPLE_LOG_SUFFIX


def is_results_name(path: Path | str) -> bool:
    return bool(_RESULTS_NAME.match(Path(path).name))


def named_literally(argument: str) -> bool:
    """A plain file name, not a glob: whatever it is, the user meant it."""
    return not set("*?[") & set(argument) and not argument.endswith(("/", "\\"))


def results_files(found: list[Path], literal: set[Path], root: Path = Path()) -> list[Path]:
    """The results files among paths a folder or glob brought (named files are kept whatever their name):
    results*.json, and NAME_<date>.json where logs of its date lie beside it (lm-eval --output_path NAME.json)."""
    from .sample_logs import (
        NAMED_RESULTS,
        named_results_beside_logs,
    )  # check reads no log unless asked to

    listed = functools.lru_cache(maxsize=None)(_names_in)
    return [
        p
        for p in found
        if p in literal
        or (is_results_name(p) and not is_sample_log(p))
        or NAMED_RESULTS.match(p.name)
        and named_results_beside_logs(p.name, listed(root / p.parent))
    ]


def unclaimed_logs(logs: list[Path], results: list[Path]) -> list[tuple[Path, str]]:
    """The samples_*.jsonl a walk passed that no results file of their folder takes (sample_logs.claims), each
    with why it is not audited."""
    from .sample_logs import ORPHAN_LOG, is_unclaimed

    by_folder: dict[Path, list[str]] = {}
    for path in results:
        by_folder.setdefault(path.parent, []).append(path.name)
    return [
        (log, ORPHAN_LOG) for log in logs if is_unclaimed(log.name, by_folder.get(log.parent, []))
    ]


def _names_in(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def split_logs(found: list[Path]) -> tuple[list[Path], list[Path]]:
    """(the other files, the sample logs) among the paths."""
    return [p for p in found if not is_sample_log(p)], [p for p in found if is_sample_log(p)]
