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
from support.harness_logs import DATE
from support.survey_corpus import make_corpus

from validator.io.limits import DEFAULT_LIMITS
from validator.survey.engine import survey
from validator.survey.journal import JOURNAL_NAME, rows_text
from validator.survey.local_pool import LocalPool
from validator.survey.rows import blank_row
from validator.survey.tables import read_jsonl
from validator.survey.work import Settings, failed_rows

OUTPUTS = ("units.jsonl", "survey.csv", "survey.jsonl", "summary.md", "summary.html")


def lbnorm(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "validator", *args], capture_output=True, text=True, timeout=60
    )


def clean_runs(root: Path, runs: int = 2) -> list[Path]:
    make_corpus(root, runs=runs, seed=3, fault_rate=0)
    return sorted(path for path in root.iterdir() if path.is_dir())


def test_file_names_that_are_not_utf8_are_read_by_their_real_names_and_shown_escaped(tmp_path):
    """A log and a run folder named with a byte that is not UTF-8 (\\xff) are surveyed, not an internal error
    with an empty journal that loses the batch's healthy units on every --resume."""
    first, second = clean_runs(tmp_path / "runs")
    os.rename(
        first / f"samples_drop_{DATE}.jsonl",
        os.fsencode(first) + b"/samples_drop\xff_" + f"{DATE}.jsonl".encode(),
    )
    os.rename(second, os.fsencode(second.parent) + b"/bad\xffrun")
    result = lbnorm(
        "survey",
        str(tmp_path / "runs"),
        "--out",
        str(tmp_path / "out"),
        "--workers",
        "1",
        "--no-plots",
    )
    assert result.returncode == 1, (
        result.stderr
    )  # the log's name names no task (LB700), so drop has none (LB707)
    rows = {
        (row["run"], row["task"], row["log"]): row
        for row in read_jsonl(tmp_path / "out" / "survey.jsonl")
    }
    run, bad_log = (
        f"{first.name}/results_{DATE}.json",
        f"{first.name}/samples_drop\\xff_{DATE}.jsonl",
    )
    assert rows[run, "drop\\xff", bad_log]["status"] == "unplaced log"
    assert rows[run, "drop\\xff", bad_log]["first_finding"].startswith(
        f"LB700 {bad_log}: cannot tell which task"
    )
    assert rows[run, "drop", ""]["rules"] == {"LB707": 1}
    read = {
        key[1]: row for key, row in rows.items() if key[0] == f"bad\\xffrun/results_{DATE}.json"
    }
    assert {task: (row["status"], row["samples"]) for task, row in read.items()} == {
        "arc_easy": ("ok", 6),
        "drop": ("ok", 8),
    }
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
            yield (
                batch,
                [
                    self.text if unit.log and "drop" in unit.log.name else rows
                    for unit, rows in zip(batch, results, strict=True)
                ],
            )


@pytest.mark.parametrize(
    "text, why",
    [
        (
            "[{not json",
            "JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 3 (char 2)",
        ),
        ('{"run": "x"}', "ValueError: its rows are a JSON object, not a list"),
        ('[{"run": "x"}]', "ValueError: row 1: no column 'model'"),
        (
            json.dumps([blank_row("\ud800", "", "drop", "")], ensure_ascii=False),
            "ValueError: row 1: 'run' cannot hold \"\\ud800\"",
        ),
    ],
    ids=["not JSON", "not a list", "not a row", "not UTF-8"],
)
def test_a_units_rows_that_cannot_be_journaled_become_its_failed_row_and_the_others_are_kept(
    tmp_path, text, why
):
    make_corpus(tmp_path / "runs", runs=1, seed=3, fault_rate=0)
    outcome = survey([str(tmp_path / "runs")], tmp_path / "out", Corrupting(text))
    assert [(row["task"], row["status"]) for row in outcome.rows] == [
        ("arc_easy", "ok"),
        ("drop", "failed"),
    ]
    assert (
        outcome.rows[1]["error"]
        == f"internal error: its rows cannot be journaled ({why}); please report it"
    )
    journaled = read_jsonl(tmp_path / "out" / JOURNAL_NAME)
    assert sorted(len(entry["rows"]) for entry in journaled) == [
        0,
        1,
        1,
    ]  # every unit; the run's own has no row


