"""The survey on a real dask.distributed cluster: two worker processes on loopback, started by the test.

The table must be the one the local pool writes, byte for byte, also when
a worker is killed in the middle of the survey (Dask reschedules its units).
Skipped, with the reason, when the `dask` extra is not installed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip(
    "distributed", reason="the Dask executor needs the `dask` extra (dask[distributed])"
)

from click.testing import CliRunner  # noqa: E402
from support.survey_corpus import (  # noqa: E402
    assert_finds_exactly_the_planted_faults,
    make_corpus,
    tamper_drop_f1_keeping_size_and_mtime,
)

from validator.cli import cli  # noqa: E402
from validator.core import version  # noqa: E402
from validator.survey import batches  # noqa: E402
from validator.survey.dask_cluster import DaskCluster  # noqa: E402
from validator.survey.engine import survey  # noqa: E402
from validator.survey.local_pool import LocalPool  # noqa: E402
from validator.survey.tables import read_jsonl, write_jsonl  # noqa: E402

RUNS = 80


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    return root, make_corpus(root, runs=RUNS, seed=11)


@pytest.fixture(scope="module")
def local_rows(corpus, tmp_path_factory):
    return survey([str(corpus[0])], tmp_path_factory.mktemp("local"), LocalPool(2)).rows


@pytest.fixture(scope="module")
def cluster():
    """What --local-cluster 2 starts: a scheduler and two single-threaded worker processes on 127.0.0.1."""
    executor = DaskCluster(local_workers=2)
    yield executor
    executor.close()


def test_the_cluster_writes_the_local_table(corpus, local_rows, cluster, tmp_path):
    assert cluster.address.startswith("tcp://127.0.0.1:")
    assert len(cluster.client.scheduler_info()["workers"]) == 2
    rows = survey([str(corpus[0])], tmp_path, cluster).rows
    assert_finds_exactly_the_planted_faults(rows, corpus[1])
    assert rows == local_rows


def test_the_local_cluster_serves_http_on_loopback_and_not_on_the_dashboards_port():
    """A local cluster's scheduler starts an HTTP server (health, metrics) even without a dashboard. On Dask's
    port 8787 it warned "Port 8787 is already in use" beside any other Dask; on ":0" it listened on every
    interface. It takes a free port on 127.0.0.1."""
    import socket
    import warnings

    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))
        taken.listen()
    except OSError:
        pass  # already taken by someone else: as good
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            executor = DaskCluster(local_workers=1)
        try:
            bound = [
                sock.getsockname()
                for sock in executor.cluster.scheduler.http_server._sockets.values()
            ]
        finally:
            executor.close()
    finally:
        taken.close()
    assert bound and all(host == "127.0.0.1" and port != 8787 for host, port, *_ in bound)
    assert not [
        str(warning.message) for warning in caught if "already in use" in str(warning.message)
    ]


def test_every_worker_is_prepared_and_runs_the_clients_lbnorm(cluster):
    # Before the test that kills a worker: the one its nanny restarts joins later and is not prepared.
    workers = cluster.client.scheduler_info()["workers"]
    assert cluster.worker_versions == {address: version.__version__ for address in workers}
    imported = cluster.client.run(lambda: "validator.survey.work" in sys.modules)
    assert imported == {address: True for address in workers}


def test_dask_hashes_a_unit_by_its_key_not_by_pickling_it(corpus):
    """client.map hashes every argument of every task; pickling each unit, run and file reference for it took
    70-90 ms per survey of 600 small units, as long as Dask took to run them."""
    from dask.tokenize import normalize_token

    from validator.io.limits import Limits
    from validator.survey.sources import plan

    units = plan([str(corpus[0])], Limits(), 10_000)
    assert [normalize_token(unit) for unit in units[:5]] == [unit.key for unit in units[:5]]
    assert len({unit.key for unit in units}) == len(units)


def test_preparing_a_worker_imports_the_audit_checks_before_the_first_task():
    """In a fresh process: the units the first task would import (25 ms of a survey's time) come in at connect."""
    units = ("drop_scoring", "hashes", "multiple_choice", "aggregates", "coverage")
    code = (
        "import sys; from validator.survey.work import prepare_worker; prepare_worker(); "
        f"print(sorted(m for m in {units!r} if 'validator.audit.checks.' + m not in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"


def test_the_local_cluster_skips_the_dashboards_background_work(cluster):
    """The statistical profiler (every thread's stack every 10 ms), the 20 ms tick, the monitors and the memory
    manager serve a dashboard and a shared cluster: --local-cluster has neither."""

    def timers(dask_worker=None, dask_scheduler=None):
        server = dask_worker or dask_scheduler
        return {
            name: callback.callback_time for name, callback in server.periodic_callbacks.items()
        }

    for address, running in cluster.client.run(timers).items():
        assert "profile" not in running, address
        assert (running["tick"], running["monitor"], running["memory_monitor"]) == (
            1000,
            5000,
            1000,
        ), address
    on_scheduler = cluster.client.run_on_scheduler(timers)
    assert (on_scheduler["tick"], on_scheduler["monitor"]) == (1000, 5000)
    assert not cluster.client.run_on_scheduler(
        lambda dask_scheduler: dask_scheduler.extensions["amm"].running
    )


def test_the_local_clusters_workers_do_not_give_freed_memory_back_at_once(cluster):
    """Dask's MALLOC_TRIM_THRESHOLD_=65536 cost an auditing worker 10 times the page faults: not passed on.
    (The nanny runs in this process and would have put it in os.environ too.)"""
    import os

    assert os.environ.get("MALLOC_TRIM_THRESHOLD_") != "65536"
    found = cluster.client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_"))
    assert set(found.values()) == {os.environ.get("MALLOC_TRIM_THRESHOLD_")}


def test_the_local_clusters_workers_leave_what_they_hold_once_prepared_out_of_full_collections(
    cluster,
):
    """A Dask worker holds about twice the objects of a pool worker, and each full garbage collection during a
    survey walked them all: on 300 small runs the last task was 12% slower on every run. gc.freeze() once
    prepared; a cluster the survey did not start is left as it is (the next test)."""
    import gc

    frozen = cluster.client.run(gc.get_freeze_count)
    assert len(frozen) == 2 and all(count > 10_000 for count in frozen.values()), frozen


def _restart_settings() -> tuple:
    import dask

    return tuple(
        dask.config.get(key)
        for key in (
            "distributed.worker.profile.enabled",
            "distributed.admin.tick.interval",
            "distributed.comm.timeouts.connect",
        )
    )


def test_a_worker_the_nanny_restarts_is_prepared_and_frozen_too():
    """A worker killed (or over its memory limit) is replaced by its nanny; the replacement was neither prepared
    nor frozen when both were done once at connect, and it has the cluster's settings only while they hold in
    the survey's process."""
    import gc

    executor = DaskCluster(local_workers=1)
    try:
        [(address, pid)] = executor.client.run(os.getpid).items()
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while set(executor.client.scheduler_info()["workers"]) in (set(), {address}):
            assert time.monotonic() < deadline, "the nanny did not restart the worker"
            time.sleep(0.1)
        [(new_pid, frozen)] = executor.client.run(
            lambda: (os.getpid(), gc.get_freeze_count())
        ).values()
        assert new_pid != pid
        assert frozen > 10_000
        assert list(executor.client.run(_restart_settings).values()) == [(False, "1s", "5s")]
        assert executor.client.run(
            lambda: "validator.audit.checks.drop_scoring" in sys.modules
        ) == {worker: True for worker in executor.client.scheduler_info()["workers"]}
    finally:
        executor.close()


def test_the_workers_of_an_existing_cluster_are_not_frozen():
    """The survey freezes the heap of the workers it starts (freeze_heap), never of a cluster's it connects to.
    A worker may hold frozen objects of its own (Dask 2026.11 on Python 3.12 starts with a few hundred): the
    survey leaves their count as it found it."""
    import gc

    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as existing:
        with Client(existing.scheduler_address) as owner:
            before = owner.run(gc.get_freeze_count)
        executor = DaskCluster(existing.scheduler_address)
        try:
            assert executor.client.run(gc.get_freeze_count) == before
        finally:
            executor.close()


def test_a_worker_on_another_lbnorm_version_stops_the_survey(
    corpus, cluster, tmp_path, monkeypatch
):
    workers = cluster.worker_versions
    first = sorted(workers)[0]
    monkeypatch.setattr(
        version, "__version__", "9.9.9"
    )  # this client's version; the workers keep theirs
    result = CliRunner().invoke(
        cli,
        [
            "survey",
            str(corpus[0]),
            "--out",
            str(tmp_path / "out"),
            "--no-plots",
            "--scheduler",
            cluster.address,
        ],
    )
    assert result.exit_code == 2, result.output
    assert (
        f"Error: Dask worker {first} runs lbnorm {workers[first]}, this client runs lbnorm 9.9.9: "
        "install lbnorm==9.9.9 on every worker\n"
    ) in result.output
    assert not (tmp_path / "out").exists()


def test_a_worker_that_joins_later_with_another_version_stops_the_survey(
    corpus, cluster, tmp_path, monkeypatch
):
    """The workers pass the check at connect, then the client's version changes: to every task, its worker is
    now one that joined later on another version. The first task refuses, and the survey stops with the
    mismatch rather than writing a row from that worker."""
    from validator.survey.dask_cluster import WorkerMismatch

    workers = cluster.worker_versions
    monkeypatch.setattr(version, "__version__", "9.9.9")
    with pytest.raises(WorkerMismatch) as caught:
        survey([str(corpus[0])], tmp_path, cluster)
    address, _, rest = str(caught.value).removeprefix("Dask worker ").partition(" ")
    assert address in workers
    assert rest == (
        f"runs lbnorm {workers[address]}, this client runs lbnorm 9.9.9: "
        "install lbnorm==9.9.9 on every worker"
    )
    assert (tmp_path / "units.jsonl").read_text(encoding="utf-8") == ""


def test_a_worker_on_another_version_says_so_before_it_reads_what_the_client_pickled(
    corpus, cluster, monkeypatch
):
    """What a task carries (the survey's settings, its function) may not unpickle under another lbnorm, whose
    classes differ. The worker compares versions first: the survey stops with the mismatch, not with a
    `failed` row for every unit."""
    import types

    from validator.io.limits import DEFAULT_LIMITS
    from validator.survey.dask_cluster import WorkerMismatch
    from validator.survey.sources import plan

    # A module only this client has: a worker cannot unpickle a function of it.
    only_here = types.ModuleType("only_on_this_client")
    exec("def rows(batch):\n    return []\n", only_here.__dict__)
    monkeypatch.setitem(sys.modules, "only_on_this_client", only_here)
    units = plan([str(corpus[0])], DEFAULT_LIMITS, 1_000_000)[:1]
    monkeypatch.setattr(version, "__version__", "9.9.9")
    with pytest.raises(WorkerMismatch, match="this client runs lbnorm 9.9.9"):
        list(cluster.run(only_here.rows, [units]))


def test_a_task_that_fails_on_the_cluster_is_a_failed_row_for_each_of_its_units(corpus, cluster):
    """A task's error reaches the client as Dask hands it over (type, exception, traceback): each unit of the
    batch becomes a `failed` row naming the error, never a crash of the survey or a hole in the table."""
    from validator.io.limits import DEFAULT_LIMITS
    from validator.survey.sources import plan

    units = plan([str(corpus[0])], DEFAULT_LIMITS, 1_000_000)[:3]

    def explode(batch):
        raise ValueError("no disk left on the worker")

    ((batch, texts),) = list(
        cluster.run(explode, [units])
    )  # not split: a raising task is no unit's doing
    assert batch == units
    rows = [json.loads(text) for text in texts]  # each unit's rows as its journal line holds them
    assert [[row["status"] for row in unit_rows] for unit_rows in rows] == [["failed"]] * 3
    assert all(
        unit_rows[0]["error"].startswith(
            "its task failed (ValueError: no disk left on the worker), with every unit it carried"
        )
        for unit_rows in rows
    )


def test_a_worker_killed_mid_survey_changes_nothing(
    corpus, local_rows, cluster, tmp_path, monkeypatch
):
    monkeypatch.setattr(
        batches, "MIN_TASK_BYTES", 1
    )  # 8 tasks a worker, so the kill finds tasks in flight
    pids = cluster.client.run(os.getpid)  # {worker address: pid}
    killed = []

    def kill_one(done: int) -> None:
        if done == 20 and not killed:
            pid = sorted(pids.values())[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    rows = survey([str(corpus[0])], tmp_path, cluster, on_unit=kill_one).rows
    assert killed
    assert rows == local_rows
    assert not [row for row in rows if row["status"] == "failed"]
    cluster.client.wait_for_workers(2, timeout=60)  # the nanny restarted it


def test_the_unit_that_kills_its_worker_fails_alone_on_the_cluster(
    corpus, local_rows, cluster, tmp_path, monkeypatch
):
    """--local-cluster gives a task up the first time its worker dies (allowed-failures 0), so the poison unit is
    found in a few nanny restarts; every other unit is audited as on the pool."""
    from validator.survey import engine
    from validator.survey.work import run_batch

    monkeypatch.setattr(batches, "MIN_TASK_BYTES", 1)  # 8 batches a worker, several units each
    victim = next(row for row in local_rows if row["task"] == "drop")

    def poisoned(
        batch, settings
    ):  # pickled by value (a closure), so the workers need no test module
        if any(unit.log is not None and unit.log.name == victim["log"] for unit in batch):
            os._exit(137)
        return run_batch(batch, settings)

    monkeypatch.setattr(engine, "run_batch", poisoned)
    rows = survey([str(corpus[0])], tmp_path, cluster).rows
    cluster.client.wait_for_workers(2, timeout=60)  # the nanny restarted it
    failed = [row for row in rows if row["status"] == "failed"]
    assert [(row["run"], row["task"]) for row in failed] == [(victim["run"], "drop")]
    assert failed[0]["error"].startswith(
        "the Dask workers that ran its task died while it ran this unit alone, "
    )
    assert [row for row in rows if row["status"] != "failed"] == [
        row for row in local_rows if row is not victim
    ]


def test_the_cli_runs_on_an_existing_scheduler(corpus, cluster, tmp_path):
    local, remote = tmp_path / "local", tmp_path / "remote"
    for out, extra in ((local, ["--workers", "2"]), (remote, ["--scheduler", cluster.address])):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "validator",
                "survey",
                str(corpus[0]),
                "--out",
                str(out),
                "--no-plots",
                *extra,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 1, result.stderr
    assert "Dask cluster at tcp://127.0.0.1:" in result.stderr
    assert (remote / "survey.jsonl").read_bytes() == (local / "survey.jsonl").read_bytes()
    assert (remote / "survey.csv").read_bytes() == (local / "survey.csv").read_bytes()
    assert read_jsonl(remote / "survey.jsonl")


def test_a_worker_forgets_a_results_file_between_two_surveys(cluster, tmp_path):
    """A worker outlives surveys, and a reference cannot always tell two contents apart (an HTTP server gives
    no size; a same-size edit can keep its mtime): a worker that kept parsed results files by reference would
    audit a second survey's logs against the first one's results and pass a tampered number."""
    root = tmp_path / "runs"
    make_corpus(root, runs=1, seed=3, fault_rate=0)
    results = next(root.glob("*/results_*.json"))
    before = survey([str(root)], tmp_path / "first", cluster).rows
    reported = tamper_drop_f1_keeping_size_and_mtime(results)
    assert reported == next(row["reported"] for row in before if row["task"] == "drop")
    after = survey([str(root)], tmp_path / "second", cluster).rows
    drop = next(row for row in after if row["task"] == "drop")
    assert drop["reported"] != reported and drop["rules"].get("LB709"), drop


def test_a_relative_source_is_read_by_workers_started_in_another_folder(cluster, tmp_path):
    """A source is a path from the survey's current folder, as everywhere in lbnorm; a worker started in another
    folder (every worker of a real cluster) reads the same files, and the Dask table matches the pool's.
    The cluster's workers run in this test's folder, not tmp_path."""
    assert os.getcwd() != str(tmp_path)
    make_corpus(tmp_path / "runs", runs=2, seed=3, fault_rate=0)
    tables = {}
    for name, extra in (("pool", ["--workers", "1"]), ("dask", ["--scheduler", cluster.address])):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "validator",
                "survey",
                "runs",
                "--out",
                name,
                "--no-plots",
                *extra,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        tables[name] = (tmp_path / name / "survey.jsonl").read_bytes()
    assert tables["dask"] == tables["pool"]


def test_a_scheduler_without_workers_is_an_error_not_a_hang():
    """Tasks sent to a scheduler with no worker wait for ever, so the survey does not. A real scheduler on
    loopback with no worker; the survey waits for one (a second here, a minute by default), then says why."""
    from distributed import LocalCluster

    empty = LocalCluster(
        n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None
    )
    try:
        with pytest.raises(RuntimeError, match=r"has had no worker for 1 s; start workers"):
            DaskCluster(empty.scheduler_address, workers_timeout=1)
    finally:
        empty.close()


def test_a_cluster_whose_workers_die_for_good_stops_the_survey_instead_of_hanging(
    corpus, tmp_path, monkeypatch
):
    """A worker without a nanny that dies is not replaced, and Dask waits for ever for a worker to run the
    tasks (a poison unit can kill every worker). A real scheduler and one `dask worker --no-nanny`."""
    from distributed import Client, LocalCluster

    from validator.survey import engine
    from validator.survey.isolation import ClusterLost

    def poisoned(batch, settings):
        os._exit(137)

    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as scheduler:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                scheduler.scheduler_address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
            ],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with Client(scheduler.scheduler_address) as client:
            client.wait_for_workers(1, timeout=60)  # its start may take seconds on a busy machine
        executor = DaskCluster(scheduler.scheduler_address, workers_timeout=2)
        try:
            monkeypatch.setattr(engine, "run_batch", poisoned)
            with pytest.raises(
                ClusterLost,
                match=r"has had no worker for 2 s: its workers died and nothing restarted "
                r"them; the units finished so far are in the survey's journal",
            ):
                survey([str(corpus[0])], tmp_path / "out", executor)
        finally:
            executor.close()
            worker.kill()
            worker.wait()
    assert (tmp_path / "out" / "units.jsonl").exists()


def test_a_worker_without_lbnorm_stops_the_survey(corpus, tmp_path):
    """A real worker process whose Python cannot import lbnorm (a package of that name that refuses) joins a
    scheduler of its own; the survey must refuse to start, naming the worker, not fail unit by unit."""
    from distributed import Client, LocalCluster

    shadow = tmp_path / "shadow" / "validator"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        'raise ImportError("lbnorm is not installed on this worker")\n'
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(shadow.parent),
    }  # before site-packages: this worker has no lbnorm
    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as scheduler:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                scheduler.scheduler_address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
            ],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            with Client(scheduler.scheduler_address) as client:
                client.wait_for_workers(1, timeout=60)
                [address] = client.scheduler_info()["workers"]
            result = CliRunner().invoke(
                cli,
                [
                    "survey",
                    str(corpus[0]),
                    "--out",
                    str(tmp_path / "out"),
                    "--no-plots",
                    "--scheduler",
                    scheduler.scheduler_address,
                ],
            )
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    assert result.exit_code == 2, result.output
    assert f"Error: Dask worker {address} cannot run lbnorm (" in result.output
    assert "lbnorm is not installed on this worker" in result.output  # the worker's own reason
    assert (
        f"this client runs lbnorm {version.__version__}: install lbnorm=={version.__version__} on every "
        "worker" in result.output
    )
    assert not (tmp_path / "out").exists()


