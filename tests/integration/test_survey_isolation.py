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
from support.survey_corpus import make_corpus

from validator.survey import batches, engine, isolation
from validator.survey.engine import survey
from validator.survey.local_pool import LocalPool
from validator.survey.work import run_batch

RUNS = 24
POISON = {
    "log": "",
    "deaths": "",
}  # set by each test before the pool forks its workers, which inherit it


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
    monkeypatch.setattr(
        batches, "MIN_TASK_BYTES", 1
    )  # 8 batches a worker, several units each, as in a big survey
    monkeypatch.setattr(engine, "run_batch", poisoned_run_batch)
    deaths = tmp_path / "deaths"

    def plant(log: str) -> Path:
        POISON.update(log=log, deaths=str(deaths))
        return deaths

    yield plant
    POISON.update(log="", deaths="")


def test_the_unit_that_kills_its_worker_fails_alone_and_every_other_unit_is_audited(
    corpus, clean_rows, poison, tmp_path
):
    victim = next(row for row in clean_rows if row["task"] == "drop")
    deaths = poison(victim["log"])
    rows = survey([str(corpus)], tmp_path / "out", LocalPool(2)).rows
    assert len(rows) == len(clean_rows)
    failed = [row for row in rows if row["status"] == "failed"]
    assert [(row["run"], row["task"]) for row in failed] == [(victim["run"], "drop")]
    assert failed[0]["error"] == isolation._lost_alone(
        isolation.WorkerLost("its worker process died")
    )
    assert failed[0]["error"].startswith(
        "its worker process died while it ran this unit alone, with nothing else "
        "running, after its batch was lost: this unit is what kills workers"
    )
    assert [row for row in rows if row["status"] != "failed"] == [
        row for row in clean_rows if row is not victim
    ]
    sizes = [int(size) for size in deaths.read_text().split()]
    assert (
        sizes[-2:] == [1, 1] and sizes[0] > 1
    )  # lost in a batch, halved down to it alone, then alone again
    assert sizes == sorted(sizes, reverse=True) and len(sizes) <= sizes[0].bit_length() + 2


LOST = isolation.WorkerLost("its worker died")


class Cluster:
    """A stand-in executor's one pass (isolate's run_once) over units named by numbers: a batch holding a
    poison unit is lost, and so is each batch in `outside` (a worker killed from outside) the first time; a
    batch holding a unit of `raising` raises."""

    def __init__(self, poison=(), outside=(), raising=()):
        self.poison, self.outside, self.raising, self.passes = (
            set(poison),
            list(outside),
            set(raising),
            [],
        )

    def run_once(self, batches):
        self.passes.append([len(batch) for batch in batches])
        for batch in batches:
            if self.poison & set(batch) or batch in self.outside:
                self.outside = [lost for lost in self.outside if lost != batch]
                yield batch, LOST
            elif self.raising & set(batch):
                yield batch, OSError("no space left on the worker")
            else:
                yield batch, [f"rows of {unit}" for unit in batch]


@pytest.fixture
def named_units(monkeypatch):
    """isolate's failed rows are built from Unit objects; the stand-in's units are numbers, named by them."""
    monkeypatch.setattr(
        isolation,
        "failed_batch",
        lambda batch, reason: [f"failed {unit}: {reason}" for unit in batch],
    )


def isolated(cluster: Cluster, batches: list[list[int]]) -> dict:
    results = {}
    for batch, rows in isolation.isolate(cluster.run_once, batches):
        assert len(rows) == len(batch)
        for unit, row in zip(batch, rows, strict=True):
            assert unit not in results, "each unit once"
            results[unit] = row
    return results


def rows_of(units) -> dict:
    return {unit: f"rows of {unit}" for unit in units}


def test_a_poison_unit_is_halved_out_of_its_batch_then_run_alone_on_the_whole_cluster(named_units):
    cluster = Cluster(poison={5})
    results = isolated(cluster, [list(range(8)), list(range(8, 12))])
    assert results == {
        **rows_of(set(range(12)) - {5}),
        5: f"failed 5: {isolation._lost_alone(LOST)}",
    }
    assert cluster.passes == [
        [8, 4],
        [4, 4],
        [2, 2],
        [1, 1],
        [1],
    ]  # the last: 5 with nothing else running


def test_a_worker_killed_once_from_outside_costs_no_unit(named_units):
    cluster = Cluster(outside=[[0, 1, 2], [3]])
    assert isolated(cluster, [[0, 1, 2], [3]]) == rows_of(range(4))
    assert cluster.passes == [
        [3, 1],
        [1],
        [1, 2],
    ]  # [3] again alone at once; then the halves of [0, 1, 2]


def test_a_task_that_raises_fails_its_units_whole_and_convicts_none(named_units):
    """A unit's own errors are its row's, so a raising task is the worker's or lbnorm's failure: splitting it
    would convict whichever unit ran alone on a worker with a full disk."""
    cluster = Cluster(raising={1})
    results = isolated(cluster, [[0, 1, 2], [3]])
    why = (
        "its task failed (OSError: no space left on the worker), with every unit it carried: not this unit's "
        "doing (its own errors are findings); --resume runs it again"
    )
    assert results == {**rows_of([3]), **{unit: f"failed {unit}: {why}" for unit in (0, 1, 2)}}
    assert cluster.passes == [[3, 1]]


def test_poison_in_most_batches_of_the_first_pass_is_still_searched_unit_by_unit(named_units):
    """One poison in each of 20 of 21 batches: the first pass is mostly lost, the second only half, so this is
    units, not a failing cluster: every poison is convicted, every other unit audited."""
    batches = [list(range(start, start + 8)) for start in range(0, 168, 8)]
    poison = set(range(0, 160, 8))
    cluster = Cluster(poison=poison)
    results = isolated(cluster, batches)
    assert results == {
        **rows_of(set(range(168)) - poison),
        **{unit: f"failed {unit}: {isolation._lost_alone(LOST)}" for unit in poison},
    }
    assert cluster.passes[:2] == [[8] * 21, [4] * 40]


def test_two_passes_in_a_row_that_lose_most_batches_are_the_clusters_failure_not_split_further(
    named_units,
):
    cluster = Cluster(
        poison=range(36)
    )  # every unit of 9 of the 10 batches (a cluster whose workers all die)
    results = isolated(cluster, [list(range(start, start + 4)) for start in range(0, 40, 4)])
    why = isolation._cluster_failing(LOST)
    assert why == (
        "its worker died with this unit's batch, which was not split to find the cause: most tasks of "
        "this pass and of the one before lost their workers too, so the cluster is failing, not one "
        "unit; --resume runs it again"
    )
    assert results == {
        **rows_of(range(36, 40)),
        **{unit: f"failed {unit}: {why}" for unit in range(36)},
    }
    assert cluster.passes == [[4] * 10, [2] * 18]


def test_a_survey_whose_every_log_kills_its_worker_ends_with_every_log_failed(
    corpus, poison, tmp_path
):
    deaths = poison("*")
    outcome = survey([str(corpus)], tmp_path / "out", LocalPool(2))
    logged = [row for row in outcome.rows if row["log"]]
    assert logged and all(row["status"] == "failed" for row in logged)
    errors = {row["error"] for row in logged}
    lost = isolation.WorkerLost("its worker process died")
    assert errors <= {isolation._lost_alone(lost), isolation._cluster_failing(lost)}
    # Each batch the halving makes runs once, and a unit lost alone once more.
    units = len(engine.plan([str(corpus)], engine.Settings().limits, 10_000))
    assert len(deaths.read_text().split()) <= 3 * units
