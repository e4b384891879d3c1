"""The survey reading runs from a real HTTP server on loopback, through fsspec's HTTP filesystem.

http.server serves a run tree from a thread; the survey lists it from the
server's directory pages and streams every log (no range requests, nothing
written to disk). The table must be the one a local survey writes.
Skipped, with the reason, when the `remote` extra is not installed.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("fsspec", reason="URL sources need the `remote` extra (fsspec)")
pytest.importorskip("aiohttp", reason="fsspec's HTTP filesystem needs the `remote` extra (aiohttp)")

from support.harness_logs import drop_task, with_hashes, write_run  # noqa: E402
from support.survey_corpus import (  # noqa: E402
    MANIFEST,
    assert_finds_exactly_the_planted_faults,  # noqa: E402
    make_corpus,
)

from validator.io.limits import Limits  # noqa: E402
from validator.survey import listing  # noqa: E402
from validator.survey.engine import survey  # noqa: E402
from validator.survey.local_pool import LocalPool  # noqa: E402
from validator.survey.stores import FileRef  # noqa: E402
from validator.survey.work import Settings  # noqa: E402


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(folder, base URL): the folder served on 127.0.0.1 while the module's tests run."""
    root = tmp_path_factory.mktemp("served")
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def corpus(served):
    root = served[0] / "leaderboard"
    return root, make_corpus(root, runs=40, seed=5), f"{served[1]}/leaderboard/"


def test_a_run_tree_over_http_gives_the_local_table(corpus, tmp_path):
    root, expected, url = corpus
    remote = survey([url], tmp_path / "remote", LocalPool(2)).rows
    local = survey([str(root)], tmp_path / "local", LocalPool(2)).rows
    assert_finds_exactly_the_planted_faults(remote, expected)
    assert remote == local


def test_a_resume_over_http_audits_every_unit_again(served, tmp_path):
    """An HTTP server's directory page gives no size and no content hash, so nothing tells a file replaced on
    the server from the one audited, and --resume cannot keep their rows: a results file may have been
    tampered with since. Such units run again, and the survey says why."""
    root = served[0] / "resumed"
    make_corpus(root, runs=2, seed=3, fault_rate=0)
    url = f"{served[1]}/resumed/"
    first = survey([url], tmp_path, LocalPool(1))
    assert first.skipped == 0 and all(row["status"] == "ok" for row in first.rows)
    results = sorted(root.glob("*/results_*.json"))[0]
    data = json.loads(results.read_text(encoding="utf-8"))
    data["results"]["drop"]["f1,none"] = 0.123
    results.write_text(json.dumps(data, indent=2), encoding="utf-8")
    again = survey([url], tmp_path, LocalPool(1), resume=True)
    assert again.skipped == 0
    assert any(
        "6 journaled units run again: their store gives no content hash" in note
        for note in again.notes
    )
    drop = next(
        row
        for row in again.rows
        if row["task"] == "drop" and row["run"].startswith(results.parent.name)
    )
    assert drop["reported"] == 0.123 and drop["rules"] == {"LB709": 1}


def test_a_profiles_choice_counts_are_proved_over_http_as_locally(corpus, tmp_path):
    """The streamed audit gets the profile's count too: LB715 rows over HTTP are the local ones."""
    root, _, url = corpus
    settings = Settings(choice_counts=(("arc_easy", 4),))  # the corpus's docs have 2 to 5 choices
    remote = survey([url], tmp_path / "remote", LocalPool(2), settings).rows
    local = survey([str(root)], tmp_path / "local", LocalPool(2), settings).rows
    assert any("LB715" in row["rules"] for row in remote)
    assert remote == local


def test_a_manifest_over_http_compares_published_scores(corpus, tmp_path):
    root, expected, url = corpus
    settings = Settings(published_scale=100)
    rows = survey([url + MANIFEST], tmp_path, LocalPool(2), settings).rows
    assert_finds_exactly_the_planted_faults(rows, expected, published=True)


def test_names_a_directory_page_percent_encodes_are_the_names_of_the_files(served, tmp_path):
    """http.server writes `org__m%C3%B6del%20v2%20%231%20100%25/`; the table names the run as a local survey of the
    same folder does."""
    folder = served[0] / "named"
    write_small_drop_run(folder / "org__mödel v2 #1 100%")
    remote = survey([f"{served[1]}/named/"], tmp_path / "remote", LocalPool(1)).rows
    local = survey([str(folder)], tmp_path / "local", LocalPool(1)).rows
    assert remote == local
    assert {row["run"].partition("/")[0] for row in remote} == {"org__mödel v2 #1 100%"}
    assert all(row["status"] == "ok" and not row["rules"] for row in remote), remote


