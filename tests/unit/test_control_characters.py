"""Every output channel neutralises control characters from a submitter's names and stays well-formed.

A task name is the submitter's, and lm-eval makes it part of the log's file
name: each control character (C0, DEL, C1, the line and paragraph separators,
the bidi overrides and isolates) goes into one, and through `check` and
`audit` in every output format, the GitHub annotations, and the survey's
CSV, JSON Lines and Parquet cells. None may arrive raw; the XML, JSON and
SARIF must parse; the CSV must keep its rows.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from xml.etree import ElementTree as ET

import pytest
from support import harness_logs as hl
from support.common import run_cli

from validator.io.safe_text import annotation_property, table_cell
from validator.report.github import escape_data, escape_property

CONTROLS = (
    [chr(c) for c in range(0x20)]
    + ["\x7f"]
    + [chr(c) for c in range(0x80, 0xA0)]
    + ["\u2028", "\u2029", "\u200e", "\u200f", "\u061c"]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
)
IN_A_FILE_NAME = [c for c in CONTROLS if c not in "\x00/"]  # what a POSIX file name can hold


def raw_controls(text: str) -> list[str]:
    return sorted({c for c in text if c in CONTROLS and c not in "\n\r"})


@pytest.mark.parametrize("char", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_each_neutraliser_escapes_every_control_character(char):
    text = f"a{char}b"
    assert raw_controls(escape_property(text)) == [] and "\n" not in escape_property(text)
    assert raw_controls(annotation_property(text)) == []
    assert raw_controls(escape_data(text)) == [] and "\n" not in escape_data(text)
    assert raw_controls(table_cell(text)) == [] and "\n" not in table_cell(text)
    assert table_cell("naïve 模型 name") == "naïve 模型 name"  # printable text is left as it is


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    name = "task" + "".join(IN_A_FILE_NAME)
    task = hl.choice_task(name, 4)
    paths = hl.write_run(folder, [task])
    assert os.path.exists(paths[name])
    return folder, paths["results"].name


FORMATS = ["text", "json", "github", "sarif", "junit"]


@pytest.mark.parametrize("command", ["check", "audit"])
@pytest.mark.parametrize("output_format", FORMATS)
def test_no_output_format_lets_a_control_character_through(hostile_run, command, output_format):
    folder, results = hostile_run
    proc = run_cli(command, "--output-format", output_format, results, cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    assert raw_controls(proc.stdout) == []
    assert raw_controls(proc.stderr) == []
    if output_format in ("json", "sarif"):
        json.loads(proc.stdout)
    if output_format == "junit":
        ET.fromstring(proc.stdout.encode("utf-8"))
    if output_format == "github":
        for line in proc.stdout.splitlines():
            assert not line.startswith("::") or line.startswith(
                ("::error ", "::warning ", "::notice ")
            )


def test_the_survey_tables_neutralise_every_cell(hostile_run, tmp_path):
    folder, _ = hostile_run
    out = tmp_path / "out"
    proc = run_cli("survey", str(folder), "--out", str(out), cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    csv_text = (out / "survey.csv").read_text("utf-8")
    assert raw_controls(csv_text) == []
    rows = list(csv.reader(io.StringIO(csv_text, newline="")))
    assert len({len(row) for row in rows}) == 1 and len(rows) >= 2
    jsonl = (out / "survey.jsonl").read_text("utf-8")
    assert raw_controls(jsonl) == []
    assert all(json.loads(line) for line in jsonl.splitlines())
    if (out / "survey.parquet").exists():
        pq = pytest.importorskip("pyarrow.parquet")
        table = pq.read_table(out / "survey.parquet").to_pylist()
        assert all(
            raw_controls(v) == [] for row in table for v in row.values() if isinstance(v, str)
        )


def test_the_python_running_the_tests_can_name_such_files():
    assert sys.getfilesystemencoding() == "utf-8"