def test_a_worker_started_apart_from_lbnorm_reports_group_rows_as_the_pool_does(tmp_path):
    """A `dask worker` process imports nothing of lbnorm's command line (a LocalCluster's spawned workers
    re-import it as their __main__). There a group row's LB404 was a KeyError: a `failed` row, found by
    surveying on `dask scheduler` + `dask worker` started by hand."""
    from distributed import Client, LocalCluster

    root = tmp_path / "runs"
    make_corpus(root, runs=2, seed=3, fault_rate=0)
    for number, results in enumerate(sorted(root.glob("*/results_*.json"))):
        data = json.loads(results.read_text(encoding="utf-8"))
        data["group_subtasks"] = {"grp": ["arc_easy", "drop"]}
        data["results"]["grp"] = {
            "acc,none": data["results"]["arc_easy"]["acc,none"] + number,
            "alias": "grp",
        }
        results.write_text(json.dumps(data, indent=2), encoding="utf-8")
    local = tmp_path / "local"
    assert (
        CliRunner()
        .invoke(cli, ["survey", str(root), "--out", str(local), "--no-plots", "--workers", "1"])
        .exit_code
        == 1
    )
    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as scheduler:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                scheduler.scheduler_address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
            ],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            with Client(scheduler.scheduler_address) as client:
                client.wait_for_workers(1, timeout=60)
            result = CliRunner().invoke(
                cli,
                [
                    "survey",
                    str(root),
                    "--out",
                    str(tmp_path / "remote"),
                    "--no-plots",
                    "--scheduler",
                    scheduler.scheduler_address,
                ],
            )
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    assert result.exit_code == 1, result.output  # the second run's group is off by one
    rows = read_jsonl(tmp_path / "remote" / "survey.jsonl")
    assert [(row["status"], row["rules"]) for row in rows if row["task"] == "grp"] == [
        ("group", {}),
        ("group", {"LB404": 1}),
    ]
    assert (tmp_path / "remote" / "survey.jsonl").read_bytes() == (
        local / "survey.jsonl"
    ).read_bytes()


