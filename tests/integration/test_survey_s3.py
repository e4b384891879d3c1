"""The survey reading runs from an S3 bucket: s3fs against a real S3 protocol server on loopback (moto's).

The bucket is filled through s3fs, the survey lists it with s3fs's `find`
and reads every log by blocks (ranged GETs), exactly as it would read a
leaderboard's details bucket. The table must be the one a local survey
writes; a log replaced in the bucket has a new ETag, so `--resume` audits
it again and skips the rest. Skipped, with the reason, without the `s3`
extra or moto's server (both in the `test` extra).
"""

from __future__ import annotations

import os

import pytest

fsspec = pytest.importorskip("fsspec", reason="URL sources need the `remote` extra (fsspec)")
pytest.importorskip("s3fs", reason="s3:// sources need the `s3` extra (s3fs)")
moto_server = pytest.importorskip(
    "moto.server", reason="the S3 server for these tests is moto's (moto[server])"
)

from support.remote_sources import (  # noqa: E402
    assert_a_replaced_log_is_the_one_unit_resumed,
    assert_the_remote_table_is_the_local_one,
    environment,
)
from support.survey_corpus import make_corpus  # noqa: E402

BUCKET = "leaderboard-details"


@pytest.fixture(scope="module")
def endpoint():
    """An S3 endpoint on 127.0.0.1, and the settings fsspec and botocore read to reach it (pool workers inherit them)."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    settings = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }
    # fsspec's configuration gives every s3:// filesystem this endpoint (a user sets the same in
    # ~/.config/fsspec or FSSPEC_S3_ENDPOINT_URL); read at import, so set here.
    saved_conf = fsspec.config.conf.get("s3")
    fsspec.config.conf["s3"] = {"endpoint_url": url}
    with environment(settings):
        yield url
    if saved_conf is None:
        fsspec.config.conf.pop("s3", None)
    else:
        fsspec.config.conf["s3"] = saved_conf
    server.stop()


@pytest.fixture(scope="module")
def bucket(endpoint, tmp_path_factory):
    """(local copy, planted faults, s3fs filesystem): a corpus uploaded to s3://BUCKET/runs/."""
    import s3fs

    root = tmp_path_factory.mktemp("corpus")
    expected = make_corpus(root, runs=24, seed=17)
    filesystem = s3fs.S3FileSystem(endpoint_url=endpoint)
    filesystem.mkdir(BUCKET)
    filesystem.put(f"{root}/", f"{BUCKET}/runs/", recursive=True)
    return root, expected, filesystem


def test_a_run_tree_in_a_bucket_gives_the_local_table(bucket, tmp_path):
    root, expected, _ = bucket
    assert_the_remote_table_is_the_local_one(f"s3://{BUCKET}/runs", root, expected, tmp_path)


def test_a_log_replaced_in_the_bucket_is_audited_again_on_resume(bucket, tmp_path):
    _, _, filesystem = bucket  # S3 gives the replaced log a new ETag
    assert_a_replaced_log_is_the_one_unit_resumed(
        filesystem, f"s3://{BUCKET}/runs", f"{BUCKET}/runs", tmp_path
    )
