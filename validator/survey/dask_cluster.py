"""The same units on a dask.distributed cluster (the `dask` extra): an existing one, or a local one started here.

Units travel in batches (batches.py: small logs together, a big log
alone), because a task costs the scheduler a few milliseconds whatever its
size; batches come back as they finish, and the table is sorted at the end,
so the order never shows. Dask reschedules a lost worker's tasks elsewhere
and gives a task up (KilledWorker) once it was on every worker that died
under it; such a batch is split until the unit that kills workers stands
alone (isolation.py). The default executor, the local process pool, is
local_pool.py.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import pickle
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ..core import version
from ..io.limits import DEFAULT_LIMITS
from . import deadlines
from .dask_workers import (
    WorkerMismatch,
    ctrl_c_ignored_by_its_processes,
    prepare_workers,
    prepared_and_frozen,
    quiet_dask_logs,
    run_pickled,
    unreadable,
)
from .isolation import Batch, ClusterLost, Outcome, Result, WorkerLost, isolate

if TYPE_CHECKING:  # an optional extra: imported where a cluster is made
    from distributed import Client

# --local-cluster's Dask settings (DaskCluster below), held from before the cluster starts until it is closed:
# the scheduler runs in this process and reads some of them as it runs, and a nanny passes on to a worker it
# restarts only the settings in force at the restart.
# The background work a dashboard or a long-lived shared cluster needs is left out: the cluster has neither,
# and its scheduler and nannies share this machine's cores with the workers. Measured per survey of 4.5 CPU-s
# on 2 workers: the statistical profiler cost 10-13% of the tasks' CPU; the 20 ms event-loop tick, the 500 ms
# system monitor, the 100 ms memory monitor and the active memory manager (tasks return small rows: nothing to
# rebalance) together about 0.2 CPU-s, half of Dask's own CPU. The nannies still restart a worker over its
# memory limit, within a second.
# Dask starts workers with MALLOC_TRIM_THRESHOLD_=65536, so glibc hands freed memory back to the system at
# once; an audit allocates and frees a few kilobytes per record (each log line and its strings) and paid for
# it in page faults: a worker took 10 times as many, and 0.1-0.2 s more system CPU per survey of 3.5 s. None
# unsets it (glibc's own adaptive threshold); a worker's memory stays bounded by the survey's own limits.
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.active-memory-manager.start": False,
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    # A task whose worker died is lost at once (KilledWorker), not rerun whole on up to 3 more workers: the
    # survey splits a lost batch to find the unit that kills workers (isolation.py), and Dask's retries of the
    # whole batch would only kill 3 more workers per halving.
    "distributed.scheduler.allowed-failures": 0,
    # Dask retries a refused connection until this timeout (30 s by default). When a unit kills its worker,
    # the scheduler may still try to gather a result from that worker, and the survey waits out the timeout.
    # Every process of this cluster is on this machine, where a live peer accepts a connection at once. The
    # Client's own timeouts follow it (connecting to the scheduler: 5 s; closing: 10 s).
    "distributed.comm.timeouts.connect": "5s",
}


def batch_key(batch: Batch) -> str:
    return (
        batch[0].key
        if len(batch) == 1
        else hashlib.sha256("".join(u.key for u in batch).encode()).hexdigest()
    )


def _has_bokeh() -> bool:
    """On the scheduler: whether it can draw the dashboard (Dask serves it only with bokeh)."""
    import importlib.util

    return importlib.util.find_spec("bokeh") is not None


class SourcesUnseen(RuntimeError):
    """A worker of a cluster the survey did not start cannot read a source: every unit of it would fail there."""


# How long a survey waits for an existing cluster's first worker: tasks sent to a scheduler without one wait
# for ever, and a survey that hangs is worse than one that says why it cannot start.
WORKERS_TIMEOUT = 60.0


def _wait_for_a_worker(client, address: str, timeout: float) -> None:
    from distributed import TimeoutError as DaskTimeout

    try:
        client.wait_for_workers(1, timeout=timeout)
    except (DaskTimeout, TimeoutError):
        raise RuntimeError(
            f"the Dask scheduler at {address} has had no worker for {timeout:.0f} s; start workers "
            f"(dask worker {address}) or survey without --scheduler"
        ) from None


class _NoWorkerWatch:
    """Cancels a pass's tasks once the scheduler has had no worker for `timeout` seconds: Dask waits for ever
    for workers that died and that nothing restarts (a cluster without nannies), and a survey that hangs is
    worse than one that stops and says why."""

    def __init__(self, client, futures: list, timeout: float):
        self.client, self.futures, self.timeout = client, futures, timeout
        self.fired, self._stop = False, threading.Event()
        threading.Thread(target=self._watch, name="lbnorm-no-worker-watch", daemon=True).start()

    def _watch(self) -> None:
        since = None
        while not self._stop.wait(min(5.0, self.timeout / 4)):
            try:
                workers = len(self.client.nthreads())
            except Exception:  # the client is closing or lost: its futures say so
                return
            since = None if workers else since or time.monotonic()
            if since is not None and time.monotonic() - since >= self.timeout:
                self.fired = True
                self.client.cancel(self.futures)
                return

    def stop(self) -> None:
        self._stop.set()

    def reason(self, address: str) -> str:
        finished = "the units finished so far are in the survey's journal"
        if self.fired:
            return (
                f"the Dask scheduler at {address} has had no worker for {self.timeout:.0f} s: its workers died "
                f"and nothing restarted them; {finished}: start workers and survey again with --resume"
            )
        return (
            f"the Dask scheduler at {address} cancelled the survey's tasks (it restarted, or the connection to "
            f"it was lost); {finished}: survey again with --resume"
        )


class DaskCluster:
    """The same units on a dask.distributed cluster: an existing one (address) or a local one started here."""

    def __init__(
        self,
        address: str | None = None,
        local_workers: int | None = None,
        workers_timeout: float = WORKERS_TIMEOUT,
        deadline: float = DEFAULT_LIMITS.unit_timeout,
    ):
        self.workers_timeout = workers_timeout
        self.deadline = deadline  # seconds a unit may run (deadlines.py); the survey sets its own
        self.notes: list[str] = []
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise RuntimeError(
                "--scheduler and --local-cluster need dask.distributed; install lbnorm[dask]"
            ) from None
        self.cluster, self.client, self.start_seconds = None, None, None
        self.settings: contextlib.AbstractContextManager | None = None  # LOCAL_CLUSTER_CONFIG, held
        started = time.monotonic()
        try:
            if address is None:
                import dask

                # Loopback only: the cluster is this machine's, not the network's. No dashboard; the
                # scheduler's HTTP server (health, metrics) still starts, on a free port: on 8787 it warned
                # whenever another Dask had it.
                self.settings = dask.config.set(LOCAL_CLUSTER_CONFIG)
                with ctrl_c_ignored_by_its_processes():
                    self.cluster = LocalCluster(
                        n_workers=local_workers,
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=None,
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    )
                address = self.cluster.scheduler_address
            self.address = address
            self.client = Client(address)
            _wait_for_a_worker(self.client, address, workers_timeout)
            self.worker_versions = prepare_workers(self.client)
            if self.cluster is not None:
                self.client.register_plugin(prepared_and_frozen())
        except BaseException:
            self.close()
            raise
        if (
            self.cluster is not None
        ):  # the survey's rate leaves it out, so a timed command shows it apart
            self.start_seconds = time.monotonic() - started

    @property
    def _connected(self) -> Client:
        assert self.client is not None  # __init__ connects it, or raises
        return self.client

    def check_sources(self, paths: list[str], protocols: list[str]) -> None:
        """SourcesUnseen if a worker connected now cannot see one of these local paths (absolute) or has no file
        system for one of these URL schemes: a cluster on other machines reads from its own disks, with its
        own packages, and without this every unit would be a row saying "no such file" of a file the
        maintainer has, or "install lbnorm[remote]". The survey's own local cluster is this machine."""
        if self.cluster is not None or not (paths or protocols):
            return
        answers = self._connected.run(unreadable, list(paths), list(protocols), on_error="return")
        for address, problems in sorted(answers.items()):
            if not isinstance(problems, list) or not problems:
                continue
            more = f" (and {len(problems) - 1:,} more)" if len(problems) > 1 else ""
            if problems[0].startswith("cannot see "):
                fix = (
                    "local sources must be on a file system every worker shares, at the same path; mount it "
                    "there, or give the sources as URLs"
                )
            else:
                fix = (
                    "install lbnorm[remote] on every worker (and s3fs, gcsfs or huggingface_hub for s3://, "
                    "gs:// and hf://)"
                )
            raise SourcesUnseen(f"Dask worker {address} {problems[0]}{more}: {fix}")

    def describe(self) -> str:
        workers = len(self._connected.scheduler_info().get("workers", {}))
        started = (
            f", started in {self.start_seconds:.2f} s" if self.start_seconds is not None else ""
        )
        return f"Dask cluster at {self.address} ({workers} workers{started})"

    def dashboard(self) -> str | None:
        """The scheduler's dashboard link, when it serves one (its HTTP server, and bokeh beside it)."""
        try:
            if "dashboard" not in self._connected.scheduler_info().get("services", {}):
                return None
            if not self._connected.run_on_scheduler(_has_bokeh):
                return None
            return self._connected.dashboard_link
        except Exception:  # noqa: BLE001 - a link is a courtesy, never a reason to stop
            return None

    @property
    def workers(self) -> int:
        return max(1, len(self._connected.scheduler_info().get("workers", {})))

    def run(self, function: Callable[[Batch], list[str]], batches: list[Batch]) -> Iterator[Result]:
        return isolate(functools.partial(self._run_once, function), batches)

    def _run_once(
        self, function: Callable[[Batch], list[str]], batches: list[Batch]
    ) -> Iterator[Outcome]:
        from distributed import as_completed as dask_completed

        # Keys unique to this call: a scheduler that still remembers (or is forgetting) an earlier survey's
        # task of the same content must not hand back or wait on that one. Retries keep their key.
        run = uuid.uuid4().hex[:12]
        checked = checked_task(function)
        # A batch is hundreds of small objects, and Dask walks every argument of a task for futures before it
        # serialises it. Passed as they are, the first task of the 216-run benchmark survey started 17-18 ms after
        # the map; as pickled bytes (one opaque value, written by the same pickle Dask would use), 9 ms after.
        payloads = [pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL) for batch in batches]
        keys = [f"lbnorm-survey-{run}-{batch_key(b)}" for b in batches]
        futures = self._connected.map(checked, payloads, keys, key=keys)
        by_key = {future.key: batch for future, batch in zip(futures, batches, strict=True)}
        watch = _NoWorkerWatch(self.client, futures, self.workers_timeout)
        late = deadlines.DaskDeadlines(self.client, futures, self.deadline)
        try:
            for future, value in dask_completed(futures, with_results=True, raise_errors=False):
                overdue = late.overdue_for(future.key)
                yield by_key[future.key], overdue or _outcome(self, future, value, watch)
                future.release()
        finally:
            watch.stop()
            late.stop()
            self.notes.extend(note for note in late.notes if note not in self.notes)

    def close(self) -> None:
        with quiet_dask_logs() if self.cluster is not None else contextlib.nullcontext():
            try:
                client = getattr(self, "client", None)
                if client is not None:
                    client.close()
            finally:  # whatever happened to the client, the cluster's processes are stopped
                try:
                    if self.cluster is not None:
                        self.cluster.close()
                finally:  # this process's settings as they were before the cluster started
                    if self.settings is not None:
                        self.settings.__exit__(None, None, None)
                        self.settings = None