def test_the_cli_starts_a_local_cluster_and_says_how_long_it_took(corpus, local_rows, tmp_path):
    """--local-cluster N as a user types it: the same table as the pool's; the start, left out of the
    survey's rate, is shown on the first line so a command timed whole can be read."""
    clustered = tmp_path / "clustered"
    result = subprocess.run(
        [
            *(sys.executable, "-m", "validator", "survey", str(corpus[0])),
            *("--out", str(clustered), "--no-plots", "--local-cluster", "2"),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 1, result.stderr
    assert re.search(
        r"on Dask cluster at tcp://127\.0\.0\.1:\d+ \(2 workers, started in \d+\.\d\d s\)\n",
        result.stderr,
    ), result.stderr
    write_jsonl(local_rows, tmp_path / "local.jsonl")  # the pool's table, as the command writes it
    assert (clustered / "survey.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


def _can_hide_a_folder() -> bool:
    """Whether this machine lets a process mount over a folder in a namespace of its own (root on Linux)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        try:
            return (
                subprocess.run(
                    ["unshare", "-m", "sh", "-c", 'mount -t tmpfs none "$0"', folder],
                    capture_output=True,
                    timeout=30,
                ).returncode
                == 0
            )
        except (OSError, subprocess.TimeoutExpired):
            return False


@pytest.mark.skipif(
    not _can_hide_a_folder(),
    reason="needs `unshare -m` (root on Linux) to hide a folder from a "
    "worker, as a worker on another machine does not see it",
)
def test_a_worker_that_cannot_see_a_local_source_stops_the_survey(corpus, tmp_path):
    """A real `dask worker` in a mount namespace of its own, with an empty file system mounted over the source:
    it cannot see the runs the client sees, as a worker on another machine cannot. Before, every unit was a row
    saying "no such file" of files the maintainer has; now the survey does not start and says why."""
    from distributed import Client, LocalCluster

    source = str(corpus[0])
    hidden = (
        f"mount -t tmpfs none {shlex.quote(source)} && exec {shlex.quote(sys.executable)} -m "
        'distributed.cli.dask_worker "$0" --nthreads 1 --no-nanny --no-dashboard --host 127.0.0.1'
    )
    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as scheduler:
        worker = subprocess.Popen(
            ["unshare", "-m", "sh", "-c", hidden, scheduler.scheduler_address],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            with Client(scheduler.scheduler_address) as client:
                client.wait_for_workers(1, timeout=60)
                [address] = client.scheduler_info()["workers"]
            result = CliRunner().invoke(
                cli,
                [
                    "survey",
                    source,
                    "--out",
                    str(tmp_path / "out"),
                    "--no-plots",
                    "--scheduler",
                    scheduler.scheduler_address,
                ],
            )
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    assert result.exit_code == 2, result.output
    first = sorted(corpus[0].glob("*/results_*.json"))[
        0
    ]  # the folder is there, empty: its runs are not
    assert (
        f"Error: Dask worker {address} cannot see {first} (and 1 more): local sources must be on a file "
        "system every worker shares, at the same path; mount it there, or give the sources as URLs\n"
    ) in result.output
    assert not (tmp_path / "out").exists()


def test_what_a_worker_must_see_is_the_local_sources_and_the_first_and_last_runs_files(
    corpus, tmp_path, monkeypatch
):
    from validator.io.limits import DEFAULT_LIMITS
    from validator.survey.engine import local_paths
    from validator.survey.sources import plan

    monkeypatch.chdir(corpus[0].parent)
    units = plan([corpus[0].name], DEFAULT_LIMITS, 10_000)
    results = sorted(str(path) for path in corpus[0].glob("*/results_*.json"))
    assert local_paths([corpus[0].name, "http://127.0.0.1:9/runs/"], units) == [
        str(corpus[0]),
        results[0],
        results[-1],
    ]


def test_a_survey_interrupted_on_its_local_cluster_ends_with_how_to_resume(
    corpus, tmp_path, monkeypatch, capfd
):
    """Stopped with tasks running, no running task's cancellation is a WARNING from its worker after the line
    saying how to resume."""
    from validator.survey import engine

    recorded = engine._record

    def interrupted(journal, batch, results):
        recorded(journal, batch, results)
        raise KeyboardInterrupt  # Ctrl-C, once the first task's rows are journaled

    monkeypatch.setattr(engine, "_record", interrupted)
    monkeypatch.setattr(batches, "MIN_TASK_BYTES", 1)  # tasks still running when it stops
    result = CliRunner().invoke(
        cli,
        [
            "survey",
            str(corpus[0]),
            "--out",
            str(tmp_path / "out"),
            "--no-plots",
            "--local-cluster",
            "2",
        ],
    )
    assert result.exit_code == 130, result.output
    assert result.output.endswith(
        f"lbnorm survey: interrupted; the units finished so far are in "
        f"{tmp_path / 'out' / 'units.jsonl'}: run the same command with --resume to go "
        "on\n"
    ), result.output
    workers = capfd.readouterr().err
    assert "CancelledError" not in workers and "WARNING" not in workers, workers


def test_a_worker_without_the_remote_extra_stops_a_survey_of_urls(tmp_path):
    """A real `dask worker` whose Python cannot import fsspec, and runs served over HTTP on loopback: each unit
    would have been a failed row saying to install lbnorm[remote]; the survey now refuses to start, naming the
    worker, the scheme and the fix."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    pytest.importorskip("fsspec", reason="URL sources need the `remote` extra (fsspec)")
    from distributed import Client, LocalCluster

    make_corpus(tmp_path / "served" / "runs", runs=1, seed=3, fault_rate=0)
    handler = functools.partial(
        type("Quiet", (SimpleHTTPRequestHandler,), {"log_message": lambda *args: None}),
        directory=str(tmp_path / "served"),
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    shadow = tmp_path / "shadow" / "fsspec"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text('raise ImportError("no fsspec on this worker")\n')
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(shadow.parent), os.environ.get("PYTHONPATH", "")]),
    }
    try:
        with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as scheduler:
            worker = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "distributed.cli.dask_worker",
                    scheduler.scheduler_address,
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--host",
                    "127.0.0.1",
                ],
                env=env,
                cwd=tmp_path,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                with Client(scheduler.scheduler_address) as client:
                    client.wait_for_workers(1, timeout=60)
                    [address] = client.scheduler_info()["workers"]
                result = CliRunner().invoke(
                    cli,
                    [
                        "survey",
                        f"http://127.0.0.1:{server.server_address[1]}/runs/",
                        "--out",
                        str(tmp_path / "out"),
                        "--no-plots",
                        "--scheduler",
                        scheduler.scheduler_address,
                    ],
                )
            finally:
                worker.terminate()
                worker.wait(timeout=30)
    finally:
        server.shutdown()
        server.server_close()
    assert result.exit_code == 2, result.output
    assert (
        f"Error: Dask worker {address} cannot read http:// sources (ImportError: no fsspec on this worker): "
        "install lbnorm[remote] on every worker (and s3fs, gcsfs or huggingface_hub for s3://, gs:// and "
        "hf://)\n"
    ) in result.output
    assert not (tmp_path / "out").exists()


