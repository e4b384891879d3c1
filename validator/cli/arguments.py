"""Command-line path arguments: relative to the current directory, each with the boundary its files keep to."""

from __future__ import annotations

import os
from pathlib import Path

from ..io.discovery import named_literally, only_logs_message
from ..io.paths import expand
from ..io.workspace import Workspace, boundary_of, outside_message, typed_path


class Expanded:
    """The command line's paths expanded into files, with what the expansion refused or passed over."""

    def __init__(self) -> None:
        self.paths: list[Path] = []  # relative to the current directory (or absolute)
        self.literal: set[Path] = set()  # the files named as such (not found by a walk)
        self.problems: list[tuple[str, str]] = []  # (argument, message)
        self.skipped: list[Path] = []  # hidden entries and symlinked folders a walk did not enter
        self.too_many = False
        self.logs: list[Path] = []  # samples_*.jsonl a folder's walk passed
        self.boundary: dict[Path, Path] = {}  # each path's boundary


def scoped_arguments(
    workspace: Workspace, arguments: tuple[str, ...], cwd: Path
) -> tuple[dict[Path, list[str]], list[str]]:
    """The arguments (as typed, `~` expanded) grouped by boundary, and those outside an explicit --root."""
    scopes: dict[Path, list[str]] = {}
    outside: list[str] = []
    for argument in arguments:
        boundary = boundary_of(workspace, argument, cwd)
        if boundary is None:
            outside.append(argument)
        else:
            scopes.setdefault(boundary, []).append(typed_path(argument))
    return scopes, outside


def expand_arguments(workspace: Workspace, arguments: tuple[str, ...], max_files: int) -> Expanded:
    """Files the arguments name or match; an argument outside --root or matching nothing is a problem."""
    cwd = Path(os.getcwd())
    expanded = Expanded()
    scopes, outside = scoped_arguments(workspace, arguments, cwd)
    expanded.problems += [(argument, outside_message(workspace, argument)) for argument in outside]
    for boundary, patterns in scopes.items():
        for pattern in patterns:
            if named_literally(pattern) and not (cwd / pattern).is_dir():
                expanded.literal.add(Path(pattern))
        matched = expand(cwd, patterns, max_files)
        for path in matched.paths:
            if path not in expanded.boundary:
                expanded.boundary[path] = boundary
                expanded.paths.append(path)
        expanded.skipped += matched.skipped
        expanded.too_many |= matched.too_many or len(expanded.paths) > max_files
        expanded.logs += matched.logs
        expanded.problems += [
            (pattern, f"'{pattern}' matched no file; check the path or glob")
            for pattern in matched.unmatched
        ]
        expanded.problems += [
            (pattern, only_logs_message(pattern)) for pattern in matched.only_logs
        ]
    return expanded
