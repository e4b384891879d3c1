"""Per-sample logs (`--log_samples`): finding them beside a results file and streaming their records.

lm-eval >= 0.4.3 writes one `samples_<task>_<date>.jsonl` per leaf task,
beside `results_<date>.json`, one JSON object per line. 0.4.0-0.4.2 wrote
`<model args>_<task>.jsonl` beside `results.json`, holding one pretty-printed
JSON array. Logs can run to hundreds of MB (MMLU-Pro repeats the few-shot
prompt for each of ten choices), so records are read one at a time and
memory does not grow with the file.
"""

import codecs
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from .budgets import (
    depth_read_after_parse,
    line_openers,
    line_within,
    value_within_depth,
)
from .documents import DocumentError
from .limits import LIMIT_OPTIONS, Limits, describe_size
from .loaders import open_regular_file
from .log_lines import SCAN_ONCE, decode_line, load_record, within_budgets

# lm-eval's names: results_<date>.json beside samples_<task>_<date>.jsonl (0.4.3 on); NAME_<date>.json instead
# with --output_path NAME.json (a results file only beside logs of its date: a JSON file of any other kind may
# end in a date too; the date is lm-eval's isoformat() with '-' for ':'); 0.4.0-0.4.2's results.json beside
# <model args>_<task>.jsonl.
SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>[^_]+)\.jsonl$")
RESULTS_NAME = re.compile(r"^results_(?P<date>[^_]+)\.json$")
NAMED_RESULTS = re.compile(r"^(?P<stem>.+)_(?P<date>\d{4}-\d\d-\d\dT[^_]+)\.json$")
LEGACY_RESULTS = "results.json"
_CHUNK = 1 << 20


class SampleRecord:
    """One record of a sample log: where it starts, its text while it is audited, and its parsed value."""

    # A plain class (docs/architecture.md, Habits): a log has millions of records, and not frozen, since a frozen
    # record costs 2 us to build.
    __slots__ = ("index", "line", "text", "data", "column", "in_array", "containers")

    index: int  # 0-based position in the file
    line: int  # 1-based line where the record starts
    text: str  # its JSON text, kept only while the record is audited (for positions)
    data: Any
    column: int  # where the record starts on its line
    in_array: bool  # an element of a legacy JSON-array log (its JSON path starts with [index])
    # The '[' and '{' of its text (strings' too), counted as its line was read: about how many objects and arrays
    # it parsed into, which a batch of samples is sized by (sample_batches.py); 0 where the reader did not count
    containers: int

    def __init__(
        self,
        index: int,
        line: int,
        text: str,
        data: Any,
        column: int = 1,
        in_array: bool = False,
        containers: int = 0,
    ) -> None:
        self.index, self.line, self.text, self.data = index, line, text, data
        self.column, self.in_array, self.containers = column, in_array, containers


class FoundLog(NamedTuple):
    """A sample log found beside a results file, and the task it belongs to."""

    task: str
    path: Path


UNPLACED_LOG = (
    "cannot tell which task of the results file this log belongs to; name it "
    "samples_<task>_<date>.jsonl with a task of the results file"
)


def task_of(name: str, known_tasks: set[str]) -> str | None:
    """The known task a log file name belongs to: samples_<task>_<date>.jsonl, or legacy <args>_<task>.jsonl."""
    match = SAMPLES_NAME.match(name)
    if match and match["task"] in known_tasks:
        return match["task"]
    if name.endswith(".jsonl"):
        stem = name[: -len(".jsonl")]
        endings = [task for task in known_tasks if stem.endswith("_" + task)]
        if endings:
            return max(endings, key=len)
    return None


def claims(results_name: str, log_name: str) -> bool:
    """Whether a results file takes a log of its folder (both bare names): one of its date if it has one; a
    legacy results.json every .jsonl; another results file (no date: lm-eval 0.3's) every samples_ log."""
    if not log_name.endswith(".jsonl") or log_name.startswith("."):
        return False
    date = RESULTS_NAME.match(results_name) or NAMED_RESULTS.match(results_name)
    sample = SAMPLES_NAME.match(log_name)
    if date:
        return sample is not None and sample["date"] == date["date"]
    return results_name == LEGACY_RESULTS or bool(sample)


def is_unclaimed(log_name: str, results_names: list[str]) -> bool:
    """A samples_*.jsonl that no results file of its folder takes (ORPHAN_LOG)."""
    return (
        log_name.startswith("samples_")
        and log_name.endswith(".jsonl")
        and not any(claims(results, log_name) for results in results_names)
    )


def named_results_beside_logs(name: str, folder_names: list[str]) -> bool:
    """NAME_<date>.json is the results file lm-eval's --output_path NAME.json wrote where logs of its date lie
    beside it and no results_<date>.json of that date does."""
    match = NAMED_RESULTS.match(name)
    if not match or RESULTS_NAME.match(name) or f"results_{match['date']}.json" in folder_names:
        return False
    return any(
        (sample := SAMPLES_NAME.match(other)) and sample["date"] == match["date"]
        for other in folder_names
    )


