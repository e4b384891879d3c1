"""The summary a maintainer reads first: summary.md and summary.html beside the table.

Sections: what was surveyed, findings by rule, published numbers that the
logs do not reproduce, reported-vs-re-derived differences, the DROP
numbers per run (reported F1, newline-rescored F1, W/D/L rates), and the
units that failed. Plots come from plots.py when matplotlib is installed.
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path

from ..io.safe_text import markdown_cell
from .outputs import replaced
from .plots import draw_plots
from .rows import NOTES_SEPARATOR, is_unclaimed_log

MAX_LISTED = 50  # rows per section; the table has them all
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
    rows_with, total = Counter(), Counter()
    for row in rows:
        for rule, count in row["rules"].items():
            rows_with[rule] += 1
            total[rule] += count
    lines = [[rule, f"{rows_with[rule]:,}", f"{total[rule]:,}"] for rule in sorted(total)]
    return (
        "Findings by rule",
        "How many rows (run x task) each rule fired in.",
        ["rule", "rows", "findings"],
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
        for row, key, entry in bad[:MAX_LISTED]
    ]
    text = (
        f"{len(bad):,} published numbers are not reproduced by their logs"
        f"{' (first ' + str(MAX_LISTED) + ' listed)' if len(bad) > MAX_LISTED else ''}."
    )
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
    counts = Counter()
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
        key=lambda r: -((r["f1_nl"] or 0) - (r["reported"] or 0)),
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
        for row in drop[:MAX_LISTED]
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
    failed = [row for row in rows if row["status"] in ("failed", "not audited")]
    lines = [[row["run"], row["log"], row["error"] or ""] for row in failed[:MAX_LISTED]]
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
    lines = [[note, f"{count:,}"] for note, count in counts.most_common(MAX_LISTED)]
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
    plots = draw_plots(rows, out) if plots else {}  # {title: png path}; empty without matplotlib
    parts = sections(rows)
    markdown, page = out / "summary.md", out / "summary.html"
    for path, text in ((markdown, _markdown(parts, plots, out)), (page, _html(parts, plots))):
        with replaced(path) as handle:
            handle.write(text)
    return [markdown, page, *plots.values()]


def _markdown(parts: list[tuple], plots: dict[str, Path], out: Path) -> str:
    text = ["# Leaderboard survey", ""]
    for title, intro, header, lines in parts:
        text += [f"## {title}", "", intro, ""]
        if lines:
            text += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            text += [
                "| " + " | ".join(markdown_cell(v, MAX_CELL) for v in line) + " |" for line in lines
            ]
            text.append("")
    text += ["## Plots", ""]
    if plots:
        text += [f"![{title}]({path.relative_to(out).as_posix()})" for title, path in plots.items()]
    else:
        text.append(
            "No plots: they need lbnorm[survey] (matplotlib) and are left out by --no-plots."
        )
    return "\n".join(text) + "\n"


def _html(parts: list[tuple], plots: dict[str, Path]) -> str:
    import base64

    body = ["<h1>Leaderboard survey</h1>"]
    for title, intro, header, lines in parts:
        body += [f"<h2>{html.escape(title)}</h2>", f"<p>{html.escape(intro)}</p>"]
        if lines:
            body.append(
                "<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
            )
            body += [
                "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in line) + "</tr>"
                for line in lines
            ]
            body.append("</table>")
    body.append("<h2>Plots</h2>")
    for title, path in plots.items():
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        body.append(
            f'<figure><img alt="{html.escape(title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(title)}</figcaption></figure>"
        )
    if not plots:
        body.append(
            "<p>No plots: they need lbnorm[survey] (matplotlib) and are left out by --no-plots.</p>"
        )
    style = (
        "body{font-family:sans-serif;max-width:70em;margin:auto}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}img{max-width:100%}"
    )
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Leaderboard survey</title>'
        f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n"
    )
