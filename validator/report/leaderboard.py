"""The leaderboard's files: leaderboard.csv, .json, .md and a self-contained sortable .html.

Every file is a function of the board alone: no timestamp, no absolute path,
no order but the board's, "\\n" line endings. The same submissions give the
same bytes. CSV and JSON carry full precision (a float's shortest repr, as
`lbnorm normalize --output-format json` writes it); Markdown and HTML show
two decimals, as leaderboards publish them.
"""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path

from ..check.leaderboard import Board
from ..core.version import __version__
from ..io.safe_text import markdown_cell
from ..survey.summary_html import SCRIPT, STYLE, table

FILES = ("leaderboard.csv", "leaderboard.json", "leaderboard.md", "leaderboard.html")


def write(board: Board, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in zip(
        FILES, (as_csv(board), as_json(board), as_markdown(board), as_html(board)), strict=True
    ):
        path = out / name
        path.write_bytes(text.encode("utf-8"))
        written.append(path)
    return written


def _header(board: Board) -> list[str]:
    return ["rank", "model", "average", *board.benchmarks, "results", "sha256", "submission"]


def as_csv(board: Board) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_header(board))
    for entry in board.entries:
        writer.writerow(
            [
                entry.rank,
                entry.model,
                repr(entry.average),
                *(repr(entry.scores[bench]) for bench in board.benchmarks),
                entry.results,
                entry.sha256,
                entry.submission,
            ]
        )
    return buffer.getvalue()


def as_json(board: Board) -> str:
    document = {
        "lbnorm_version": __version__,
        "profile": board.profile,
        "benchmarks": [
            {"id": bench, "name": board.names.get(bench, bench)} for bench in board.benchmarks
        ],
        "entries": [
            {
                "rank": entry.rank,
                "model": entry.model,
                "average": entry.average,
                "scores": {bench: entry.scores[bench] for bench in board.benchmarks},
                "results": entry.results,
                "sha256": entry.sha256,
                "submission": entry.submission,
            }
            for entry in board.entries
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _shown_header(board: Board) -> list[str]:
    names = [board.names.get(bench, bench) for bench in board.benchmarks]
    return ["rank", "model", "average", *names, "results file", "sha256"]


def _shown_lines(board: Board) -> list[list[str]]:
    return [
        [
            str(entry.rank),
            entry.model,
            f"{entry.average:.2f}",
            *(f"{entry.scores[bench]:.2f}" for bench in board.benchmarks),
            entry.results,
            entry.sha256[:12],
        ]
        for entry in board.entries
    ]


def _intro(board: Board) -> str:
    count = len(board.entries)
    return (
        f"{count:,} submission{'s' if count != 1 else ''} accepted by `lbnorm check` (profile "
        f"{board.profile}). Every score is recomputed from the results file named on its row, whose "
        "SHA-256 is given; the full-precision numbers and hashes are in leaderboard.csv and .json."
    )


def as_markdown(board: Board) -> str:
    header = _shown_header(board)
    lines = [
        "# Leaderboard",
        "",
        _intro(board),
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += [
        "| " + " | ".join(markdown_cell(cell, 300) for cell in row) + " |"
        for row in _shown_lines(board)
    ]
    return "\n".join(lines) + "\n"


def as_html(board: Board) -> str:
    section = (
        f"<section><h1>Leaderboard</h1><p>{html.escape(_intro(board))}</p>"
        f"{table(_shown_header(board), _shown_lines(board))}</section>"
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Leaderboard</title><style>{STYLE}</style></head>"
        f"<body>{section}<script>{SCRIPT}</script></body></html>\n"
    )