def test_a_results_file_given_by_its_percent_encoded_url_is_found(served, tmp_path):
    """The listing names files as on disk; a URL typed as the page links it was 'no such results file'."""
    folder = served[0] / "encoded" / "org__m"
    write_small_drop_run(folder)
    [results] = folder.glob("results_*.json")
    named = results.rename(results.with_name("my eval_" + results.name.removeprefix("results_")))
    url = f"{served[1]}/encoded/org__m/{named.name.replace(' ', '%20')}"
    rows = survey([url], tmp_path / "out", LocalPool(1)).rows
    assert [(row["task"], row["status"]) for row in rows] == [("drop", "ok")]


def test_page_names_are_decoded_only_where_every_name_stays_apart():
    def refs(*names):
        return [FileRef(name, f"http://host/{name}", None, "x") for name in names]

    def shown(*names):
        return [ref.name for ref in listing._as_named_on_disk(refs(*names))]

    assert shown("a%20b/results.json", "c%25/d") == ["a b/results.json", "c%/d"]
    assert shown("org%2Fmodel/x", "%00/x", "%FF/x") == [
        "org%2Fmodel/x",
        "%00/x",
        "%FF/x",
    ]  # no file is so named
    assert shown("a b/r.json", "a%20b/r.json", "c%20d/r.json") == [
        "a b/r.json",
        "a%20b/r.json",
        "c%20d/r.json",
    ]


def write_small_drop_run(folder) -> None:
    task = drop_task([f" {n}" for n in range(8)], [[[str(n)]] for n in range(8)])
    for sample in task.samples:
        with_hashes(sample)
    write_run(folder, [task])


PASSAGE = "The 2011 census recorded a population of 1,001,360 in the city. " * 150  # about 10 kB


def write_drop_run(folder, samples: int, passage: str) -> int:
    """A DROP run whose documents carry `passage`; the size of its log."""
    task = drop_task(
        [f" {n % 97}" for n in range(samples)], [[[str(n % 97)]] for n in range(samples)]
    )
    for sample in task.samples:
        sample["doc"]["passage"] = passage
        sample["arguments"]["gen_args_0"]["arg_0"] = (
            f"{passage} {sample['doc']['question']}"  # doc_to_text's
        )
        with_hashes(sample)
    return write_run(folder, [task])["drop"].stat().st_size


@pytest.fixture(scope="module")
def sized_runs(served):
    """Two runs of 1,000 DROP samples: one with short documents, one whose log is about 10 MB."""
    small = write_drop_run(served[0] / "small" / "org__small", 1_000, "Short.")
    big = write_drop_run(served[0] / "big" / "org__big", 1_000, PASSAGE)
    return {"small": (small, f"{served[1]}/small/"), "big": (big, f"{served[1]}/big/")}


MEASURE = """
import resource, sys
from validator.cli import main
try:
    main()
finally:
    sys.stderr.write(f"maxrss_kib={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n")
"""


def peak_kib(url: str, out) -> int:
    result = subprocess.run(
        [sys.executable, "-c", MEASURE, "survey", url, "--out", str(out), "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return int(result.stderr.rpartition("maxrss_kib=")[2])


def test_a_remote_log_is_streamed_not_held_in_memory(sized_runs, tmp_path):
    """The 10 MB log costs the process little more memory than the small one (a log held whole: 10 MB more)."""
    (small_size, small_url), (big_size, big_url) = sized_runs["small"], sized_runs["big"]
    assert big_size > 10_000_000 > 10 * small_size
    small, big = peak_kib(small_url, tmp_path / "small"), peak_kib(big_url, tmp_path / "big")
    assert (big - small) * 1024 < big_size / 4, (
        f"{big - small:,} KiB more for a log {big_size:,} bytes larger"
    )
    assert not list(tmp_path.glob("**/samples_*")), "nothing downloaded"


def test_a_remote_log_over_the_size_limit_is_a_finding(sized_runs, tmp_path):
    _, url = sized_runs["big"]
    settings = Settings(limits=Limits(max_log_bytes=1_000_000))
    rows = survey([url], tmp_path, LocalPool(1), settings).rows
    assert [(row["task"], row["rules"]) for row in rows] == [("drop", {"LB106": 1})]
    assert json.dumps(rows)  # plain data, whatever went wrong
