"""Repeated docs: the same doc logged under two doc_ids.

lm-eval logs each document of the split once per filter, under its own
doc_id. A sample whose score was bad, replaced by a copy of a good one that
keeps the bad one's doc_id (hashes, aggregates and the task hash redone),
leaves every doc_id present and every number consistent; only the doc shows
up twice. Some datasets hold the same row twice, so a repeat is a finding
only where the doc carries the dataset's own id for its row (IFEval's `key`,
DROP's `query_id`, ARC's `id`...); other repeats are counted in a note.

Docs are matched by their doc_hash, where the hashes check found it to be
the doc's own (a doc_hash that fails LB703 matches nothing). A copy edited
with its hash redone (its keys reordered, say) is
another doc by its hash, but not by its row id: so docs are matched by the
value of their row id too. EleutherAI/drop holds one query_id twice (two
questions that differ in their last character), so up to ROW_ID_REPEATS
such docs per log are honest; more are LB725. A copy given the replaced doc's
row id and doc_id, its hashes redone, is matched by its content: the doc apart
from its id fields, and its question and choices (QUESTION_FIELDS,
CHOICE_FIELDS). A split may repeat a question under two ids, but rarely: more
such docs than CONTENT_REPEATS (or one in CONTENT_SHARE of the log's docs) are
LB725. Rule LB725.
"""

from __future__ import annotations

import orjson

from ...findings import ERROR
from ...findings.registry import rule
from .. import doc_tables
from ..doc_tables import DocIdSet, FirstSeen
from .base import AuditCheck, Sample, audit_check

# Fields that name a dataset's row, unique within its split: IFEval key, DROP query_id, ARC/OpenBookQA/
# CommonsenseQA id, HellaSwag ind, MMLU-Pro question_id, GPQA Record ID, SuperGLUE idx, HumanEval task_id.
# (DROP's section_id and RACE's example_id name a passage several questions share: not here.)
ROW_ID_FIELDS = ("key", "query_id", "id", "ind", "question_id", "Record ID", "idx", "task_id")
MAX_TOLD = 5  # repeated docs reported per log; the note counts them all
# Docs looked up per log, at about 100 bytes each: the largest leaderboard split (MMLU, 14,042) ten times over,
# and 13 MB whatever a log holds. A doc past them is still matched against them, not kept.
MAX_TRACKED = 1 << 17
ROW_ID_REPEATS = 2  # docs per log that may share a row id with another doc (EleutherAI/drop's one query_id twice)
# A doc's content is matched without these: what a copy given another row's identity changes
ID_FIELDS = frozenset((*ROW_ID_FIELDS, "doc_id", "source_id", "example_id"))
# The question and its choices, by the datasets' field names (ARC, HellaSwag, MMLU(-Pro), GPQA, MuSR, BBH,
# GSM8K, MATH, IFEval, DROP, Winogrande, PIQA, TruthfulQA, CommonsenseQA)
QUESTION_FIELDS = (
    "question",
    "Question",
    "query",
    "problem",
    "prompt",
    "ctx",
    "goal",
    "sentence",
    "input",
    "narrative",
    "passage",
    "stem",
)
CHOICE_FIELDS = (
    "choices",
    "options",
    "endings",
    "mc1_targets",
    "mc2_targets",
    "sol1",
    "option1",
    "Correct Answer",
    "answers",
)
# Docs per log whose content repeats another doc's under another id that a split may hold honestly (BBH's
# generated inputs, a question asked twice in GSM8K or MMLU)
CONTENT_REPEATS = 5
CONTENT_SHARE = 50  # ...or one in this many of the log's docs, whichever is more (BBH's 250: 5)
_ROW_ID_VALUES = (str, int)
_ROW_ID_SET = frozenset(ROW_ID_FIELDS)


@rule("LB725", "doc-logged-twice", ERROR, runs=False)
def doc_logged_twice(ctx):
    """The same doc, with its dataset's own row id, is logged under two doc_ids.

    lm-eval logs each row of the split once (once per filter) under its own
    doc_id. A sample that scored badly, replaced by a copy of one that scored
    well under the bad one's doc_id, with aggregates and the task hash
    redone, leaves every doc_id present and every number consistent: only
    the doc repeats. A repeat (by its logged doc_hash) is reported when the
    doc carries a row id its dataset does not repeat (`key`, `query_id`,
    `id`, `ind`, `question_id`, `Record ID`, `idx`, `task_id`); other
    repeats are counted in a note. A copy edited, its hash redone, is
    matched by the value of its row id: more than two docs per log sharing
    one with another doc_id are reported (EleutherAI/drop holds one query_id
    twice). A copy given the replaced doc's row id too is matched by its
    content: the doc apart from its id fields, or its question and choices.
    More such docs than a split explains (5, or one in 50 of the log's docs)
    are reported at the first, whether or not the docs carry a row id.
    Logs without doc_hash (lm-eval < 0.4.3) are not checked.
    """


