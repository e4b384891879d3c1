"""The journal and the files a survey writes fail closed: one unit's rows never cost another unit its rows, a
resumed journal is read as the survey's rows or not at all, and no output is written through a name that is
not the survey's own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness_logs import DATE
from survey_corpus import make_corpus
from validator.survey.engine import survey
from validator.survey.executors import LocalPool
from validator.survey.journal import JOURNAL_NAME
from validator.survey.tables import read_jsonl

OUTPUTS = ("units.jsonl", "survey.csv", "survey.jsonl", "summary.md", "summary.html")


def lbnorm(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "validator", *args], capture_output=True, text=True, timeout=60)


def clean_runs(root: Path, runs: int = 2) -> list[Path]:
    make_corpus(root, runs=runs, seed=3, fault_rate=0)
    return sorted(path for path in root.iterdir() if path.is_dir())


def test_file_names_that_are_not_utf8_are_read_by_their_real_names_and_shown_escaped(tmp_path):
    """A log and a run folder named with a byte that is not UTF-8 (\\xff) once made every survey of them an internal
    error with an empty journal, the healthy units of the batch lost with them, on every --resume."""
    first, second = clean_runs(tmp_path / "runs")
    os.rename(first / f"samples_drop_{DATE}.jsonl", os.fsencode(first) + b"/samples_drop\xff_" + f"{DATE}.jsonl".encode())
    os.rename(second, os.fsencode(second.parent) + b"/bad\xffrun")
    result = lbnorm("survey", str(tmp_path / "runs"), "--out", str(tmp_path / "out"), "--workers", "1", "--no-plots")
    assert result.returncode == 1, result.stderr  # the log's name names no task (LB700), so drop has none (LB707)
    rows = {(row["run"], row["task"], row["log"]): row for row in read_jsonl(tmp_path / "out" / "survey.jsonl")}
    run, bad_log = f"{first.name}/results_{DATE}.json", f"{first.name}/samples_drop\\xff_{DATE}.jsonl"
    assert rows[run, "drop\\xff", bad_log]["status"] == "unplaced log"
    assert rows[run, "drop\\xff", bad_log]["first_finding"].startswith(f"LB700 {bad_log}: cannot tell which task")
    assert rows[run, "drop", ""]["rules"] == {"LB707": 1}
    read = {key[1]: row for key, row in rows.items() if key[0] == f"bad\\xffrun/results_{DATE}.json"}
    assert {task: (row["status"], row["samples"]) for task, row in read.items()} == {"arc_easy": ("ok", 6),
                                                                                    "drop": ("ok", 8)}
    assert read["drop"]["log"] == f"bad\\xffrun/samples_drop_{DATE}.jsonl"
    for name in OUTPUTS:  # strict UTF-8: a lone surrogate could not have been written
        assert "\\xff" in (tmp_path / "out" / name).read_bytes().decode("utf-8"), name


class Corrupting(LocalPool):
    """The local pool, with one unit's journal text replaced by `text` (as a bug or a hostile worker could)."""

    def __init__(self, text: str):
        super().__init__(1)
        self.text = text

    def run(self, function, batches):
        for batch, results in super().run(function, batches):
            yield batch, [self.text if unit.log and "drop" in unit.log.name else rows
                          for unit, rows in zip(batch, results)]


@pytest.mark.parametrize("text, why", [
    ("[{not json", "JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 3 (char 2)"),
    ('{"run": "x"}', "ValueError: the rows are a JSON dict, not a list"),
    ('[{"run": "\ud800"}]', "UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' in position 19: "
                            "surrogates not allowed"),
], ids=["not JSON", "not a list", "not UTF-8"])
def test_a_units_rows_that_cannot_be_journaled_become_its_failed_row_and_the_others_are_kept(tmp_path, text, why):
    make_corpus(tmp_path / "runs", runs=1, seed=3, fault_rate=0)
    outcome = survey([str(tmp_path / "runs")], tmp_path / "out", Corrupting(text))
    assert [(row["task"], row["status"]) for row in outcome.rows] == [("arc_easy", "ok"), ("drop", "failed")]
    assert outcome.rows[1]["error"] == f"internal error: its rows cannot be journaled ({why}); please report it"
    journaled = read_jsonl(tmp_path / "out" / JOURNAL_NAME)
    assert sorted(len(entry["rows"]) for entry in journaled) == [0, 1, 1]  # every unit; the run's own has no row
