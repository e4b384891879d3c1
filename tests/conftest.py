"""Fixtures every test may take, and the `slow` mark on the integration tests."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest
from support.common import EXAMPLE, REPO

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


def pytest_collection_modifyitems(items):
    """Integration tests (real images, servers and Dask clusters) are `slow`: `-m "not slow"` leaves them out."""
    for item in items:
        if INTEGRATION in item.path.parents:
            item.add_marker(pytest.mark.slow)
