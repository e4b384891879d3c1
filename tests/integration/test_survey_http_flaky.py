"""A survey over an HTTP server that fails for a moment: every request fails once, then is answered.

A directory page answers 503 the first time; a file's first answer is cut
after half its body (the connection closed under a full Content-Length).
The survey must retry each (validator/survey/retries.py), give the table
a local survey gives, and count the retries; a server that keeps failing
is LB101 once the retries are spent.
"""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("fsspec", reason="URL sources need the `remote` extra (fsspec)")
pytest.importorskip("aiohttp", reason="fsspec's HTTP filesystem needs the `remote` extra (aiohttp)")

from support.survey_corpus import make_corpus  # noqa: E402

from validator.io.limits import Limits  # noqa: E402
from validator.survey import retries  # noqa: E402
from validator.survey.engine import survey  # noqa: E402
from validator.survey.local_pool import LocalPool  # noqa: E402
from validator.survey.summary import sections  # noqa: E402
from validator.survey.work import Settings  # noqa: E402


class FlakyHandler(SimpleHTTPRequestHandler):
    """Fails each path's first `failures` requests (a file under /down/ always), then serves it."""

    failures = 1
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        with self.lock:
            count = self.seen[self.path] = self.seen.get(self.path, 0) + 1
        always = self.path.startswith("/down/") and not self.path.endswith("/")
        if count > self.failures and not always:
            return super().do_GET()
        if self.path.endswith("/"):
            self.send_error(503, "Service Unavailable")
            return
        path = self.translate_path(self.path)
        with open(path, "rb") as handle:
            body = handle.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self.close_connection = True


@pytest.fixture
def flaky(tmp_path, monkeypatch):
    """(folder, base URL) of a server that fails every request once; the backoff shortened for the test."""
    monkeypatch.setattr(retries, "BASE_SECONDS", 0.01)
    root = tmp_path / "served"
    root.mkdir()
    handler = type("Handler", (FlakyHandler,), {"seen": {}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_store_that_fails_for_a_moment_gives_the_local_table_and_counts_its_retries(
    flaky, tmp_path
):
    root, url = flaky
    make_corpus(root / "board", runs=3, seed=5)
    outcome = survey([f"{url}/board/"], tmp_path / "remote", LocalPool(1))
    local = survey([str(root / "board")], tmp_path / "local", LocalPool(1)).rows
    assert [{**row, "retries": 0} for row in outcome.rows] == local
    # Each run's results file (once per unit reading it: a worker forgets parses between batches) and log.
    assert sum(row["retries"] for row in outcome.rows) == 9
    assert all(row["status"] != "failed" and "LB101" not in row["rules"] for row in outcome.rows)
    assert any("requests listing the sources" in note for note in outcome.notes)
    overview = sections(outcome.rows)[0][1]
    assert "were retried (column `retries`)" in overview


def test_a_store_that_keeps_failing_is_lb101_once_the_retries_are_spent(flaky, tmp_path):
    root, url = flaky
    make_corpus(root / "down", runs=1, seed=5, fault_rate=0)
    listing = f"{url}/down/"
    # The folder pages answer (their first failure is retried); every file keeps failing.
    settings = Settings(limits=Limits(remote_retries=2))
    rows = survey([listing], tmp_path, LocalPool(1), settings).rows
    unread = [row for row in rows if "LB101" in row["rules"]]
    assert unread, rows
    assert "still failing after 2 retries (--remote-retries)" in unread[0]["first_finding"]