def tampered_run(root: Path) -> None:
    """One run whose results file claims a DROP F1 its logs do not give (LB709): a row that must stay an error."""
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    results = next(root.glob("*/results_*.json"))
    data = json.loads(results.read_text(encoding="utf-8"))
    data["results"]["drop"]["f1,none"] += 0.05
    results.write_text(json.dumps(data), encoding="utf-8")


def drop_row_of(entry: dict) -> bool:
    return any(row.get("task") == "drop" and row.get("log") for row in entry["rows"])


@pytest.mark.parametrize(
    "tamper, why",
    [
        (lambda entry: entry.update(rows="abc"), "its rows are a JSON string, not a list"),
        (lambda entry: entry.update(rows=[1, 2]), "row 1: a JSON number, not an object"),
        (lambda entry: entry.update(rows=[{"run": "x"}]), "row 1: no column 'model'"),
        (lambda entry: entry["rows"][0].update(extra=1), "row 1: a column the table does not have"),
        (lambda entry: entry["rows"][0].update(errors="1"), "row 1: 'errors' cannot hold \"1\""),
        (lambda entry: entry["rows"][0].update(errors=True), "row 1: 'errors' cannot hold true"),
        (
            lambda entry: entry["rows"][0].update(samples=1 << 64),
            "row 1: 'samples' cannot hold 18446744073709551616",
        ),
        (
            lambda entry: entry["rows"][0].update(reported=float("nan")),
            "row 1: 'reported' cannot hold nan",
        ),
        (
            lambda entry: entry["rows"][0].update(run="\udcff"),
            "row 1: 'run' cannot hold \"\\udcff\"",
        ),
        (
            lambda entry: entry["rows"][0].update(rules={"LB709": "1"}),
            'row 1: \'rules\' cannot hold {"LB709": "1"}',
        ),
        (
            lambda entry: entry["rows"][0]["metrics"].update({"f1,none": 0.5}),
            "row 1: 'metrics' cannot hold \"f1,none\": 0.5",
        ),
        (lambda entry: entry.update(unit=7), 'not {"rows": [...], "unit": "<key>"}'),
    ],
    ids=[
        "string",
        "numbers",
        "row lacking columns",
        "extra column",
        "errors as text",
        "errors as boolean",
        "over 64 bits",
        "NaN",
        "lone surrogate",
        "rules",
        "metrics",
        "unit not a key",
    ],
)
def test_a_journal_line_that_is_not_the_surveys_rows_is_damaged_and_its_unit_audited_again(
    tmp_path, tamper, why
):
    """--resume does not read such rows into the tables, where they would be an internal error (TypeError,
    KeyError) or a crash writing them, after the earlier pass's tables were left in --out."""
    tampered_run(tmp_path / "runs")
    first = survey([str(tmp_path / "runs")], tmp_path / "out", LocalPool(1))
    journal = tmp_path / "out" / JOURNAL_NAME
    entries = read_jsonl(journal)
    line = next(number for number, entry in enumerate(entries, start=1) if drop_row_of(entry))
    tamper(entries[line - 1])
    journal.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    again = survey([str(tmp_path / "runs")], tmp_path / "out", LocalPool(1), resume=True)
    assert again.rows == first.rows and (again.units, again.skipped) == (
        3,
        3 - (len(entries) - line + 1),
    )
    dropped = len(entries) - line
    after = (
        f"it and the {dropped:,} lines after it were dropped and their units run again"
        if dropped
        else "it was dropped and its unit runs again"
    )
    assert again.notes == [f"{JOURNAL_NAME}: line {line} is damaged ({why}); {after}"]


