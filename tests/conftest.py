"""Fixtures every test may take, and the `slow` mark on the integration tests."""

from __future__ import annotations

import json
import shutil
import signal
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