ORPHAN_LOG = (
    "no results file of its date lies beside it (results_<date>.json, or NAME_<date>.json from lm-eval's "
    "--output_path NAME.json), so no run claims it and it is not audited: put its run's results file "
    "beside it, or move the log out of the folder"
)


def discover(results_path: Path, known_tasks: set[str]) -> tuple[list[FoundLog], list[str]]:
    """Logs beside a results file, and the problems met (two logs for one task...).

    A `results_<date>.json` (or `NAME_<date>.json`, from lm-eval's
    `--output_path NAME.json`) takes `samples_<task>_<date>.jsonl` of the same
    date; a legacy `results.json` takes every `*_<task>.jsonl`.
    """
    folder = results_path.parent
    by_task: dict[str, list[Path]] = {}
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return [], []
    for name in names:
        if not claims(results_path.name, name):
            continue
        sample = SAMPLES_NAME.match(name)
        # A samples_ log of an unknown task is kept, so the audit reports it instead of skipping it.
        task = task_of(name, known_tasks) or (sample["task"] if sample else None)
        if task is not None:
            by_task.setdefault(task, []).append(folder / name)
    logs, problems = [], []
    for task, paths in sorted(by_task.items()):
        if len(paths) > 1:
            problems.append(
                f"{len(paths)} logs for task {task} ({', '.join(p.name for p in paths)}); "
                "pass the right one explicitly"
            )
            continue
        logs.append(FoundLog(task, paths[0]))
    return logs, problems


def read_records(path: Path, limits: Limits) -> Iterator[SampleRecord]:
    """Stream a log's records. Raises DocumentError (LB101, LB106, LB701, LB108) with the line."""
    with _open_log(path, limits) as handle:
        first = _first_significant_byte(handle, limits)
        if first == b"[":
            records = _array_records(handle, limits)
        elif first:
            records = _line_records(handle, limits)
        else:
            return
        yield from records


def check_record_count(record: SampleRecord, limits: Limits) -> None:
    """LB106 at the first record past --max-log-records (every reader, local or streamed)."""
    if record.index >= limits.max_log_records:
        raise DocumentError(
            "LB106",
            f"the log has more than {limits.max_log_records:,} records "
            f"(raise {LIMIT_OPTIONS['max_log_records']} if this log is honest)",
            record.line,
            record.column,
        )


def check_blank_lines(blank: int, line: int, limits: Limits) -> None:
    """LB106 past --max-log-records blank lines: they are not records, so that budget never counted them, yet
    each costs a read (4 GiB of newlines took minutes)."""
    if blank > limits.max_log_records:
        raise DocumentError(
            "LB106",
            f"the log has more than {limits.max_log_records:,} blank lines (raise "
            f"{LIMIT_OPTIONS['max_log_records']} if this log is honest)",
            line,
            1,
        )


def _open_log(path: Path, limits: Limits):
    return open_regular_file(path, limits.max_log_bytes, "log", "max_log_bytes")


def _first_significant_byte(handle, limits: Limits) -> bytes:
    """The first byte that is not whitespace (the handle left on it), b"" for a blank log. Read by chunks, and
    the blank lines before it counted against their budget: a log of nothing but newlines is not a record."""
    start = handle.read(3)
    handle.seek(3 if start == b"\xef\xbb\xbf" else 0)
    blank, size = (
        0,
        64,
    )  # small first: a log's first record starts at once, and a big read here read it twice
    while True:
        chunk = handle.read(size)
        size = min(size * 16, _CHUNK)
        if not chunk:
            return b""
        rest = chunk.lstrip()  # the bytes isspace() is true of
        blank += chunk.count(b"\n", 0, len(chunk) - len(rest))
        check_blank_lines(
            blank, limits.max_log_records + 1, limits
        )  # every line up to there is blank
        if rest:
            handle.seek(handle.tell() - len(rest))
            return rest[:1]


def _line_records(handle, limits: Limits) -> Iterator[SampleRecord]:
    line_number, index = _lines_before(handle), 0
    readline, longest, records_max = handle.readline, limits.max_file_bytes, limits.max_log_records
    while True:
        raw = readline(longest + 1)
        if not raw:
            return
        line_number += 1
        if len(raw) > longest and not raw.endswith(b"\n"):
            raise DocumentError(
                "LB106",
                f"a record is longer than {describe_size(limits.max_file_bytes)} "
                f"(raise {LIMIT_OPTIONS['max_file_bytes']} if this log is honest)",
                line_number,
                1,
            )
        if (
            raw.isspace()
        ):  # a blank line (isspace tests the bytes strip() strips, without copying the line)
            check_blank_lines(line_number - index, line_number, limits)
            continue
        cut = not raw.endswith(b"\n")
        containers = line_openers(raw)
        text, value = _line_value(raw, line_number, limits, cut, containers)
        # positional: a keyword argument costs a measurable share of a short record's build
        record = SampleRecord(index, line_number, text, value, 1, False, containers)
        if index >= records_max:
            check_record_count(record, limits)
        yield record
        index += 1


