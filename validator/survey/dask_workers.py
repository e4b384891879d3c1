"""What runs on the Dask workers, and how they are set up: each checks its lbnorm version and the
survey's sources, imports the audit once and freezes its heap before the first batch, ignores Ctrl-C
(the survey stops them), and runs a batch under its deadline."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading

from ..core import version
from . import deadlines
from .work import prepare_worker


class WorkerMismatch(RuntimeError):
    """A Dask worker lacks lbnorm or runs another version than this client: the survey must not start."""


def unreadable(paths: list[str], protocols: list[str]) -> list[str]:
    """On a worker: what it cannot read of the survey's sources: local paths it cannot see, and URL schemes
    it has no file system for (fsspec, or the extra a scheme needs, not installed)."""
    problems = [f"cannot see {path}" for path in paths if not os.path.exists(path)]
    for protocol in protocols:
        try:
            import fsspec

            fsspec.get_filesystem_class(
                protocol
            )  # imports its backend: aiohttp, s3fs, gcsfs, huggingface_hub
        except (
            Exception
        ) as exc:  # ImportError, or fsspec's ValueError for a scheme it does not know
            problems.append(
                f"cannot read {protocol}:// sources ({type(exc).__name__}: {str(exc)[:200]})"
            )
    return problems


def check_version(wanted: str) -> None:
    """On a worker: WorkerMismatch unless this worker runs the client's lbnorm.

    prepare_workers checks the workers connected when the survey starts; this
    checks the ones that join later (started afterwards, or restarted by a nanny).
    """
    if version.__version__ != wanted:
        from distributed import get_worker

        raise WorkerMismatch(
            f"Dask worker {get_worker().address} runs lbnorm {version.__version__}, this client "
            f"runs lbnorm {wanted}: install lbnorm=={wanted} on every worker"
        )


def run_pickled(function: bytes, wanted: str, payload: bytes, key: str = "") -> list[str]:
    """On a worker: the client's function (the survey's settings with it) on its batch, both pickled by the
    client (DaskCluster.run says why), its units' starts reported under the task's key for their deadlines
    (deadlines.py). Neither is read before check_version: another lbnorm's classes may not read them."""
    with deadlines.task(key):
        check_version(wanted)
        return pickle.loads(function)(pickle.loads(payload))


def prepare_workers(client) -> dict[str, str]:
    """Prepare every worker connected now; {address: lbnorm version}. WorkerMismatch if one differs.

    A worker with another scorer version would write rows that differ from
    the ones this client's version writes, and nothing in the table would
    show it; so a survey refuses to start rather than mix them. Workers that
    join the cluster later are checked by every task they run (check_version).
    """
    wanted = version.__version__
    fix = f"install lbnorm=={wanted} on every worker"
    answers = client.run(prepare_worker, on_error="return")
    for address, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):
            raise WorkerMismatch(
                f"Dask worker {address} cannot run lbnorm ({type(answer).__name__}: "
                f"{str(answer)[:200]}); this client runs lbnorm {wanted}: {fix}"
            )
        if answer != wanted:
            raise WorkerMismatch(
                f"Dask worker {address} runs lbnorm {answer}, this client runs lbnorm {wanted}: "
                f"{fix}"
            )
    return answers


def freeze_heap() -> None:
    """On a worker of the survey's own local cluster, once prepared: what it holds now (Dask, the audit's
    modules) is left out of every later full garbage collection. A Dask worker holds about twice the objects
    of a pool worker, so each full collection during the survey takes twice as long: on 300 small runs the
    last task of four is 15-20 ms (12%) slower than the rest unfrozen, and not frozen. Not on a
    cluster the survey did not start: its workers' memory is their owner's business."""
    import gc

    gc.collect()  # garbage now is not kept for ever
    gc.freeze()


def prepared_and_frozen():
    """A Dask worker plugin for the survey's own local cluster: every worker, those running now and those its
    nanny starts later (in place of one over its memory limit, or killed), is prepared and then frozen before
    it runs a task. Run once with client.run, a restarted worker would be neither."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class PreparedAndFrozen(WorkerPlugin):
        name = "lbnorm-prepared-and-frozen"

        def setup(self, worker) -> None:
            prepare_worker()
            freeze_heap()
            ignore_stops()
            quiet_cancellations()

    return PreparedAndFrozen()


def ignore_stops() -> None:
    """On a worker of the survey's own cluster: a Ctrl-C at the terminal reaches every process of its group, and
    is the survey's to handle; it stops its workers. A worker started with the cluster has ignored it from its
    start (ctrl_c_ignored_by_its_processes); one its nanny starts later, from its setup on. SIGTERM keeps its default:
    the nanny stops a worker over its memory limit with it."""
    with contextlib.suppress(
        ValueError
    ):  # a worker whose plugins run off its main thread keeps its handlers
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def ctrl_c_ignored_by_its_processes():
    """While the local cluster starts, SIGINT is ignored, so its processes inherit that (a handler would not pass
    to them: it is reset in a new program). A Ctrl-C at that moment is therefore not seen by the survey either;
    the survey holds a SIGTERM until the cluster is up (cli/survey.py)."""
    if (
        threading.current_thread() is not threading.main_thread()
    ):  # only the main thread may set handlers
        yield
        return
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)


@contextlib.contextmanager
def quiet_dask_logs():
    """While the survey closes its own cluster, Dask prints nothing: after a stop, the connections to the workers
    fail as they close. A result still being fetched fails on its closed connection (tornado logs an ERROR with
    its traceback), and the scheduler, which runs in this process, logs a write to a worker the stop has killed
    with its traceback (distributed.batched, at INFO: Dask quiets its INFO lines only until the cluster is
    closed). Either would come ahead of the survey's line saying how to resume, and closing is all that is
    left to do with these connections."""
    import logging

    # "distributed" covers its children, but for those that Dask's config gives a level of their own.
    names = ("tornado.application", "distributed", "distributed.client", "distributed.gc")
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def quiet_cancellations() -> None:
    """On a worker of the survey's own cluster, from its start: a task is cancelled only when the survey stops, and
    each one running logged a WARNING with its key after the survey had said it was interrupted and how to resume,
    burying that line (the logger warns of nothing else). Set at the start, not asked of every worker as the survey
    closes: a worker that a SIGTERM to the whole group had killed held that question, and the exit, 30 s."""
    import logging

    logging.getLogger("distributed.worker.state_machine").setLevel(logging.ERROR)
    logging.getLogger("distributed.worker").addFilter(scheduler_still_there)


def scheduler_still_there(record) -> bool:
    """A logging filter for the own cluster's workers: their scheduler runs in the survey's process, so when a
    stop ends the survey a worker's next heartbeat fails, and it logged that ERROR with two tracebacks around the
    line saying how to resume (about one stop in ten). The survey says itself what stopped it."""
    return not str(record.msg).startswith("Failed to communicate with scheduler during heartbeat")
