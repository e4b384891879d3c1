"""Fixtures every test may take, and the `slow` mark on the integration tests."""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest
from support.common import EXAMPLE, REPO, assert_report_follows_its_schema

INTEGRATION = Path(__file__).resolve().parent / "integration"
# A suite started in the background (`cmd &` in a script, nohup) inherits SIGINT ignored, and lbnorm honours that (a
# survey started ignoring Ctrl-C keeps ignoring it), so the stop tests, which are about a terminal's Ctrl-C, failed
# there. The suite and the processes it starts take SIGINT as a terminal gives it (a Python handler is reset to the
# default in a child).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


BYTECODE = pytest.StashKey[tuple[str, dict[str, str]]]()
BYTECODE_VARIABLES = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")


def pytest_configure(config):
    """Where PYTHONDONTWRITEBYTECODE is set, the hundreds of interpreters the suite starts (the CLI in fresh
    processes, pool and Dask workers, the xdist workers themselves) would each compile lbnorm from source: a
    fifth of the suite's time on a fresh clone. They write their bytecode to a folder of this run instead, never
    into the tree, and the folder goes at the end. (The xdist workers inherit it: they start after this.)"""
    if hasattr(config, "workerinput") or not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    before = {name: os.environ[name] for name in BYTECODE_VARIABLES if name in os.environ}
    folder = tempfile.mkdtemp(prefix="lbnorm-tests-bytecode-")
    config.stash[BYTECODE] = (folder, before)
    os.environ["PYTHONPYCACHEPREFIX"] = folder
    del os.environ["PYTHONDONTWRITEBYTECODE"]


def pytest_unconfigure(config):
    if BYTECODE not in config.stash:
        return
    folder, before = config.stash[BYTECODE]
    for name in BYTECODE_VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(before)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def example_doc() -> dict:
    return json.loads(EXAMPLE.read_text())


@pytest.fixture
def workspace(tmp_path):
    """The example run with two submissions: good.json checks out, bad.json reports a wrong GPQA score."""
    shutil.copy(EXAMPLE, tmp_path / "results.json")
    submission = json.loads((REPO / "examples" / "pythia-1b" / "submission.json").read_text())
    submission["results"] = "results.json"
    (tmp_path / "good.json").write_text(json.dumps(submission, indent=2))
    submission["reported"]["gpqa"] = 1.0
    (tmp_path / "bad.json").write_text(json.dumps(submission, indent=2))
    return tmp_path


@pytest.fixture(autouse=True, scope="session")
def every_json_report_follows_its_schema():
    """Every check and audit report the tests make in this process is validated against its schema as it is written."""
    from validator.report import json_report

    write = json_report.write_report

    def validated(doc: dict, out) -> None:
        kind = "check" if "files_checked" in doc else "audit"
        assert_report_follows_its_schema(json.loads(json.dumps(doc)), kind)
        write(doc, out)

    json_report.write_report = validated
    yield
    json_report.write_report = write


def pytest_ignore_collect(collection_path, config):
    """`-m "not slow"` leaves out every test of tests/integration/, so the fast subset does not import them."""
    if " ".join(config.getoption("markexpr", "").split()) == "not slow":
        return collection_path == INTEGRATION or INTEGRATION in collection_path.parents
    return None


def pytest_collection_modifyitems(items):
    """Integration tests (real images, servers, Dask clusters, process pools) are `slow`: `-m "not slow"` leaves them out."""
    for item in items:
        if INTEGRATION in item.path.parents:
            item.add_marker(pytest.mark.slow)
