"""The summary a maintainer reads first: summary.md and summary.html beside the table.

Sections: what was surveyed, findings by rule, published numbers that the
logs do not reproduce, reported-vs-re-derived differences, the DROP
numbers per run (reported F1, newline-rescored F1, W/D/L rates), and the
units that failed. Plots come from plots.py when matplotlib is installed.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..io.safe_text import markdown_cell
from .outputs import replaced
from .plots import draw_plots
from .rows import NOTES_SEPARATOR, is_unclaimed_log
from .rule_links import rule_name, rule_url
from .summary_html import Link, natural_key, page

MAX_LISTED = (
    50  # rows per section in summary.md, read on GitHub; the HTML page has far more, filterable
)
_WHOLE = "summary.html lists more (sortable, filterable), and survey.csv every row."
DIFF_BUCKETS = (
    (0.0, "0 (exact)"),
    (1e-9, "≤ 1e-9"),
    (1e-6, "≤ 1e-6"),
    (1e-3, "≤ 0.001"),
    (1e-2, "≤ 0.01"),
    (float("inf"), "over 0.01"),
)
# Runs, models, tasks and reasons are the submitters' text, and summary.md is read on GitHub: each cell is made
# inert there (no HTML, links, images, pings, table breaks), and cut to this many characters.
MAX_CELL = 500


def sections(rows: list[dict]) -> list[tuple[str, str, list[str], list[list[str]]]]:
    """(title, text, header, lines) for each section, shared by the Markdown and HTML writers."""
    return [
        _overview(rows),
        _by_rule(rows),
        _unreproduced(rows),
        _differences(rows),
        _drop(rows),
        _failed(rows),
        _not_checked(rows),
    ]


def _overview(rows: list[dict]) -> tuple:
    runs = {row["run"] for row in rows if not is_unclaimed_log(row)}
    with_errors = {row["run"] for row in rows if row["errors"] and not is_unclaimed_log(row)}
    unclaimed = sum(1 for row in rows if is_unclaimed_log(row))
    status = Counter(row["status"] for row in rows)
    lines = [[name, f"{count:,}"] for name, count in sorted(status.items())]
    logs = (
        f" and {unclaimed:,} sample logs no results file claims (unplaced log)" if unclaimed else ""
    )
    retried = sum(row.get("retries") or 0 for row in rows)
    text = (
        f"{len(runs):,} runs{logs}, {len(rows):,} rows (one per run x task); {len(with_errors):,} runs have "
        "errors."
        + (
            f" Remote reads failed for a moment {retried:,} times and were retried (column `retries`)."
            if retried
            else ""
        )
    )
    return "Overview", text, ["status", "rows"], lines


def _by_rule(rows: list[dict]) -> tuple:
    rows_with: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for row in rows:
        for rule, count in row["rules"].items():
            rows_with[rule] += 1
            total[rule] += count
    lines = [
        [Link(rule, rule_url(rule)), rule_name(rule), f"{rows_with[rule]:,}", f"{total[rule]:,}"]
        for rule in sorted(total)
    ]
    return (
        "Findings by rule",
        "How many rows (run x task) each rule fired in; each id links to the rule's documentation "
        "(`lbnorm rules ID` prints it too).",
        ["rule", "name", "rows", "findings"],
        lines,
    )


def _unreproduced(rows: list[dict]) -> tuple:
    bad = [
        (row, key, entry)
        for row in rows
        if row["reproduced"] is False
        for key, entry in _unreproduced_of(row)
    ]
    # Re-derived in the published scale (the difference is published minus re-derived x --published-scale).
    lines = [
        [
            row["run"],
            row["model"],
            row["task"],
            key,
            _num(entry["published"]),
            _num(
                None
                if entry["published_diff"] is None
                else entry["published"] - entry["published_diff"]
            ),
            _num(entry["published_diff"]),
        ]
        for row, key, entry in sorted(bad, key=lambda item: natural_key(item[0]["run"]))
    ]
    text = f"{len(bad):,} published numbers are not reproduced by their logs."
    return (
        "Published numbers the logs do not reproduce",
        text,
        ["run", "model", "task", "metric", "published", "re-derived", "difference"],
        lines,
    )


def _unreproduced_of(row: dict) -> list[tuple[str, dict]]:
    """Each published metric of the row that is not reproduced (a row may publish several)."""
    found = [
        (key, entry) for key, entry in row["metrics"].items() if entry.get("reproduced") is False
    ]
    return found or [
        (
            row["published_metric"],
            {"published": row["published"], "published_diff": row["published_diff"]},
        )
    ]


def _differences(rows: list[dict]) -> tuple:
    counts: Counter[str] = Counter()
    for row in rows:
        diff = row["max_abs_diff"]
        if diff is not None:
            counts[next(label for bound, label in DIFF_BUCKETS if diff <= bound)] += 1
    lines = [[label, f"{counts[label]:,}"] for _, label in DIFF_BUCKETS]
    return (
        "Reported vs re-derived",
        (
            "The largest difference per row between a reported aggregate and the same "
            "aggregate from the logged or recomputed samples."
        ),
        ["largest difference", "rows"],
        lines,
    )


def _drop(rows: list[dict]) -> tuple:
    drop = sorted(
        (row for row in rows if row["drop_n"]),
        key=lambda r: (-((r["f1_nl"] or 0) - (r["reported"] or 0)), natural_key(r["run"])),
    )
    lines = [
        [
            row["run"],
            row["model"],
            _num(row["reported"]),
            _num(row["f1_recomputed"]),
            _num(row["f1_nl"]),
            _num(row["f1_nl_lstrip"]),
            _pct(row["rate_W"]),
            _pct(row["rate_D"]),
            _pct(row["rate_L"]),
        ]
        for row in drop
    ]
    text = (
        f"{len(drop):,} DROP runs, the ones newline rescoring helps most first. W: a number glued to text by "
        "a newline or tab; D: a decimal cut by the '.' stop; L: a gold answer inside a longer one."
    )
    return (
        "DROP",
        text,
        [
            "run",
            "model",
            "F1 reported",
            "F1 recomputed",
            "F1 split at newline",
            "F1 lstrip+split",
            "W",
            "D",
            "L",
        ],
        lines,
    )


def _failed(rows: list[dict]) -> tuple:
    failed = sorted(
        (row for row in rows if row["status"] in ("failed", "not audited")),
        key=lambda row: (natural_key(row["run"]), natural_key(row["log"] or "")),
    )
    lines = [[row["run"], row["log"], row["error"] or ""] for row in failed]
    return (
        "Units not audited",
        f"{len(failed):,} units could not be audited.",
        ["run", "log", "reason"],
        lines,
    )


def _not_checked(rows: list[dict]) -> tuple:
    """The audit's notes (what it could not check on a row, "ok" or not), by how many rows each is on."""
    counts = Counter(
        note for row in rows if row["notes"] for note in row["notes"].split(NOTES_SEPARATOR)
    )
    lines = [[note, f"{count:,}"] for note, count in counts.most_common()]
    with_notes = sum(1 for row in rows if row["notes"])
    return (
        "Checks not made",
        f"{with_notes:,} rows carry notes (the `notes` column): what the audit could not "
        "check there, and why. A maintainer decides whether it matters.",
        ["note", "rows"],
        lines,
    )


