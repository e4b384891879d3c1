"""Writing the JSON report into a workspace the pull request controls.

Every name in the workspace may be a trap: a symlink to a file elsewhere,
a FIFO that blocks the writer, a hard link to a file outside the checkout,
or a stale report committed in the pull request claiming a pass. So:

- each folder on the way is opened with O_NOFOLLOW relative to its parent's
  descriptor (openat), so nothing can be swapped in between a check and a use;
- a report name that is a symlink, FIFO, directory or hard link is refused
  (the caller warns and sets the `report` output empty), and left alone;
- a regular stale report is removed at the start, before anything is checked,
  so a run that ends early leaves no report rather than a false one;
- the new report is written to a temporary file and renamed over the name,
  so it is complete or absent, never half-written; it is owned by the
  workspace's owner, not by the container's root.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath


class ReportRefused(Exception):
    """The report cannot be written safely; the message says why."""


class ReportFile:
    def __init__(self, workspace: Path, folder_fd: int, name: str, shown: str):
        self.workspace, self._folder_fd, self.name, self.shown = workspace, folder_fd, name, shown

    @classmethod
    def prepare(cls, workspace: Path, relative: str) -> ReportFile:
        """Open the report's folder safely and remove a stale report; ReportRefused when it cannot be done."""
        parts = _parts(relative)
        folder_fd = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for part in parts[:-1]:
                folder_fd = _enter(folder_fd, part, relative)
            _remove_stale(folder_fd, parts[-1], relative)
        except BaseException:
            os.close(folder_fd)
            raise
        return cls(workspace, folder_fd, parts[-1], "/".join(parts))

    def write(self, data: bytes) -> str:
        """Write atomically (temporary file, then rename); returns the path relative to the workspace."""
        temporary = f".{self.name}.{os.urandom(8).hex()}.tmp"  # as secrets.token_hex, without hmac
        fd = os.open(
            temporary,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
            0o644,
            dir_fd=self._folder_fd,
        )
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                _give_to_workspace_owner(handle.fileno(), self.workspace)
            os.replace(temporary, self.name, src_dir_fd=self._folder_fd, dst_dir_fd=self._folder_fd)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=self._folder_fd)
            except OSError:
                pass
            raise
        return self.shown

    def close(self) -> None:
        os.close(self._folder_fd)


def _parts(relative: str) -> list[str]:
    if "\x00" in relative:
        raise ReportRefused("the report path contains a NUL character")
    path = PurePosixPath(relative)
    if path.is_absolute():
        raise ReportRefused("the report path is absolute; give it relative to the workspace")
    parts = [p for p in path.parts if p != "."]
    if not parts or ".." in parts:
        raise ReportRefused(
            "the report path leaves the workspace (it contains '..' or names no file)"
        )
    return parts


def _enter(folder_fd: int, part: str, relative: str) -> int:
    """The descriptor of the sub-folder `part`, never through a symlink; closes the parent's."""
    try:
        child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder_fd)
    except OSError as exc:
        raise ReportRefused(
            f"folder '{part}' of the report path cannot be entered ({exc.strerror}; "
            "a symlink is never followed)"
        ) from None
    finally:
        os.close(folder_fd)
    return child


def _remove_stale(folder_fd: int, name: str, relative: str) -> None:
    try:
        info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise ReportRefused("the report path is a symlink (committed in the pull request?)")
    if not stat.S_ISREG(info.st_mode):
        raise ReportRefused(
            "the report path is not a regular file (a FIFO, directory, device or socket)"
        )
    if info.st_nlink > 1:
        raise ReportRefused("the report path is a hard link to another file")
    os.unlink(name, dir_fd=folder_fd)


def _give_to_workspace_owner(fd: int, workspace: Path) -> None:
    """The container runs as root; the runner's user must be able to delete the report afterwards."""
    owner = os.stat(workspace)
    try:
        os.fchown(fd, owner.st_uid, owner.st_gid)
    except PermissionError:
        pass  # not root: the file is ours, which is the workspace owner's when running on the host
