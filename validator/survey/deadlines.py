"""Every unit of survey work has a deadline (Limits.unit_timeout, --unit-timeout).

A unit that runs past it, or a worker that hangs under it, must not hold the
survey for ever: the executor stops that worker and the unit gets a "failed"
row saying so (isolation.py), the units it travelled with run again, and
--resume retries it. The deadline is watched from outside the worker, never
by the worker itself: a worker stuck in native code (a regular expression
holding the GIL) or stopped (SIGSTOP) cannot watch anything.

Workers say which unit of their batch they started, and when, through a
beacon: run_batch calls started(index) before each unit. The local pool
gives each worker process a small shared array the survey's process reads
(local_pool.py); on Dask, each running task's beacon lives in its worker's
process, and DaskDeadlines asks the workers for them every few seconds.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

# The local pool's worker: [batch number (1, 2, ... as received), unit index, monotonic start].
_BEACON = None
# A Dask worker's running tasks: task key -> (unit index, monotonic start).
_RUNNING: dict[str, tuple[int, float]] = {}
_TASK = threading.local()


class Overdue(Exception):
    """A unit ran past its deadline (or its worker hung under it), and its worker was stopped."""

    def __init__(self, index: int, seconds: float, deadline: float):
        super().__init__(index, seconds, deadline)
        self.index, self.seconds, self.deadline = index, seconds, deadline

    def reason(self) -> str:
        return (
            f"still running after its deadline of {self.deadline:g} s (--unit-timeout), so its "
            "worker was stopped: the log hangs or is too slow to audit, or its worker hung; audit "
            "it alone (lbnorm audit) to see why, or --resume runs it again"
        )


def use_beacon(beacon) -> None:
    """In a local pool worker: the shared array the survey's process reads."""
    global _BEACON
    _BEACON = beacon


def batch_received() -> None:
    """In a local pool worker: a new batch starts (its number is the count of batches received)."""
    if _BEACON is not None:
        # The start time first: a worker killed between the two writes must not leave the new batch
        # number beside the last batch's time (or none), which reads as a unit running for ages.
        _BEACON[1], _BEACON[2] = 0, time.monotonic()
        _BEACON[0] += 1


def started(index: int) -> None:
    """In a worker: the unit at `index` of the batch it runs starts now."""
    now = time.monotonic()
    if _BEACON is not None:
        _BEACON[1], _BEACON[2] = index, now
    key = getattr(_TASK, "key", None)
    if key is not None:
        _RUNNING[key] = (index, now)


@contextlib.contextmanager
def task(key: str) -> Iterator[None]:
    """On a Dask worker: the batch of task `key` runs in this thread (started() reports under its key)."""
    _TASK.key = key
    _RUNNING[key] = (0, time.monotonic())
    try:
        yield
    finally:
        _TASK.key = None
        _RUNNING.pop(key, None)


def running_units() -> dict[str, tuple[int, float]]:
    """On a Dask worker: each running task's unit index and how long that unit has run, in seconds."""
    now = time.monotonic()
    return {key: (index, now - since) for key, (index, since) in list(_RUNNING.items())}


class DaskDeadlines:
    """Watches a pass's tasks on a Dask cluster: a unit past the deadline has its task cancelled and its worker
    restarted (a thread cannot be stopped, and a worker whose only thread is stuck runs nothing else). The
    cancelled task's outcome is then its Overdue (overdue_for)."""

    def __init__(self, client, futures: list, deadline: float):
        self.client, self.deadline = client, deadline
        self.futures = {future.key: future for future in futures}
        self.overdue: dict[str, Overdue] = {}
        self.notes: list[str] = []
        self._stop = threading.Event()
        self.interval = min(5.0, max(deadline / 4, 0.2))
        threading.Thread(target=self._watch, name="lbnorm-unit-deadlines", daemon=True).start()

    def _watch(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                answers = self.client.run(running_units, on_error="return")
            except Exception:  # the client is closing or lost: its futures say so
                return
            for address, running in sorted(answers.items()):
                if isinstance(running, dict):
                    self._check(address, running)

    def _check(self, address: str, running: dict) -> None:
        late = [
            (key, index, seconds)
            for key, (index, seconds) in sorted(running.items())
            if seconds > self.deadline and key in self.futures and key not in self.overdue
        ]
        if not late:
            return
        for key, index, seconds in late:
            self.overdue[key] = Overdue(index, seconds, self.deadline)
        self.client.cancel([self.futures[key] for key, _, _ in late])
        try:
            self.client.restart_workers([address], raise_for_error=True)
        except Exception as exc:  # no nanny to restart it: its thread stays busy
            self.notes.append(
                f"Dask worker {address} still runs a unit past its deadline and could not be "
                f"restarted ({type(exc).__name__}); restart it"
            )

    def overdue_for(self, key: str) -> Overdue | None:
        return self.overdue.get(key)

    def stop(self) -> None:
        self._stop.set()
