"""Where survey files live: local folders (stdlib only) or any fsspec URL (the `remote` extra).

A store lists files under a root with their size and a fingerprint, and
opens one file as a forward-only binary stream. Logs are never copied to
disk nor read whole: local files are opened in place, remote ones through
fsspec in streaming mode (HTTP) or by blocks (object stores).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..io.documents import DocumentError
from ..io.limits import Limits
from ..io.loaders import open_regular_file

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# Object stores give a content hash per file; whichever of these keys fsspec reports is kept.
_CONTENT_HASH_KEYS = ("ETag", "etag", "md5Hash", "sha256", "lfs", "blob_id", "oid")


class SourceError(Exception):
    """A source cannot be listed or read at all; the message names it and says what to do."""


class SourceMissing(SourceError):
    """The folder, bucket or repository is not there (as opposed to unreachable, too large, unsupported)."""


@dataclass(frozen=True, order=True)
class FileRef:
    name: str          # shown in the table: the path relative to the source root, forward slashes
    location: str      # what the store opens: an absolute local path or a URL
    size: int | None
    fingerprint: str   # the store's content hash where it has one, else size and modification time


def is_url(text: str) -> bool:
    return bool(_URL.match(text))


def is_local(location: str) -> bool:
    return not is_url(location) or location.startswith("file://")


def local_path(location: str) -> Path:
    return Path(location[len("file://"):] if location.startswith("file://") else location)


def list_files(root: str, max_files: int, recursive: bool = True) -> list[FileRef]:
    """Every file under root (a local folder or a URL), sorted by name; at most max_files."""
    if is_local(root):
        return _list_local(local_path(root), max_files, recursive)
    return _list_remote(root, max_files, recursive)


def _list_local(root: Path, max_files: int, recursive: bool) -> list[FileRef]:
    if not root.is_dir():
        raise SourceMissing(f"{root}: no such folder")
    found: list[FileRef] = []
    top = str(root)
    prefix = top if top.endswith(os.sep) else top + os.sep
    # Strings, not Path objects: a leaderboard's folder holds tens of thousands of files, listed before any unit
    # starts, and pathlib made up two thirds of the listing's time.
    for folder, dirs, files in os.walk(top):  # symlinked folders are not followed
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            try:
                info = os.stat(path)
            except OSError:
                continue  # a dangling symlink: nothing to survey
            found.append(FileRef(path[len(prefix):].replace(os.sep, "/"), path, info.st_size,
                                 f"size={info.st_size} mtime_ns={info.st_mtime_ns}"))
            if len(found) > max_files:
                raise SourceError(f"{root} holds more than {max_files:,} files; raise --max-units "
                                  "or survey its folders one at a time")
        if not recursive:
            break
    return sorted(found)


def _filesystem(url: str):
    try:
        import fsspec
    except ImportError:
        raise SourceError(f"{url}: reading URLs needs fsspec; install lbnorm[remote]") from None
    try:
        filesystem, path = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise SourceError(f"{url}: {exc}; install lbnorm[remote] (and s3fs, gcsfs or huggingface_hub "
                          "for s3://, gs:// and hf://)") from None
    return filesystem, path


def _list_remote(url: str, max_files: int, recursive: bool) -> list[FileRef]:
    filesystem, root = _filesystem(url)
    try:
        if recursive:
            entries = filesystem.find(root, detail=True)
        else:
            entries = {info["name"]: info for info in filesystem.ls(root, detail=True) if info.get("type") == "file"}
    except Exception as exc:  # each backend raises its own errors; all mean "cannot list"
        error = SourceMissing if isinstance(exc, FileNotFoundError) else SourceError
        raise error(f"{url}: cannot be listed ({type(exc).__name__}: {exc})") from None
    if len(entries) > max_files:
        raise SourceError(f"{url} holds more than {max_files:,} files; raise --max-units")
    prefix = root.rstrip("/") + "/"
    found = []
    for path, info in entries.items():
        if not path.startswith(prefix):
            continue  # a link out of the tree (HTTP listings can hold any link)
        size = info.get("size")
        found.append(FileRef(path[len(prefix):], filesystem.unstrip_protocol(path), size,
                             _fingerprint(info, size)))
    return sorted(found)


def _fingerprint(info: dict, size: int | None) -> str:
    for key in _CONTENT_HASH_KEYS:
        value = info.get(key)
        if value:
            return f"{key}={value}"
    return f"size={size}"


def open_stream(ref: FileRef, max_bytes: int, option: str) -> IO[bytes]:
    """A binary stream on the file, refused (DocumentError LB106) when the store says it is too large."""
    if is_local(ref.location):
        return open_regular_file(local_path(ref.location), max_bytes, "log" if option == "max_log_bytes" else "file",
                                 option)
    filesystem, path = _filesystem(ref.location)
    size = ref.size
    if size is not None and size > max_bytes:
        raise DocumentError("LB106", f"the file has {size:,} bytes, more than the limit "
                                     f"(raise {Limits.OPTION_NAMES[option]} if it is honest)")
    try:
        # block_size=0 makes HTTP a plain stream (no range requests); object stores read by blocks.
        options = {"block_size": 0} if filesystem.protocol in ("http", "https") or "http" in filesystem.protocol \
            else {}
        return BoundedStream(filesystem.open(path, "rb", **options), max_bytes, option)
    except Exception as exc:
        raise DocumentError("LB101", f"cannot be read ({type(exc).__name__}: {exc})") from None


class BoundedStream:
    """Reads at most max_bytes, whatever the server said the size was (a stream cannot be trusted to end)."""

    def __init__(self, handle, max_bytes: int, option: str):
        self.handle, self.left, self.max_bytes, self.option = handle, max_bytes, max_bytes, option

    def read(self, size: int = -1) -> bytes:
        want = self.left + 1 if size < 0 else min(size, self.left + 1)
        data = self.handle.read(want)
        self.left -= len(data)
        if self.left < 0:
            raise DocumentError("LB106", f"the file is larger than the limit of {self.max_bytes:,} bytes "
                                         f"(raise {Limits.OPTION_NAMES[self.option]} if it is honest)")
        return data

    def __enter__(self) -> "BoundedStream":
        return self

    def __exit__(self, *exc_info) -> None:
        self.handle.close()
