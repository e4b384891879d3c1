"""The workspace of a command-line run, and where each argument's files may lead.

As in ruff, yamllint and git, a path on the command line means what the
shell means: relative to the current directory, read wherever it is, and
shown as typed. What the files themselves name (a submission's `results` and
`samples`, a symlink met while walking a folder) is untrusted: it must stay
inside the argument's boundary. The boundary is `--root` when given (and
then every argument must lie inside it); otherwise the default workspace (the
top of the enclosing git repository, else the current directory) for an
argument inside it, and for one outside it that argument's own git
repository, else the folder it names.
"""

import os
from pathlib import Path
from typing import NamedTuple

GLOB_CHARS = set("*?[")


class Workspace(NamedTuple):
    """The folder a command-line run reads inside, and what chose it."""

    root: Path  # resolved
    chosen_by: str  # "--root", "the enclosing git repository" or "the current directory"

    def describe(self) -> str:
        return f"{self.root} ({self.chosen_by})"

    @property
    def explicit(self) -> bool:
        return self.chosen_by == "--root"


def choose_workspace(root: Path | None, cwd: Path) -> Workspace:
    if root is not None:
        return Workspace(root.resolve(), "--root")
    repository = _enclosing_repository(cwd)
    if repository is not None:
        return Workspace(repository.resolve(), "the enclosing git repository")
    return Workspace(cwd.resolve(), "the current directory")


def _enclosing_repository(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():  # a folder in a clone, a file in a worktree or submodule
            return candidate
    return None


def typed_path(argument: str) -> str:
    """The argument as the shell would read it (`~` expanded), with forward slashes kept as typed."""
    return os.path.expanduser(argument)


def inside_workspace(workspace: Workspace, argument: str, cwd: Path) -> str | None:
    """`argument` (a path or glob relative to cwd) as a path relative to the root; None when it leaves the root."""
    absolute = os.path.normpath(os.path.join(cwd, typed_path(argument)))
    relative = os.path.relpath(absolute, workspace.root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return Path(relative).as_posix()


def boundary_of(workspace: Workspace, argument: str, cwd: Path) -> Path | None:
    """The folder that what `argument` leads to must stay in; None: outside an explicit --root (refused)."""
    if inside_workspace(workspace, argument, cwd) is not None:
        return workspace.root
    if workspace.explicit:
        return None
    named = Path(os.path.normpath(os.path.join(cwd, typed_path(argument))))
    parts = named.parts
    fixed = next((i for i, part in enumerate(parts) if GLOB_CHARS & set(part)), None)
    if fixed is not None:
        folder = Path(*parts[:fixed])
    elif named.is_dir() and not named.is_symlink():
        folder = named
    else:
        folder = named.parent
    repository = _enclosing_repository(folder)
    return Path(os.path.realpath(repository if repository is not None else folder))


def outside_message(workspace: Workspace, argument: str) -> str:
    return (
        f"{argument} is outside the workspace {workspace.describe()}; only files inside it are read. "
        "Drop --root, or pass a --root that contains the file"
    )
