"""The survey's progress (validator/survey/progress.py): weighted by bytes, a bar on a terminal, lines elsewhere."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

import pytest

from validator.survey.progress import Progress, clock, weights


def unit(size: int | None):
    """What Progress reads of a unit: the size of the file it audits."""
    return SimpleNamespace(log=SimpleNamespace(size=size), run=None)


def test_the_share_done_is_weighted_by_bytes_not_units():
    units = [unit(9_000_000), unit(500_000), unit(500_000)]
    stream = io.StringIO()
    meter = Progress(units, stream, interval=3600, terminal=False)
    meter.step(units[0])
    share, _, left = meter.figures()
    assert share == pytest.approx(0.9)
    assert left is not None
    assert stream.getvalue().startswith(
        "lbnorm survey:  90% (1/3 units, 9.0 MB of 10.0 MB), elapsed "
    )


def test_a_unit_without_a_size_counts_as_the_average_and_no_size_at_all_counts_units():
    assert weights([unit(100), unit(None), unit(300)]) == [100.0, 200.0, 300.0]
    assert weights([unit(None), unit(None)]) == [1.0, 1.0]
    meter = Progress([unit(None), unit(None)], io.StringIO(), terminal=False)
    assert meter.what() == "0/2 units"


def test_off_a_terminal_a_line_comes_at_every_tenth_and_at_the_end_not_per_unit():
    units = [unit(1_000) for _ in range(100)]
    stream = io.StringIO()
    meter = Progress(units, stream, interval=3600, terminal=False)
    for each in units:
        meter.step(each)
    lines = stream.getvalue().splitlines()
    assert [re.match(r"lbnorm survey: +(\d+)%", line)[1] for line in lines] == [
        str(10 * step) for step in range(1, 11)
    ]
    assert lines[-1].startswith(
        "lbnorm survey: 100% (100/100 units, 100 kB of 100 kB), elapsed 0:00:0"
    )
    assert lines[-1].endswith(", ETA 0:00:00")


def test_off_a_terminal_a_line_comes_every_interval_too():
    units = [unit(1_000) for _ in range(1000)]
    stream = io.StringIO()
    meter = Progress(units, stream, interval=0, terminal=False)
    for each in units[:5]:
        meter.step(each)
    assert len(stream.getvalue().splitlines()) == 5


def test_on_a_terminal_the_bar_shows_percent_elapsed_and_eta():
    pytest.importorskip("tqdm", reason="the progress bar is tqdm's (the `survey` extra)")
    units = [unit(2_000_000), unit(2_000_000)]
    stream = io.StringIO()
    meter = Progress(units, stream, terminal=True)
    for each in units:
        meter.step(each)
    drawn = stream.getvalue().replace("\r", "\n").splitlines()[-1]
    assert re.fullmatch(
        r"100%\|[█#]+\| 2/2 units, 4\.0 MB of 4\.0 MB \[\d\d:\d\d<\d\d:\d\d\]", drawn.strip()
    ), drawn


def test_clock():
    assert clock(0) == "0:00:00"
    assert clock(3725.9) == "1:02:05"
    assert clock(200_000) == "56 h"
