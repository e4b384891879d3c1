"""Listing a remote tree under budgets its server cannot exceed.

fsspec's find() walks a whole tree before the caller can count anything, reads
each HTTP directory page whole, recurses once per level, and drops a folder
whose listing fails. A server controls all of that, so the survey walks the
tree itself: one folder at a time, the budgets checked as entries arrive,
HTTP pages read by chunks up to a byte budget, and a sub-folder that cannot
be listed kept as a stand-in entry (FileRef.problem) that becomes a row of
the table instead of a hole in it.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, replace
from urllib.parse import unquote, urlparse

from . import retries
from .file_refs import FileRef, SourceError, SourceMissing, fingerprint_of

# lm-eval's layout is one or two folders deep, a Hub details repository three or four: deeper is a server's loop.
MAX_LISTING_DEPTH = 32
_CHUNK = 1 << 16


@dataclass(frozen=True)
class Budget:
    max_files: int  # files (and stand-ins for unlisted folders) in the whole tree
    max_folders: int  # folders listed or waiting to be
    max_page_bytes: int  # bytes of one HTTP directory page
    seconds: float  # wall clock for the whole listing
    max_depth: int = MAX_LISTING_DEPTH
    retries: int = 3  # of one folder that fails transiently (retries.py)


class PageTooLarge(Exception):
    pass


def walk(url: str, filesystem, root: str, budget: Budget, recursive: bool) -> list[FileRef]:
    """Every file under root, plus a stand-in per sub-folder that could not be listed; SourceError when the root
    cannot be listed or a budget of the whole tree is exceeded (what is missing could not be named)."""
    http = "http" in filesystem.protocol or "https" in filesystem.protocol
    if (
        not http
    ):  # ls() answers from the instance's cache, which outlives a survey: a replaced log must show
        filesystem.invalidate_cache()
    deadline = time.monotonic() + budget.seconds
    prefix = root.rstrip("/") + "/"
    found: list[FileRef] = []
    folders, queued, seen = [(root, 0)], 1, set()
    while folders:
        folder, depth = folders.pop()
        if time.monotonic() > deadline:
            raise SourceError(
                f"{url}: listing took more than --listing-timeout {budget.seconds:g} s (reached "
                f"{_name(folder, prefix) or folder}); raise it or survey its folders one at a time"
            )

        def list_folder(folder: str = folder) -> list[tuple[str, bool, dict]]:
            if http:
                return _http_entries(filesystem, folder, budget, deadline)
            return _entries(filesystem, folder)

        try:
            entries = retries.call(list_folder, budget.retries)
        except SourceError:
            raise
        except (
            Exception
        ) as exc:  # each backend raises its own errors; all mean "this folder cannot be listed"
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if depth == 0:
                if isinstance(exc, FileNotFoundError):
                    raise SourceMissing(
                        f"{url}: cannot be listed: no such folder ({reason}); check the path"
                    ) from None
                raise SourceError(f"{url}: cannot be listed ({reason})") from None
            found.append(_stand_in(filesystem, folder, prefix, f"cannot be listed ({reason})"))
            continue
        for name, is_folder, info in entries:
            if (
                not name.startswith(prefix)
                or name.rstrip("/") == folder.rstrip("/")
                or name in seen
            ):
                continue  # a link out of the tree, to the folder itself, or given twice
            seen.add(name)
            if is_folder and not recursive:
                continue
            if is_folder and depth + 1 > budget.max_depth:
                found.append(
                    _stand_in(
                        filesystem,
                        name,
                        prefix,
                        f"is more than {budget.max_depth} folders below "
                        "the source, so it was not listed",
                    )
                )
            elif is_folder:
                queued += 1
                if queued > budget.max_folders:
                    raise SourceError(
                        f"{url} holds more than {budget.max_folders:,} folders; raise --max-units "
                        "or survey its folders one at a time"
                    )
                folders.append((name, depth + 1))
                continue
            else:
                size = info.get("size")
                found.append(
                    FileRef(
                        name[len(prefix) :],
                        filesystem.unstrip_protocol(name),
                        size,
                        fingerprint_of(info, size),
                    )
                )
            if len(found) > budget.max_files:
                raise SourceError(
                    f"{url} holds more than {budget.max_files:,} files; raise --max-units or "
                    "survey its folders one at a time"
                )
    return sorted(_as_named_on_disk(found) if http else found)


def _as_named_on_disk(found: list[FileRef]) -> list[FileRef]:
    """The names a directory page percent-encodes (`org__m%C3%B6del%20v2/`) as the served files are named, so a
    tree over HTTP gives the table a local survey of it gives. Only where that keeps every name apart (a page may
    link both `a b` and `a%20b`): otherwise the whole listing keeps the page's names."""
    shown = [replace(ref, name="/".join(map(_decoded, ref.name.split("/")))) for ref in found]
    return shown if len({ref.name for ref in shown}) == len(found) else found


