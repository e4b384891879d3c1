"""The local pool (validator/survey/local_pool.py): worker processes in lanes, forked by a process with no thread.

A worker forked while another thread of the survey holds a lock can
deadlock, and Python 3.12 and later warn of it on every such fork. The
pool watches its lanes from the survey's own thread and starts no other;
these tests hold it to that, and to ending its workers cleanly, on every
Python the project supports. (A survey of URLs has fsspec's I/O thread,
started while the sources are listed; fsspec makes its own state safe in
a forked child.)
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support.survey_corpus import make_corpus

from validator.survey import batches, engine, local_pool
from validator.survey.engine import survey
from validator.survey.isolation import ClusterLost
from validator.survey.local_pool import LocalPool, _portable, _rebuilt

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    make_corpus(root, runs=24, seed=3)
    return root


@pytest.fixture(scope="module")
def clean_rows(corpus, tmp_path_factory) -> list[dict]:
    return survey([str(corpus)], tmp_path_factory.mktemp("clean"), LocalPool(2)).rows


def test_the_survey_runs_no_thread_while_it_forks_and_its_workers_end_on_their_own(
    corpus, clean_rows, tmp_path, monkeypatch
):
    monkeypatch.setattr(
        batches, "MIN_TASK_BYTES", 1
    )  # 8 batches a worker: forks and answers interleave
    threads, workers = set(), {}
    before = {
        thread.name for thread in threading.enumerate()
    }  # other tests' servers and clients, if any

    def look(done: int) -> None:
        threads.update(thread.name for thread in threading.enumerate())
        workers.update((worker.pid, worker) for worker in multiprocessing.active_children())

    rows = survey([str(corpus)], tmp_path, LocalPool(2), on_unit=look).rows
    assert rows == clean_rows
    assert threads == before
    assert len(workers) == 2
    # Told to stop, each worker exits by itself: none holds another's pipe open, so none is left to be killed.
    assert [worker.exitcode for worker in workers.values()] == [0, 0]


def test_workers_are_forked_whatever_pythons_default_start_method(corpus, clean_rows, tmp_path):
    """Python 3.14 made forkserver the default on Linux; the pool forks explicitly, so its workers inherit the
    audit's modules (and a survey started under another default gives the same table)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("this platform cannot fork")
    code = (
        "import multiprocessing, sys, json, pathlib; multiprocessing.set_start_method('spawn');"
        "from validator.survey.engine import survey; from validator.survey.local_pool import _CONTEXT, LocalPool;"
        "assert _CONTEXT.get_start_method() == 'fork';"
        "rows = survey([sys.argv[1]], pathlib.Path(sys.argv[2]), LocalPool(2)).rows; print(json.dumps(rows))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(corpus), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(json.dumps(clean_rows))


def test_ctrl_c_is_the_surveys_to_handle_not_a_workers(corpus, clean_rows, tmp_path, monkeypatch):
    """SIGINT reaches every process of the terminal's foreground group; a worker ignores it, so a Ctrl-C the
    survey's process catches is not also a lost batch (and a traceback from each worker)."""
    monkeypatch.setattr(batches, "MIN_TASK_BYTES", 1)
    interrupted = []

    def interrupt(done: int) -> None:
        if done == 20 and not interrupted:
            for worker in multiprocessing.active_children():
                os.kill(worker.pid, signal.SIGINT)
                interrupted.append(worker.pid)

    rows = survey([str(corpus)], tmp_path, LocalPool(2), on_unit=interrupt).rows
    assert interrupted and rows == clean_rows


class Unpicklable(Exception):
    def __init__(self, first: str, second: str):  # pickle rebuilds it with one argument, and fails
        super().__init__(f"{first} {second}")
        self.lock = (
            threading.Lock()
        )  # and a lock pickles nowhere (tblib, which Dask installs, pickles __dict__)


def test_an_error_that_cannot_travel_back_is_named_not_lost():
    error = _portable(Unpicklable("disk", "full"))
    assert type(error) is RuntimeError and str(error) == "Unpicklable: disk full"
    plain = ValueError("bad")
    assert _portable(plain) is plain


def _die_at_start(parent: int) -> None:
    os._exit(1)  # in place of exit_with_parent, the first thing a worker does


@pytest.mark.parametrize(
    "batch_units", [2, 100_000], ids=["small batches", "one batch over a pipe's 64 KiB"]
)
def test_workers_that_die_as_they_start_end_the_survey_with_every_unit_failed(
    corpus, tmp_path, monkeypatch, batch_units
):
    """A worker dying before it reads its batch makes the survey's write of a big batch fail (EPIPE), which is
    not a worker killed idle (that would start another worker, for ever). Each such batch is lost like any other, so isolation.py's bounded search ends the survey: two passes in a row losing nearly every
    batch is a failing cluster, and its units are failed saying so; none is called the unit that kills workers."""
    monkeypatch.setattr(local_pool, "exit_with_parent", _die_at_start)  # forked workers inherit it
    monkeypatch.setattr(batches, "BATCH_UNITS", batch_units)
    monkeypatch.setattr(batches, "MIN_TASK_BYTES", 1 if batch_units == 2 else 1 << 40)
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail("the survey did not end"))
    signal.alarm(120)
    try:
        rows = survey([str(corpus)], tmp_path, LocalPool(2)).rows
    finally:
        signal.alarm(0)
    assert rows and {row["status"] for row in rows} == {"failed"}
    assert all("the cluster is failing, not one unit" in row["error"] for row in rows), {
        r["error"] for r in rows
    }