def _line_value(raw: bytes, line: int, limits: Limits, cut: bool, openers: int) -> tuple[str, Any]:
    """(text, JSON value) of one log line: decode_line and load_record, with the usual line (UTF-8, within the
    budgets by line_within or, past the depth budget's count of openers, by its parsed value's depth; one value)
    taken without their calls, which were a measurable share of a short record's audit. Anything else goes
    through them, and they raise what they raise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = decode_line(raw, line, cut)  # raises LB701 with the reason
    max_depth, max_values = limits.max_depth, limits.max_values
    # depth_read_after_parse tests the openers too: tested here first, the usual line pays no call
    after_parse = openers > max_depth and depth_read_after_parse(openers, len(text), max_depth)
    # The usual line, plainly within both budgets, asks no call either: line_within says so for it too
    if (
        (openers <= max_depth and len(raw) <= max_values)
        or (after_parse and len(raw) <= max_values)
        or line_within(text, len(raw), openers, max_depth, max_values)
    ):
        try:
            value, end = SCAN_ONCE(text, 0)
        except (StopIteration, ValueError, RecursionError):
            pass  # load_record parses it again and says what is wrong
        else:
            if (end == len(text) or (end + 1 == len(text) and text[end] == "\n")) and (
                not after_parse or value_within_depth(value, limits.max_depth)
            ):
                return text, value
    return text, load_record(text, line, 1, limits, cut=cut)


def _lines_before(handle) -> int:
    """Blank lines skipped before the first record (a BOM is not a line)."""
    position = handle.tell()
    handle.seek(0)
    skipped, left = 0, position
    while left > 0:  # by chunks: the whitespace before the first record may be gigabytes of spaces
        chunk = handle.read(min(_CHUNK, left))
        skipped, left = skipped + chunk.count(b"\n"), left - len(chunk)
    handle.seek(position)
    return skipped


def _array_records(handle, limits: Limits) -> Iterator[SampleRecord]:
    """Elements of the legacy pretty-printed array, decoded one at a time."""
    decoder = json.JSONDecoder()
    line = 1 + _lines_before(handle)
    handle.read(1)  # the "["
    buffer, position, index, eof = "", 0, 0, False
    column = 2  # just after the "["
    expect_value = True
    utf8 = codecs.getincrementaldecoder("utf-8")()

    def fill() -> bool:
        """Append the next chunk to what is left of the buffer; False at the end of the file.

        The chunk is at least as large as what is left, so a record spanning
        many chunks is decoded O(log n) times, not once per chunk.
        """
        nonlocal buffer, position, eof
        chunk = handle.read(max(_CHUNK, len(buffer) - position))
        eof = not chunk
        try:
            text = utf8.decode(chunk, final=eof)
        except UnicodeDecodeError:
            raise DocumentError(
                "LB701", "the log is not UTF-8 near this line; logs are written as UTF-8", line, 1
            ) from None
        buffer, position = buffer[position:] + text, 0
        return not eof

    while True:
        while position < len(buffer) and buffer[position] in " \t\r\n":
            if buffer[position] == "\n":
                line, column = line + 1, 0
            position, column = position + 1, column + 1
        if position >= len(buffer):
            if eof or not fill():
                raise DocumentError(
                    "LB701", "the JSON array is not closed; the log was cut off", line, 1
                )
            continue
        char = buffer[position]
        if char == "]" and (expect_value is False or index == 0):
            return
        if char == "," and not expect_value:
            position, column, expect_value = position + 1, column + 1, True
            continue
        if not expect_value:
            raise DocumentError(
                "LB701", f"expected ',' or ']' between records, found {char!r}", line, 1
            )
        try:
            data, end = decoder.raw_decode(buffer, position)
        except json.JSONDecodeError as exc:
            if not eof and len(buffer) - position <= limits.max_file_bytes:
                fill()
                continue
            if eof and not buffer.rstrip().endswith("]"):
                raise DocumentError(
                    "LB701", f"the log ends inside record {index}; it was cut off", line, 1
                ) from None
            raise DocumentError(
                "LB701", f"record {index} is not valid JSON: {exc.msg}", line, 1
            ) from None
        except RecursionError:
            raise DocumentError("LB108", f"record {index} is nested too deeply", line, 1) from None
        except ValueError as exc:
            raise DocumentError(
                "LB701", f"record {index} is not valid JSON: {exc}", line, 1
            ) from None
        if end == len(buffer) and not eof:  # a number may continue in the next chunk
            if fill():
                continue
        text = buffer[position:end]
        within_budgets(
            text, line, column, limits
        )  # json.loads survived it; json.dumps on 3.12 might not
        record = SampleRecord(index, line, text, data, column, in_array=True)
        check_record_count(record, limits)
        yield record
        newlines = text.count("\n")
        line += newlines
        column = len(text) - text.rfind("\n") if newlines else column + len(text)
        position, index, expect_value = end, index + 1, False
