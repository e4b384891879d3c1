"""The survey reading runs from a Google Cloud Storage bucket: gcsfs against a real GCS JSON API server on loopback.

The server is gcp-storage-emulator's (in the `test` extra), reached the way
every Google client reaches an emulator: STORAGE_EMULATOR_HOST. The bucket
is filled through gcsfs, and the survey lists and reads it with gcsfs as it
would a leaderboard's details bucket. The table must be the one a local
survey writes; a log replaced in the bucket has a new md5Hash, so
`--resume` audits it again and skips the rest.

gcsfs's default filesystem first asks the Storage Control API, over gRPC,
what kind of bucket it reads (flat, hierarchical, zonal). No emulator
answers that: each ask times out after a minute and is not remembered. So
these tests use gcsfs's JSON API filesystem, which reads every bucket of
the flat kind the same way, by setting GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT=false
(gcsfs's own switch) before gcsfs is imported: what a user reaching an
emulator sets too (docs/survey.md). Skipped, with the reason, without the
`gcs` extra or the emulator.
"""

from __future__ import annotations

import functools
import http.server
import importlib
import sys
import threading

import pytest

fsspec = pytest.importorskip("fsspec", reason="URL sources need the `remote` extra (fsspec)")
emulator = pytest.importorskip(
    "gcp_storage_emulator.server", reason="the GCS server for these tests is gcp-storage-emulator's"
)

from support.remote_sources import (  # noqa: E402
    assert_a_replaced_log_is_the_one_unit_resumed,
    assert_the_remote_table_is_the_local_one,
    environment,
)
from support.survey_corpus import (  # noqa: E402
    assert_finds_exactly_the_planted_faults,
    make_corpus,
)

from validator.survey.engine import survey  # noqa: E402
from validator.survey.local_pool import LocalPool  # noqa: E402
from validator.survey.stores import SourceError  # noqa: E402

BUCKET = "leaderboard-details"


class _EmulatorThread(threading.Thread):
    """The emulator's own request handler and storage, on an HTTP server with a deeper connection queue.

    The emulator answers one request at a time, and its server queues 5 connections: gcsfs uploads
    and pool workers open more at once, and the rest waited for TCP to retry them (seconds each).
    """

    def __init__(self, storage):
        super().__init__(
            daemon=True
        )  # a test that fails must not leave the process waiting on this thread
        handler = functools.partial(emulator.RequestHandler, storage)
        self.httpd = type("QueuedServer", (http.server.HTTPServer,), {"request_queue_size": 128})(
            ("127.0.0.1", 0), handler
        )

    def run(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        """shutdown() waits for the request in hand, which a client that stopped midway never ends: 10 s at most."""
        stopper = threading.Thread(target=self.httpd.shutdown, daemon=True)
        stopper.start()
        stopper.join(10)
        self.httpd.server_close()


@pytest.fixture(scope="module")
def gcs():
    """gcsfs's JSON API filesystem class, with every gs:// path served by an emulator on 127.0.0.1.

    The environment is set before gcsfs is imported (or gcsfs is imported again), and fsspec is given
    the class for gs://. Afterwards the environment, gcsfs and fsspec's registry are as they were, so a
    later import gets gcsfs's default class again. Forked pool workers inherit all three.
    """
    pytest.importorskip("gcsfs", reason="gs:// sources need the `gcs` extra (gcsfs)")
    storage = emulator.Server("127.0.0.1", 0, in_memory=True, default_bucket=BUCKET)._storage
    thread = _EmulatorThread(storage)
    thread.start()
    port = thread.httpd.server_address[1]
    settings = {
        "STORAGE_EMULATOR_HOST": f"http://127.0.0.1:{port}",
        "GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT": "false",
    }
    loaded = {protocol: fsspec.registry.get(protocol) for protocol in ("gs", "gcs")}
    try:
        with environment(settings):
            gcsfs = (
                importlib.reload(sys.modules["gcsfs"])
                if "gcsfs" in sys.modules
                else importlib.import_module("gcsfs")
            )
            from gcsfs.core import GCSFileSystem

            assert gcsfs.GCSFileSystem is GCSFileSystem, (
                "gcsfs's gRPC filesystem would wait a minute per file"
            )
            for protocol in loaded:
                fsspec.register_implementation(protocol, GCSFileSystem, clobber=True)
            yield GCSFileSystem
            GCSFileSystem.clear_instance_cache()
        importlib.reload(
            gcsfs
        )  # with the environment back: gcsfs.GCSFileSystem is its default class again
        for protocol, cls in loaded.items():
            if (
                cls is None
            ):  # not imported before: fsspec imports it again on first use (private, no public undo)
                sys.modules["fsspec.registry"]._registry.pop(protocol, None)
            else:
                fsspec.register_implementation(protocol, cls, clobber=True)
    finally:
        thread.stop()


@pytest.fixture(scope="module")
def bucket(gcs, tmp_path_factory):
    """(local copy, planted faults, gcsfs filesystem): a corpus uploaded to gs://BUCKET/runs/."""
    root = tmp_path_factory.mktemp("corpus")
    expected = make_corpus(root, runs=24, seed=19)
    filesystem = gcs(token="anon", project="lbnorm-tests")
    filesystem.put(f"{root}/", f"{BUCKET}/runs/", recursive=True)
    return root, expected, filesystem


def test_a_run_tree_in_a_gcs_bucket_gives_the_local_table(bucket, tmp_path):
    root, expected, _ = bucket
    assert_the_remote_table_is_the_local_one(f"gs://{BUCKET}/runs", root, expected, tmp_path)


def test_a_manifest_in_the_bucket_names_its_runs_relative_to_itself(bucket, tmp_path):
    root, expected, _ = bucket
    rows = survey([f"gs://{BUCKET}/runs/manifest.csv"], tmp_path / "gs", LocalPool(1)).rows
    assert_finds_exactly_the_planted_faults(rows, expected)
    assert any(row["published"] is not None for row in rows)


def test_a_log_replaced_in_the_bucket_is_audited_again_on_resume(bucket, tmp_path):
    _, _, filesystem = bucket  # GCS gives the replaced log a new md5Hash
    assert_a_replaced_log_is_the_one_unit_resumed(
        filesystem, f"gs://{BUCKET}/runs", f"{BUCKET}/runs", tmp_path
    )


def test_a_folder_that_is_not_in_the_bucket_is_a_source_error(bucket, tmp_path):
    """A missing folder must not pass as a survey that found nothing wrong (gcsfs's ls says it is not there)."""
    with pytest.raises(
        SourceError,
        match=r"gs://leaderboard-details/no-such-folder/?: cannot be listed: no such folder",
    ):
        survey([f"gs://{BUCKET}/no-such-folder/"], tmp_path, LocalPool(1))


def test_a_bucket_that_is_not_there_is_a_source_error(bucket, tmp_path):
    with pytest.raises(SourceError, match=r"gs://no-such-bucket/: "):
        survey(["gs://no-such-bucket/"], tmp_path, LocalPool(1))


def test_a_manifest_that_is_not_in_the_bucket_is_a_source_error_saying_so_once(bucket, tmp_path):
    with pytest.raises(SourceError) as raised:
        survey([f"gs://{BUCKET}/runs/missing.csv"], tmp_path, LocalPool(1))
    assert str(raised.value).startswith(
        f"gs://{BUCKET}/runs/missing.csv: the manifest cannot be read (FileNotFound"
    )
    assert str(raised.value).count("cannot be read") == 1
