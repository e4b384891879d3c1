"""How far a survey is: a progress bar on a terminal, a plain line at a steady interval anywhere else.

Units range from a results file of a few kilobytes to a log of a gigabyte,
so the share done and the ETA are weighted by bytes (each unit's file size;
a unit whose store gave no size counts as the average of those that did,
and with no size at all every unit counts the same). On a terminal the bar
is tqdm's (the `survey` extra); in a CI log, a batch job or a cluster's
driver one line is printed every `interval` seconds and at every tenth of
the work, with the same figures, so a log shows that the survey is alive
and when it will end.
"""

from __future__ import annotations

import time
from typing import TextIO

from .sources import Unit

STEPS = 10  # off a terminal, a line at every tenth of the work too


def weights(units: list[Unit]) -> list[float]:
    """Each unit's share of the work: its file's size in bytes (see the module docstring)."""
    sizes = [(unit.log or unit.run.results).size for unit in units]
    known = [size for size in sizes if size is not None]
    if not known:
        return [1.0] * len(units)
    average = sum(known) / len(known)
    return [float(max(size if size is not None else average, 1)) for size in sizes]


def clock(seconds: float) -> str:
    """`0:03:40`, or `31 h` past a day."""
    if seconds >= 86400:
        return f"{seconds / 3600:,.0f} h"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def size(byte_count: float) -> str:
    if byte_count >= 1e9:
        return f"{byte_count / 1e9:,.2f} GB"
    return f"{byte_count / 1e6:,.1f} MB" if byte_count >= 1e6 else f"{byte_count / 1e3:,.0f} kB"


class Progress:
    """Counts finished units; draws a bar (terminal) or prints a line now and then (anything else)."""

    def __init__(
        self,
        units: list[Unit],
        stream: TextIO | None,
        interval: float = 30.0,
        terminal: bool | None = None,
    ):
        self.weights = {
            id(unit): weight for unit, weight in zip(units, weights(units), strict=True)
        }
        self.sized = any((unit.log or unit.run.results).size is not None for unit in units)
        self.total, self.units = sum(self.weights.values()), len(units)
        self.done, self.weight_done = 0, 0.0
        self.stream, self.interval = stream, interval
        self.start = self.last_line = time.monotonic()
        self.last_step = 0
        self.terminal = stream is not None and (stream.isatty() if terminal is None else terminal)
        self.bar = None  # drawn at the first unit, below the survey's first line

    def figures(self) -> tuple[float, float, float | None]:
        """(share done 0..1, seconds elapsed, seconds left or None before any unit finished)."""
        elapsed = time.monotonic() - self.start
        share = self.weight_done / self.total if self.total else 1.0
        left = elapsed * (1 - share) / share if share > 0 else None
        return share, elapsed, left

    def what(self) -> str:
        done = f"{self.done:,}/{self.units:,} units"
        if not self.sized:
            return done
        return f"{done}, {size(self.weight_done)} of {size(self.total)}"

    def step(self, unit: Unit) -> None:
        self.done += 1
        weight = self.weights.get(id(unit), 0.0)
        self.weight_done += weight
        if self.stream is None:
            return
        if self.terminal and self.bar is None:
            self.bar = _bar(self.total, self.stream, self.what())
            self.terminal = self.bar is not None
        if self.bar is not None:
            self.bar.set_description_str(self.what(), refresh=False)
            self.bar.update(weight)
            if self.done == self.units:
                self.bar.close()
            return
        now = time.monotonic()
        step = int(STEPS * self.weight_done / self.total) if self.total else STEPS
        if (
            now - self.last_line >= self.interval
            or step > self.last_step
            or self.done == self.units
        ):
            self.last_line, self.last_step = now, step
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def line(self) -> str:
        share, elapsed, left = self.figures()
        eta = clock(left) if left is not None else "unknown"
        return f"lbnorm survey: {100 * share:3.0f}% ({self.what()}), elapsed {clock(elapsed)}, ETA {eta}"

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _bar(total: float, stream: TextIO, what: str):
    """tqdm's bar weighted by bytes; None (plain lines) without tqdm."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(
        total=total,
        desc=what,
        file=stream,
        bar_format="{percentage:3.0f}%|{bar}| {desc} [{elapsed}<{remaining}]",
        smoothing=0,  # the average rate so far: units differ too much in size for a recent one
        mininterval=0.2,
        dynamic_ncols=True,
        leave=True,
    )