def _num(value) -> str:
    return "" if value is None else f"{value:.4f}"


def _pct(value) -> str:
    return "" if value is None else f"{100 * value:.1f}%"


def write_summaries(rows: list[dict], out: Path, plots: bool = True) -> list[Path]:
    # {title: png path}; empty without matplotlib
    drawn: dict[str, Path] = draw_plots(rows, out) if plots else {}
    parts = sections(rows)
    markdown, html_file = out / "summary.md", out / "summary.html"
    for path, text in (
        (markdown, _markdown(parts, drawn, out)),
        (html_file, page(parts, drawn)),
    ):
        with replaced(path) as handle:
            handle.write(text)
    return [markdown, html_file, *drawn.values()]


def _markdown(parts: list[tuple], plots: dict[str, Path], out: Path) -> str:
    text = ["# Leaderboard survey", ""]
    for title, intro, header, lines in parts:
        text += [f"## {title}", "", intro, ""]
        if lines:
            text += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            text += [
                "| " + " | ".join(_md_cell(v) for v in line) + " |" for line in lines[:MAX_LISTED]
            ]
            text.append("")
            if len(lines) > MAX_LISTED:
                text += [f"{MAX_LISTED:,} of {len(lines):,} rows listed; {_WHOLE}", ""]
    text += ["## Plots", ""]
    if plots:
        text += [f"![{title}]({path.relative_to(out).as_posix()})" for title, path in plots.items()]
    else:
        text.append(
            "No plots: they need lbnorm[survey] (matplotlib) and are left out by --no-plots."
        )
    return "\n".join(text) + "\n"


def _md_cell(value) -> str:
    """A cell made inert on GitHub; a link the summary makes itself (a rule's documentation) stays one."""
    if isinstance(value, Link):
        text = markdown_cell(value.text, MAX_CELL)
        return f"[{text}]({value.url})" if value.url else text
    return markdown_cell(value, MAX_CELL)
