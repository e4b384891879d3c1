"""The workspace of a command-line run, and arguments read relative to the current directory.

As in ruff, yamllint and git, a path on the command line means what the
shell means: relative to the current directory. The workspace (--root) is
only a boundary that no file read may leave; by default it is the top of
the enclosing git repository (where pre-commit and GitHub run from), else
the current directory. Reports name files relative to the workspace, as
GitHub annotations and SARIF do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Workspace:
    root: Path  # resolved
    chosen_by: str  # "--root", "the enclosing git repository" or "the current directory"

    def describe(self) -> str:
        return f"{self.root} ({self.chosen_by})"


def choose_workspace(root: Path | None, cwd: Path) -> Workspace:
    if root is not None:
        return Workspace(root.resolve(), "--root")
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():  # a folder in a clone, a file in a worktree or submodule
            return Workspace(folder.resolve(), "the enclosing git repository")
    return Workspace(cwd.resolve(), "the current directory")


def inside_workspace(workspace: Workspace, argument: str, cwd: Path) -> str | None:
    """`argument` (a path or glob relative to cwd) as a path relative to the root; None when it leaves the root."""
    absolute = os.path.normpath(os.path.join(cwd, os.path.expanduser(argument)))
    relative = os.path.relpath(absolute, workspace.root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return Path(relative).as_posix()


def outside_message(workspace: Workspace, argument: str) -> str:
    return (
        f"{argument} is outside the workspace {workspace.describe()}; only files inside it are read. "
        "Run lbnorm from inside it, or pass --root with a folder that contains the file"
    )
