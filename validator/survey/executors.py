"""Where units run: a local process pool (default) or a Dask distributed cluster (the `dask` extra).

Each executor yields (unit, rows) as units finish, in whatever order they
finish; the table is sorted at the end, so the order never shows. A lost
worker is the engine's business: Dask reschedules its tasks elsewhere; the
local pool is restarted and the unfinished units resubmitted. A unit that
cannot be finished is a "failed" row, never a hole.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterator

from .sources import Unit
from .work import failed_row

MAX_POOL_RESTARTS = 3

Result = tuple[Unit, list[dict]]


class LocalPool:
    """concurrent.futures over processes; one worker runs the units inline (no pool to start)."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or os.cpu_count() or 1

    def describe(self) -> str:
        return f"local pool of {self.workers} process{'es' if self.workers > 1 else ''}"

    def run(self, function: Callable[[Unit], list[dict]], units: list[Unit]) -> Iterator[Result]:
        if self.workers == 1:
            for unit in units:
                yield unit, function(unit)
            return
        pending = {unit.key: unit for unit in units}
        for _ in range(MAX_POOL_RESTARTS + 1):
            if not pending:
                return
            try:
                with ProcessPoolExecutor(self.workers) as pool:
                    futures = {pool.submit(function, unit): unit for unit in pending.values()}
                    for future in as_completed(futures):
                        unit = futures[future]
                        rows = future.result()
                        del pending[unit.key]
                        yield unit, rows
            except BrokenProcessPool:
                continue  # a worker died (killed, out of memory): a new pool takes the unfinished units
        for unit in pending.values():
            yield unit, [failed_row(unit, f"a worker process died {MAX_POOL_RESTARTS + 1} times while this unit "
                                          "was pending; run it alone to see whether it is the cause")]


class DaskCluster:
    """The same units on a dask.distributed cluster: an existing one (address) or a local one started here."""

    def __init__(self, address: str | None = None, local_workers: int | None = None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise RuntimeError("--scheduler and --local-cluster need dask.distributed; install lbnorm[dask]") from None
        self.cluster = None
        if address is None:
            # Loopback only: the cluster is this machine's, not the network's.
            self.cluster = LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True,
                                        host="127.0.0.1", dashboard_address=None)
            address = self.cluster.scheduler_address
        self.client = Client(address)
        self.address = address

    def describe(self) -> str:
        workers = len(self.client.scheduler_info().get("workers", {}))
        return f"Dask cluster at {self.address} ({workers} workers)"

    def run(self, function: Callable[[Unit], list[dict]], units: list[Unit]) -> Iterator[Result]:
        from distributed import as_completed as dask_completed

        # pure=False: a unit is run even if an identical one ran before (keys stay unique per survey).
        futures = self.client.map(function, units, key=[f"lbnorm-survey-{unit.key}" for unit in units], pure=False)
        by_key = {future.key: unit for future, unit in zip(futures, units)}
        for future, value in dask_completed(futures, with_results=True, raise_errors=False):
            unit = by_key[future.key]
            if isinstance(value, BaseException):  # e.g. KilledWorker: the unit killed every worker it met
                yield unit, [failed_row(unit, f"the cluster could not run this unit ({type(value).__name__}: "
                                              f"{str(value)[:200]})")]
            else:
                yield unit, value
            future.release()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
