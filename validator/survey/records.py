"""Sample records from a forward-only stream (a remote log read over HTTP or from an object store).

Local logs go through the audit's own reader (io/sample_logs.py), which
seeks; a network stream cannot, so this reader only moves forward: it reads
1 MiB chunks, cuts them into lines and decodes one record at a time, with
the same limits and rule ids as the local reader. The legacy 0.4.0-0.4.2
JSON-array logs are read from local folders only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from ..io.documents import DocumentError
from ..io.limits import LIMIT_OPTIONS, Limits, describe_size
from ..io.log_lines import decode_line, load_record
from ..io.sample_logs import SampleRecord, check_blank_lines, check_record_count

CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"


def stream_records(handle: IO[bytes], limits: Limits) -> Iterator[SampleRecord]:
    """One SampleRecord per non-blank line; DocumentError (LB106, LB701, LB108, LB112) with the line, as the local reader."""
    index = 0
    for line_number, raw, ended in _lines(handle, limits.max_file_bytes):
        if not raw.strip():
            check_blank_lines(line_number - index, line_number, limits)
            continue
        if index == 0 and raw.lstrip().startswith(b"["):
            raise DocumentError(
                "LB701",
                "this is a legacy JSON-array log (lm-eval 0.4.0-0.4.2); the survey reads "
                "those from local folders only",
                line_number,
                1,
            )
        text = decode_line(raw, line_number, cut=not ended)
        record = SampleRecord(
            index, line_number, text, load_record(text, line_number, 1, limits, cut=not ended)
        )
        check_record_count(record, limits)
        yield record
        index += 1


def _lines(handle: IO[bytes], max_line: int) -> Iterator[tuple[int, bytes, bool]]:
    """(1-based line number, bytes, whether a newline ended it) of each line; a line longer than max_line is
    refused, not buffered."""
    # The start of the line not ended yet, in pieces: joined once when its newline comes, so a long line
    # costs its length, not its length times its chunks (pending + chunk, each chunk, was quadratic).
    pending: list[bytes] = []
    pending_size, line_number = 0, 0
    chunk = _without_bom(
        handle
    )  # the first bytes may already hold whole lines: split like any chunk
    while True:
        parts = chunk.split(b"\n")
        if len(parts) > 1:
            parts[0] = b"".join(pending) + parts[0]
            pending, pending_size = [], 0
        for part in parts[:-1]:
            line_number += 1
            if len(part) > max_line:
                raise _too_long(line_number, max_line)
            yield line_number, part, True
        pending.append(parts[-1])
        pending_size += len(parts[-1])
        if pending_size > max_line:
            raise _too_long(line_number + 1, max_line)
        chunk = handle.read(CHUNK)
        if not chunk:
            if pending_size:
                yield line_number + 1, b"".join(pending), False
            return


def _without_bom(handle: IO[bytes]) -> bytes:
    """The stream's first bytes, a UTF-8 BOM removed. A network read may hand out fewer than three bytes
    (or exactly the BOM): read until there are three or the stream ends, so neither is taken for the end."""
    start = b""
    while len(start) < len(_BOM):
        more = handle.read(len(_BOM) - len(start))
        if not more:
            break
        start += more
    return start[len(_BOM) :] if start.startswith(_BOM) else start


def _too_long(line: int, max_line: int) -> DocumentError:
    return DocumentError(
        "LB106",
        f"a record is longer than {describe_size(max_line)} "
        f"(raise {LIMIT_OPTIONS['max_file_bytes']} if this log is honest)",
        line,
        1,
    )
