"""The summary's tables: rules named and linked to their documentation, natural order, "N of M" wherever a
table stops short (validator/survey/summary.py, summary_html.py, rule_links.py)."""

from __future__ import annotations

from pathlib import Path

from validator.check.rules import all_rules
from validator.survey import summary, summary_html
from validator.survey.rows import blank_row
from validator.survey.rule_links import rule_page, rule_url
from validator.survey.summary_html import natural_key

DOCS = Path(__file__).resolve().parents[2] / "docs" / "reference" / "rules"


def test_every_rules_link_lands_on_its_section_of_the_rules_reference():
    for rule in all_rules():
        page, anchor = rule_page(rule.id)
        text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
        assert f"\n## {rule.id} {rule.name}\n" in text, rule.id
        assert anchor == f"{rule.id}-{rule.name}".lower()
        assert rule_url(rule.id).endswith(f"/docs/reference/rules/{page}.md#{anchor}")
    assert rule_page("LB999") is None


def test_runs_are_in_natural_order():
    names = ["org10__m", "org1__m", "org2__m", "org0__m", "Org3__m"]
    assert sorted(names, key=natural_key) == [
        "org0__m",
        "org1__m",
        "org2__m",
        "Org3__m",
        "org10__m",
    ]


def failed_row(number: int) -> dict:
    row = blank_row(f"org{number}__m/results.json", f"org{number}/m", "drop", f"log{number}")
    row.update(status="failed", error="its worker died")
    return row


def test_a_table_that_stops_short_says_how_many_of_how_many(tmp_path, monkeypatch):
    rows = [failed_row(number) for number in range(60)]
    monkeypatch.setattr(summary_html, "MAX_ROWS", 55)
    summary.write_summaries(rows, tmp_path, plots=False)
    markdown = (tmp_path / "summary.md").read_text(encoding="utf-8")
    page = (tmp_path / "summary.html").read_text(encoding="utf-8")
    assert f"{summary.MAX_LISTED} of 60 rows listed" in markdown
    assert "55 of 60 rows listed; survey.csv has every row." in page
    listed = [
        line.split(" | ")[0].strip("| ").replace("\\_", "_")  # markdown_cell escapes "_"
        for line in markdown.splitlines()
        if line.startswith("| org")
    ]
    assert listed[:3] == ["org0__m/results.json", "org1__m/results.json", "org2__m/results.json"]
    assert listed[10] == "org10__m/results.json", "org10 after org9, not after org1"
