"""A survey manifest read: a CSV or JSON list of runs, each with its results file and the scores the
leaderboard published for it, every cell checked before it is used."""

from __future__ import annotations

import csv
import io
import json
import math
import re

from ..io.documents import DocumentError
from ..io.limits import Limits
from ..io.loaders import read_at_most
from .stores import FileRef, SourceError, is_local, local_path, open_stream


class ResultsFileGiven(Exception):
    """A JSON source read as a manifest is a results file (an object with 'results', not 'runs')."""


def manifest_entries(source: str, limits: Limits) -> list[dict]:
    ref = FileRef(source, str(local_path(source)) if is_local(source) else source, None, "")
    try:
        with open_stream(
            ref,
            limits.max_file_bytes,
            "max_file_bytes",
            limits.remote_timeout,
            limits.remote_retries,
        ) as handle:
            text = read_at_most(handle, limits.max_file_bytes + 1).decode("utf-8-sig")
    except (
        DocumentError
    ) as exc:  # "cannot be read (FileNotFoundError: ...)", or over the size limit
        detail = exc.message
        if detail.startswith("cannot be read (") and detail.endswith(")"):
            detail = detail[len("cannot be read (") : -1]
        raise SourceError(f"{source}: the manifest cannot be read ({detail})") from None
    except UnicodeDecodeError as exc:  # a spreadsheet's UTF-16 or Latin-1 export
        byte = f"byte {exc.start + 1:,} is {exc.object[exc.start]:#04x}"
        raise SourceError(
            f"{source}: the manifest is not UTF-8 ({byte}); save it as UTF-8 (a spreadsheet's "
            "'CSV UTF-8')"
        ) from None
    except Exception as exc:
        raise SourceError(f"{source}: the manifest cannot be read ({exc})") from None
    if (
        "\0" in text
    ):  # UTF-16 without a byte-order mark reads as UTF-8 with a NUL in every other place
        raise SourceError(
            f"{source}: the manifest is not UTF-8 (it holds NUL characters, as UTF-16 does); save it "
            "as UTF-8 (a spreadsheet's 'CSV UTF-8')"
        )
    if source.endswith(".csv"):
        return _csv_entries(text, source)
    from ..io.budgets import json_too_deep, json_too_deep_offset, json_too_many_values

    # json.loads recurses once per level: 100,000 '[' end the process's stack, not the manifest.
    if json_too_deep(text, limits.max_depth):
        offset = json_too_deep_offset(text, limits.max_depth)
        where = "" if offset is None else f" (line {text.count(chr(10), 0, offset) + 1})"
        raise SourceError(
            f"{source}: the manifest nests arrays and objects more than {limits.max_depth} levels "
            f"deep{where}; a manifest is a list of flat objects, one per run"
        )
    if json_too_many_values(text, limits.max_values):
        raise SourceError(
            f"{source}: the manifest holds more than {limits.max_values:,} values; survey its runs "
            "in several manifests (or raise --max-values)"
        )
    try:
        data = json.loads(text, object_pairs_hook=_refuse_twice_named)
    except _KeyTwice as exc:
        raise SourceError(
            f"{source}: the key {exc.args[0]!r} appears twice in one object; a published score "
            "must be given once"
        ) from None
    except (ValueError, RecursionError) as exc:
        raise SourceError(f"{source}: the manifest is not valid JSON ({exc})") from None
    if isinstance(data, dict) and "runs" not in data and isinstance(data.get("results"), dict):
        raise ResultsFileGiven()  # the results file itself, under a name that is not results_<date>.json
    data = data.get("runs") if isinstance(data, dict) else data
    if not isinstance(data, list) or not all(isinstance(entry, dict) for entry in data):
        raise SourceError(
            f'{source}: a JSON manifest is a list of objects (or {{"runs": [...]}}), '
            "each with 'results'"
        )
    return [
        _flattenpublished_scores(entry, source, number)
        for number, entry in enumerate(data, start=1)
    ]


