"""The default executor: worker processes on this machine, each in a lane of its own.

A pool of N processes sharing one queue cannot tell which batch a dead
worker ran: when one dies, the pool is broken and every batch in flight or
queued fails with it. So each worker process has a lane (_Lane): its own
pipes, two batches deep, run in order. When it dies, the oldest batch is
the one it ran (isolation.py splits it); the other goes back to the queue,
not run.

The pool starts no thread in the survey's process. ProcessPoolExecutor and
multiprocessing.Pool need threads of their own, and a worker forked while
another lane's thread holds a lock can deadlock (Python 3.12 and later warn
of it on every such fork). Here the lanes are watched from the survey's own
thread (multiprocessing.connection.wait on their pipes and process
sentinels), so forking a worker, or its replacement, is safe. (A survey of
URLs has fsspec's I/O thread, started while the sources are listed; fsspec
resets its own state in a forked child.) Workers are
forked where the platform can (as `lbnorm check`'s pool is: check/workers.py),
explicitly, whatever Python's default start method is, so they inherit the
audit's modules imported by prepare_worker; 3.14 made forkserver the
default on Linux, which would have each worker import them again.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import pickle
import queue
import select
import signal
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait

try:
    import fcntl
except ImportError:  # Windows: pipes keep their size (_widen)
    fcntl = None  # type: ignore[assignment]  # the module or None: _widen asks which

from ..io.limits import DEFAULT_LIMITS
from . import deadlines
from .isolation import Batch, ClusterLost, Outcome, Result, WorkerLost, isolate
from .work import prepare_worker

_CONTEXT = multiprocessing.get_context(
    "fork" if "fork" in multiprocessing.get_all_start_methods() else None
)

Function = Callable[[Batch], list[str]]
PIPE_BYTES = 1 << 20
_STOP = b""  # what a lane sends its worker to end it (a batch is never empty)
# The survey's ends of every lane's pipes. A forked worker closes its copies: holding its own lane's would
# keep its pipe from ever ending, and holding other lanes' would pin their descriptors for its whole life.
_SURVEY_ENDS: set[Connection] = set()


class LocalPool:
    """Worker processes on this machine, each in a lane of its own (_Lane): a worker that dies loses one batch."""

    def __init__(self, workers: int | None = None, deadline: float = DEFAULT_LIMITS.unit_timeout):
        self.workers = workers or os.cpu_count() or 1
        self.deadline = deadline  # seconds a unit may run (deadlines.py); the survey sets its own
        # The forked workers inherit the audit's modules instead of importing them in their first task, as a
        # Dask worker is prepared when the survey connects (so the two are timed alike).
        prepare_worker()

    def describe(self) -> str:
        return f"local pool of {self.workers} process{'es' if self.workers > 1 else ''}"

    def run(self, function: Function, batches: list[Batch]) -> Iterator[Result]:
        return isolate(lambda these: self._run_once(function, these), batches)

    def _run_once(self, function: Function, batches: list[Batch]) -> Iterator[Outcome]:
        waiting = collections.deque(batches)
        lanes = [_Lane(function, self.deadline) for _ in range(min(self.workers, len(batches)))]
        try:
            while True:
                # A batch to each lane before a second to any: filled lane by lane, the first lane took both of a
                # two-batch survey and the second worker idled (a small survey cut in one batch per worker).
                for depth in range(1, _Lane.DEPTH + 1):
                    for lane in lanes:
                        lane.fill(waiting, depth)
                watched = {handle: lane for lane in lanes for handle in lane.handles()}
                if not watched:
                    return
                # Woken at least a few times per deadline, to stop a worker whose unit ran past it.
                ready = {watched[handle] for handle in wait(list(watched), self._tick())}
                for lane in (
                    lanes
                ):  # in lane order, not the set's, so the order of the outcomes is reproducible
                    if lane in ready:
                        yield from lane.finished(waiting)
                    yield from lane.overdue(waiting)
        finally:
            for lane in lanes:
                lane.close()

    def _tick(self) -> float:
        return min(1.0, max(self.deadline / 4, 0.05))


class _Lane:
    """One worker process, fed batches through a pipe and answering each, in order, through another."""

    DEPTH = 2  # a second batch waits in the worker, so it never waits for the survey between two

    def __init__(self, function: Function, deadline: float = DEFAULT_LIMITS.unit_timeout):
        self.function, self.deadline = function, deadline
        self.process: multiprocessing.process.BaseProcess | None = None
        self.to_worker: Connection | None = None
        self.from_worker: Connection | None = None
        self.in_flight: collections.deque[Batch] = collections.deque()
        # The worker's beacon (deadlines.py): [batch number, unit index, start]; answered counts the batches
        # it answered, so the oldest in flight is number answered + 1, up since `oldest_since`.
        self.beacon = _CONTEXT.RawArray("d", 3)
        self.answered, self.oldest_since = 0, time.monotonic()

    def _worker(self) -> multiprocessing.process.BaseProcess:
        assert self.process is not None  # a batch in flight has the worker _start made
        return self.process

    def handles(self) -> list:
        return [self.from_worker, self._worker().sentinel] if self.in_flight else []

    def fill(self, waiting: collections.deque[Batch], depth: int = DEPTH) -> None:
        """Send the lane batches from `waiting` until `depth` (at most DEPTH) are in flight."""
        while waiting and len(self.in_flight) < min(depth, self.DEPTH):
            if self.process is None:  # first use, or the last worker died
                self._start()
            payload = pickle.dumps(
                waiting[0], protocol=pickle.HIGHEST_PROTOCOL
            )  # before it is counted in flight
            if not self.in_flight:
                self.oldest_since = time.monotonic()
            self.in_flight.append(waiting.popleft())
            assert self.to_worker is not None  # _start opened it with the process
            try:
                self.to_worker.send_bytes(payload)
            except OSError:
                # The worker died. finished() counts the oldest batch in flight lost, and sends the others back:
                # even this one, when the worker died before reading it (killed idle, or dying as it starts), so
                # a worker that never lives to read a batch costs isolation.py's bounded search, not a loop.
                return

    def finished(self, waiting: collections.deque[Batch]) -> Iterator[Outcome]:
        """The batches answered, in order: their rows, or why one was lost (isolation.py splits it)."""
        while self.in_flight:
            assert self.from_worker is not None  # _start opened it with the process
            try:
                if not self.from_worker.poll():
                    break
                answer = self.from_worker.recv_bytes()
            except (EOFError, OSError):  # it died writing its answer
                break
            self.answered += 1
            self.oldest_since = time.monotonic()
            yield self.in_flight.popleft(), _rebuilt(answer)
        if self.in_flight and not self._worker().is_alive():
            # The oldest batch is the one it ran; the others never ran, and go back to the queue.
            lost = self.in_flight.popleft()
            waiting.extendleft(reversed(self.in_flight))
            self.in_flight.clear()
            self._stop()
            yield lost, WorkerLost("its worker process died")

    def overdue(self, waiting: collections.deque[Batch]) -> Iterator[Outcome]:
        """The oldest batch, lost, if its unit has run past the deadline (Overdue) or the worker has not even
        started it within the deadline (it hung between units): the worker is stopped, the batches behind it
        go back to the queue."""
        if not self.in_flight or self.process is None or not self.process.is_alive():
            return  # a worker that died is lost(), with that cause
        number, index, since = self.beacon[:]
        started = int(number) == self.answered + 1
        seconds = time.monotonic() - (since if started and since else self.oldest_since)
        if seconds <= self.deadline:
            return
        lost = self.in_flight.popleft()
        waiting.extendleft(reversed(self.in_flight))
        self.in_flight.clear()
        self._stop()
        if started:
            yield lost, deadlines.Overdue(int(index), seconds, self.deadline)
        else:
            yield lost, WorkerLost("its worker process stopped answering")

    def _start(self) -> None:
        self.beacon[:] = [0.0, 0.0, 0.0]
        self.answered, self.oldest_since = 0, time.monotonic()
        batches_out, to_worker = _CONTEXT.Pipe(duplex=False)
        from_worker, rows_in = _CONTEXT.Pipe(duplex=False)
        _widen(to_worker, from_worker)
        process = _CONTEXT.Process(
            target=_work,
            args=(self.function, batches_out, rows_in, os.getpid(), self.beacon),
            name="lbnorm-survey-worker",
            daemon=True,
        )
        _SURVEY_ENDS.update((to_worker, from_worker))
        try:
            _start_with_sigint_blocked(process)
        except (
            BaseException
        ) as error:  # it could not fork: the survey stops on that, not on another error
            _SURVEY_ENDS.difference_update((to_worker, from_worker))
            for end in (to_worker, from_worker):
                end.close()
            if isinstance(error, OSError):  # a process or memory limit
                raise ClusterLost(
                    f"this machine cannot start a worker process ({type(error).__name__}: {error}); "
                    "the units finished so far are in the survey's journal: survey again with fewer "
                    "--workers, and --resume"
                ) from error
            raise
        finally:
            batches_out.close()  # the worker's ends: its death must show as the end of the pipe here
            rows_in.close()
        self.process, self.to_worker, self.from_worker = process, to_worker, from_worker

    def _stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join()
            for end in (self.to_worker, self.from_worker):
                assert end is not None  # _start opened both with the process
                _SURVEY_ENDS.discard(end)
                end.close()
        self.process = None

    def close(self) -> None:
        """An idle worker is told to end and waited for; one still running (a survey stopped early) is killed."""
        if self.process is not None and not self.in_flight:
            assert self.to_worker is not None  # _start opened it with the process
            try:
                self.to_worker.send_bytes(_STOP)
                self.process.join(timeout=5)
            except OSError:  # it died idle
                pass
        self._stop()


def _start_with_sigint_blocked(process: multiprocessing.process.BaseProcess) -> None:
    """Start a worker with Ctrl-C held back until it ignores it.

    A SIGINT that reached a forked child before multiprocessing's bootstrap took over would
    raise KeyboardInterrupt in the child's copy of the survey, which would then run on as a
    second survey process. Blocked across the fork, it waits in the child until _work
    ignores it; the survey's own SIGINT is delivered when the mask is restored here.
    """
    if not hasattr(signal, "pthread_sigmask"):
        process.start()
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _work(function: Function, batches: Connection, rows: Connection, parent: int, beacon) -> None:
    """In a worker process: run each batch the pipe brings, in order, and answer each. Ctrl-C is the survey's to
    handle (it closes its lanes); an exception is the answer, made portable (_portable)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # blocked across the fork (_start_with_sigint_blocked)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(
        signal.SIGTERM, signal.SIG_DFL
    )  # the survey's own handler stops the survey, not its workers
    for end in _SURVEY_ENDS:
        end.close()
    exit_with_parent(parent)
    deadlines.use_beacon(beacon)
    inbox = _read_ahead(batches)
    while (payload := inbox.get()) != _STOP:
        deadlines.batch_received()
        try:
            outcome: list[str] | Exception = function(pickle.loads(payload))
        except (
            Exception
        ) as error:  # raised by the task (run_batch), not a unit: the worker lives on
            outcome = _portable(error)
        rows.send_bytes(_pickled(outcome))


