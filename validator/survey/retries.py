"""Bounded retries, with backoff, of what a remote store fails for a moment.

A store that drops a connection, answers 503 or 429, or times out once is
asked again, up to Limits.remote_retries times per file (and per listed
folder), waiting 0.5 s, 1 s, 2 s... (capped at 8 s, with jitter, so that
workers do not retry in step). A file read halfway is opened again and read
on from where it broke: the bytes already read are read again and skipped
(no record is audited twice), and must match a checksum of those read
before, or the file changed between the two reads and is LB101 at once.
Otherwise only when the retries are spent is the file LB101. An answer that will not
change (404, 403, a refused size) is not retried. Every retry is counted:
each unit's row says how many its files took (`retries`), and so does the
summary.
"""

from __future__ import annotations

import random
import threading
import time
import zlib
from collections.abc import Callable
from typing import IO, TypeVar

from ..io.documents import DocumentError

TRANSIENT_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
BASE_SECONDS, MAX_SECONDS = 0.5, 8.0
_SKIP_CHUNK = 1 << 20
_counter = (
    threading.local()
)  # this thread's retries since the last taken(): a unit runs in one thread

T = TypeVar("T")


def is_transient(exc: BaseException) -> bool:
    """A failure that asking again may not repeat: a dropped or reset connection, a timeout, a short body, an
    HTTP status that means "later" (TRANSIENT_STATUS). Not a missing file, a refusal or a bad request."""
    status = getattr(exc, "status", None)
    if isinstance(status, int):
        return status in TRANSIENT_STATUS
    if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)):
        return False
    transient: tuple[type[BaseException], ...] = (OSError, EOFError, TimeoutError)
    try:
        from aiohttp import ClientError
    except ImportError:
        pass  # without aiohttp, no aiohttp error can come
    else:
        transient += (ClientError,)
    return isinstance(exc, transient)


def pause(attempt: int) -> None:
    """Wait before retry number `attempt` (0, 1, ...): exponential, capped, jittered."""
    time.sleep(min(MAX_SECONDS, BASE_SECONDS * 2**attempt) * random.uniform(0.5, 1.0))


def counted() -> None:
    _counter.value = getattr(_counter, "value", 0) + 1


def taken() -> int:
    """The retries this thread made since the last call (a unit's, when called as it starts and ends)."""
    value = getattr(_counter, "value", 0)
    _counter.value = 0
    return value


def call(function: Callable[[], T], retries: int) -> T:
    """function(), asked again up to `retries` times while it fails transiently; its last error otherwise."""
    attempt = 0
    while True:
        try:
            return function()
        except Exception as exc:
            if attempt >= retries or not is_transient(exc):
                raise
        pause(attempt)
        attempt += 1
        counted()


class RetryingStream:
    """A remote file's binary stream that opens the file again where a read broke, within a budget of retries
    for the whole file. `opener()` opens it from the start.

    Reading on at an offset of a new response splices two versions when the file changed between them (a
    record half old, half new, which neither holds). The bytes skipped on a retry are therefore checked
    against a CRC-32 of those handed out: equal, the stream read so far is the new version's start and
    reading on gives that version whole; different, the file is LB101. A CRC catches an honest change,
    which is all it must: a server that wants to lie can serve any bytes on any request anyway."""

    def __init__(self, opener: Callable[[], IO[bytes]], retries: int):
        self.opener, self.retries, self.attempt, self.position = opener, retries, 0, 0
        self.checksum = 0  # CRC-32 of the `position` bytes handed out
        self.handle: IO[bytes] | None = None
        self._open_at(0)

    def _again(self, exc: Exception) -> None:
        """Wait for the next retry, or raise `exc` when it is not transient or the budget is spent."""
        if self.attempt >= self.retries or not is_transient(exc):
            raise exc
        pause(self.attempt)
        self.attempt += 1
        counted()

    def _open_at(self, position: int) -> None:
        while True:
            try:
                self.close()
                self.handle = self.opener()
                left, checksum = position, 0
                while left > 0:  # a forward-only stream: skip what was read before the break
                    skipped = self.handle.read(min(left, _SKIP_CHUNK))
                    if not skipped:
                        raise EOFError(f"the file ended at {position - left:,} bytes on a retry")
                    checksum = zlib.crc32(skipped, checksum)
                    left -= len(skipped)
                if checksum != self.checksum:  # DocumentError is not transient: _again raises it
                    raise DocumentError(
                        "LB101",
                        f"cannot be read: the file changed while it was read (its first {position:,} "
                        "bytes differ on a retry); survey it again once it stays the same",
                    )
                return
            except Exception as exc:  # noqa: BLE001 - _again decides
                self._again(exc)

    def read(self, size: int = -1) -> bytes:
        while True:
            try:
                assert self.handle is not None  # _open_at leaves one open or raises
                data = self.handle.read(size)
            except Exception as exc:  # noqa: BLE001 - _again decides
                self._again(exc)
                self._open_at(self.position)
                continue
            self.position += len(data)
            self.checksum = zlib.crc32(data, self.checksum)
            return data

    def close(self) -> None:
        if self.handle is not None:
            handle, self.handle = self.handle, None
            try:
                handle.close()
            except Exception:  # noqa: BLE001 - a broken connection's close is not a failure
                pass
