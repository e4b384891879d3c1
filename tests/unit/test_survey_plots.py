"""The summary's plots (validator/survey/plots.py) show the finding: limits from the data, the runs that matter
named, exact matches counted rather than drawn at a made-up place, high-DPI files."""

from __future__ import annotations

import struct

import pytest

pytest.importorskip("matplotlib", reason="the plots need the `survey` extra (matplotlib)")

from matplotlib.figure import Figure  # noqa: E402

from validator.survey import plots  # noqa: E402
from validator.survey.rows import blank_row  # noqa: E402


def drop_row(number: int, reported: float, rescored: float, rate_w: float = 0.0) -> dict:
    row = blank_row(f"org{number}__m/results.json", f"org{number}/model-{number}", "drop", "log")
    row.update(drop_n=8, reported=reported, f1_nl=rescored, max_abs_diff=0.0)
    row.update(rate_W=rate_w, rate_D=0.0, rate_L=0.0)
    return row


def texts(figure) -> list[str]:
    return [text.get_text() for axes in figure.axes for text in axes.texts]


def test_the_drop_gain_is_drawn_on_the_datas_own_scale_with_the_largest_gains_named():
    rows = [drop_row(n, 0.10 + 0.01 * n, 0.10 + 0.01 * n) for n in range(11)]
    rows.append(drop_row(11, 0.12, 0.20))  # the one run the newline split helps
    figure = Figure()
    assert plots._drop_gain(figure, rows)
    axes = figure.axes[0]
    low, high = axes.get_xlim()
    assert 0.05 < low < 0.10 and 0.20 < high < 0.25, "x from the runs' F1, not 0-1"
    bottom, top = axes.get_ylim()
    assert bottom < 0 < 0.08 < top < 0.15, "y is rescored - reported"
    assert texts(figure) == ["org11/model-11"]


def test_w_d_l_are_shares_of_runs_affected_and_the_affected_runs_alone():
    rows = [drop_row(n, 0.5, 0.5, rate_w=0.25 if n < 3 else 0.0) for n in range(12)]
    figure = Figure()
    assert plots._drop_rates(figure, rows)
    shares, touched = figure.axes
    assert [bar.get_width() for bar in shares.patches] == [25.0, 0.0, 0.0]
    assert [text.get_text() for text in shares.texts] == ["3 of 12", "0 of 12", "0 of 12"]
    assert shares.get_xlabel() == "% of runs affected"
    dots = touched.collections[0].get_offsets()
    assert len(dots) == 3 and all(x == 25.0 for x, _ in dots), "runs with no W are not drawn"


def test_published_against_re_derived_has_y_equals_x_and_names_the_runs_not_reproduced():
    rows = []
    for n in range(12):
        row = drop_row(n, 0.5, 0.5)
        missed = n == 4
        row.update(published=50.0 + (3 if missed else 0), published_diff=3.0 if missed else 0.0)
        row.update(reproduced=not missed, task="drop")
        rows.append(row)
    figure = Figure()
    assert plots._published(figure, rows)
    axes = figure.axes[0]
    (diagonal,) = axes.lines
    xs, ys = diagonal.get_data()
    assert list(xs) == list(ys), "the line is y = x"
    assert texts(figure) == ["org4/model-4 (drop)"]


def test_exact_matches_are_counted_not_drawn_at_a_made_up_difference():
    rows = [drop_row(n, 0.5, 0.5) for n in range(10)]
    rows[0]["max_abs_diff"], rows[1]["max_abs_diff"] = 0.02, 0.3
    figure = Figure()
    assert plots._differences(figure, rows)
    axes = figure.axes[0]
    assert axes.get_title() == "8 of 10 rows match exactly (not drawn); 2 differ"
    assert sum(patch.get_height() for patch in axes.patches) == 2
    assert axes.get_xscale() == "log" and axes.get_xlim()[0] >= 1e-3


def test_the_files_are_high_dpi(tmp_path):
    rows = [drop_row(n, 0.1 * n, 0.1 * n + (0.05 if n == 3 else 0)) for n in range(6)]
    drawn = plots.draw_plots(rows, tmp_path)
    assert drawn
    for path in drawn.values():
        width, height = struct.unpack(">II", path.read_bytes()[16:24])  # the PNG's IHDR
        assert (width, height) == (1600, 1000), path.name
