"""The survey against an HTTP server that works against it, on loopback: every failure is a row or a refusal.

One server serves real runs from a folder, except where a path asks for
trouble: a log that stalls after its headers or ends before its
Content-Length, a sub-folder whose page is a TCP reset or a 500, a page that
never ends, a tree of folders without end in width or depth. Each test gives
small budgets, so none waits long; the server's handlers give up after a few
seconds whatever the client does.
"""

from __future__ import annotations

import functools
import json
import socket
import struct
import subprocess
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("fsspec", reason="URL sources need the `remote` extra (fsspec)")
pytest.importorskip("aiohttp", reason="fsspec's HTTP filesystem needs the `remote` extra (aiohttp)")

from support.harness_logs import drop_task, with_hashes, write_run  # noqa: E402

from validator.io.limits import Limits  # noqa: E402
from validator.survey.engine import survey  # noqa: E402
from validator.survey.local_pool import LocalPool  # noqa: E402
from validator.survey.work import Settings  # noqa: E402

STOP = threading.Event()  # set when the module ends: a handler that stalls returns then


class Hostile(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        top, _, rest = path.strip("/").partition("/")
        if top in ("stall", "short", "trickle") and "/samples_" in path:
            return {"stall": self._stall, "short": self._short, "trickle": self._trickle}[top]()
        if top in ("reset", "e500") and rest.rstrip("/") == "bad":
            return self._reset() if top == "reset" else self._page(b"oops", 500)
        if top == "fat":
            return self._endless_page()
        if top in ("wide", "deep"):
            links = [f"d{i}/" for i in range(8)] if top == "wide" else ["a/"]
            return self._page(("".join(f'<a href="{link}">{link}</a>' for link in links)).encode())
        return super().do_GET()

    def _page(self, body: bytes, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _stall(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b'{"doc_id": 0')
        self.wfile.flush()
        STOP.wait(10)

    def _trickle(self) -> None:
        """A byte every 0.1 s: never silent for --remote-timeout, so only a rate can stop it."""
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            for byte in b'{"doc_id": 0, "target": "' + b"1" * 1000:
                if STOP.wait(0.1):
                    break
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        except OSError:
            pass
        self.close_connection = True

    def _short(self) -> None:
        """A record cut before its newline. The client may take these bytes before it sees the connection
        close, or raise first (a race on loopback): either way no record is whole, so the row is the same.
        (Records whole before a cut are audited, as a local log's are: tests/unit/test_survey_retries.py.)"""
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b'{"doc_id": 0, "target": "1')
        self.close_connection = True

    def _reset(self) -> None:
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def _endless_page(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        chunk = b"".join(b'<a href="f%d.jsonl">x</a>' % n for n in range(2_000))
        deadline = time.monotonic() + 10
        try:
            while not STOP.is_set() and time.monotonic() < deadline:
                self.wfile.write(chunk)
        except OSError:
            pass
        self.close_connection = True


def write_small_run(folder) -> None:
    task = drop_task([f" {n}" for n in range(20)], [[[str(n)]] for n in range(20)])
    for sample in task.samples:
        with_hashes(sample)
    write_run(folder, [task])


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The base URL of the hostile server, serving runs under stall/, short/, reset/ and e500/."""
    root = tmp_path_factory.mktemp("hostile")
    for case in ("stall", "short", "trickle"):
        write_small_run(root / case / "org__model")
    for case in ("reset", "e500"):
        write_small_run(root / case / "good")
        write_small_run(root / case / "bad")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Hostile, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    STOP.set()
    server.shutdown()
    server.server_close()


def lbnorm_survey(url: str, out, *options: str) -> tuple[int, str, list[dict]]:
    """Exit code, stderr and rows of `lbnorm survey URL` (a timeout fails the test instead of hanging it)."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "validator",
            "survey",
            url,
            "--out",
            str(out),
            "--workers",
            "1",
            "--no-plots",
            "--no-progress",
            *options,
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    table = out / "survey.jsonl"
    rows = [json.loads(line) for line in table.read_text().splitlines()] if table.exists() else []
    return result.returncode, result.stderr, rows


def test_a_log_the_server_stalls_is_lb101_after_the_read_timeout(hostile, tmp_path):
    started = time.monotonic()
    # A stall is retried like any transient failure (once here), then it is LB101.
    limits = Limits(remote_timeout=0.5, remote_retries=1)
    rows = survey([f"{hostile}/stall/"], tmp_path, LocalPool(1), Settings(limits=limits)).rows
    assert time.monotonic() - started < 5
    assert [(row["task"], row["status"], row["rules"]) for row in rows] == [
        ("drop", "findings", {"LB101": 1})
    ]
    assert (
        "cannot be read" in rows[0]["first_finding"]
        and "--remote-timeout 0.5 s" in rows[0]["first_finding"]
        and "still failing after 1 retries (--remote-retries)" in rows[0]["first_finding"]
    )


def test_a_log_the_server_trickles_is_lb101_once_its_rate_falls_below_the_floor(hostile, tmp_path):
    """A byte every few seconds never trips a read timeout: the rate floor stops it holding the survey for ever."""
    started = time.monotonic()
    rows = survey(
        [f"{hostile}/trickle/"], tmp_path, LocalPool(1), Settings(limits=Limits(remote_timeout=1))
    ).rows
    elapsed = time.monotonic() - started
    # Once seen failing in a full run and never again: the messages keep what the next failure shows.
    assert elapsed < 8, (elapsed, rows)
    assert [(row["task"], row["status"], row["rules"]) for row in rows] == [
        ("drop", "findings", {"LB101": 1})
    ], rows
    assert "less than 64 KiB/s after --remote-timeout 1 s" in rows[0]["first_finding"], (
        elapsed,
        rows[0],
    )


def test_a_log_shorter_than_its_content_length_is_lb101_not_an_internal_error(hostile, tmp_path):
    limits = Limits(
        remote_retries=1
    )  # the cut is retried like any transient failure, then it is LB101
    rows = survey([f"{hostile}/short/"], tmp_path, LocalPool(1), Settings(limits=limits)).rows
    assert [(row["task"], row["status"], row["rules"]) for row in rows] == [
        ("drop", "findings", {"LB101": 1})
    ]
    assert "cannot be read, still failing after 1 retries" in rows[0]["first_finding"]
    assert "(ClientPayloadError" in rows[0]["first_finding"]


@pytest.mark.parametrize("case, reason", [("reset", "Connection reset"), ("e500", "500")])
def test_a_sub_folder_that_cannot_be_listed_is_a_row_and_the_others_are_surveyed(
    hostile, tmp_path, case, reason
):
    # One retry (the default's three would only wait longer): the folder fails on each.
    code, stderr, rows = lbnorm_survey(f"{hostile}/{case}/", tmp_path, "--remote-retries", "1")
    assert code == 1, stderr
    assert [(row["run"], row["task"], row["status"], row["rules"]) for row in rows] == [
        ("bad/", "", "unlisted folder", {"LB101": 1}),
        (f"good/results_{rows[1]['run'].rsplit('_', 1)[1]}", "drop", "ok", {}),
    ]
    assert (
        rows[0]["first_finding"].startswith("LB101 bad/: the folder cannot be listed (")
        and reason in rows[0]["first_finding"]
    )


def test_a_page_that_never_ends_is_refused_at_the_page_budget(hostile, tmp_path):
    code, stderr, rows = lbnorm_survey(f"{hostile}/fat/", tmp_path, "--max-file-size", "1M")
    assert (code, rows) == (2, [])
    assert (
        "fat/: cannot be listed (PageTooLarge: its page is larger than --max-file-size 1,048,576 bytes)"
        in stderr
    )


def test_a_tree_wider_than_the_budget_is_refused_while_it_is_listed(hostile, tmp_path):
    started = time.monotonic()
    code, stderr, rows = lbnorm_survey(f"{hostile}/wide/", tmp_path, "--max-units", "50")
    assert (code, rows) == (2, []) and time.monotonic() - started < 10
    assert "wide/ holds more than 50 folders; raise --max-units" in stderr


def test_a_tree_without_end_in_depth_is_cut_at_the_depth_budget_with_a_row(hostile, tmp_path):
    code, stderr, rows = lbnorm_survey(f"{hostile}/deep/", tmp_path)
    assert code == 1, stderr
    assert [(row["run"], row["status"], row["rules"]) for row in rows] == [
        ("a/" * 33, "unlisted folder", {"LB101": 1})
    ]
    assert "is more than 32 folders below the source" in rows[0]["first_finding"]


def test_a_listing_over_its_time_budget_is_refused(hostile, tmp_path):
    code, stderr, rows = lbnorm_survey(f"{hostile}/wide/", tmp_path, "--listing-timeout", "0.3")
    assert (code, rows) == (2, [])
    assert "listing took more than --listing-timeout 0.3 s" in stderr
