"""Writing the table: CSV and JSON lines with the standard library, Parquet with pyarrow (the `survey` extra)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from ..io.safe_text import spreadsheet_cell, table_cell
from .outputs import replaced
from .rows import COLUMNS, NESTED

TABLE_NAME = "survey"


def write_tables(rows: list[dict], out: Path) -> tuple[list[Path], str | None]:
    """survey.csv, survey.jsonl and, when pyarrow is installed, survey.parquet; and a note if it is not."""
    written = [
        write_csv(rows, out / f"{TABLE_NAME}.csv"),
        write_jsonl(rows, out / f"{TABLE_NAME}.jsonl"),
    ]
    try:
        written.append(write_parquet(rows, out / f"{TABLE_NAME}.parquet"))
        note = None
    except ImportError:
        note = "survey.parquet not written: install lbnorm[survey] (pyarrow)"
    return written, note


def _cell(column: str, value: Any) -> Any:
    """A cell as every table holds it: a submitter's text with its control characters escaped (table_cell)."""
    if column in NESTED:
        return json.dumps(_neutral(value), sort_keys=True, allow_nan=False)
    return _neutral(value)


def _neutral(value: Any) -> Any:
    """table_cell for every text in a value, nested ones too."""
    if isinstance(value, str):
        return table_cell(value)
    if isinstance(value, dict):
        return {_neutral(key): _neutral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_neutral(item) for item in value]
    return value


def write_csv(rows: list[dict], path: Path) -> Path:
    with replaced(path) as handle:
        # RFC 4180's CRLF: with "\n" alone, csv does not quote a field holding a lone CR, which a spreadsheet takes
        # for the end of the row (a task named "t\r=1+2" would start a forged row with a live formula).
        writer = csv.writer(handle, lineterminator="\r\n")
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow(
                ["" if row[c] is None else _csv_value(_cell(c, row[c])) for c in COLUMNS]
            )
    return path


def _csv_value(value: Any) -> Any:
    # repr keeps every digit of a float, so the CSV round-trips to the same numbers as the JSON. Text that a
    # spreadsheet would run as a formula starts with an apostrophe there; survey.jsonl and Parquet keep it exact.
    if isinstance(value, float):
        return repr(value)
    return spreadsheet_cell(value) if isinstance(value, str) else value


def write_jsonl(rows: list[dict], path: Path) -> Path:
    with replaced(path) as handle:
        for row in rows:
            handle.write(
                json.dumps(
                    {c: _cell(c, row[c]) if c not in NESTED else row[c] for c in COLUMNS},
                    ensure_ascii=False,
                    allow_nan=False,
                )
                + "\n"
            )
    return path


_ARROW_TYPES = {
    "samples": "int64",
    "expected": "int64",
    "hashes_checked": "int64",
    "hash_mismatches": "int64",
    "drop_n": "int64",
    "errors": "int64",
    "warnings": "int64",
    "retries": "int64",
    "reproduced": "bool_",
}


def write_parquet(rows: list[dict], path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    def arrow_type(column: str):
        if column in _ARROW_TYPES:
            return getattr(pa, _ARROW_TYPES[column])()
        if column in (
            "run",
            "model",
            "task",
            "log",
            "status",
            "task_hash",
            "metric",
            "published_metric",
            "first_finding",
            "error",
            "notes",
            *NESTED,
        ):
            return pa.string()
        return pa.float64()

    schema = pa.schema([(c, arrow_type(c)) for c in COLUMNS])
    columns = {c: [_cell(c, row[c]) for row in rows] for c in COLUMNS}
    table = pa.table(columns, schema=schema)
    with replaced(path, binary=True) as handle:
        pq.write_table(table, handle)
    return path


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
