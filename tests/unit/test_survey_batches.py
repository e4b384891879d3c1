"""How a survey's units are cut into tasks (validator/survey/batches.py): whole rounds, shares of the bytes."""

from __future__ import annotations

import dataclasses

import pytest

from validator.survey.batches import (
    BATCH_BYTES,
    BATCH_UNITS,
    MIN_TASK_BYTES,
    TASKS_PER_WORKER,
    batches,
)
from validator.survey.sources import Run, Unit
from validator.survey.stores import FileRef

MB = 1024 * 1024


def corpus(runs: int, log_bytes: int, logs_per_run: int = 2) -> list[Unit]:
    """Units as plan() makes them: each run's own unit (its results file), then one per log."""
    units = []
    for number in range(runs):
        results = FileRef(
            f"run{number:04d}/results.json", f"/r/run{number:04d}/results.json", 4000, "size=4000"
        )
        logs = tuple(
            FileRef(
                f"run{number:04d}/samples_t{k}.jsonl",
                f"/r/run{number:04d}/samples_t{k}.jsonl",
                log_bytes,
                f"size={log_bytes}",
            )
            for k in range(logs_per_run)
        )
        run = Run(results.name, results, logs)
        units += [Unit(run, None), *(Unit(run, log) for log in logs)]
    return units


def cost(unit: Unit) -> int:
    return unit.log.size if unit.log else unit.run.results.size


def sized(units: list[Unit], size: int | None) -> list[Unit]:
    """The same units, every file of the given size (None: the listing gave none, as HTTP pages)."""
    out = []
    for unit in units:
        results = dataclasses.replace(unit.run.results, size=size)
        run = dataclasses.replace(unit.run, results=results)
        out.append(Unit(run, dataclasses.replace(unit.log, size=size) if unit.log else None))
    return out


@pytest.mark.parametrize("workers", [1, 2, 7])
@pytest.mark.parametrize(
    "runs, log_bytes", [(1, 1000), (200, 10_000), (32, 5 * MB), (500, 40 * MB), (3, 300 * MB)]
)
def test_every_unit_is_in_one_task_in_order(workers, runs, log_bytes):
    units = corpus(runs, log_bytes)
    tasks = batches(units, workers)
    assert [unit for task in tasks for unit in task] == units
    assert all(task for task in tasks)
    assert all(len(task) <= BATCH_UNITS for task in tasks)
    assert all(len(task) == 1 or sum(map(cost, task)) <= BATCH_BYTES for task in tasks)


def test_a_small_survey_is_a_few_tasks_not_eight_a_worker():
    """Found measuring a survey of 216 small runs (5 MB): 16 tasks of a few milliseconds of work each took Dask
    longer to hand out than to run."""
    units = corpus(
        216, 8_000
    )  # 648 units, 4 MB: below MIN_TASK_BYTES, so as few tasks as BATCH_UNITS allows
    assert len(batches(units, 1)) == 3  # 648 / 256 units, rounded up
    assert len(batches(units, 2)) == 4  # the same, rounded up to whole rounds of two


def test_a_large_survey_gets_eight_tasks_a_worker_of_about_equal_bytes():
    units = corpus(96, 4 * MB)  # 770 MB: more than MIN_TASK_BYTES x 16
    tasks = batches(units, 2)
    assert len(tasks) == 2 * TASKS_PER_WORKER
    sizes = [sum(map(cost, task)) for task in tasks]
    share = sum(sizes) / len(tasks)
    assert all(
        size <= share + 4 * MB + 4000 for size in sizes
    )  # a task closes once it holds its share


def test_a_log_larger_than_a_batch_is_a_task_of_its_own():
    units = corpus(3, BATCH_BYTES + 1)
    tasks = batches(units, 2)
    assert all(len(task) == 1 for task in tasks if any(cost(unit) > BATCH_BYTES for unit in task))


def test_the_minimum_task_size_is_what_keeps_small_surveys_in_few_tasks():
    assert MIN_TASK_BYTES >= MB


@pytest.mark.parametrize("size", [None, 0])
def test_files_of_no_known_size_are_still_batched_not_one_task_each(size):
    """HTTP directory pages give no sizes, and a log can be empty: neither may make every unit a task of its own."""
    units = sized(corpus(300, 1000), size)
    tasks = batches(units, 2)
    assert [unit for task in tasks for unit in task] == units
    assert len(tasks) <= 2 * TASKS_PER_WORKER
