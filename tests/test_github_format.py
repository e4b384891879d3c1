"""Annotation escaping, summary limits and the outputs format, against the runner's rules."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from runner_mimic import commands

from validator.check.checker import CheckResult, FileReport
from validator.findings.model import Finding
from validator.report.github import (
    SUMMARY_LIMIT,
    annotation,
    output_block,
    summary_markdown,
)

fragments = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=5) | st.sampled_from(
    ["\n", "\r", "%", ":", ",", "::", "##[", "%0A", "::error::", "\u2028", "\r\n::add-mask::x"])
texts = st.lists(fragments, max_size=12).map("".join)


@given(texts, texts)
def test_any_message_and_file_name_make_exactly_one_annotation(message, file):
    line = annotation(Finding("LB601", "score-divergence", "error", file, message, "$.reported.bbh", 3, 5))
    found = commands(line)
    assert len(found) == 1 and found[0].name == "error"
    assert found[0].data == message.replace("##[", "##\\[")
    assert found[0].properties == {"file": file.replace("##[", "##\\["), "line": "3", "col": "5",
                                   "title": "LB601 score-divergence"}


def test_outputs_use_a_random_heredoc_delimiter_for_multiline_values():
    text = output_block({"passed": "true", "note": "line one\nghadelimiter_x\nline three"})
    lines = text.splitlines()
    assert lines[0] == "passed=true"
    name, delimiter = lines[1].split("<<")
    assert name == "note" and delimiter.startswith("ghadelimiter_") and len(delimiter) > 20
    assert lines[2:5] == ["line one", "ghadelimiter_x", "line three"] and lines[5] == delimiter
    assert output_block({"note": "a\nb"}) != output_block({"note": "a\nb"})  # random each time


def test_the_summary_stays_under_1_mib_with_a_note():
    findings = [Finding("LB601", "score-divergence", "error", f"s{i}.json", "x" * 900, None, i, 1)
                for i in range(3000)]
    files = [FileReport(path=f"s{i}.json", kind="submission", reported={"bbh": 1.0}, recomputed={"bbh": 2.0})
             for i in range(3000)]
    summary = summary_markdown(CheckResult(findings=findings, files=files), strict=False, tolerance=0.01)
    assert len(summary.encode()) < SUMMARY_LIMIT
    assert "**Truncated:**" in summary


def test_pull_request_text_is_inert_markdown():
    files = [FileReport(path="<img src=x onerror=alert(1)>|[link](http://evil)`.json", kind="submission")]
    summary = summary_markdown(CheckResult(files=files), strict=False, tolerance=0.01)
    assert "<img" not in summary and "&lt;img" in summary
    assert not re.search(r"(?<!\\)\]\(", summary)  # no link: every ] is escaped
    assert not re.search(r"(?<!\\)\|", summary.split("\n")[4])  # no table break in the heading
