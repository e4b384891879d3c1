"""The survey's journal: one JSON line per finished unit, appended as units finish.

    {"unit": "<key>", "rows": [...]}

A task's lines are written whole and flushed together, so a survey killed at
any moment leaves whole lines plus at most one cut-off line at the end; --resume drops
that line and skips every unit whose key is already there. Keys are content
fingerprints (sources.Unit.key): a changed file is a new unit.

Beside it, settings.json records what the rows depend on besides the files:
the lbnorm version and the survey's options. --resume refuses a folder
written with other ones, since its rows and the new ones would not be the
same survey, and the table would not show it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .outputs import replaced
from .rows import LONE_SURROGATE, printable, rows_problem

JOURNAL_NAME = "units.jsonl"
SETTINGS_NAME = "settings.json"


def rows_text(rows: list[dict]) -> str:
    """A unit's rows as its journal line holds them. Workers call it: the client only appends the text, and a
    string crosses a process or the network for less than the dicts it holds. Lone surrogates (a file name that
    is not UTF-8) are escaped as rows.printable() does, since UTF-8 cannot write them: in JSON text, \\\\xff."""
    text = json.dumps(rows, ensure_ascii=False, allow_nan=False, sort_keys=True)
    return LONE_SURROGATE.sub(lambda match: printable(match.group()).replace("\\", "\\\\"), text)


class JournalExists(Exception):
    """The output folder already holds a survey and --resume was not given, or it cannot be resumed."""


class Journal:
    def __init__(self, folder: Path, resume: bool, settings: dict | None = None):
        """`settings`: what the rows depend on besides the files (JSON values); None records nothing."""
        self.path = folder / JOURNAL_NAME
        self.done: dict[str, list[dict]] = {}
        self.note: str | None = None  # what --resume had to drop from a damaged journal
        if (
            self.path.is_symlink()
        ):  # appending through it would write the journal wherever it points
            raise JournalExists(
                f"{self.path} is a symbolic link; the survey keeps its journal in a file of its "
                "own: remove the link, or choose another --out"
            )
        existed = self.path.exists()
        if existed and not resume:
            raise JournalExists(
                f"{folder} already holds a survey ({JOURNAL_NAME}); pass --resume to "
                "continue it, or choose another --out"
            )
        folder.mkdir(parents=True, exist_ok=True)
        # O_NOFOLLOW: a link made since the check above is refused (ELOOP), not written through.
        self._handle = open(
            os.open(
                self.path,
                os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0),
                0o666,
            ),
            "ab",
        )
        try:
            _lock(self._handle, folder)
            if existed:
                if settings is not None:
                    _check_settings(folder, settings)
                self.done, self.note = _read(self.path)
        except BaseException:
            self._handle.close()
            raise
        if settings is not None and not self.done:
            with replaced(folder / SETTINGS_NAME) as handle:
                handle.write(json.dumps(settings, indent=1, sort_keys=True) + "\n")

    def record(self, entries: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """Append the lines of (unit key, rows_text() of its rows as the worker wrote it), flushed together.

        Returns (key, why) of each entry that cannot be journaled (not JSON, not the survey's rows, not UTF-8): it
        is not written, and the caller journals a failed row in its place, so one unit's rows never cost the
        others. An entry written is one --resume reads back whole."""
        lines, refused = [], []
        for key, rows in entries:
            try:
                # Kept as read back, so this run's rows and resumed ones are the same data, key order included;
                # parsed before the line is written, so text that is not JSON never reaches the journal.
                parsed = json.loads(rows)
                problem = rows_problem(parsed)
                if problem:
                    raise ValueError(problem)
                # json.dumps({"unit": key, "rows": ...}, sort_keys=True) to the byte, without encoding the rows again
                lines.append(
                    f'{{"rows": {rows}, "unit": {json.dumps(key, ensure_ascii=False)}}}\n'.encode()
                )
            except (
                TypeError,
                ValueError,
                RecursionError,
            ) as exc:  # UnicodeEncodeError is a ValueError
                refused.append((key, f"{type(exc).__name__}: {exc}"))
                continue
            self.done[key] = parsed
        self._handle.write(b"".join(lines))
        self._handle.flush()
        return refused

    def close(self) -> None:
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()


def _lock(handle, folder: Path) -> None:
    """Hold the journal for this survey alone: two surveys appending to one journal would each audit every
    unit and write it twice. The lock goes with the process (and the pool workers it forks)."""
    try:
        import fcntl
    except ImportError:  # not on this system; one survey per --out is then the user's care
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise JournalExists(
            f"another survey is writing {folder} now; wait for it to end, or choose another --out"
        ) from None


def _read(path: Path) -> tuple[dict[str, list[dict]], str | None]:
    """Whole lines of an earlier run, and a note when more than a cut-off last line had to go. From the first
    line that is not a whole entry on, the file is cut, so appends stay whole; those units run again.

    An entry is whole when it is JSON of the shape record() writes: its rows are checked as the survey's rows
    (rows.rows_problem), since the tables would read them without checking again. Their values are trusted: the
    journal is the maintainer's own file in their own folder, not a submission."""
    done: dict[str, list[dict]] = {}
    good_end, bad_line, why, dropped, cut_off = 0, None, "", 0, False
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if bad_line is not None:
                dropped += 1
                continue
            entry, why = _entry(raw)
            if why:
                bad_line, cut_off = number, not raw.endswith(b"\n")
                continue
            done[entry["unit"]] = entry["rows"]
            good_end += len(raw)
    if good_end != path.stat().st_size:
        with open(path, "r+b") as handle:
            handle.truncate(good_end)
    if bad_line is None or cut_off:  # at most the last line cut off: what a killed survey leaves
        return done, None
    dropped_text = f"it and the {dropped:,} lines after it were" if dropped else "it was"
    return done, (
        f"{path.name}: line {bad_line:,} is damaged ({why}); {dropped_text} dropped and "
        f"{'their units run' if dropped else 'its unit runs'} again"
    )


def _entry(raw: bytes) -> tuple[dict, str]:
    """The entry record() wrote on a journal line, and why it is not one ("" when it is)."""
    if not raw.endswith(b"\n"):
        return {}, "cut off"
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):  # a line nested past the parser's stack is no entry either
        return {}, "not JSON"
    if type(entry) is not dict or set(entry) != {"unit", "rows"} or type(entry["unit"]) is not str:
        return {}, 'not {"rows": [...], "unit": "<key>"}'
    return entry, rows_problem(entry["rows"]) or ""


def _check_settings(folder: Path, wanted: dict) -> None:
    try:
        recorded = json.loads((folder / SETTINGS_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise JournalExists(
            f"{folder} holds a survey without a readable {SETTINGS_NAME}, so its rows cannot be "
            "shown to come from these options; choose another --out"
        ) from None
    if not isinstance(recorded, dict):
        recorded = {}
    changed = [
        key for key in sorted(set(wanted) | set(recorded)) if recorded.get(key) != wanted.get(key)
    ]
    if changed:
        shown = "; ".join(
            f"{key} {recorded.get(key)!r} then, {wanted.get(key)!r} now" for key in changed[:4]
        )
        raise JournalExists(
            f"{folder} was surveyed with other settings ({shown}); resume with the same options "
            "and lbnorm version, or choose another --out"
        )