def test_the_url_schemes_a_worker_needs_are_those_of_the_files_the_units_read():
    from validator.survey.engine import remote_protocols
    from validator.survey.sources import Run, Unit
    from validator.survey.stores import FileRef

    def ref(location):
        return FileRef(location.rpartition("/")[2], location, 1, "x")

    run = Run(
        "a/results_1.json",
        ref("HTTP://host/a/results_1.json"),
        (ref("s3://bucket/a/samples_x_1.jsonl"),),
    )
    local = Run(
        "b/results_1.json",
        ref("/data/b/results_1.json"),
        (ref("file:///data/b/samples_x_1.jsonl"),),
    )
    units = [Unit(run, None), Unit(run, run.logs[0]), Unit(local, None), Unit(local, local.logs[0])]
    assert remote_protocols(units) == ["http", "s3"]


@pytest.mark.parametrize("stop, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_sent_to_the_whole_process_group_ends_with_how_to_resume_and_nothing_after(
    corpus, tmp_path, stop, code
):
    """A terminal's Ctrl-C reaches every process of its group: no Dask worker or nanny dies of it printing
    tracebacks after the survey's line saying how to resume."""
    big = tmp_path / "big"
    make_corpus(big, runs=400, seed=5)  # a few seconds on two workers: the signal comes mid-survey
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "validator",
            "survey",
            str(big),
            "--out",
            str(tmp_path / "out"),
            "--no-plots",
            "--local-cluster",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    journal = tmp_path / "out" / "units.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not journal.exists() or journal.stat().st_size < 2_000):
        time.sleep(0.005)
    os.killpg(process.pid, stop)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == code, stderr
    assert stderr.endswith(
        f"\nlbnorm survey: interrupted; the units finished so far are in {journal}: run the same "
        "command with --resume to go on\n"
    ), stderr
    assert "Traceback" not in stderr and "Exception" not in stderr, stderr


