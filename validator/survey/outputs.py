"""The files a survey writes into --out besides its journal, and clearing the ones an earlier survey left.

A survey (or a resume) that stops before its tables are written must not
leave the earlier pass's tables in --out looking current, so they are
removed when the survey starts, once the journal is locked.
"""

from __future__ import annotations

import os
from pathlib import Path

TABLES = ("survey.csv", "survey.jsonl", "survey.parquet")
SUMMARIES = ("summary.md", "summary.html")
PLOT_FOLDER = "plots"
PLOTS = ("differences.png", "drop_f1.png", "drop_rates.png", "published.png")


class OutputBlocked(Exception):
    """An earlier survey's output in --out cannot be removed (a folder in its place, no permission)."""


def remove_previous(out: Path) -> None:
    """Remove the tables, summaries and plots an earlier survey wrote into `out`; OutputBlocked if one stays."""
    plots = out / PLOT_FOLDER
    paths = [out / name for name in (*TABLES, *SUMMARIES)]
    if plots.is_symlink():  # removed itself, never followed: its files are not the survey's
        paths.append(plots)
    elif plots.is_dir():
        paths += [plots / name for name in PLOTS]
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise OutputBlocked(f"{path} is left from an earlier survey and cannot be removed ({exc.strerror}); "
                                "remove it, or choose another --out") from None
