"""The summary's plots, drawn with matplotlib when it is installed (the `survey` extra); none otherwise.

Each plot shows one finding, with limits taken from the data (12 runs and
4,500 runs alike) and the runs that matter labelled:

- DROP: the F1 gained by splitting the answer at its first newline, per
  run, against the F1 reported (the deep dive's point: the scorer, not the
  model, lost those points); the runs that gain most are named.
- DROP W/D/L: the share of runs each pathology touches at all, and how
  much of each touched run's samples it touches (most runs have none, so a
  box plot of all runs sits at 0).
- Published vs re-derived: y = x is agreement; the runs not reproduced are
  red, and the furthest from the line named.
- Reported vs re-derived: the non-zero differences on a log scale; exact
  matches are counted in the title, not drawn at a made-up position.

Only APIs of matplotlib 3.8 (the `survey` extra's lower bound) are used.
"""

from __future__ import annotations

import math
from pathlib import Path

from .outputs import plot_folder, replaced

DPI = 200  # 8 x 5 inches: 1,600 x 1,000 pixels, sharp on a high-density screen and when zoomed
SIZE = (8, 5)
LABELLED = 8  # runs named on a plot at most: more would cover the points
RATES = (
    ("rate_W", "W: number glued by a newline"),
    ("rate_D", "D: decimal cut"),
    ("rate_L", "L: gold inside a longer answer"),
)


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
        ("DROP: F1 gained by newline rescoring, per run", "drop_f1.png", _drop_gain),
        ("DROP: runs the W/D/L pathologies touch", "drop_rates.png", _drop_rates),
        ("Published vs re-derived scores", "published.png", _published),
        ("Reported vs re-derived: largest difference per row", "differences.png", _differences),
    ):
        figure = plt.figure(figsize=SIZE)
        if draw(figure, rows):
            figure.suptitle(title, fontsize=11)
            figure.tight_layout()
            # No timestamp in the file, so a re-run writes the same bytes.
            with replaced(folder / name, binary=True) as handle:
                figure.savefig(handle, format="png", dpi=DPI, metadata={"Software": None})
            drawn[title] = folder / name
        plt.close(figure)
    return drawn


def _label(row: dict) -> str:
    """A run's short name on a plot: its model, else its folder."""
    name = row["model"] or row["run"].split("/")[0]
    return name if len(name) <= 32 else name[:31] + "…"


def _limits(values: list[float], floor: float | None = None) -> tuple[float, float]:
    """The data's range with a margin (a single value gets one of its own), never below `floor`."""
    low, high = min(values), max(values)
    margin = (high - low) * 0.08 or max(abs(high) * 0.1, 0.01)
    low, high = low - margin, high + margin
    return (max(low, floor) if floor is not None else low), high


def _name_points(axes, points: list[tuple[float, float, str]]) -> None:
    """Label points, in three staggered rows so that neighbours do not write over each other."""
    for number, (x, y, text) in enumerate(points):
        axes.annotate(
            text,
            (x, y),
            xytext=(6, (10, -14, -28)[number % 3]),
            textcoords="offset points",
            fontsize=7,
            arrowprops={"arrowstyle": "-", "color": "grey", "linewidth": 0.5},
        )


def _name_in_a_column(axes, points: list[tuple[float, float, str]]) -> None:
    """Label points from a column of names in the plot's lower right, below y = x, where points that agree
    leave room: names stacked there never write over each other, however close their points are."""
    for number, (x, y, text) in enumerate(sorted(points, key=lambda point: -point[1])):
        axes.annotate(
            text,
            (x, y),
            xytext=(0.6, 0.45 - 0.055 * number),
            textcoords="axes fraction",
            fontsize=7,
            va="center",
            arrowprops={"arrowstyle": "-", "color": "grey", "linewidth": 0.4},
        )


def _piles(points: list[tuple[float, float, dict]]) -> list[tuple[float, float, list[dict]]]:
    """Points at the same place, together: many runs share a score (a split of 8 docs has 9 F1 values at
    most), and 1,000 dots drawn on one spot look like one run."""
    piles: dict[tuple[float, float], list[dict]] = {}
    for x, y, row in points:
        piles.setdefault((round(x, 9), round(y, 9)), []).append(row)
    return [(x, y, rows) for (x, y), rows in piles.items()]


def _scatter_piles(axes, piles, color: str, label: str) -> int:
    """One marker per place, its area growing with the runs there; the most runs at one place."""
    if not piles:
        return 0
    most = max(len(rows) for _, _, rows in piles)
    axes.scatter(
        [x for x, _, _ in piles],
        [y for _, y, _ in piles],
        s=[14 + 186 * math.sqrt((len(rows) - 1) / max(most - 1, 1)) for _, _, rows in piles],
        color=color,
        alpha=0.75,
        label=label,
    )
    return most


def _area_note(most: int) -> str:
    return f"; marker area: runs at one place (up to {most:,})" if most > 1 else ""


def _pile_label(rows: list[dict], text) -> str:
    more = f" +{len(rows) - 1:,} more" if len(rows) > 1 else ""
    return f"{text(rows[0])}{more}"


def _drop_rows(rows: list[dict]) -> list[dict]:
    return [
        row
        for row in rows
        if row["drop_n"] and row["reported"] is not None and row["f1_nl"] is not None
    ]