def _state_machine_level() -> int:
    import logging

    return logging.getLogger("distributed.worker.state_machine").getEffectiveLevel()


def _lost_scheduler_filtered() -> bool:
    import logging

    from validator.survey.dask_workers import scheduler_still_there

    return scheduler_still_there in logging.getLogger("distributed.worker").filters


def test_the_own_clusters_workers_keep_cancellations_quiet_from_their_start(cluster):
    """Quieted as the survey closed, by asking every worker: a worker killed by a SIGTERM to the whole group held
    that question, and the survey's exit, 30 s (once in about ten such stops)."""
    import logging

    assert set(cluster.client.run(_state_machine_level).values()) == {logging.ERROR}
    assert set(cluster.client.run(_lost_scheduler_filtered).values()) == {True}


def test_closing_the_own_cluster_asks_nothing_of_a_worker_that_cannot_answer(tmp_path):
    """A worker stopped (SIGSTOP: it holds its connections and answers nothing, as one being killed may) once held
    DaskCluster.close for minutes; the nanny now stops it without the survey waiting on it."""
    script = tmp_path / "close.py"
    script.write_text(
        "import os, signal\n"
        "from validator.survey.dask_cluster import DaskCluster\n"
        "if __name__ == '__main__':\n"
        "    cluster = DaskCluster(local_workers=2)\n"
        "    stopped = sorted(cluster.client.run(os.getpid).values())[0]\n"
        "    os.kill(stopped, signal.SIGSTOP)\n"
        "    try:\n"
        "        cluster.close()\n"
        "    finally:\n"
        "        try:\n"
        "            os.kill(stopped, signal.SIGKILL)\n"
        "        except ProcessLookupError:\n"
        "            pass\n"
        "    print('closed')\n",
        encoding="utf-8",
    )
    process = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=90)
    finally:  # a close that hangs leaves no stopped worker behind it
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 0 and out == "closed\n", err[-2000:]


