"""A file of a source as the survey names it (FileRef), its fingerprint, and the errors a source raises."""

from __future__ import annotations

import os
from dataclasses import dataclass

# Object stores give a content hash per file; whichever of these keys fsspec reports is kept.
_CONTENT_HASH_KEYS = ("ETag", "etag", "md5Hash", "sha256", "lfs", "blob_id", "oid")


class SourceError(Exception):
    """A source cannot be listed or read at all; the message names it and says what to do."""


class SourceMissing(SourceError):
    """The folder, bucket or repository is not there (as opposed to unreachable, too large, unsupported)."""


@dataclass(frozen=True, order=True)
class FileRef:
    name: str  # shown in the table: the path relative to the source root, forward slashes
    location: str  # what the store opens: an absolute local path or a URL
    size: int | None
    fingerprint: (
        str  # the store's content hash where it has one; a local file's stat (local_fingerprint)
    )
    problem: str = ""  # set only on the stand-in for a folder that could not be listed: why (a row, not a hole)

    @property
    def verifiable(self) -> bool:
        """Whether the fingerprint changes whenever the content does, so --resume may keep the file's rows."""
        return not self.fingerprint.endswith(UNVERIFIED)


# The tail of a fingerprint that cannot tell two contents apart: a store that gave no content hash (an HTTP
# server's directory page gives no size either). --resume audits such a file again instead of trusting it.
UNVERIFIED = "(no content hash)"


def local_fingerprint(info: os.stat_result) -> str:
    """A local file's size, mtime, ctime and inode. The mtime alone is the submitter's (tar, cp -p and rsync
    -a keep the one an archive carries, and utime() sets any), but the ctime is the kernel's: any write, and
    setting the mtime, moves it to now; a file replaced by another has its own inode and ctime."""
    return f"size={info.st_size} mtime_ns={info.st_mtime_ns} ctime_ns={info.st_ctime_ns} inode={info.st_ino}"


def fingerprint_of(info: dict, size: int | None) -> str:
    for key in _CONTENT_HASH_KEYS:
        value = info.get(key)
        if value:
            return f"{key}={value}"
    return f"size={size} {UNVERIFIED}"