def test_a_log_unit_journaled_without_its_one_row_is_audited_again(tmp_path):
    tampered_run(tmp_path / "runs")
    first = survey([str(tmp_path / "runs")], tmp_path / "out", LocalPool(1))
    journal = tmp_path / "out" / JOURNAL_NAME
    entries = [
        {**entry, "rows": []} if drop_row_of(entry) else entry for entry in read_jsonl(journal)
    ]
    journal.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    again = survey([str(tmp_path / "runs")], tmp_path / "out", LocalPool(1), resume=True)
    assert again.rows == first.rows and again.skipped == 2  # the LB709 row is back
    assert again.notes == [
        f"{JOURNAL_NAME}: 1 of its log units hold no row or several (a log's unit writes one); "
        "they run again"
    ]


def test_a_survey_removes_the_earlier_tables_when_it_starts(tmp_path):
    """A resume that stops with an error must not leave the last pass's tables in --out looking current."""
    tampered_run(tmp_path / "runs")
    out = tmp_path / "out"
    assert (
        lbnorm("survey", str(tmp_path / "runs"), "--out", str(out), "--workers", "1").returncode
        == 1
    )
    written = {path.relative_to(out).as_posix() for path in out.rglob("*")}
    assert written >= {
        "survey.csv",
        "survey.jsonl",
        "summary.md",
        "summary.html",
        "units.jsonl",
        "settings.json",
    }

    class Broken(LocalPool):
        def run(self, function, batches):
            raise RuntimeError("the executor broke")
            yield  # a generator, as the executors are

    journal = read_jsonl(out / JOURNAL_NAME)
    (out / JOURNAL_NAME).write_text(
        "".join(json.dumps(entry) + "\n" for entry in journal[:-1]), encoding="utf-8"
    )
    with pytest.raises(RuntimeError, match="the executor broke"):
        survey([str(tmp_path / "runs")], out, Broken(1), resume=True)
    left = {path.relative_to(out).as_posix() for path in out.rglob("*")}
    assert left == {"units.jsonl", "settings.json"} | ({"plots"} if "plots" in written else set())


def test_an_earlier_table_that_cannot_be_removed_is_a_usage_error(tmp_path):
    tampered_run(tmp_path / "runs")
    (tmp_path / "out" / "survey.csv").mkdir(parents=True)
    result = lbnorm(
        "survey", str(tmp_path / "runs"), "--out", str(tmp_path / "out"), "--workers", "1"
    )
    assert result.returncode == 2, result.stderr
    assert (
        f"Error: {tmp_path / 'out' / 'survey.csv'} is left from an earlier survey and cannot be removed (Is a "
        "directory); remove it, or choose another --out\n"
    ) in result.stderr


def test_an_output_name_that_is_a_symlink_is_replaced_never_followed(tmp_path):
    """A link survey.csv -> a file outside --out once had the table written over that file."""
    tampered_run(tmp_path / "runs")
    out, outside = tmp_path / "out", tmp_path / "outside"
    (outside / "plots").mkdir(parents=True)
    out.mkdir()
    victims = {
        name: outside / name
        for name in (
            "survey.csv",
            "survey.jsonl",
            "summary.md",
            "settings.json",
            "plots/differences.png",
        )
    }
    for name, victim in victims.items():
        victim.write_text("precious\n", encoding="utf-8")
        if "/" not in name:
            (out / name).symlink_to(victim)
    (out / "plots").symlink_to(outside / "plots", target_is_directory=True)
    result = lbnorm("survey", str(tmp_path / "runs"), "--out", str(out), "--workers", "1")
    assert result.returncode == 1, result.stderr
    assert {victim.read_text(encoding="utf-8") for victim in victims.values()} == {"precious\n"}
    assert not any(path.is_symlink() for path in out.rglob("*"))
    assert read_jsonl(out / "survey.jsonl")[1]["rules"] == {"LB709": 1}