def test_the_own_clusters_workers_keep_a_lost_scheduler_quiet_and_every_other_error():
    import logging

    from validator.survey.dask_workers import scheduler_still_there

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord(
            "distributed.worker", logging.ERROR, __file__, 1, message, None, None
        )

    assert not scheduler_still_there(
        record("Failed to communicate with scheduler during heartbeat.")
    )
    assert scheduler_still_there(record("Compute Failed"))
    assert scheduler_still_there(record("Failed to deserialize the task"))


def test_dask_says_nothing_while_the_own_cluster_closes():
    """After a stop, the connections to the workers fail as the cluster closes, and Dask logs each with its
    traceback (the scheduler, which runs in the survey's process, at INFO once the cluster's own quieting has
    ended): ahead of the survey's line saying how to resume. While DaskCluster.close() closes the cluster, no
    logger of Dask's prints even an ERROR; afterwards each is back at its level."""
    import logging

    names = ["distributed.batched", "distributed.core", "distributed.client", "distributed.gc"]
    loggers = [logging.getLogger(name) for name in [*names, "tornado.application"]]
    before = [logger.getEffectiveLevel() for logger in loggers]
    executor = DaskCluster(local_workers=1)
    heard: list[list[bool]] = []
    close = executor.cluster.close

    def closing(*args, **kwargs):
        heard.append([logger.isEnabledFor(logging.ERROR) for logger in loggers])
        return close(*args, **kwargs)

    executor.cluster.close = closing
    executor.close()
    assert heard == [[False] * len(loggers)]
    assert [logger.getEffectiveLevel() for logger in loggers] == before


