"""Grouping units into the tasks executors send to workers.

A task costs a scheduler a few milliseconds (Dask) or a pickling round
trip (process pool) however small it is, and most logs of a leaderboard
are small, so small logs travel together: up to BATCH_BYTES of logs or
BATCH_UNITS units per task. A log larger than BATCH_BYTES is a task of its
own, so one huge model never holds up the others. Each worker still gets
several tasks, so the load stays balanced. The journal, the resume and the
table stay per unit.
"""

from __future__ import annotations

from .sources import Unit

BATCH_BYTES = 64 * 1024 * 1024
BATCH_UNITS = 64
TASKS_PER_WORKER = 8  # at least this many tasks per worker, when there are enough units
_RUN_UNIT_BYTES = 1024 * 1024  # a run's own unit reads its results file, a few MB at most


def batches(units: list[Unit], workers: int) -> list[list[Unit]]:
    """Consecutive units (a run's logs stay together, so its results file is read once per task)."""
    most = max(1, min(BATCH_UNITS, len(units) // max(1, workers * TASKS_PER_WORKER)))
    grouped: list[list[Unit]] = []
    current: list[Unit] = []
    size = 0
    for unit in units:
        cost = (unit.log.size or 0) if unit.log else _RUN_UNIT_BYTES
        if current and (len(current) >= most or size + cost > BATCH_BYTES):
            grouped.append(current)
            current, size = [], 0
        current.append(unit)
        size += cost
    if current:
        grouped.append(current)
    return grouped
