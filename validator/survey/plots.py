"""The summary's plots, drawn with matplotlib when it is installed (the `survey` extra); none otherwise."""

from __future__ import annotations

import math
from pathlib import Path

from .outputs import plot_folder, replaced


def draw_plots(rows: list[dict], out: Path) -> dict[str, Path]:
    try:
        import matplotlib
    except ImportError:
        return {}
    matplotlib.use("Agg")  # files only: no display, no GUI toolkit
    import matplotlib.pyplot as plt

    folder = plot_folder(out)
    drawn = {}
    for title, name, draw in (
        ("Reported vs re-derived: largest difference per row", "differences.png", _differences),
        (
            "DROP: reported F1 against newline-rescored F1, one point per run",
            "drop_f1.png",
            _drop_f1,
        ),
        ("DROP: W/D/L rates across the leaderboard", "drop_rates.png", _drop_rates),
        ("Published vs re-derived scores", "published.png", _published),
    ):
        figure, axes = plt.subplots(figsize=(7, 4.5))
        if draw(axes, rows):
            axes.set_title(title, fontsize=10)
            figure.tight_layout()
            # No timestamp in the file, so a re-run writes the same bytes.
            with replaced(folder / name, binary=True) as handle:
                figure.savefig(handle, format="png", dpi=90, metadata={"Software": None})
            drawn[title] = folder / name
        plt.close(figure)
    return drawn


def _differences(axes, rows: list[dict]) -> bool:
    values = [row["max_abs_diff"] for row in rows if row["max_abs_diff"] is not None]
    if not values:
        return False
    logs = [math.log10(v) if v > 0 else -12 for v in values]
    axes.hist(logs, bins=30)
    axes.set_xlabel("log10 |reported - re-derived| (-12: exact)")
    axes.set_ylabel("rows")
    return True


def _drop_rows(rows: list[dict]) -> list[dict]:
    return [
        row
        for row in rows
        if row["drop_n"] and row["reported"] is not None and row["f1_nl"] is not None
    ]


def _drop_f1(axes, rows: list[dict]) -> bool:
    drop = _drop_rows(rows)
    if not drop:
        return False
    axes.scatter([r["reported"] for r in drop], [r["f1_nl"] for r in drop], s=8)
    axes.plot([0, 1], [0, 1], linewidth=0.8, color="grey")
    axes.set_xlabel("F1 reported")
    axes.set_ylabel("F1 split at the first newline")
    return True


def _drop_rates(axes, rows: list[dict]) -> bool:
    drop = [row for row in rows if row["drop_n"]]
    if not drop:
        return False
    series = [[100 * (row[name] or 0) for row in drop] for name in ("rate_W", "rate_D", "rate_L")]
    axes.boxplot(series, tick_labels=["W glued", "D decimal cut", "L long answer"])
    axes.set_ylabel("% of samples per run")
    return True


def _published(axes, rows: list[dict]) -> bool:
    points = [
        row for row in rows if row["published"] is not None and row["published_diff"] is not None
    ]
    if not points:
        return False
    for reproduced, color in ((True, "tab:blue"), (False, "tab:red")):
        chosen = [row for row in points if row["reproduced"] is reproduced]
        axes.scatter(
            [row["published"] - row["published_diff"] for row in chosen],
            [row["published"] for row in chosen],
            s=8,
            color=color,
            label="reproduced" if reproduced else "not reproduced",
        )
    axes.set_xlabel("re-derived from the logs")
    axes.set_ylabel("published")
    axes.legend()
    return True
