"""Where survey files live: local folders (stdlib only) or any fsspec URL (the `remote` extra).

A store lists files under a root with their size and a fingerprint, and
opens one file as a forward-only binary stream. Logs are never copied to
disk nor read whole: local files are opened in place, remote ones through
fsspec in streaming mode (HTTP) or by blocks (object stores).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import IO, cast

from ..io.documents import DocumentError
from ..io.limits import DEFAULT_LIMITS, LIMIT_OPTIONS, Limits
from ..io.loaders import open_regular_file
from .file_refs import (  # noqa: F401 (re-exported: the stores' names for files and their errors)
    UNVERIFIED,
    FileRef,
    SourceError,
    SourceMissing,
    fingerprint_of,
    local_fingerprint,
)
from .listing import Budget, walk
from .retries import RetryingStream, is_transient

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(text: str) -> bool:
    return bool(_URL.match(text))


def is_local(location: str) -> bool:
    return not is_url(location) or location.startswith("file://")


def local_path(location: str) -> Path:
    return Path(location[len("file://") :] if location.startswith("file://") else location)


def list_files(
    root: str, max_files: int, recursive: bool = True, limits: Limits = DEFAULT_LIMITS
) -> list[FileRef]:
    """Every file under root (a local folder or a URL), sorted by name; at most max_files. A sub-folder that
    cannot be listed is a stand-in FileRef whose `problem` says why."""
    if is_local(root):
        return _list_local(local_path(root), max_files, recursive)
    return _list_remote(root, max_files, recursive, limits)


NOT_WALKED = "not walked"  # the fingerprint of a symlinked folder's stand-in (LB111, not LB101)


def _list_local(root: Path, max_files: int, recursive: bool) -> list[FileRef]:
    if not root.is_dir():
        raise SourceMissing(f"{root}: no such folder")
    found: list[FileRef] = []
    top = os.path.abspath(
        root
    )  # locations absolute: a Dask worker started elsewhere opens the same file
    prefix = top if top.endswith(os.sep) else top + os.sep

    def unlisted(
        error: OSError,
    ) -> None:  # os.walk drops an unreadable folder without a word otherwise
        folder = str(error.filename or "")
        if folder.startswith(prefix):
            found.append(
                FileRef(
                    folder[len(prefix) :].replace(os.sep, "/") + "/",
                    folder,
                    None,
                    "unlisted",
                    problem=f"the folder cannot be listed ({type(error).__name__}: {error.strerror})",
                )
            )

    # Strings, not Path objects: a leaderboard's folder holds tens of thousands of files, listed before any unit
    # starts, and pathlib made up two thirds of the listing's time.
    for folder, dirs, files in os.walk(top, onerror=unlisted):  # symlinked folders are not followed
        dirs.sort()
        # A folder, dangling link or link loop under a file's name is listed too, unread (size 0): if it bears a
        # results or log name, its run or log becomes a finding (LB101, LB700) instead of silently no row.
        odd = [name for name in dirs if name.endswith((".json", ".jsonl"))]
        for name in (
            dirs
        ):  # not followed (a link may lead out of the source, or loop), but never without a word
            path = os.path.join(folder, name)
            if os.path.islink(path):
                found.append(
                    FileRef(
                        path[len(prefix) :].replace(os.sep, "/") + "/",
                        path,
                        None,
                        NOT_WALKED,
                        problem="the folder is a symbolic link, which the survey does not follow; "
                        "survey its target as a source of its own",
                    )
                )
        for name in sorted(files + odd):
            path = os.path.join(folder, name)
            try:
                info = os.stat(path) if name not in odd else None
            except OSError:
                info = None
            fingerprint = local_fingerprint(info) if info else "not a file"
            found.append(
                FileRef(
                    path[len(prefix) :].replace(os.sep, "/"),
                    path,
                    info.st_size if info else 0,
                    fingerprint,
                )
            )
            if len(found) > max_files:
                raise SourceError(
                    f"{root} holds more than {max_files:,} files; raise --max-units "
                    "or survey its folders one at a time"
                )
        if not recursive:
            break
    return sorted(found)


def _filesystem(url: str, timeout: float = DEFAULT_LIMITS.remote_timeout):
    try:
        import fsspec
    except ImportError:
        raise SourceError(f"{url}: reading URLs needs fsspec; install lbnorm[remote]") from None
    try:
        filesystem, path = fsspec.core.url_to_fs(url, **_storage_options(url, timeout))
    except (ImportError, ValueError) as exc:
        raise SourceError(
            f"{url}: {exc}; install lbnorm[remote] (and s3fs, gcsfs or huggingface_hub "
            "for s3://, gs:// and hf://)"
        ) from None
    return filesystem, path


def _storage_options(url: str, timeout: float) -> dict:
    """HTTP gets a connect and a per-read timeout (aiohttp's default is 300 s for the whole request, which a
    stalled server holds and an honest 600 MB log can exceed). Other stores keep their clients' own timeouts."""
    if not url.lower().startswith(("http://", "https://")):
        return {}
    import aiohttp

    return {
        "client_kwargs": {
            "timeout": aiohttp.ClientTimeout(
                total=None, connect=timeout, sock_connect=timeout, sock_read=timeout
            )
        }
    }


