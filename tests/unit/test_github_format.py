"""Annotation escaping, summary limits and the outputs format, against the runner's rules."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.runner_mimic import commands

from validator.check.checker import CheckResult, FileReport
from validator.findings.model import Finding
from validator.io.safe_text import table_cell
from validator.report.github import (
    SUMMARY_LIMIT,
    annotation,
    output_block,
    summary_markdown,
)

fragments = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), max_size=5
) | st.sampled_from(
    ["\n", "\r", "%", ":", ",", "::", "##[", "%0A", "::error::", "\u2028", "\r\n::add-mask::x"]
)
texts = st.lists(fragments, max_size=12).map("".join)


@given(texts, texts)
def test_any_message_and_file_name_make_exactly_one_annotation(message, file):
    line = annotation(Finding("LB201", "schema", "error", file, message, "$.reported.bbh", 3, 5))
    found = commands(line)
    assert len(found) == 1 and found[0].name == "error"
    # control characters arrive as visible escapes; line breaks in the message stay line breaks
    shown = "".join(char if char in "\r\n" else table_cell(char) for char in message)
    assert found[0].data == shown.replace("##[", "##\\[")
    assert found[0].properties == {
        "file": table_cell(file).replace("##[", "##\\["),
        "line": "3",
        "col": "5",
        "title": "LB201 schema",
    }


LONG_FORMULA = (
    "; BBH = mean over 24 subtasks of max(acc_norm - 1/n, 0) / (1 - 1/n) * 100" + ", x 2" * 200
)


@pytest.mark.parametrize(
    "rule, severity",
    [("LB601", "error"), ("LB602", "error"), ("LB606", "error"), ("LB607", "warning")],
)
def test_a_divergence_annotation_keeps_the_numbers_and_points_to_the_formula(rule, severity):
    numbers = "bbh: reported 3.29, recomputed 2.2940 (|diff| 0.9960 > tolerance 0.01)"
    finding = Finding(
        rule, "divergence", severity, "s.json", numbers + LONG_FORMULA, "$.reported.bbh", 8, 5
    )
    data = commands(annotation(finding, "see the job summary and lbnorm-report.json"))[0].data
    assert data == numbers + "; formula and details: see the job summary and lbnorm-report.json"


def test_any_long_message_is_cut_to_300_characters_with_a_pointer():
    finding = Finding("LB201", "schema", "error", "s.json", "x" * 5000, None, 1, 1)
    data = commands(annotation(finding, "see the job summary"))[0].data
    assert len(data) == 300 and data.endswith("… (cut; the whole message: see the job summary)")
    long_path = (
        "see the job summary and " + "r" * 400 + ".json"
    )  # the report input is the maintainer's
    assert len(commands(annotation(finding, long_path))[0].data) == 300


def test_outputs_use_a_random_heredoc_delimiter_for_multiline_values():
    text = output_block({"passed": "true", "note": "line one\nghadelimiter_x\nline three"})
    lines = text.splitlines()
    assert lines[0] == "passed=true"
    name, delimiter = lines[1].split("<<")
    assert name == "note" and delimiter.startswith("ghadelimiter_") and len(delimiter) > 20
    assert lines[2:5] == ["line one", "ghadelimiter_x", "line three"] and lines[5] == delimiter
    assert output_block({"note": "a\nb"}) != output_block({"note": "a\nb"})  # random each time


def test_the_summary_stays_under_1_mib_with_a_note():
    findings = [
        Finding("LB601", "score-divergence", "error", f"s{i}.json", "x" * 900, None, i, 1)
        for i in range(3000)
    ]
    files = [
        FileReport(
            path=f"s{i}.json", kind="submission", reported={"bbh": 1.0}, recomputed={"bbh": 2.0}
        )
        for i in range(3000)
    ]
    summary = summary_markdown(
        CheckResult(findings=findings, files=files), strict=False, tolerance=0.01
    )
    assert len(summary.encode()) < SUMMARY_LIMIT
    assert "**Truncated:**" in summary


def test_pull_request_text_is_inert_markdown():
    files = [
        FileReport(path="<img src=x onerror=alert(1)>|[link](http://evil)`.json", kind="submission")
    ]
    summary = summary_markdown(CheckResult(files=files), strict=False, tolerance=0.01)
    assert "<img" not in summary and "&lt;img" in summary
    assert not re.search(r"(?<!\\)\]\(", summary)  # no link: every ] is escaped
    assert not re.search(r"(?<!\\)\|", summary.split("\n")[4])  # no table break in the heading
