"""Finding files to check and keeping what untrusted files lead to inside a boundary.

Paths are relative to a root (the current directory on the command line) and
shown relative to it, or as given when they lie outside it. Whoever opens a
pull request controls file names, symlinks and the paths a submission names,
so a path is used only after it resolves (symlinks followed) inside the
boundary (by default the root itself) and turns out to be a regular file.
"""

import errno
import fnmatch
import os
import stat
from pathlib import Path
from typing import NamedTuple

GLOB_CHARS = set("*?[")
CHECKABLE_SUFFIXES = (".json", ".yaml", ".yml")


class PathRefused(Exception):
    """A path that must not be read; the message says why and what to do."""


class Target(NamedTuple):
    """A file a path was confined to: how findings show it, and where it is."""

    display: (
        str  # as shown in findings: relative to the root (or as given outside it), forward slashes
    )
    path: Path  # resolved, inside the boundary, a regular file


def display_path(root: Path, path: Path) -> str:
    absolute = os.path.normpath(os.path.join(root, path))
    base = os.fspath(root)
    if not os.path.isabs(
        base
    ):  # pathlib's reading of a relative root ("." holds every relative path)
        try:
            return Path(absolute).relative_to(root).as_posix()
        except ValueError:
            return str(path)
    base = os.path.normpath(base)
    inside = _inside(absolute, base)
    return (
        "."
        if absolute == base
        else inside.replace(os.sep, "/")
        if inside is not None
        else os.path.normpath(path)
    )


def confine(root: Path, path: Path, boundary: Path | None = None) -> Target:
    """Resolve `path` (relative to root) and refuse anything but a regular file inside the boundary.

    Strings and os.path, not pathlib: a survey confines every log it reads, and
    pathlib's objects cost it twice the time (22 against 10 microseconds a log).
    """
    shown = display_path(root, path)
    try:
        # strict: every component must exist. Without it, Python 3.11 and 3.12 give up on a symlink loop and
        # drop "loop/.." as text, so "loop/../link" came out inside the root while link pointed outside it.
        resolved = os.path.realpath(os.path.join(root, path), strict=True)
        mode = os.stat(resolved).st_mode
    except FileNotFoundError:
        raise PathRefused(f"{shown}: no such file") from None
    except ValueError:  # a lone surrogate written in JSON cannot become a file name
        raise PathRefused(f"{shown} is not a valid file name (it is not valid Unicode)") from None
    except (RuntimeError, OSError) as exc:
        if isinstance(exc, RuntimeError) or exc.errno == errno.ELOOP:
            raise PathRefused(f"{shown} is a symlink loop; it is not read") from None
        raise PathRefused(f"{shown}: cannot be read ({exc.strerror})") from None
    fence = os.fspath(root if boundary is None else boundary)
    if resolved != fence and _inside(resolved, fence) is None:
        raise PathRefused(
            f"{shown} resolves outside the workspace ({fence}); what a file names or links to is read "
            "only inside it"
        )
    if stat.S_ISDIR(mode):
        raise PathRefused(f"{shown} is a directory, expected a file")
    if not stat.S_ISREG(mode):
        raise PathRefused(
            f"{shown} is not a regular file (a FIFO, device or socket); it is not read"
        )
    return Target(shown, Path(resolved))


def confine_listed(root: Path, folder: Path, name: str, boundary: Path | None = None) -> Target:
    """confine() of `name`, listed in `folder`, a folder already resolved inside the boundary (the folder of a
    confined results file): a regular file of a plain name there that is no symlink is itself inside it, and
    one lstat proves that. Anything else is confine's to resolve or to refuse, with its messages."""
    path = folder / name
    if (
        name not in ("", ".", "..")
        and os.sep not in name
        and (not os.altsep or os.altsep not in name)
    ):
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                return Target(display_path(root, below(root, path)), path)
        except (OSError, ValueError):  # confine says what is wrong
            pass
    return confine(root, below(root, path), boundary)


