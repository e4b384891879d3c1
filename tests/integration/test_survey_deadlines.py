"""Every unit of survey work has a deadline (validator/survey/deadlines.py), on the local pool and on Dask.

A unit that hangs must become a failed row saying why, the units it
travelled with must still be audited, the table must be written, and
--resume must run the failed unit again.
"""

from __future__ import annotations

import time

import pytest
from support.survey_corpus import make_corpus

from validator.io.limits import Limits
from validator.survey.engine import survey
from validator.survey.local_pool import LocalPool
from validator.survey.work import Settings

HANGING = "model-0001/samples_drop"
DEADLINE = 1.5


def hanging_at(marker: str, seconds: float = 3600.0):
    """An executor's task that runs the survey's own run_batch, with the unit whose log names `marker` hanging
    (a closure, so Dask ships it by value to workers that cannot import the tests)."""

    def wrap(function):
        def run(batch):
            from validator.survey import work

            real = work.run_unit

            def run_unit(unit, settings):
                if unit.log is not None and marker in unit.log.name:
                    time.sleep(seconds)
                return real(unit, settings)

            work.run_unit = run_unit
            try:
                return function(batch)
            finally:
                work.run_unit = real

        return run

    return wrap


class Hanging:
    """An executor whose unit named by HANGING hangs; everything else is the real executor's."""

    def __init__(self, executor):
        self.executor, self.workers = executor, executor.workers

    @property
    def deadline(self):
        return self.executor.deadline

    @deadline.setter
    def deadline(self, seconds):
        self.executor.deadline = seconds

    def run(self, function, batches):
        return self.executor.run(hanging_at(HANGING)(function), batches)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    make_corpus(root, runs=6, seed=5)
    return root


@pytest.fixture(scope="module")
def honest_rows(corpus, tmp_path_factory):
    return survey([str(corpus)], tmp_path_factory.mktemp("honest"), LocalPool(1)).rows


def assert_only_the_hanging_unit_failed(rows: list[dict], honest_rows: list[dict]) -> None:
    failed = [row for row in rows if row["status"] == "failed"]
    assert len(failed) == 1 and HANGING in failed[0]["log"]
    assert f"deadline of {DEADLINE:g} s (--unit-timeout)" in failed[0]["error"]
    assert [row for row in rows if row is not failed[0]] == [
        row for row in honest_rows if row["log"] != failed[0]["log"]
    ], "every unit the hanging one travelled with is audited as it is without it"


def test_a_unit_past_its_deadline_fails_alone_on_the_local_pool_and_resume_runs_it(
    corpus, honest_rows, tmp_path
):
    settings = Settings(limits=Limits(unit_timeout=DEADLINE))
    outcome = survey([str(corpus)], tmp_path, Hanging(LocalPool(1)), settings)
    assert_only_the_hanging_unit_failed(outcome.rows, honest_rows)

    again = survey([str(corpus)], tmp_path, LocalPool(1), settings, resume=True)
    assert again.units - again.skipped == 1, "--resume runs only the failed unit"
    assert again.rows == honest_rows


def test_a_unit_past_its_deadline_fails_alone_on_dask(corpus, honest_rows, tmp_path):
    pytest.importorskip("distributed", reason="the Dask executor needs the `dask` extra")
    from validator.survey.dask_cluster import DaskCluster

    cluster = DaskCluster(local_workers=1)
    try:
        settings = Settings(limits=Limits(unit_timeout=DEADLINE))
        outcome = survey([str(corpus)], tmp_path, Hanging(cluster), settings)
        assert_only_the_hanging_unit_failed(outcome.rows, honest_rows)
        assert cluster.workers == 1, "the stuck worker was restarted"
    finally:
        cluster.close()


def test_the_deadline_comes_from_the_configuration_file_too():
    from validator.core.errors import ConfigError
    from validator.core.settings import settings_from_mapping
    from validator.io.config import limits_of

    settings = settings_from_mapping({"unit-timeout": 90}, ".lbnorm.toml")
    assert limits_of(settings).unit_timeout == 90.0
    with pytest.raises(ConfigError, match="'unit-timeout' is 0; use a positive number of seconds"):
        settings_from_mapping({"unit-timeout": 0}, ".lbnorm.toml")