def test_the_own_clusters_settings_hold_while_it_runs_and_no_longer(tmp_path):
    """The scheduler runs in the survey's process and reads some settings as it runs (the connect timeout, which a
    gather from a worker that has just died waits out: 5 s here, not Dask's 30 s), and a nanny passes on to a
    worker it restarts the settings in force at the restart. So LOCAL_CLUSTER_CONFIG holds in this process and
    on every worker while the cluster runs, and this process has its own settings back once it is closed. (A
    fresh process: this module's own cluster runs beside the test.)"""
    script = tmp_path / "settings.py"
    script.write_text(
        "import dask, distributed  # distributed's defaults come with it\n"
        "from validator.survey.dask_cluster import DaskCluster\n"
        "def settings():\n"
        "    get = dask.config.get\n"
        "    return f\"{get('distributed.comm.timeouts.connect')}/{get('distributed.worker.profile.enabled')}\"\n"
        "if __name__ == '__main__':\n"
        "    print(settings())\n"
        "    cluster = DaskCluster(local_workers=1)\n"
        "    print(settings(), *cluster.client.run(settings).values())\n"
        "    cluster.close()\n"
        "    print(settings())\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=90
    )
    before, running, after = done.stdout.splitlines()
    assert running == "5s/False 5s/False", done.stderr[-2000:]
    assert after == before != "5s/False"
