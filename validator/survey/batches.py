"""Grouping units into the tasks executors send to workers.

A task costs a scheduler a few milliseconds (Dask) or a pickling round
trip (process pool) however small it is, and most logs of a leaderboard
are small, so logs travel together. A survey is cut into whole rounds of
tasks (a multiple of the workers, so none idles at the end for want of
one), at most TASKS_PER_WORKER per worker so the load stays balanced, but
none smaller than MIN_TASK_BYTES while there are bytes to share: on a
small survey, many tiny tasks would be mostly their own cost. Units go in
order (a run's logs stay together, so its results file is read once per
task) until a task holds its share of the bytes, BATCH_BYTES, or
BATCH_UNITS units; a log larger than BATCH_BYTES is a task of its own, so
one huge model never holds up the others. The journal, the resume and the
table stay per unit.
"""

from __future__ import annotations

import math

from .sources import Unit

BATCH_BYTES = 64 * 1024 * 1024
BATCH_UNITS = 256  # what a survey killed mid-task audits again, per task in flight
TASKS_PER_WORKER = 8
MIN_TASK_BYTES = 8 * 1024 * 1024
UNKNOWN_BYTES = (
    1024 * 1024
)  # a file whose listing gave no size (HTTP directory pages): counted as 1 MB


def batches(units: list[Unit], workers: int) -> list[list[Unit]]:
    """Consecutive units in tasks of about equal bytes (see the module docstring)."""
    workers = max(1, workers)
    costs = [_size(unit.log if unit.log else unit.run.results) for unit in units]
    total = sum(costs)
    tasks = max(
        min(workers * TASKS_PER_WORKER, math.ceil(total / MIN_TASK_BYTES)),
        math.ceil(len(units) / BATCH_UNITS),
        1,
    )
    share = max(
        1, total / (math.ceil(tasks / workers) * workers)
    )  # empty files alone: BATCH_UNITS decides
    grouped: list[list[Unit]] = []
    current: list[Unit] = []
    size = 0
    for unit, cost in zip(units, costs, strict=True):
        if current and (size >= share or len(current) >= BATCH_UNITS or size + cost > BATCH_BYTES):
            grouped.append(current)
            current, size = [], 0
        current.append(unit)
        size += cost
    if current:
        grouped.append(current)
    return grouped


def _size(ref) -> int:
    return UNKNOWN_BYTES if ref.size is None else ref.size
