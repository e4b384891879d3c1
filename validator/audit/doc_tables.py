"""Tables a check keeps for every document of a log, compact once they are large.

A check that matches each doc against every earlier one (repeated docs, LB725) keeps an entry per
document for the whole log. A dict or set entry costs about 100 bytes (the entry, its index slot, a
boxed 64-bit key), so a log of 120,000 docs would keep tens of MiB. These tables start as a dict or a
set, the fastest while small, and past SMALL entries move into flat arrays: an open-addressed table
of 12 bytes a slot (a 64-bit key and a 32-bit doc_id, at most two thirds full) and a bitmap of one bit
a doc_id. The owner calls settle() every so often: a dict's own methods, which the small tables hand
out, cannot count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from array import array

SMALL = 1 << 15  # entries a table holds as a dict or set before it moves to arrays
# doc_ids below this are bits of a bitmap (2 MiB at most); larger ones stay in a set
BITMAP_IDS = 1 << 24
_BIG = -1  # a slot's doc_id when it does not fit 32 bits: the doc_id is held aside, by its key
_ID_LIMIT = (1 << 31) - 1


class FirstSeen:
    """key (a 64-bit hash) -> the doc_id first seen with it: get(key) and setdefault(key, doc_id), as a dict's."""

    # Set when the table moves to arrays (a log's check makes several tables, most of which stay small)
    mask = size = room = 0
    keys: array  # 64-bit keys; 0: an empty slot (the key 0 itself is held aside)
    ids: array  # 32-bit doc_ids
    aside: dict[int, int]  # the key 0, and keys whose doc_id does not fit a slot

    def __init__(self) -> None:
        self.small: dict[int, int] = {}
        self.get: Callable[[int], int | None] = self.small.get
        self.setdefault: Callable[[int, int], int] = self.small.setdefault

    def __len__(self) -> int:
        return self.size if self.mask else len(self.small)

    def settle(self) -> None:
        """Into arrays, once the dict is past SMALL entries."""
        if not self.mask and len(self.small) > SMALL:
            small, self.small = self.small, {}
            self._resize(small.items(), len(small))
            self.get = self._get
            self.setdefault = self._setdefault

    def _slot(self, key: int) -> int:
        """The slot holding `key`, or the empty slot where it would go (linear probing from key & mask)."""
        keys, mask = self.keys, self.mask
        slot = key & mask
        while True:
            found = keys[slot]
            if found == key or not found:
                return slot
            slot = (slot + 1) & mask

    def _get(self, key: int) -> int | None:
        if not key:
            return self.aside.get(0)
        slot = self._slot(key)
        if not self.keys[slot]:
            return None
        doc_id = self.ids[slot]
        return self.aside[key] if doc_id == _BIG else doc_id

    def _setdefault(self, key: int, doc_id: int) -> int:
        if not key:
            first = self.aside.get(0)
            if first is None:
                self.aside[0] = doc_id
                self.size += 1
                return doc_id
            return first
        slot = self._slot(key)
        if self.keys[slot]:
            first = self.ids[slot]
            return self.aside[key] if first == _BIG else first
        self._fill(slot, key, doc_id)
        self.size += 1
        if self.size > self.room:
            held, aside = zip(self.keys, self.ids, strict=True), self.aside
            self._resize(
                (
                    (held_key, aside.get(held_key, held_id))
                    for held_key, held_id in held
                    if held_key
                ),
                self.size,
            )
            if 0 in aside:
                self.aside[0] = aside[0]
        return doc_id

    def _fill(self, slot: int, key: int, doc_id: int) -> None:
        self.keys[slot] = key
        if doc_id < _ID_LIMIT:
            self.ids[slot] = doc_id
        else:
            self.ids[slot] = _BIG
            self.aside[key] = doc_id

    def _resize(self, entries: Iterable[tuple[int, int]], count: int) -> None:
        """New arrays, at most two thirds full with `count` entries, and `entries` in them (the key 0 aside)."""
        slots = 8
        while slots * 2 < count * 3:
            slots *= 2
        # Imported here: only a log past SMALL docs makes arrays (a fresh audit's start-up)
        from array import array

        self.keys = keys = array("q", bytes(8 * slots))
        self.ids = array("i", bytes(4 * slots))
        self.aside = {}
        self.mask = mask = slots - 1
        self.room = slots * 2 // 3
        self.size = count
        for key, doc_id in entries:
            if key:
                slot = key & mask
                while keys[slot]:
                    slot = (slot + 1) & mask
                self._fill(slot, key, doc_id)
            else:
                self.aside[0] = doc_id


class DocIdSet:
    """A set of doc_ids (non-negative ints): add(doc_id), has(doc_id) and len(), as a set's."""

    in_bitmap = False
    in_bits = 0
    bits: bytearray  # set when the set moves to a bitmap

    def __init__(self) -> None:
        self.small: set[int] = set()  # every doc_id while small; then those at or past BITMAP_IDS
        self.add: Callable[[int], None] = self.small.add
        self.has: Callable[[int], bool] = self.small.__contains__

    def __len__(self) -> int:
        return len(self.small) + self.in_bits

    def settle(self) -> None:
        """Into a bitmap, once the set is past SMALL doc_ids."""
        if not self.in_bitmap and len(self.small) > SMALL:
            held, self.small = self.small, set()
            self.in_bitmap = True
            self.bits = bytearray()
            self.add = self._add
            self.has = self._has
            for doc_id in held:
                self._add(doc_id)

    def _add(self, doc_id: int) -> None:
        if doc_id >= BITMAP_IDS:
            self.small.add(doc_id)
            return
        byte, bit = doc_id >> 3, 1 << (doc_id & 7)
        bits = self.bits
        if byte >= len(bits):  # grown by doubling, up to the byte asked for
            bits.extend(bytes(max(byte + 1, min(2 * len(bits), BITMAP_IDS >> 3)) - len(bits)))
        if not bits[byte] & bit:
            bits[byte] |= bit
            self.in_bits += 1

    def _has(self, doc_id: int) -> bool:
        if doc_id >= BITMAP_IDS:
            return doc_id in self.small
        byte = doc_id >> 3
        return byte < len(self.bits) and bool(self.bits[byte] & (1 << (doc_id & 7)))
