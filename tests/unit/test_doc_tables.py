"""The audit's per-document tables answer as a dict and a set would, before and after they move to arrays."""

from __future__ import annotations

import random

import pytest

from validator.audit import doc_tables
from validator.audit.doc_tables import DocIdSet, FirstSeen


@pytest.fixture(params=[doc_tables.SMALL, 3], ids=["as a dict", "in arrays"])
def small(request, monkeypatch):
    monkeypatch.setattr(doc_tables, "SMALL", request.param)
    return request.param


def keys_and_ids(rng: random.Random, count: int):
    """Keys as hash() gives them (negative too), with 0 and a few repeats; doc_ids small, past 32 and 64 bits."""
    keys = [rng.getrandbits(64) - (1 << 63) for _ in range(count)] + [0, 1, -1]
    keys += rng.sample(keys, count // 4)
    rng.shuffle(keys)
    ids = [
        rng.choice([rng.randrange(1000), rng.randrange(1 << 40), 1 << 70, (1 << 31) - 1])
        for _ in keys
    ]
    return keys, ids


def test_first_seen_answers_as_a_dict(small):
    rng = random.Random(7)
    keys, ids = keys_and_ids(rng, 3000)
    table, expected = FirstSeen(), {}
    for step, (key, doc_id) in enumerate(zip(keys, ids, strict=True)):
        if step % 3:
            assert table.setdefault(key, doc_id) == expected.setdefault(key, doc_id)
        else:
            assert table.get(key) == expected.get(key)
            if key not in expected and step % 2:
                expected[key] = table.setdefault(key, doc_id)
        if step % 50 == 0:
            table.settle()
        assert len(table) == len(expected)
    assert bool(table.mask) is (small == 3)  # past SMALL entries, the table is arrays
    for key in keys + [rng.getrandbits(64) for _ in range(100)]:
        assert table.get(key) == expected.get(key)


def test_doc_ids_answer_as_a_set(small, monkeypatch):
    monkeypatch.setattr(doc_tables, "BITMAP_IDS", 1 << 12)
    rng = random.Random(8)
    ids = [rng.choice([rng.randrange(5000), rng.randrange(1 << 12), 1 << 40]) for _ in range(4000)]
    held, expected = DocIdSet(), set()
    for step, doc_id in enumerate(ids):
        assert held.has(doc_id) == (doc_id in expected)
        held.add(doc_id)
        expected.add(doc_id)
        if step % 50 == 0:
            held.settle()
        assert len(held) == len(expected)
    assert held.in_bitmap is (small == 3)
    for doc_id in range(6000):
        assert held.has(doc_id) == (doc_id in expected)
    if held.in_bitmap:  # the bitmap stops at BITMAP_IDS; the ids past it stay a set
        assert len(held.bits) == (1 << 12) // 8
        assert held.small == {doc_id for doc_id in expected if doc_id >= 1 << 12}
