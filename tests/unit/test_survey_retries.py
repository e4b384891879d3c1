"""A remote file read again after a break (validator/survey/retries.py): read on exactly, or LB101, never spliced."""

from __future__ import annotations

import pytest

from validator.io.documents import DocumentError
from validator.io.limits import Limits
from validator.survey import retries
from validator.survey.records import stream_records
from validator.survey.retries import RetryingStream
from validator.survey.stores import BoundedStream


class Response:
    """A response body handed out a few bytes at a time that breaks after `cut` bytes, as a dropped connection."""

    def __init__(self, body: bytes, cut: int | None = None, size: int = 5):
        self.body, self.cut, self.size, self.sent = body, cut, size, 0

    def read(self, size: int = -1) -> bytes:
        if self.cut is not None and self.sent >= self.cut:
            raise ConnectionResetError("Connection reset by peer")
        end = min(len(self.body), self.sent + min(self.size, size if size >= 0 else self.size))
        if self.cut is not None:
            end = min(end, self.cut)
        data, self.sent = self.body[self.sent : end], end
        return data

    def close(self) -> None:
        pass


def served(*responses: Response) -> BoundedStream:
    """The stream the survey reads a remote log through, its store answering each open with the next response."""
    answers = iter(responses)
    return BoundedStream(RetryingStream(lambda: next(answers), retries=3), 1 << 20, "max_log_bytes")


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch):
    monkeypatch.setattr(retries, "BASE_SECONDS", 0.0)
    retries.taken()


LOG = (
    b'{"doc_id": 0, "target": "a"}\n{"doc_id": 1, "target": "old"}\n{"doc_id": 2, "target": "c"}\n'
)


def test_a_log_cut_twice_is_read_on_exactly_where_it_broke_and_each_record_audited_once():
    stream = served(Response(LOG, cut=40), Response(LOG, cut=75), Response(LOG))
    records = [record.data for record in stream_records(stream, Limits())]
    assert records == [
        {"doc_id": 0, "target": "a"},
        {"doc_id": 1, "target": "old"},
        {"doc_id": 2, "target": "c"},
    ]
    assert retries.taken() == 2


def test_a_log_that_changed_before_a_retry_is_lb101_and_no_record_of_two_versions_is_audited():
    # Cut inside the second record's target: read on where it broke in the new version, the record would be
    # {"doc_id": 1, "target": "olw, longer"}, which neither version holds.
    changed = LOG.replace(b'"old"', b'"new, longer"').replace(b'"a"', b'"A"')
    cut = LOG.index(b"old") + 2
    stream = served(Response(LOG, cut=cut), Response(changed))
    records = []
    with pytest.raises(DocumentError) as error:
        records.extend(record.data for record in stream_records(stream, Limits()))
    assert records == [{"doc_id": 0, "target": "a"}]
    assert error.value.rule == "LB101"
    assert "changed while it was read" in error.value.message


def test_a_log_cut_at_the_same_byte_each_time_is_lb101_after_its_whole_records_and_no_cut_one():
    stream = served(*(Response(LOG, cut=40) for _ in range(4)))
    records = []
    with pytest.raises(DocumentError) as error:
        records.extend(record.data for record in stream_records(stream, Limits()))
    assert records == [
        {"doc_id": 0, "target": "a"}
    ]  # whole before the cut: audited, as a local log's
    assert error.value.rule == "LB101"
    assert "still failing after 3 retries" in error.value.message