def _pickled(outcome: object) -> bytes:
    """The answer as bytes; rows that cannot be pickled are the task's failure, not a worker lost."""
    try:
        return pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # noqa: BLE001 - whatever pickling raised
        return pickle.dumps(
            RuntimeError(f"its answer could not be sent back: {type(error).__name__}: {error}")
        )


def _rebuilt(answer: bytes) -> list[str] | Exception:
    """A worker's answer, or the reason it cannot be read here (the task's failure, as in _pickled)."""
    try:
        return pickle.loads(answer)
    except Exception as error:  # noqa: BLE001 - whatever unpickling raised
        return RuntimeError(f"its answer could not be read: {type(error).__name__}: {error}")


def _widen(*connections: Connection) -> None:
    """Pipes of 1 MiB where Linux allows it (64 KiB by default): a batch or an answer then goes through in one
    write, so a worker stopped (SIGSTOP) or slow to read stalls the survey's thread, which serves every lane,
    only for messages larger than that. Where it cannot, pipes keep their size: nothing else changes."""
    for connection in connections:
        try:
            fcntl.fcntl(connection.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except (
            AttributeError,
            OSError,
        ):  # not Linux (or no fcntl), or over /proc/sys/fs/pipe-max-size
            return


def _read_ahead(batches: Connection) -> queue.SimpleQueue:
    """The batches, read as soon as they come: the survey may be writing the next one while this worker writes its
    answer, and if both pipes filled, each would wait for the other for ever. _STOP when the pipe ends."""
    inbox: queue.SimpleQueue = queue.SimpleQueue()

    def read() -> None:
        try:
            while True:
                inbox.put(batches.recv_bytes())
        except (EOFError, OSError):
            inbox.put(_STOP)

    threading.Thread(target=read, name="lbnorm-read-ahead", daemon=True).start()
    return inbox


def _portable(error: Exception) -> Exception:
    """The error, or, if it cannot make the trip back through pickle, a RuntimeError that says what it was."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 - any failure to pickle or rebuild it
        return RuntimeError(f"{type(error).__name__}: {error}")


def exit_with_parent(parent: int) -> None:
    """In a worker: exit when the survey's process is gone. Killed with SIGKILL, it cannot tell its workers, and a
    worker would wait on its pipe for ever (a worker forked later holds the other lanes' ends of theirs)."""

    def watch() -> None:
        try:
            handle = os.pidfd_open(
                parent
            )  # Linux >= 5.3: readable once the parent has exited; no polling
        except (
            AttributeError,
            OSError,
        ):  # another system, an older kernel, or the parent is already gone
            first_parent = os.getppid()
            while _alive(parent) and os.getppid() == first_parent:
                time.sleep(1)
        else:
            select.select([handle], [], [])
        os._exit(1)

    threading.Thread(target=watch, name="lbnorm-exit-with-parent", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but not ours to signal
        return True
    return True
