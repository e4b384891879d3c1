"""Command-line path arguments: relative to the current directory, expanded inside the workspace."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..io.discovery import named_literally
from ..io.paths import expand
from ..io.workspace import Workspace, inside_workspace, outside_message


@dataclass
class Expanded:
    paths: list[Path] = field(default_factory=list)  # relative to the workspace root
    literal: set[Path] = field(default_factory=set)  # the files named as such (not found by a walk)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (argument, message)
    skipped: list[Path] = field(
        default_factory=list
    )  # hidden entries and symlinked folders a walk did not enter
    too_many: bool = False
    logs: list[Path] = field(
        default_factory=list
    )  # samples_*.jsonl a folder's walk passed, relative to the root


def expand_arguments(workspace: Workspace, arguments: tuple[str, ...], max_files: int) -> Expanded:
    """Files the arguments name or match; an argument outside the workspace or matching nothing is a problem."""
    cwd = Path(os.getcwd())
    expanded, patterns = Expanded(), []
    for argument in arguments:
        relative = inside_workspace(workspace, argument, cwd)
        if relative is None:
            expanded.problems.append((argument, outside_message(workspace, argument)))
            continue
        patterns.append(relative)
        if named_literally(argument) and not (workspace.root / relative).is_dir():
            expanded.literal.add(Path(relative))
    matched = expand(workspace.root, patterns, max_files)
    expanded.paths, expanded.skipped, expanded.too_many = (
        matched.paths,
        matched.skipped,
        matched.too_many,
    )
    expanded.logs = matched.logs
    expanded.problems += [
        (pattern, f"'{pattern}' matched no file; check the path or glob")
        for pattern in matched.unmatched
    ]
    return expanded
