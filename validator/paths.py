"""Finding files to check and keeping every path inside the workspace.

Whoever opens a pull request controls file names and symlinks, so a path is
used only after it resolves (symlinks followed) inside the workspace root and
turns out to be a regular file.
"""

from __future__ import annotations

import glob
import os
import stat
from dataclasses import dataclass
from pathlib import Path

GLOB_CHARS = set("*?[")
CHECKABLE_SUFFIXES = (".json", ".yaml", ".yml")


class PathRefused(Exception):
    """A path that must not be read; the message says why and what to do."""


@dataclass(frozen=True)
class Target:
    display: str     # as shown in findings: relative to the root, forward slashes
    path: Path       # resolved, inside the root, a regular file


def display_path(root: Path, path: Path) -> str:
    absolute = Path(os.path.normpath(root / path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def confine(root: Path, path: Path) -> Target:
    """Resolve `path` (relative to root) and refuse anything but a regular file inside root."""
    shown = display_path(root, path)
    resolved = (root / path).resolve()
    if not resolved.is_relative_to(root):
        raise PathRefused(f"{shown} resolves outside the workspace ({root}); only files in the repository are read")
    try:
        mode = os.stat(resolved).st_mode
    except FileNotFoundError:
        raise PathRefused(f"{shown}: no such file") from None
    except OSError as exc:
        raise PathRefused(f"{shown}: cannot be read ({exc.strerror})") from None
    if stat.S_ISDIR(mode):
        raise PathRefused(f"{shown} is a directory, expected a file")
    if not stat.S_ISREG(mode):
        raise PathRefused(f"{shown} is not a regular file (a FIFO, device or socket); it is not read")
    return Target(shown, resolved)


def relative_reference(root: Path, base_file: Path, reference: str) -> Target:
    """A path written inside a submission, relative to that submission's folder."""
    if "\x00" in reference:
        raise PathRefused("the path contains a NUL character")
    if Path(reference).is_absolute() or reference.startswith(("\\", "/")) or (len(reference) > 1 and reference[1] == ":"):
        raise PathRefused(f"'{reference}' is absolute; write it relative to the submission file")
    return confine(root, base_file.parent.relative_to(root) / reference)


def expand(root: Path, patterns: list[str]) -> tuple[list[Path], list[str]]:
    """Paths (relative to root) matched by the patterns, and the patterns that matched nothing.

    A literal path is kept as given (confine() judges it later); a directory
    expands to the JSON and YAML files below it.
    """
    found: list[Path] = []
    unmatched: list[str] = []
    for pattern in patterns:
        if GLOB_CHARS & set(pattern):
            absolute = Path(pattern).is_absolute()
            matches = glob.glob(pattern, recursive=True) if absolute else glob.glob(pattern, root_dir=root, recursive=True)
            files = [Path(m) for m in sorted(matches) if not (root / m).is_dir()]
            if not files:
                unmatched.append(pattern)
            found.extend(files)
        elif (root / pattern).is_dir() and not (root / pattern).is_symlink():
            below = sorted(p for p in (root / pattern).rglob("*")
                           if p.suffix.lower() in CHECKABLE_SUFFIXES and not p.is_dir())
            if not below:
                unmatched.append(pattern)
            found.extend(p.relative_to(root) if p.is_relative_to(root) else p for p in below)
        else:
            found.append(Path(pattern))
    return list(dict.fromkeys(found)), unmatched