def confine_in(resolved_root: str, name: str) -> Target:
    """confine() of `name` (relative, forward slashes) in a folder already resolved (os.path.realpath), for
    the survey, which confines every log it reads. Where each component of the name is a plain one (no
    symlink, ".", ".." or empty part), root/name is what realpath gives, shown as the name: an lstat of
    each component proves it without walking the root's again. Anything else is confine's to resolve
    or to refuse, with its messages."""
    parts = name.split("/")
    if os.sep == "/" and os.path.isabs(resolved_root) and not {"", ".", ".."} & set(parts):
        path, last = resolved_root, len(parts) - 1
        try:
            for index, part in enumerate(parts):
                path = os.path.join(path, part)
                mode = os.lstat(path).st_mode
                if not (stat.S_ISREG(mode) if index == last else stat.S_ISDIR(mode)):
                    break
            else:
                return Target(name, Path(path))
        except (OSError, ValueError):  # confine says what is wrong
            pass
    return confine(Path(resolved_root), Path(name))


def _inside(path: str, root: str) -> str | None:
    """`path` relative to `root` when it is below it (both normalised), else None."""
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path[len(prefix) :] if path.startswith(prefix) else None


def relative_reference(
    root: Path, base_file: Path, reference: str, boundary: Path | None = None
) -> Target:
    """A path written inside a submission, relative to that submission's folder, inside the boundary."""
    if "\x00" in reference:
        raise PathRefused("the path contains a NUL character")
    if (
        Path(reference).is_absolute()
        or reference.startswith(("\\", "/"))
        or (len(reference) > 1 and reference[1] == ":")
    ):
        raise PathRefused(f"'{reference}' is absolute; write it relative to the submission file")
    return confine(root, below(root, base_file.parent) / reference, boundary)


def below(root: Path, path: Path) -> Path:
    """`path` relative to root when it lies below it, else as it is (shown as given)."""
    inside = _inside(os.fspath(path), os.fspath(root))
    return Path(inside) if inside is not None else Path(os.fspath(path))


class Expansion:
    """What the patterns matched: the files to check and everything the run must say it did not check."""

    def __init__(self) -> None:
        self.paths: list[Path] = []  # relative to the root, sorted per pattern
        self.unmatched: list[str] = []
        self.skipped: list[Path] = []  # hidden entries and symlinked folders not walked
        self.too_many = False  # more than max_files checkable files matched
        self.logs: list[Path] = []  # samples_*.jsonl a folder's walk passed (not checkable)
        self.only_logs: list[str] = []  # patterns that matched sample logs alone


# Walking costs time for every entry, checkable or not: past this many entries
# per allowed file the walk stops and the run fails (LB107), never truncates.
ENTRIES_PER_FILE = 50
# VCS metadata and the hidden files lbnorm itself reads or writes (configuration, pinned profile, pre-commit
# and CI files) are never submissions; skipping them is not worth a warning.
SILENT_SKIPS = {
    ".git",
    ".hg",
    ".svn",
    ".github",
    ".lbnorm",
    ".lbnorm.toml",
    ".pre-commit-config.yaml",
    ".pre-commit-hooks.yaml",
}


def expand(root: Path, patterns: list[str], max_files: int) -> Expansion:
    """Paths (relative to root) the patterns match, in a fixed order.

    A literal path is kept as given (confine() judges it later); a directory
    or glob expands to the JSON and YAML files below it: only those count
    against max_files, and reaching the budget fails the run (too_many) instead
    of checking part of it. Symlinked folders are not followed (two links to
    `.` would make `**` walk 2**40 paths) and hidden names are not matched
    unless the pattern asks for them; both are listed in `skipped`.
    """
    out = Expansion()
    found: dict[Path, None] = {}
    walk = _Walk(root, max_files, max_files * ENTRIES_PER_FILE)
    for pattern in patterns:
        logs_before = walk.jsonl_seen
        if GLOB_CHARS & set(pattern):
            matches = walk.run(Path(), _glob_parts(root, pattern))
        elif (root / pattern).is_dir() and not (root / pattern).is_symlink():
            matches = walk.run(Path(pattern), ["**", "*"])
        else:
            matches = [Path(pattern)]
        if walk.exhausted:
            out.too_many = True
            break
        if not matches:
            (out.only_logs if walk.jsonl_seen > logs_before else out.unmatched).append(pattern)
        for match in matches:
            found[match] = None
        if len(found) > max_files:
            out.too_many = True
            break
    out.paths = list(found)
    out.skipped = sorted(walk.skipped, key=lambda p: p.as_posix())
    out.logs = sorted(walk.logs, key=lambda p: p.as_posix())
    return out


