"""Finding files to check and keeping every path inside the workspace.

Whoever opens a pull request controls file names and symlinks, so a path is
used only after it resolves (symlinks followed) inside the workspace root and
turns out to be a regular file.
"""

from __future__ import annotations

import fnmatch
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
    try:
        resolved = (root / path).resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a symlink loop
        raise PathRefused(f"{shown} is a symlink loop; it is not read") from None
    except ValueError:  # a lone surrogate written in JSON cannot become a file name
        raise PathRefused(f"{shown} is not a valid file name (it is not valid Unicode)") from None
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


def expand(root: Path, patterns: list[str], max_files: int) -> tuple[list[Path], list[str], bool]:
    """Paths (relative to root) matched by the patterns, the patterns that matched nothing,
    and whether more than max_files matched (the walk stops there).

    A literal path is kept as given (confine() judges it later); a directory
    expands to the JSON and YAML files below it. Globs and directories are
    walked without following symlinked directories: two links to `.` would
    otherwise make `**` walk 2**40 paths.
    """
    found: dict[Path, None] = {}
    unmatched: list[str] = []
    for pattern in patterns:
        if GLOB_CHARS & set(pattern):
            parts = _glob_parts(root, pattern)
            if parts is None:
                found[Path(pattern)] = None  # absolute, outside the root: confine() refuses it
                continue
            matches = _walk(root, Path(), parts, max_files + 1)
        elif (root / pattern).is_dir() and not (root / pattern).is_symlink():
            matches = [p for p in _walk(root, Path(pattern), ["**", "*"], max_files + 1)
                       if p.suffix.lower() in CHECKABLE_SUFFIXES]
        else:
            matches = [Path(pattern)]
        for match in matches:
            found[match] = None
            if len(found) > max_files:
                return list(found)[:max_files], unmatched, True
        if not matches:
            unmatched.append(pattern)
    return list(found), unmatched, False


def _glob_parts(root: Path, pattern: str) -> list[str] | None:
    """The pattern's path segments relative to root (None: an absolute pattern outside it)."""
    path = Path(pattern)
    if path.is_absolute():
        if not path.is_relative_to(root):
            return None
        path = path.relative_to(root)
    parts: list[str] = []
    for part in path.parts:
        if not (part == "**" and parts and parts[-1] == "**"):  # a/**/**/b is a/**/b
            parts.append(part)
    return parts


def _walk(root: Path, here: Path, parts: list[str], budget: int) -> list[Path]:
    """Files (and symlinks to files, judged later) below root/here that match the segments, sorted."""
    return sorted(_matches(root, here, parts, budget), key=lambda p: p.as_posix())


def _matches(root: Path, here: Path, parts: list[str], budget: int):
    stack = [(here, parts)]
    seen: set[tuple[Path, int]] = set()
    while stack and budget > 0:
        where, rest = stack.pop()
        if (where, len(rest)) in seen:  # `**` reaches one folder by several routes
            continue
        seen.add((where, len(rest)))
        if not rest:
            if not (root / where).is_dir():
                budget -= 1
                yield where
            continue
        head, tail = rest[0], rest[1:]
        if head == "**":
            stack.append((where, tail))
            stack.extend((where / name, rest) for name in _children(root / where, "*") if _is_real_dir(root / where / name))
        elif GLOB_CHARS & set(head):
            stack.extend((where / name, tail) for name in _children(root / where, head))
        elif os.path.lexists(root / where / head) and (not tail or _is_real_dir(root / where / head)):
            stack.append((where / head, tail))


def _children(folder: Path, pattern: str) -> list[str]:
    """Names in a folder matching one glob segment; hidden names only when the pattern starts with '.'."""
    if not _is_real_dir(folder):
        return []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    wanted = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
    if not pattern.startswith("."):
        wanted = [n for n in wanted if not n.startswith(".")]
    return wanted


def _is_real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()
