"""The survey reading runs from a Hugging Face Hub dataset repository, as hf://datasets/ORG/NAME/.

The leaderboard's per-sample details live in Hub dataset repositories. The
real client (huggingface_hub's HfFileSystem, in the `remote` extra) lists and
reads a repository here from tests/support/hub_server.py, a Hub stand-in on loopback,
reached the way a mirror is: HF_ENDPOINT. The table must be the one a local
survey writes; every log is read by ranged requests, never downloaded; a
repository that is not there is a source error naming it. Skipped, with the
reason, without huggingface_hub.
"""

from __future__ import annotations

import os
import re
import tracemalloc
from pathlib import Path

import pytest

pytest.importorskip("fsspec", reason="URL sources need the `remote` extra (fsspec)")
pytest.importorskip(
    "huggingface_hub", reason="hf:// sources need the `remote` extra (huggingface_hub)"
)

from fsspec.spec import AbstractBufferedFile  # noqa: E402
from support.hub_server import HubServer  # noqa: E402
from support.remote_sources import environment  # noqa: E402
from support.survey_corpus import (
    assert_finds_exactly_the_planted_faults,  # noqa: E402
    make_corpus,  # noqa: E402
)

from validator.survey.engine import survey  # noqa: E402
from validator.survey.local_pool import LocalPool  # noqa: E402
from validator.survey.stores import SourceError  # noqa: E402


def _bench_corpus():
    """bench/survey_corpus.py (realistic sizes), under its own name: tests/ has a survey_corpus module too."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_survey_corpus", Path(__file__).resolve().parents[2] / "bench" / "survey_corpus.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


write_big_runs = _bench_corpus().write_corpus

REPO = "open-llm-leaderboard/details"
BLOCK = (
    AbstractBufferedFile.DEFAULT_BLOCK_SIZE
)  # what HfFileSystem fetches per range request (5 MiB)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """(local copy, planted faults, server, Hub cache folder): a corpus served as the dataset repository REPO.

    The seeded corpus is the repository's folder runs/; big/ holds one run whose multiple-choice log is
    seven blocks long (every log of the seeded corpus fits in one block, so one range could be the file).

    huggingface_hub reads HF_ENDPOINT and its cache folder into its constants module at import, and derives
    URL templates from them: the environment is set and the module reloaded (forked pool workers inherit
    both), then both are put back, with fsspec's cached HfFileSystem that points at this server.
    """
    import importlib

    from huggingface_hub import HfFileSystem, constants

    root = tmp_path_factory.mktemp("repo")
    expected = make_corpus(root / "runs", runs=24, seed=23)
    write_big_runs(root / "big", runs=1, mc_docs=2400, drop_docs=20)
    cache = tmp_path_factory.mktemp("hf-home")
    with HubServer(root, REPO) as server:
        settings = {
            "HF_ENDPOINT": server.endpoint,
            "HF_HOME": str(cache),
            "HF_HUB_DISABLE_TELEMETRY": "1",
        }
        with environment(settings, unset=("HF_HUB_CACHE", "HF_TOKEN")):
            importlib.reload(constants)
            HfFileSystem.clear_instance_cache()
            try:
                yield root, expected, server, cache
            finally:
                HfFileSystem.clear_instance_cache()
        importlib.reload(constants)  # after the environment is back: the constants are read from it


def test_a_run_tree_in_a_hub_dataset_gives_the_local_table(hub, tmp_path):
    root, expected, server, _ = hub
    remote = survey([f"hf://datasets/{REPO}/runs/"], tmp_path / "hf", LocalPool(2)).rows
    local = survey([str(root / "runs")], tmp_path / "local", LocalPool(2)).rows
    assert_finds_exactly_the_planted_faults(remote, expected)
    assert remote == local


def test_hub_logs_are_read_by_ranges_and_never_downloaded(hub, tmp_path):
    root, _, server, cache = hub
    server.requests.clear()
    survey([f"hf://datasets/{REPO}/runs/"], tmp_path / "hf", LocalPool(1))
    reads = [(path, headers) for method, path, headers in server.requests if "/resolve/" in path]
    logs = {path for path, _ in reads if "/samples_" in path}
    assert len(logs) == len(list((root / "runs").rglob("samples_*.jsonl")))
    assert all("Range" in headers or "range" in headers for _, headers in reads), "a whole-file GET"
    assert not [name for _, _, names in os.walk(cache) for name in names], (
        "nothing written to the Hub cache"
    )


def test_a_repository_that_is_not_there_is_a_source_error_naming_it(hub, tmp_path):
    with pytest.raises(
        SourceError, match=r"hf://datasets/open-llm-leaderboard/missing/: cannot be listed"
    ):
        survey(["hf://datasets/open-llm-leaderboard/missing/"], tmp_path, LocalPool(1))


def test_a_folder_that_is_not_in_the_repository_is_a_source_error_too(hub, tmp_path):
    """A missing folder must not pass as a survey that found nothing wrong (the Hub's folder listing says 404)."""
    with pytest.raises(SourceError, match=r"/no-such-folder/: cannot be listed: no such folder"):
        survey([f"hf://datasets/{REPO}/no-such-folder/"], tmp_path, LocalPool(1))


def test_a_log_of_many_blocks_is_read_block_by_block_once_and_never_held_whole(hub, tmp_path):
    """Each request asks for about one block, together they read the log about once, and the survey's memory
    stays a few blocks, whatever the log's size. (The Hub stand-in runs in this process too; it sends each
    range from the file in small blocks, so what tracemalloc counts is the client's.)"""
    root, _, server, _ = hub
    log = max((root / "big").rglob("samples_*.jsonl"), key=lambda path: path.stat().st_size)
    size = log.stat().st_size
    assert size > 6 * BLOCK, "the test needs a log of several blocks"
    server.requests.clear()
    tracemalloc.start()
    try:
        result = survey(
            [f"hf://datasets/{REPO}/big/"], tmp_path / "hf", LocalPool(1)
        )  # here: in this process
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * BLOCK < size, f"{peak:,} bytes at most for a log of {size:,}"
    ranges = [
        _range(headers, size)
        for method, path, headers in server.requests
        if method == "GET" and path.endswith("/" + log.name)
    ]
    assert len(ranges) >= 3
    assert all(end - start <= 2 * BLOCK for start, end in ranges), ranges
    assert size <= sum(end - start for start, end in ranges) <= 1.5 * size, ranges
    row = next(row for row in result.rows if row["task"] == "mmlu_pro_like")
    assert row["samples"] == 2400 and not row["rules"]


def _range(headers: dict[str, str], size: int) -> tuple[int, int]:
    """(start, end) of a request's Range header, end exclusive; a GET without one asked for the whole file."""
    value = next((v for k, v in headers.items() if k.lower() == "range"), "bytes=0-")
    start, end = re.fullmatch(r"bytes=(\d+)-(\d*)", value).groups()
    return int(start), min(size, int(end) + 1) if end else size