def checked_task(function: Callable[[Batch], list[str]]) -> Callable[..., list[str]]:
    """run_pickled with the client's function pickled too (by cloudpickle, as Dask pickles a task's function,
    so a function defined anywhere travels): a worker of another lbnorm says so before it reads the survey's
    settings the function holds, whose classes may differ in its version."""
    import cloudpickle

    return functools.partial(run_pickled, cloudpickle.dumps(function), version.__version__)


def _outcome(check: DaskCluster, future, value, watch: _NoWorkerWatch) -> list[str] | Exception:
    """A task's rows; WorkerLost if Dask gave it up (KilledWorker: every worker that ran it died under it);
    its error if it raised. Raises what stops the survey: a worker on another lbnorm, a cluster lost."""
    from distributed.scheduler import KilledWorker

    if (
        future.status == "cancelled"
    ):  # by the watch below, or by a scheduler that restarted or was lost
        raise ClusterLost(watch.reason(check.address))
    if (
        future.status == "error"
    ):  # as_completed hands a task's error over as (type, exception, traceback)
        value = future.exception()
    if isinstance(value, WorkerMismatch):
        raise value  # the survey stops, as at connect; the journal keeps the rows finished so far
    if isinstance(value, KilledWorker):
        return WorkerLost("the Dask workers that ran its task died")
    if isinstance(value, BaseException) and not isinstance(value, Exception):
        return RuntimeError(f"{type(value).__name__}: {value}")
    return value