def _csv_entries(text: str, source: str) -> list[dict]:
    """Rows as {column: cell}. A column named twice, or a row with more cells than the header, would have
    a published score silently replaced or dropped: refused instead."""
    # Any line ends (CRLF, LF, old Macs' CR), and the spaces a spreadsheet or a hand puts after each comma.
    reader, rows = csv.reader(io.StringIO(text, newline=None), skipinitialspace=True), []
    try:
        for row in reader:
            rows.append(row)
    except csv.Error as exc:
        where = f"entry {len(rows)} (line {reader.line_num})" if rows else "the header"
        fix = (
            f"a cell holds a path, a model name or a score, never {csv.field_size_limit():,} characters"
            if "field limit" in str(exc)
            else "check that line's quotes"
        )
        raise SourceError(f"{source}: {where} is not CSV that can be read ({exc}); {fix}") from None
    if not rows:
        return []
    header = [
        name.strip() for name in rows[0]
    ]  # "results, model": a spreadsheet's spaces after commas
    if "results" not in header:
        named = ", ".join(repr(name) for name in header[:5]) + (", ..." if len(header) > 5 else "")
        raise SourceError(
            f"{source}: the header names no 'results' column (it names {named}); a CSV manifest's "
            "first line names its columns, separated by commas: results, and optionally model and "
            "<task>/<metric>"
        )
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:
        raise SourceError(
            f"{source}: the column {twice[0]!r} appears twice in the header; give each once"
        )
    entries = []
    for number, row in enumerate(rows[1:], start=1):
        if len(row) > len(header):
            raise SourceError(
                f"{source}: entry {number} has {len(row)} cells, but the header names "
                f"{len(header)} columns; quote cells that hold commas"
            )
        if row:
            entries.append(dict(zip(header, row + [""] * (len(header) - len(row)), strict=True)))
    return entries


class _KeyTwice(ValueError):
    pass


def _refuse_twice_named(pairs: list[tuple[str, object]]) -> dict:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _KeyTwice(next(key for key in keys if keys.count(key) > 1))
    return dict(pairs)


def _flattenpublished_scores(entry: dict, source: str, number: int) -> dict:
    """JSON entries may group published scores: {"published": {"drop/f1": 0.12}}."""
    if "published" not in entry:
        return entry
    published = entry["published"]
    if not isinstance(published, dict) or not all(
        isinstance(key, str) and "/" in key for key in published
    ):
        raise SourceError(
            f"{source}: entry {number}: 'published' must map '<task>/<metric>' to a score, "
            'e.g. {"drop/f1": 12.31}'
        )
    flat = {k: v for k, v in entry.items() if k != "published"}
    both = sorted(set(flat) & set(published))
    if both:
        raise SourceError(
            f"{source}: entry {number}: {both[0]} is given both in 'published' and beside it; "
            "give it once"
        )
    flat.update(published)
    return flat


def published_scores(entry: dict, source: str, number: int) -> tuple[tuple[str, str, float], ...]:
    """Columns named <task>/<metric> hold published scores (blank: not published)."""
    scores = []
    for column, value in entry.items():
        if not isinstance(column, str) or "/" not in column or value in (None, ""):
            continue
        task, _, metric = column.rpartition("/")
        score = _score(value)
        if score is None:
            shown = json.dumps(value)
            shown = shown if len(shown) <= 40 else f"{shown[:30]}... ({len(shown):,} characters)"
            raise SourceError(
                f"{source}: entry {number}: {json.dumps(column)[1:-1][:100]} is {shown}, not a "
                "score; write a number such as 12.31 or 1.2e-1 (no underscores, booleans, inf or "
                "nan), or leave it empty when no score is published"
            )
        scores.append((task, metric, score))
    return tuple(sorted(scores))


# float() also reads "0_6_2_5" (625.0), " 7 ", "infinity" and Arabic-Indic digits: a typo would pass as a score.
_DECIMAL = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def _score(value: object) -> float | None:
    """A published score: a JSON number (not a boolean: true is no score) or a decimal string; finite, or None."""
    if type(value) in (int, float):
        try:
            score = float(value)  # type: ignore[arg-type]  # an int or a float, by the line above
        except OverflowError:  # a 400-digit integer
            return None
    elif isinstance(value, str) and _DECIMAL.fullmatch(value):
        score = float(value)
    else:
        return None
    return score if math.isfinite(score) else None
