"""What the tests of remote survey sources share: a process environment set for a while, and the bucket checks."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from validator.survey.engine import survey
from validator.survey.local_pool import LocalPool


@contextlib.contextmanager
def environment(settings: dict[str, str], unset: tuple[str, ...] = ()) -> Iterator[None]:
    """os.environ with `settings` set and `unset` removed, put back as it was on the way out.

    Clients read these (endpoints, credentials) when they are imported or built; forked pool workers inherit them.
    """
    saved = {key: os.environ.get(key) for key in (*settings, *unset)}
    os.environ.update(settings)
    for key in unset:
        os.environ.pop(key, None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def assert_the_remote_table_is_the_local_one(
    url: str, root: Path, expected: dict, tmp_path: Path
) -> None:
    """The survey of `url` (a copy of the corpus at `root`) finds exactly its planted faults: the local table."""
    from support.survey_corpus import assert_finds_exactly_the_planted_faults

    remote = survey([url], tmp_path / "remote", LocalPool(2)).rows
    local = survey([str(root)], tmp_path / "local", LocalPool(2)).rows
    assert_finds_exactly_the_planted_faults(remote, expected)
    assert remote == local


def assert_a_replaced_log_is_the_one_unit_resumed(
    filesystem, url: str, path: str, tmp_path: Path
) -> None:
    """A log replaced in the bucket (at `path`, the filesystem's name for the folder `url`) has a new content
    fingerprint: --resume audits it again, skips every other unit, and finds its edited sample. Put back after."""
    out = tmp_path / "out"
    first = survey([url], out, LocalPool(1))
    log = sorted(found for found in filesystem.find(path) if "/samples_drop_" in found)[0]
    original = filesystem.cat(log)
    filesystem.pipe(
        log, original.decode("utf-8").replace('"em": 0,', '"em": 1,', 1).encode("utf-8")
    )
    try:
        again = survey([url], out, LocalPool(1), resume=True)
    finally:
        filesystem.pipe(log, original)  # the other tests read the corpus as written
    assert (first.skipped, again.units, again.skipped) == (0, first.units, first.units - 1)
    run = log.split(path.rstrip("/") + "/", 1)[1].rsplit("/", 1)[0]
    row = next(r for r in again.rows if r["run"].startswith(run + "/") and r["task"] == "drop")
    assert "LB708" in row["rules"]  # the edited sample's em is no longer what its prediction scores
