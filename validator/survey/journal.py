"""The survey's journal: one JSON line per finished unit, appended as units finish.

    {"unit": "<key>", "rows": [...]}

A line is written whole and flushed, so a survey killed at any moment
leaves whole lines plus at most one cut-off line at the end; --resume drops
that line and skips every unit whose key is already there. Keys are content
fingerprints (sources.Unit.key): a changed file is a new unit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

JOURNAL_NAME = "units.jsonl"


class JournalExists(Exception):
    """The output folder already holds a survey and --resume was not given."""


class Journal:
    def __init__(self, folder: Path, resume: bool):
        self.path = folder / JOURNAL_NAME
        self.done: dict[str, list[dict]] = {}
        if self.path.exists():
            if not resume:
                raise JournalExists(f"{folder} already holds a survey ({JOURNAL_NAME}); pass --resume to "
                                    "continue it, or choose another --out")
            self.done = _read(self.path)
        folder.mkdir(parents=True, exist_ok=True)
        self._handle = open(self.path, "a", encoding="utf-8")

    def record(self, key: str, rows: list[dict]) -> None:
        line = json.dumps({"unit": key, "rows": rows}, ensure_ascii=False, allow_nan=False, sort_keys=True)
        self._handle.write(line + "\n")
        self._handle.flush()
        # Kept as read back, so this run's rows and resumed ones are the same data, key order included.
        self.done[key] = json.loads(line)["rows"]

    def close(self) -> None:
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()


def _read(path: Path) -> dict[str, list[dict]]:
    """Whole lines of an earlier run; a cut-off last line is cut from the file, so appends stay whole."""
    done: dict[str, list[dict]] = {}
    good_end = 0
    with open(path, "rb") as handle:
        for raw in handle:
            if not raw.endswith(b"\n"):
                break
            try:
                entry = json.loads(raw)
                done[entry["unit"]] = entry["rows"]
            except (ValueError, KeyError, TypeError):
                break
            good_end += len(raw)
    if good_end != path.stat().st_size:
        with open(path, "r+b") as handle:
            handle.truncate(good_end)
    return done