def is_checkable(path: Path) -> bool:
    return path.suffix.lower() in CHECKABLE_SUFFIXES


def _glob_parts(root: Path, pattern: str) -> list[str]:
    """The pattern's path segments relative to root (an absolute pattern outside it starts with its anchor)."""
    path = Path(pattern)
    if path.is_absolute() and path.is_relative_to(root):
        path = path.relative_to(root)
    parts: list[str] = []
    for part in path.parts:
        if not (part == "**" and parts and parts[-1] == "**"):  # a/**/**/b is a/**/b
            parts.append(part)
    return parts


class _Walk:
    """One budgeted walk shared by every pattern of a run."""

    def __init__(self, root: Path, max_files: int, max_entries: int):
        self.root, self.files_left, self.entries_left = root, max_files + 1, max_entries
        self.skipped: set[Path] = set()
        self.logs: set[Path] = (
            set()
        )  # so that audit can tell a log no results file claims (ORPHAN_LOG)
        self.exhausted = False
        self.jsonl_seen = 0  # .jsonl files the patterns reached (sample logs, not checkable)

    def run(self, here: Path, parts: list[str]) -> list[Path]:
        """Checkable files (and symlinks to them, judged later) below root/here matching the segments, sorted."""
        return sorted(self._matches(here, parts), key=lambda p: p.as_posix())

    def _matches(self, here: Path, parts: list[str]):
        stack = [(here, parts)]
        seen: set[tuple[Path, int]] = set()
        while stack and not self.exhausted:
            where, rest = stack.pop()
            if (where, len(rest)) in seen:  # `**` reaches one folder by several routes
                continue
            seen.add((where, len(rest)))
            if not rest:
                if is_checkable(where) and not (self.root / where).is_dir():
                    self.files_left -= 1
                    self.exhausted = self.files_left < 0
                    yield where
                elif where.suffix == ".jsonl":
                    self.jsonl_seen += 1
                    if where.name.startswith("samples_"):
                        self.logs.add(where)
                continue
            head, tail = rest[0], rest[1:]
            if head == "**":
                stack.append((where, tail))
                stack.extend(
                    (where / name, rest)
                    for name in self._children(where, "*")
                    if self._is_walkable(where / name)
                )
            elif GLOB_CHARS & set(head):
                stack.extend(
                    (where / name, tail)
                    for name in self._children(where, head)
                    if not tail or self._is_walkable(where / name)
                )
            elif os.path.lexists(self.root / where / head) and (
                not tail or self._is_walkable(where / head)
            ):
                stack.append((where / head, tail))

    def _children(self, folder: Path, pattern: str) -> list[str]:
        """Names in a folder matching one glob segment; hidden names only when the pattern starts with '.'."""
        if not _is_real_dir(self.root / folder):
            return []
        try:
            names = os.listdir(self.root / folder)
        except OSError:
            return []
        self.entries_left -= len(names)
        if self.entries_left < 0:
            self.exhausted = True
            return []
        # "*" matches every name (fnmatch's '(?s:.*)\\Z'): not compiled for a folder named whole
        wanted = names if pattern == "*" else [n for n in names if fnmatch.fnmatchcase(n, pattern)]
        if not pattern.startswith("."):
            hidden = [n for n in wanted if n.startswith(".")]
            self.skipped.update(
                folder / n
                for n in hidden
                if n not in SILENT_SKIPS and self._worth_saying(folder / n)
            )
            wanted = [n for n in wanted if not n.startswith(".")]
        return wanted

    def _worth_saying(self, path: Path) -> bool:
        """A hidden folder, or a hidden file that would have been checked."""
        full = self.root / path
        return (full.is_dir() and not full.is_symlink()) or is_checkable(path)

    def _is_walkable(self, path: Path) -> bool:
        full = self.root / path
        if full.is_symlink() and full.is_dir():
            self.skipped.add(path)
            return False
        return _is_real_dir(full)


def _is_real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()