def test_a_fork_that_fails_stops_the_survey_with_that_error_and_leaves_no_worker(
    corpus, tmp_path, monkeypatch
):
    """Under a process limit, a failed fork leaves a worker that was never started; closing the lanes must not
    raise AssertionError ('can only join a started process'), which would hide the fork's error and leave the
    other lanes' workers running."""
    monkeypatch.setattr(batches, "MIN_TASK_BYTES", 1)
    started = []

    class Limited(local_pool._CONTEXT.Process):
        def start(self):
            if len(started) == 2:  # the first replacement of a killed worker
                raise BlockingIOError(11, "Resource temporarily unavailable")
            started.append(self)
            super().start()

    def kill_one(done: int) -> None:
        if done == 10:
            os.kill(started[0].pid, signal.SIGKILL)

    monkeypatch.setattr(local_pool._CONTEXT, "Process", Limited)
    with pytest.raises(
        ClusterLost,
        match=r"this machine cannot start a worker process \(BlockingIOError: \[Errno 11\] "
        r"Resource temporarily unavailable\); the units finished so far are in",
    ):
        survey([str(corpus)], tmp_path, LocalPool(2), on_unit=kill_one)
    assert not multiprocessing.active_children() and not local_pool._SURVEY_ENDS


def _unpicklable_rows(batch, settings):
    return [threading.Lock()]


def test_rows_that_cannot_travel_back_fail_their_task_not_a_unit(corpus, tmp_path, monkeypatch):
    """Rows that cannot be pickled back fail their whole task, and no unit is named as what kills workers."""
    monkeypatch.setattr(engine, "run_batch", _unpicklable_rows)
    rows = survey([str(corpus)], tmp_path, LocalPool(2)).rows
    assert {row["status"] for row in rows} == {"failed"}
    assert {row["error"].split(";")[0] for row in rows} == {
        "its task failed (RuntimeError: its answer could not be sent back: TypeError: cannot pickle '_thread.lock' "
        "object), with every unit it carried: not this unit's doing (its own errors are findings)"
    }


def test_an_answer_that_cannot_be_rebuilt_is_the_tasks_failure():
    error = _rebuilt(b"\x80\x05not a pickle")
    assert type(error) is RuntimeError and str(error).startswith(
        "its answer could not be read: UnpicklingError"
    )


@pytest.mark.skipif(not hasattr(local_pool.fcntl, "F_GETPIPE_SZ"), reason="pipe sizes are Linux's")
def test_a_batch_or_an_answer_under_a_mebibyte_goes_through_in_one_write():
    """A worker stopped (SIGSTOP) halfway through a batch or an answer over a pipe's 64 KiB would stall the
    survey's one thread, and with it every lane. Pipes of 1 MiB take a batch of 256 units (about 75 KB) or its
    answer in one write."""
    if int(Path("/proc/sys/fs/pipe-max-size").read_text()) < local_pool.PIPE_BYTES:
        pytest.skip("this system caps pipes below 1 MiB")
    lane = local_pool._Lane(len)
    lane._start()
    try:
        for end in (lane.to_worker, lane.from_worker):
            assert (
                local_pool.fcntl.fcntl(end.fileno(), local_pool.fcntl.F_GETPIPE_SZ)
                == local_pool.PIPE_BYTES
            )
    finally:
        lane.close()
    assert lane.process is None


def _worker_pid(batch: list) -> list[str]:
    return [str(os.getpid()) for _ in batch]


def test_a_survey_of_one_batch_per_worker_runs_on_every_worker():
    """Lanes take a batch each before any takes its second (each holds two): filled lane by lane, the first lane
    took both batches of a two-batch survey, and a small survey on two workers ran on one."""
    outcomes = list(LocalPool(2).run(_worker_pid, [["a", "b"], ["c", "d"]]))
    assert sorted(batch for batch, _ in outcomes) == [["a", "b"], ["c", "d"]]
    assert len({rows[0] for _, rows in outcomes}) == 2