def _decoded(segment: str) -> str:
    """One path segment decoded, unless it is not UTF-8 or decodes to what no file name holds ('/', NUL)."""
    try:
        text = unquote(segment, errors="strict")
    except UnicodeDecodeError:
        return segment
    return segment if "/" in text or "\0" in text else text


def _name(path: str, prefix: str) -> str:
    return path[len(prefix) :] if path.startswith(prefix) else ""


def _stand_in(filesystem, folder: str, prefix: str, problem: str) -> FileRef:
    name = _name(folder, prefix).rstrip("/") + "/"
    return FileRef(
        name, filesystem.unstrip_protocol(folder), None, "unlisted", problem=f"the folder {problem}"
    )


def _entries(filesystem, folder: str) -> list[tuple[str, bool, dict]]:
    """One folder of an object store or the Hub (their clients page the listing and have their own timeouts)."""
    return [
        (info["name"], info.get("type") == "directory", info)
        for info in filesystem.ls(folder, detail=True)
    ]


def _http_entries(
    filesystem, url: str, budget: Budget, deadline: float
) -> list[tuple[str, bool, dict]]:
    from fsspec.asyn import sync

    return sync(filesystem.loop, _http_page, filesystem, url, budget, deadline)


async def _http_page(
    filesystem, url: str, budget: Budget, deadline: float
) -> list[tuple[str, bool, dict]]:
    """The links of one directory page below it, as fsspec's HTTP listing reads them, but by chunks: a page
    over the byte budget or the deadline stops being read (fsspec reads it whole, however long it is)."""
    client = await filesystem.set_session()  # fsspec's aiohttp client
    async with client.get(filesystem.encode_url(url), **filesystem.kwargs) as response:
        if response.status == 404:
            raise FileNotFoundError(url)
        response.raise_for_status()
        mimetype = response.headers.get("Content-Type", "").partition(";")[0] or None
        if mimetype not in ("text/html", None):
            return []
        chunks, size = [], 0
        while chunk := await response.content.read(_CHUNK):
            size += len(chunk)
            if size > budget.max_page_bytes:
                raise PageTooLarge(
                    f"its page is larger than --max-file-size {budget.max_page_bytes:,} bytes"
                )
            if time.monotonic() > deadline:
                raise SourceError(
                    f"{url}: listing took more than --listing-timeout {budget.seconds:g} s; "
                    "raise it or survey its folders one at a time"
                )
            chunks.append(chunk)
    text = b"".join(chunks).decode("utf-8", errors="ignore")
    return [(link, link.endswith("/"), {"size": None}) for link in _links(text, url, budget)]


def _links(text: str, url: str, budget: Budget) -> list[str]:
    """fsspec's link rules (href attributes and bare http(s) URLs; "/x" is on this server), kept below the page,
    at most as many as the budgets could take."""
    from fsspec.implementations.http import ex, ex2

    below, parts = url.rstrip("/") + "/", urlparse(url)
    most = budget.max_files + budget.max_folders + 1
    out: dict[str, None] = {}
    for match in itertools.chain(
        ex2.finditer(text), ex.finditer(text)
    ):  # lazily: a page may hold millions
        link = match["url"]
        if link.startswith("/") and len(link) > 1:
            link = f"{parts.scheme}://{parts.netloc}{link}"
        elif not link.startswith("http"):
            if link in ("..", "../"):
                continue
            link = below + link.lstrip("/")
        if link.startswith(below) and link != below:
            out[link] = None
            if len(out) >= most:
                break
    return list(out)
