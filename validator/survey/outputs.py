"""The files a survey writes into --out besides its journal: writing each whole, and clearing an earlier survey's.

A survey (or a resume) that stops before its tables are written must not
leave the earlier pass's tables in --out looking current, so they are
removed when the survey starts, once the journal is locked. Each file is
written under a temporary name in its own folder and moved onto its name
with os.replace: a name that is a symbolic link is replaced, never followed
(a link survey.csv -> ~/.bashrc must not get the table written over its
target), and a survey killed mid-write leaves the whole old file or the
whole new one.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

TABLES = ("survey.csv", "survey.jsonl", "survey.parquet")
SUMMARIES = ("summary.md", "summary.html")
PLOT_FOLDER = "plots"  # of PNG files (plots.py), all the survey's own


class OutputBlocked(Exception):
    """An earlier survey's output in --out cannot be removed (a folder in its place, no permission)."""


@contextmanager
def replaced(path: Path, binary: bool = False) -> Iterator[IO]:
    """A file to write `path`'s new content to; it takes path's name when the block ends without an error."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # O_EXCL: created here, never an existing file or link; 0o666 under the umask, as open() would make it.
    handle = os.open(
        temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666
    )
    try:
        with (
            open(handle, "wb") if binary else open(handle, "w", encoding="utf-8", newline="")
        ) as stream:
            yield stream
        os.replace(temp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise


def plot_folder(out: Path) -> Path:
    """out/plots as a folder of the survey's own: a link or a file of that name is removed, never written through."""
    folder = out / PLOT_FOLDER
    if folder.is_symlink() or folder.exists() and not folder.is_dir():
        os.unlink(folder)
    folder.mkdir(exist_ok=True)
    return folder


def remove_previous(out: Path) -> None:
    """Remove the tables, summaries and plots an earlier survey wrote into `out` (and the temporary files of one
    killed while writing them); OutputBlocked if one stays."""
    plots = out / PLOT_FOLDER
    paths = [out / name for name in (*TABLES, *SUMMARIES)] + _temporary(out, (*TABLES, *SUMMARIES))
    if (
        plots.is_symlink() or plots.exists() and not plots.is_dir()
    ):  # removed itself, never followed
        paths.append(plots)
    elif plots.is_dir():
        paths += [plots / name for name in os.listdir(plots) if name.endswith((".png", ".tmp"))]
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise OutputBlocked(
                f"{path} is left from an earlier survey and cannot be removed ({exc.strerror}); "
                "remove it, or choose another --out"
            ) from None


def _temporary(folder: Path, names: tuple[str, ...]) -> list[Path]:
    """The files replaced() was writing for `names` when a survey was killed."""
    starts = tuple(f".{name}." for name in names)
    return [
        folder / entry
        for entry in os.listdir(folder)
        if entry.startswith(starts) and entry.endswith(".tmp")
    ]
