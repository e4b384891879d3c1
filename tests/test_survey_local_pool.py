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
from survey_corpus import make_corpus

from validator.survey import batches
from validator.survey.engine import survey
from validator.survey.local_pool import LocalPool, _portable

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    make_corpus(root, runs=24, seed=3)
    return root


@pytest.fixture(scope="module")
def clean_rows(corpus, tmp_path_factory) -> list[dict]:
    return survey([str(corpus)], tmp_path_factory.mktemp("clean"), LocalPool(2)).rows


def test_the_survey_runs_no_thread_while_it_forks_and_its_workers_end_on_their_own(corpus, clean_rows, tmp_path,
                                                                                    monkeypatch):
    monkeypatch.setattr(batches, "MIN_TASK_BYTES", 1)  # 8 batches a worker: forks and answers interleave
    threads, workers = set(), {}
    before = {thread.name for thread in threading.enumerate()}  # other tests' servers and clients, if any

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
    code = ("import multiprocessing, sys, json, pathlib; multiprocessing.set_start_method('spawn');"
            "from validator.survey.engine import survey; from validator.survey.local_pool import _CONTEXT, LocalPool;"
            "assert _CONTEXT.get_start_method() == 'fork';"
            "rows = survey([sys.argv[1]], pathlib.Path(sys.argv[2]), LocalPool(2)).rows; print(json.dumps(rows))")
    result = subprocess.run([sys.executable, "-c", code, str(corpus), str(tmp_path / "out")], capture_output=True,
                            text=True, timeout=120, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
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


def test_an_error_that_cannot_travel_back_is_named_not_lost():
    error = _portable(Unpicklable("disk", "full"))
    assert type(error) is RuntimeError and str(error) == "Unpicklable: disk full"
    plain = ValueError("bad")
    assert _portable(plain) is plain