def _drop_gain(figure, rows: list[dict]) -> bool:
    drop = _drop_rows(rows)
    if not drop:
        return False
    axes = figure.add_subplot()
    reported = [row["reported"] for row in drop]
    gains = [row["f1_nl"] - row["reported"] for row in drop]
    piles = _piles(list(zip(reported, gains, drop, strict=True)))
    most = _scatter_piles(axes, piles, "tab:blue", f"{len(drop):,} runs")
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlim(*_limits(reported))
    low, high = _limits([*gains, 0.0])
    axes.set_ylim(low, high + 0.08 * (high - low))  # room for the labels above the top points
    worst = sorted((pile for pile in piles if pile[1] > 0), key=lambda pile: (-pile[1], pile[0]))
    _name_points(axes, [(x, y, _pile_label(rows, _label)) for x, y, rows in worst[:LABELLED]])
    axes.set_xlabel("F1 reported")
    axes.set_ylabel("F1 rescored (split at the first newline) − reported")
    mean = sum(gains) / len(gains)
    axes.set_title(
        f"{len(drop):,} runs; mean gain {mean:+.4f}, largest {max(gains):+.4f}{_area_note(most)}",
        fontsize=9,
    )
    return True


def _drop_rates(figure, rows: list[dict]) -> bool:
    drop = [row for row in rows if row["drop_n"]]
    if not drop:
        return False
    shares, touched = figure.subplots(1, 2)
    names = [name for _, name in RATES]
    affected = [[100 * row[key] for row in drop if row[key]] for key, _ in RATES]
    share = [100 * len(values) / len(drop) for values in affected]
    bars = shares.barh(names, share, color="tab:orange")
    shares.bar_label(
        bars, labels=[f"{len(v):,} of {len(drop):,}" for v in affected], fontsize=8, padding=3
    )
    shares.set_xlim(0, max(105, max(share) * 1.25))
    shares.invert_yaxis()
    shares.set_xlabel("% of runs affected")
    for position, values in enumerate(affected):
        if values:  # a run's dot: the % of its samples affected (runs with none are left out)
            spread = [position + ((i * 0.618) % 1 - 0.5) * 0.5 for i in range(len(values))]
            touched.scatter(values, spread, s=10 if len(values) < 200 else 3, alpha=0.7)
    touched.set_yticks(range(len(names)), [name.split(":")[0] for name in names])
    touched.set_ylim(len(names) - 0.5, -0.5)
    everything = [value for values in affected for value in values]
    touched.set_xlim(*_limits(everything or [0.0, 1.0], floor=0.0))
    touched.set_xlabel("% of samples, per affected run")
    return True


def _published(figure, rows: list[dict]) -> bool:
    points = [
        row for row in rows if row["published"] is not None and row["published_diff"] is not None
    ]
    if not points:
        return False
    axes = figure.add_subplot()
    derived = [row["published"] - row["published_diff"] for row in points]
    published = [row["published"] for row in points]
    most = 0
    for reproduced, color in ((True, "tab:blue"), (False, "tab:red")):
        chosen = [i for i, row in enumerate(points) if bool(row["reproduced"]) is reproduced]
        piles = _piles([(derived[i], published[i], points[i]) for i in chosen])
        name = "reproduced" if reproduced else "not reproduced"
        most = max(most, _scatter_piles(axes, piles, color, f"{name} ({len(chosen):,})"))
    axes.set_title(f"{len(points):,} published scores{_area_note(most)}", fontsize=9)
    low, high = _limits(derived + published)
    axes.plot([low, high], [low, high], color="grey", linewidth=0.8, label="y = x (agreement)")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    unreproduced = [i for i, row in enumerate(points) if row["reproduced"] is False]
    far = sorted(
        _piles([(derived[i], published[i], points[i]) for i in unreproduced]),
        key=lambda pile: (-abs(pile[1] - pile[0]), pile[0]),
    )[:LABELLED]
    _name_in_a_column(
        axes,
        [
            (x, y, _pile_label(rows, lambda row: f"{_label(row)} ({row['task']})"))
            for x, y, rows in far
        ],
    )
    axes.set_xlabel("re-derived from the logs (published scale)")
    axes.set_ylabel("published")
    axes.legend(fontsize=8, loc="upper left")
    return True


def _differences(figure, rows: list[dict]) -> bool:
    values = [row["max_abs_diff"] for row in rows if row["max_abs_diff"] is not None]
    if not values:
        return False
    axes = figure.add_subplot()
    nonzero = [value for value in values if value > 0]
    exact = len(values) - len(nonzero)
    if nonzero:
        low, high = math.floor(math.log10(min(nonzero))), math.ceil(math.log10(max(nonzero)))
        edges = [10 ** (low + step / 4) for step in range(4 * max(high - low, 1) + 1)]
        axes.hist(nonzero, bins=edges)
        axes.set_xscale("log")
    axes.set_xlabel("|reported − re-derived| (rows with a difference)")
    axes.set_ylabel("rows")
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.set_title(
        f"{exact:,} of {len(values):,} rows match exactly (not drawn); {len(nonzero):,} differ",
        fontsize=9,
    )
    return True