def _list_remote(url: str, max_files: int, recursive: bool, limits: Limits) -> list[FileRef]:
    filesystem, root = _filesystem(url, limits.remote_timeout)
    budget = Budget(
        max_files=max_files,
        max_folders=max_files,
        max_page_bytes=limits.max_file_bytes,
        seconds=limits.listing_timeout,
        retries=limits.remote_retries,
    )
    return walk(url, filesystem, root, budget, recursive)


def network_errors() -> tuple[type[BaseException], ...]:
    """What a store raises when the network fails mid-read: OSError (resets, timeouts, fsspec's FSTimeoutError)
    and aiohttp's ClientError (a body shorter than its Content-Length), which is not an OSError."""
    try:
        from aiohttp import ClientError
    except ImportError:
        return (OSError, EOFError)
    return (OSError, EOFError, ClientError)


def read_failure(exc: BaseException, timeout: float, retried: int = 0) -> DocumentError:
    """LB101 for a read the store could not finish: the file's fault or the network's, either way not audited."""
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, TimeoutError):
        detail += f"; no data for --remote-timeout {timeout:g} s, raise it if the store is slow"
    # the retry count leads, so the short message keeps it when a long error is cut
    retries = f", still failing after {retried} retries (--remote-retries)" if retried else ""
    return DocumentError("LB101", f"cannot be read{retries} ({detail})")


def open_stream(
    ref: FileRef,
    max_bytes: int,
    option: str,
    timeout: float = DEFAULT_LIMITS.remote_timeout,
    retries: int = DEFAULT_LIMITS.remote_retries,
) -> IO[bytes]:
    """A binary stream on the file, refused (DocumentError LB106) when the store says it is too large. A remote
    one is opened and read again where it fails transiently, up to `retries` times (retries.py)."""
    if is_local(ref.location):
        return open_regular_file(
            local_path(ref.location),
            max_bytes,
            "log" if option == "max_log_bytes" else "file",
            option,
        )
    filesystem, path = _filesystem(ref.location, timeout)
    size = ref.size
    if size is not None and size > max_bytes:
        raise DocumentError(
            "LB106",
            f"the file has {size:,} bytes, more than the limit "
            f"(raise {LIMIT_OPTIONS[option]} if it is honest)",
        )
    # block_size=0 makes HTTP a plain stream (no range requests); object stores read by blocks.
    options = (
        {"block_size": 0}
        if filesystem.protocol in ("http", "https") or "http" in filesystem.protocol
        else {}
    )
    try:
        stream = RetryingStream(lambda: filesystem.open(path, "rb", **options), retries)
        # BoundedStream is the binary stream its readers use: read(size) and close()
        return cast(IO[bytes], BoundedStream(stream, max_bytes, option, timeout))
    except Exception as exc:
        raise read_failure(exc, timeout, retries if is_transient(exc) else 0) from None


MIN_RATE = 64 * 1024  # bytes per second a remote file must average once --remote-timeout has passed


class BoundedStream:
    """Reads at most max_bytes, whatever the server said the size was (a stream cannot be trusted to end)."""

    def __init__(
        self, handle, max_bytes: int, option: str, timeout: float = DEFAULT_LIMITS.remote_timeout
    ):
        self.handle, self.left, self.max_bytes, self.option = handle, max_bytes, max_bytes, option
        self.timeout, self.started = timeout, time.monotonic()

    def read(self, size: int = -1) -> bytes:
        want = self.left + 1 if size < 0 else min(size, self.left + 1)
        try:
            data = self.handle.read(want)
        except network_errors() as exc:
            raise read_failure(exc, self.timeout, getattr(self.handle, "attempt", 0)) from None
        self.left -= len(data)
        if self.left < 0:
            raise DocumentError(
                "LB106",
                f"the file is larger than the limit of {self.max_bytes:,} bytes "
                f"(raise {LIMIT_OPTIONS[self.option]} if it is honest)",
            )
        self._check_rate()
        return data

    def _check_rate(self) -> None:
        """A server sending a byte now and then never trips the read timeout, and would hold a unit for days:
        past --remote-timeout seconds, a file must have come at MIN_RATE on average."""
        elapsed = time.monotonic() - self.started
        read = self.max_bytes - self.left
        if elapsed > self.timeout and read < MIN_RATE * elapsed:
            raise DocumentError(
                "LB101",
                f"cannot be read: the server sent {read:,} bytes in {elapsed:,.0f} s, "
                f"less than {MIN_RATE // 1024} KiB/s after --remote-timeout "
                f"{self.timeout:g} s; fix the server or survey a local copy",
            )

    def __enter__(self) -> BoundedStream:
        return self

    def __exit__(self, *exc_info) -> None:
        try:
            self.handle.close()
        except network_errors():
            pass  # what was read has been judged, and a failed read already raised its LB101