@pytest.mark.parametrize(
    "target", ["outside/units.jsonl", "outside/missing.jsonl"], ids=["a file", "dangling"]
)
def test_a_journal_that_is_a_symlink_is_refused(tmp_path, target):
    tampered_run(tmp_path / "runs")
    (tmp_path / "out").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "units.jsonl").write_text("precious\n", encoding="utf-8")
    (tmp_path / "out" / JOURNAL_NAME).symlink_to(tmp_path / target)
    result = lbnorm(
        "survey", str(tmp_path / "runs"), "--out", str(tmp_path / "out"), "--workers", "1"
    )
    assert result.returncode == 2, result.stderr
    assert (
        f"Error: {tmp_path / 'out' / JOURNAL_NAME} is a symbolic link; the survey keeps its journal in a file "
        "of its own: remove the link, or choose another --out\n"
    ) in result.stderr
    assert sorted(path.name for path in (tmp_path / "outside").iterdir()) == ["units.jsonl"]
    assert (tmp_path / "outside" / "units.jsonl").read_text(encoding="utf-8") == "precious\n"


def test_a_table_is_written_whole_or_not_at_all(tmp_path):
    """A table is written under a temporary name and moved onto its own: a write that stops half way (here, a
    row JSON cannot hold) leaves the file that was there, and no temporary file."""
    from validator.survey.tables import write_jsonl

    (tmp_path / "survey.jsonl").write_text("the earlier table\n", encoding="utf-8")
    rows = [blank_row("a", "", "", ""), {**blank_row("b", "", "", ""), "reported": float("nan")}]
    with pytest.raises(ValueError):
        write_jsonl(rows, tmp_path / "survey.jsonl")
    assert [path.name for path in tmp_path.iterdir()] == ["survey.jsonl"]
    assert (tmp_path / "survey.jsonl").read_text(encoding="utf-8") == "the earlier table\n"


def test_the_writers_replace_a_symlink_at_a_tables_name(tmp_path):
    from validator.survey.summary import write_summaries
    from validator.survey.tables import write_tables

    (tmp_path / "victim").write_text("precious\n", encoding="utf-8")
    for name in ("survey.csv", "survey.jsonl", "survey.parquet", "summary.md", "summary.html"):
        (tmp_path / name).symlink_to(tmp_path / "victim")
    rows = [blank_row("a", "m", "drop", "")]
    write_tables(rows, tmp_path)
    write_summaries(rows, tmp_path, plots=False)
    assert (tmp_path / "victim").read_text(encoding="utf-8") == "precious\n"
    assert read_jsonl(tmp_path / "survey.jsonl") == rows and not any(
        path.is_symlink() for path in tmp_path.iterdir()
    )


class LosesDropLogs(LocalPool):
    """A pool whose pass loses every DROP log's unit, as a worker that died each time it met one would."""

    def run(self, function, batches):
        for batch, results in super().run(function, batches):
            yield (
                batch,
                [
                    rows_text(
                        failed_rows(
                            unit, "a worker process died 4 times while this unit was pending"
                        )
                    )
                    if unit.log and "_drop_" in unit.log.name
                    else rows
                    for unit, rows in zip(batch, results, strict=True)
                ],
            )


def test_a_resume_runs_again_the_units_its_last_pass_did_not_judge(tmp_path):
    """--resume does not keep a 'failed' row or a store's timeout (LB101), and does not refuse a longer
    --remote-timeout as 'other settings', so a retry need not audit everything again under a new --out.
    Units not judged run again; how long to wait is not a setting the rows depend on."""
    root = tmp_path / "runs"
    make_corpus(root, runs=2, seed=3, fault_rate=0)
    first = survey([str(root)], tmp_path / "out", LosesDropLogs(1))
    assert sorted(row["status"] for row in first.rows) == ["failed", "failed", "ok", "ok"]
    patient = Settings(limits=DEFAULT_LIMITS._replace(remote_timeout=600.0, listing_timeout=3600.0))
    again = survey([str(root)], tmp_path / "out", LocalPool(1), patient, resume=True)
    assert again.skipped == 4  # both runs' own units and arc_easy logs
    assert any(
        note.startswith("2 journaled units run again: they were not judged") for note in again.notes
    )
    assert again.rows == survey([str(root)], tmp_path / "fresh", LocalPool(1)).rows
    assert [row["status"] for row in again.rows] == ["ok"] * 4