@audit_check(order=22)
class RepeatedDocs(AuditCheck):
    """LB725: one doc, with its dataset's row id, under two doc_ids."""

    def __init__(self, log):
        super().__init__(log)
        # hash(doc_hash) -> the doc_id it was first logged under: an int a doc, not the 64-character string.
        # Python's string hash is seeded per process, so no log can be made to collide two docs on purpose.
        self.first_doc_id = FirstSeen()
        self.repeated = DocIdSet()  # doc_ids counted as repeats: once each, not once per filter
        self.with_row_id = self.without_row_id = 0
        self.full = False
        self.first_by_row_id = FirstSeen()  # hash((field, value)) -> its first doc_id
        self.row_id_shared: list = []  # [count, the first sample, its row id field, the first doc_id]
        self.row_id = ROW_ID_FIELDS[0]
        # content_keys() -> its first doc_id; a doc without id fields is matched by its doc_hash, in
        # first_doc_id, unless the doc's first sample was not matched by its content (doc_keys_unmatched)
        self.first_by_content = FirstSeen()
        self.doc_keys_unmatched: set[int] = set()
        self.content_repeats = DocIdSet()  # doc_ids whose content repeats another doc_id's
        self.first_content_repeat: tuple = ()  # (its sample, the first doc_id, what matched)
        self.docs_seen = DocIdSet()
        self.told = DocIdSet()  # doc_ids told as repeats by their row id and doc_hash
        self.tables = (self.first_doc_id, self.first_by_row_id, self.first_by_content)
        # a sample adds at most two entries to a table, so none can pass SMALL before this many samples
        self.until_settled = max(1, doc_tables.SMALL // 8)

    def add(self, sample: Sample) -> None:
        if not sample.doc_hash_ok:
            return  # no hash, or not the doc's (LB702, LB703): it names no doc to match by
        self.until_settled -= 1
        if not self.until_settled:
            self._settle()
        doc_key = hash(sample.data["doc_hash"])
        doc_id = sample.doc_id
        if len(self.first_doc_id) < MAX_TRACKED:  # one look-up: a new doc is its own first
            first = self.first_doc_id.setdefault(doc_key, doc_id)
        else:
            first = self.first_doc_id.get(doc_key)
            self.full = self.full or first is None
        if first != doc_id and first is not None:
            if not self.repeated.has(doc_id) and len(self.repeated) < MAX_TRACKED:
                self._repeat(sample, first)
        doc = sample.data.get("doc")
        if type(doc) is not dict:
            return
        # after the doc_hash: a doc repeated whole is told above, not counted again by its row id
        if not _ROW_ID_SET.isdisjoint(doc):  # in C: most docs of a log without one end here
            _by_row_id(self, sample, doc)
        self._by_content(sample, doc, doc_key, first)

    def _by_content(
        self, sample: Sample, doc: dict, doc_key: int, first_by_hash: int | None
    ) -> None:
        if len(self.docs_seen) >= MAX_TRACKED:
            return
        doc_id = sample.doc_id
        self.docs_seen.add(doc_id)
        if self.told.has(doc_id):
            if first_by_hash is not None and ID_FIELDS.isdisjoint(doc):
                if (
                    len(self.doc_keys_unmatched) < MAX_TRACKED
                ):  # past it, matched by doc_hash: stricter
                    self.doc_keys_unmatched.add(doc_key)
            return  # told already, by its row id and doc_hash
        for what, key in content_keys(doc, doc_key, sample.doc_plain):
            if what == THE_DOC and first_by_hash is not None and key not in self.doc_keys_unmatched:
                first = first_by_hash  # where its first sample was matched by its content too
            else:
                first = _first_by_content(self, key, doc_id)
            if first != doc_id and not self.content_repeats.has(doc_id):
                self.content_repeats.add(doc_id)
                if not self.first_content_repeat:
                    self.first_content_repeat = (sample, first, what)
                return

    def _settle(self) -> None:
        for table in (*self.tables, self.docs_seen, self.repeated, self.told, self.content_repeats):
            table.settle()
        self.until_settled = max(1, doc_tables.SMALL // 8)

    def _repeat(self, sample: Sample, first: int) -> None:
        doc = sample.data.get("doc")  # a doc_hash can be the hash of no doc ("null") or of a list
        row_id = (
            next((name for name in ROW_ID_FIELDS if name in doc), None)
            if isinstance(doc, dict)
            else None
        )
        self.repeated.add(sample.doc_id)
        if row_id is None:
            self.without_row_id += 1
            return
        self.with_row_id += 1
        self.told.add(sample.doc_id)
        if self.with_row_id <= MAX_TOLD:
            self.log.at_record(
                "LB725",
                sample.record,
                ("doc_id",),
                (
                    f"{self.spec.name} doc_id {sample.doc_id}: the same doc (its {row_id!r} and doc_hash) is logged "
                    f"under doc_id {first}; lm-eval logs each row of the split once, so one doc's sample was "
                    "replaced by a copy of another's"
                ),
            )

    def finish(self) -> None:
        explained = max(CONTENT_REPEATS, len(self.docs_seen) // CONTENT_SHARE)
        shared_row_ids = self.row_id_shared and self.row_id_shared[0] > ROW_ID_REPEATS
        if (
            len(self.content_repeats) > explained and not shared_row_ids
        ):  # one finding for one cause
            sample, first, what = self.first_content_repeat
            self.without_row_id = 0  # told here, not as a note
            self.log.at_record(
                "LB725",
                sample.record,
                ("doc",),
                (
                    f"{self.spec.name} doc_id {sample.doc_id}: {what} repeat doc_id {first}'s, as do "
                    f"{len(self.content_repeats):,} docs (a split explains {explained}): samples were replaced "
                    "by copies of others under new ids"
                ),
            )
        if self.row_id_shared and self.row_id_shared[0] > ROW_ID_REPEATS:
            count, sample, row_id, first = self.row_id_shared
            self.log.at_record(
                "LB725",
                sample.record,
                ("doc", row_id),
                (
                    f"{self.spec.name} doc_id {sample.doc_id}: its {row_id!r} is that of the doc under doc_id {first}, "
                    f"and {count:,} docs share a row id with another doc_id; lm-eval logs each row of the split once, "
                    "so samples were replaced by copies of others (their docs edited, their hashes redone)"
                ),
            )
        self.summary.notes.extend(_notes(self))


def _notes(check: RepeatedDocs) -> list[str]:
    notes = []
    if check.with_row_id > MAX_TOLD:
        notes.append(
            f"{check.with_row_id:,} docs with a row id repeat under other doc_ids (LB725 "
            f"reported the first {MAX_TOLD})"
        )
    if check.without_row_id:
        notes.append(
            f"{check.without_row_id:,} docs are logged again under another doc_id; they "
            "carry no row id of their dataset, which may hold the same row twice, so "
            "this is not reported as a finding"
        )
    if check.full:
        notes.append(f"repeated docs were looked for among the first {MAX_TRACKED:,} docs only")
    return notes


def content_keys(doc: dict, doc_key: int, plain: bool = False) -> list[tuple[str, int]]:
    """What identifies a doc's content, as (what it is, a number): the doc apart from its id fields (the doc
    itself, `doc_key`, where it has none), then its question and choices where it has a question. `plain`: the
    doc holds no NaN or infinity (the hashes check found that orjson writes it, sample.doc_plain)."""
    rest, question, choices = _layout(doc)
    if rest is None:
        keys = [(THE_DOC, doc_key)]
    else:
        fields = dict(zip(rest, map(doc.__getitem__, rest), strict=True))
        key = _json_key(fields, plain)
        if key is None:
            key = hash(tuple(zip(rest, map(_frozen, fields.values()), strict=True)))
        keys = [("the doc apart from its id fields", key)]
    if question:
        asked = list(map(doc.__getitem__, question))
        offered = list(map(doc.__getitem__, choices))
        key = _json_key([asked, offered], plain)
        if key is None:
            key = hash((_QUESTION, tuple(map(_frozen, asked)), tuple(map(_frozen, offered))))
        keys.append(("the question and choices", key))
    return keys


def _json_key(value: dict | list, plain: bool) -> int | None:
    """The hash of `value`'s JSON, keys sorted, as orjson writes it: equal for two values exactly where their
    JSON is (as _frozen's), and found in C. None where orjson cannot tell them apart (it writes NaN and the
    infinities as null) or refuses them (an integer past 64 bits, a lone surrogate, nesting past 254 levels):
    _frozen's hash stands for them. Whether a value is left to _frozen depends on the value alone, never on the
    rest of its doc, so a copy cannot be made to miss its original by an edit outside the fields compared.
    An object's JSON starts with '{' and a list's with '[': the two keys of a doc never match each other.
    `plain` is only ever orjson_writes_it's answer, which no doc holding NaN or an infinity gets."""
    if plain or _finite(value):
        try:
            return hash(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))
        except orjson.JSONEncodeError:
            pass
    return None


# Past orjson's 254 levels: a deeper value is refused by orjson, and not walked further
_FINITE_DEPTH = 300


def _finite(value, depth: int = 0) -> bool:
    """No NaN or infinity anywhere in `value`, nested at most _FINITE_DEPTH levels (a doc the hashes check did
    not find plain)."""
    kind = type(value)
    if kind is float:
        return value - value == 0  # NaN and the infinities give NaN
    if kind is dict:
        value = value.values()
    elif kind is not list:
        return True
    if depth >= _FINITE_DEPTH:
        return False
    return all(_finite(item, depth + 1) for item in value)


def _layout(doc: dict) -> tuple:
    """(its fields but the id fields, sorted, or None where it has no id field; its question fields; its choice
    fields): the same for every doc of a log, so found once per layout."""
    names = tuple(doc)
    layout = _LAYOUTS.get(names)
    if layout is None:
        rest = None if ID_FIELDS.isdisjoint(doc) else sorted(set(doc) - ID_FIELDS)
        layout = (
            rest,
            [name for name in QUESTION_FIELDS if name in doc],
            [name for name in CHOICE_FIELDS if name in doc],
        )
        if len(_LAYOUTS) < MAX_LAYOUTS:
            _LAYOUTS[names] = layout
    return layout


MAX_LAYOUTS = 256  # docs' field names remembered per process, whatever the logs hold
_LAYOUTS: dict[tuple, tuple] = {}
THE_DOC = "the doc"
# A tag no frozen doc holds: the question's key is a 3-tuple led by it, the rest of a doc's a tuple of pairs
_QUESTION = "question and choices"
# Ints from 0 below this hash to themselves; others may not (-1 and -2 hash alike, and so do n and n + this)
_EXACT_INTS = (1 << 61) - 1
_STRINGS = frozenset((str,))
# The empty string hashes to 0, as the int 0 does, in every process: it is frozen tagged
_EMPTY_STRING = (str, "")


def _frozen(value):
    """A parsed JSON value as a hashable value equal to another exactly where their JSON, keys sorted, is equal.

    Values of different JSON types never compare equal (1, 1.0 and true; "1" and 1), a float compares by its
    repr as JSON writes it (NaN equals NaN), an object's keys are sorted (a copy may reorder them), and each
    level is tagged with its type. Ints that do not hash to themselves are frozen by their digits, and the
    empty string, which hashes to 0 as 0 does, is tagged, so the hash of a frozen value is as distinct as the
    values are."""
    kind = type(value)
    if kind is str:
        return value or _EMPTY_STRING
    if kind is int:
        return value if 0 <= value < _EXACT_INTS else (int, repr(value))
    if kind is list:
        if _STRINGS.issuperset(map(type, value)) and "" not in value:
            return (list, *value)  # most lists (choices, spans): frozen as they are, in C
        return (list, *map(_frozen, value))
    if kind is dict:
        return (dict, *sorted(zip(value, map(_frozen, value.values()), strict=True)))
    return (kind, repr(value))  # float, bool, None


def _first_by_content(check: RepeatedDocs, key: int, doc_id: int) -> int:
    """Its first doc_id, kept while the table holds fewer than two keys a tracked doc (a doc_id that logs
    other docs under other filters adds more); past that, matched against those kept, not kept."""
    if len(check.first_by_content) < 2 * MAX_TRACKED:
        return check.first_by_content.setdefault(key, doc_id)
    first = check.first_by_content.get(key)
    return doc_id if first is None else first


def _by_row_id(check: RepeatedDocs, sample: Sample, doc: dict) -> None:
    row_id = (
        check.row_id if check.row_id in doc else next(name for name in ROW_ID_FIELDS if name in doc)
    )
    # a log's docs share their fields: the next doc is asked for this one first
    check.row_id = row_id
    if type(doc[row_id]) not in _ROW_ID_VALUES:
        return
    key = hash((row_id, doc[row_id]))
    if len(check.first_by_row_id) < MAX_TRACKED:
        first = check.first_by_row_id.setdefault(key, sample.doc_id)
    else:
        first = check.first_by_row_id.get(key)
    if first is not None and first != sample.doc_id and not check.repeated.has(sample.doc_id):
        if check.row_id_shared:
            check.row_id_shared[0] += 1
        else:
            check.row_id_shared = [1, sample, row_id, first]
