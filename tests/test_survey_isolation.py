"""A unit that kills the worker auditing it: the survey finds it, fails it alone, and audits every other unit.

Units travel in batches, so a worker that dies loses a whole batch;
validator/survey/isolation.py splits lost batches until the unit that
kills workers stands alone. Here the real local pool runs a survey whose
run_batch (the task the pool's workers run) ends its worker process, as
the kernel's out-of-memory killer would, whenever it meets the poison; the
Dask side of this is in test_survey_dask.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from survey_corpus import make_corpus
from validator.survey import batches, engine, isolation
from validator.survey.engine import survey
from validator.survey.executors import LocalPool
from validator.survey.work import run_batch

RUNS = 24
POISON = {"log": "", "deaths": ""}  # set by each test before the pool forks its workers, which inherit it


def poisoned_run_batch(batch, settings):
    """run_batch, except that a batch holding the poison log (or any log, for "*") ends its worker."""
    for unit in batch:
        if unit.log is not None and POISON["log"] in ("*", unit.log.name):
            with open(POISON["deaths"], "a") as deaths:
                deaths.write(f"{len(batch)}\n")
            os._exit(137)  # what SIGKILL from the out-of-memory killer looks like to the pool
    return run_batch(batch, settings)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    make_corpus(root, runs=RUNS, seed=5)
    return root


@pytest.fixture(scope="module")
def clean_rows(corpus, tmp_path_factory) -> list[dict]:
    return survey([str(corpus)], tmp_path_factory.mktemp("clean"), LocalPool(2)).rows


@pytest.fixture
def poison(monkeypatch, tmp_path):
    """Poison a log by name; the deaths file gets a line (the lost batch's size) per worker killed."""
    monkeypatch.setattr(batches, "MIN_TASK_BYTES", 1)  # 8 batches a worker, several units each, as in a big survey
    monkeypatch.setattr(engine, "run_batch", poisoned_run_batch)
    deaths = tmp_path / "deaths"

    def plant(log: str) -> Path:
        POISON.update(log=log, deaths=str(deaths))
        return deaths

    yield plant
    POISON.update(log="", deaths="")


def test_the_unit_that_kills_its_worker_fails_alone_and_every_other_unit_is_audited(corpus, clean_rows, poison,
                                                                                      tmp_path):
    victim = next(row for row in clean_rows if row["task"] == "drop")
    deaths = poison(victim["log"])
    rows = survey([str(corpus)], tmp_path / "out", LocalPool(2)).rows
    assert len(rows) == len(clean_rows)
    failed = [row for row in rows if row["status"] == "failed"]
    assert [(row["run"], row["task"]) for row in failed] == [(victim["run"], "drop")]
    assert failed[0]["error"].startswith("run alone, with nothing else running, its task failed again "
                                         "(BrokenProcessPool: ")
    assert "after its batch failed: this unit is the cause" in failed[0]["error"]
    assert [row for row in rows if row["status"] != "failed"] == [row for row in clean_rows if row is not victim]
    sizes = [int(size) for size in deaths.read_text().split()]
    assert sizes[-2:] == [1, 1] and sizes[0] > 1  # lost in a batch, halved down to it alone, then alone again
    assert sizes == sorted(sizes, reverse=True) and len(sizes) <= sizes[0].bit_length() + 2


class Cluster:
    """A stand-in executor's one pass (isolate's run_once) over units named by numbers: a batch holding a
    poison unit is lost, and so is each batch in `outside` (a worker killed from outside) the first time."""

    def __init__(self, poison=(), outside=()):
        self.poison, self.outside, self.passes = set(poison), list(outside), []

    def run_once(self, batches):
        self.passes.append([len(batch) for batch in batches])
        for batch in batches:
            if self.poison & set(batch) or batch in self.outside:
                self.outside = [lost for lost in self.outside if lost != batch]
                yield batch, RuntimeError("worker lost")
            else:
                yield batch, [f"rows of {unit}" for unit in batch]


@pytest.fixture
def named_units(monkeypatch):
    """isolate's failed rows are built from Unit objects; the stand-in's units are numbers, named by them."""
    monkeypatch.setattr(isolation, "failed_batch", lambda batch, reason: [f"failed {unit}: {reason}" for unit in batch])


def isolated(cluster: Cluster, batches: list[list[int]], max_losses: int = isolation.MAX_LOSSES) -> dict:
    results = {}
    for batch, rows in isolation.isolate(cluster.run_once, batches, max_losses):
        assert len(rows) == len(batch)
        for unit, row in zip(batch, rows):
            assert unit not in results, "each unit once"
            results[unit] = row
    return results


def test_a_poison_unit_is_halved_out_of_its_batch_then_run_alone_on_the_whole_cluster(named_units):
    cluster = Cluster(poison={5})
    results = isolated(cluster, [list(range(8)), list(range(8, 12))])
    assert results == {**{unit: f"rows of {unit}" for unit in range(12) if unit != 5},
                       5: f"failed 5: {isolation._lost_alone(RuntimeError('worker lost'))}"}
    assert cluster.passes == [[8, 4], [4, 4], [2, 2], [1, 1], [1]]  # the last: 5 with nothing else running


def test_a_worker_killed_once_from_outside_costs_no_unit(named_units):
    cluster = Cluster(outside=[[0, 1, 2], [3]])
    assert isolated(cluster, [[0, 1, 2], [3]]) == {unit: f"rows of {unit}" for unit in range(4)}
    assert cluster.passes == [[3, 1], [1], [1, 2]]  # [3] again alone at once; then the halves of [0, 1, 2]


def test_past_max_losses_a_lost_batch_is_failed_whole_not_split(named_units):
    cluster = Cluster(poison={0, 4})
    results = isolated(cluster, [[0, 1], [2, 3], [4, 5, 6, 7]], max_losses=1)
    why = isolation._lost_too_often(RuntimeError("worker lost"), 1)
    assert results == {1: "rows of 1", 2: "rows of 2", 3: "rows of 3",
                       **{unit: f"failed {unit}: {why}" for unit in (0, 4, 5, 6, 7)}}
    assert cluster.passes == [[2, 2, 4], [1, 1]]  # [0, 1] was split before the second loss crossed the bound


def test_a_survey_whose_every_log_kills_its_worker_ends_with_every_log_failed(corpus, poison, tmp_path):
    deaths = poison("*")
    outcome = survey([str(corpus)], tmp_path / "out", LocalPool(2))
    logged = [row for row in outcome.rows if row["log"]]
    assert logged and all(row["status"] == "failed" for row in logged)
    errors = {row["error"].partition(" (")[0] for row in logged}
    assert errors == {"run alone, with nothing else running, its task failed again", "its batch failed"}
    # Each batch of the first pass is lost once; past MAX_LOSSES, a lost batch is not split again: the losses
    # after it are at most the batches of the pass that crossed it (at most twice the MAX_LOSSES before).
    first_pass = len(batches.batches(engine.plan([str(corpus)], engine.Settings().limits, 10_000), 2))
    assert len(deaths.read_text().split()) <= first_pass + 3 * isolation.MAX_LOSSES
