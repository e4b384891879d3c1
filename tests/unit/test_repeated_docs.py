"""One doc under two doc_ids (LB725): a failed sample replaced by a copy of a passed one keeps every doc_id.

Each case edits an honest run the way a submitter would (aggregates and task
hash redone by results_for), then asserts the exact findings: rule, file, line.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import harness_logs as harness

from validator.audit import doc_tables
from validator.audit.auditor import audit_files
from validator.harness.indented_json import orjson_writes_it

IFEVAL_LOG = f"samples_leaderboard_ifeval_{harness.DATE}.jsonl"
CHOICE = "arc_like"
CHOICE_LOG = f"samples_{CHOICE}_{harness.DATE}.jsonl"


@pytest.fixture(autouse=True, params=["as dicts", "in arrays"])
def tables(request, monkeypatch):
    """Every case twice: with the check's tables as dicts and sets (a log of a few thousand docs), and moved
    into arrays and bitmaps from the first doc (as a log of tens of thousands)."""
    if request.param == "in arrays":
        monkeypatch.setattr(doc_tables, "SMALL", 0)
    return request.param


def copy_sample(source: int, over: int):
    """Sample `over` replaced by a copy of sample `source`, keeping over's doc_id."""

    def edit(task):
        replacement = copy.deepcopy(task.samples[source])
        replacement["doc_id"] = task.samples[over]["doc_id"]
        task.samples[over] = replacement

    return edit


def ifeval(edit=None):
    task = harness.ifeval_task([[True], [False], [True, True], [False, True]])
    if edit:
        edit(task)
    return task


def choices_with_ids(edit=None, row_id: bool = True):
    """A multiple-choice task whose docs carry ARC's `id` (or none)."""
    task = harness.choice_task(CHOICE, 5)
    for sample in task.samples:
        if row_id:
            sample["doc"]["id"] = f"Mercury_{sample['doc_id']:04d}"
        harness.with_hashes(sample)
    if edit:
        edit(task)
    return task


@pytest.mark.parametrize(
    "make, expected, note",
    [
        (lambda: ifeval(), [], None),
        # the failed doc 1 replaced by a copy of the passed doc 0, under doc_id 1
        (lambda: ifeval(copy_sample(0, 1)), [("LB725", IFEVAL_LOG, 2)], None),
        (lambda: ifeval(copy_sample(2, 3)), [("LB725", IFEVAL_LOG, 4)], None),
        (
            lambda: choices_with_ids(copy_sample(4, 0)),
            [("LB725", CHOICE_LOG, 5)],
            None,
        ),  # at the second of the two
        # no row id: a dataset may hold a row twice, so it is a note, not a finding
        (
            lambda: choices_with_ids(copy_sample(4, 0), row_id=False),
            [],
            "1 docs are logged again under another doc_id",
        ),
    ],
    ids=["honest", "ifeval copy over 1", "ifeval copy over 3", "arc id copy", "no row id: a note"],
)
def test_one_doc_under_two_doc_ids(tmp_path, make, expected, note):
    task = make()
    paths = harness.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert sorted((f.rule, Path(f.file).name, f.line) for f in result.findings) == expected
    notes = [n for summary in result.tasks for n in summary.notes if "another doc_id" in n]
    assert notes == (
        []
        if note is None
        else [
            note + "; they carry no row id of their dataset, which may hold the "
            "same row twice, so this is not reported as a finding"
        ]
    )


def test_filters_log_each_doc_once_per_filter_under_one_doc_id(tmp_path):
    """gsm8k's two filters: each doc twice, under the same doc_id, is how lm-eval logs it."""
    task = harness.two_filter_task(
        {"strict-match": [True, False, True], "flexible-extract": [True, True, False]}
    )
    for sample in task.samples:
        sample["doc"]["id"] = f"row {sample['doc_id']}"
        harness.with_hashes(sample)
    paths = harness.write_run(
        tmp_path,
        [task],
        harness.two_filter_results(
            task, {"strict-match": [True, False, True], "flexible-extract": [True, True, False]}
        ),
    )
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert [f.rule for f in result.findings if f.rule == "LB725"] == []


def test_many_repeats_are_told_five_times_and_counted(tmp_path):
    task = harness.ifeval_task([[True]] * 12)
    for over in range(1, 12):
        copy_sample(0, over)(task)
    paths = harness.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert [f.line for f in result.findings if f.rule == "LB725"] == [2, 3, 4, 5, 6]
    assert (
        "11 docs with a row id repeat under other doc_ids (LB725 reported the first 5)"
        in result.tasks[0].notes
    )


def test_a_doc_copied_under_two_filters_is_one_repeat(tmp_path):
    """gsm8k's two filters: the copy is logged once per filter, and told once."""
    outcomes = {"strict-match": [True, False, True], "flexible-extract": [True, False, False]}
    task = harness.two_filter_task(outcomes)
    for sample in task.samples:
        sample["doc"]["id"] = f"row {sample['doc_id']}"
        harness.with_hashes(sample)
    for sample in task.samples:
        if sample["doc_id"] == 0:  # each filter's doc 0, copied over the same filter's doc 1
            over = next(
                i
                for i, s in enumerate(task.samples)
                if s["doc_id"] == 1 and s["filter"] == sample["filter"]
            )
            task.samples[over] = {**copy.deepcopy(sample), "doc_id": 1}
    paths = harness.write_run(tmp_path, [task], harness.two_filter_results(task, outcomes))
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert len([f for f in result.findings if f.rule == "LB725"]) == 1


def test_a_doc_hash_that_is_not_the_docs_matches_nothing(tmp_path):
    """Two different docs given one made-up doc_hash are LB703 twice, not one doc logged twice."""
    task = harness.ifeval_task([[True], [False], [True]])
    for sample in task.samples[:2]:
        sample["doc_hash"] = "0" * 64
    paths = harness.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert sorted((f.rule, Path(f.file).name, f.line) for f in result.findings) == [
        ("LB703", IFEVAL_LOG, 1),
        ("LB703", IFEVAL_LOG, 2),
    ]


def test_the_docs_kept_are_bounded_and_later_copies_of_them_still_found(tmp_path, monkeypatch):
    from validator.audit.checks import repeated_docs

    monkeypatch.setattr(repeated_docs, "MAX_TRACKED", 3)
    task = harness.ifeval_task([[True]] * 8)
    copy_sample(0, 6)(
        task
    )  # doc 0 is among the three kept; doc 6 is past them, and still matched against them
    paths = harness.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert [(f.rule, f.line) for f in result.findings] == [("LB725", 7)]
    assert "repeated docs were looked for among the first 3 docs only" in result.tasks[0].notes


def reordered_copies(count: int):
    """The first `count` samples replaced by copies of the last, each copy's doc keys in another order and its
    hashes redone, so no doc_hash repeats (ARC 0.5 -> 1.0 with every file consistent)."""

    def edit(task):
        for over in range(count):
            replacement = copy.deepcopy(task.samples[-1])
            keys = list(replacement["doc"])
            replacement["doc"] = {
                key: replacement["doc"][key] for key in keys[over + 1 :] + keys[: over + 1]
            }
            replacement["doc_id"] = task.samples[over]["doc_id"]
            task.samples[over] = harness.with_hashes(replacement)

    return edit


@pytest.mark.parametrize("count, expected", [(2, []), (3, [("LB725", CHOICE_LOG, 2)])])
def test_copies_with_their_keys_reordered_share_a_row_id(tmp_path, count, expected):
    """Up to two docs per log may share a row id (EleutherAI/drop holds one query_id twice); more are copies.
    Told at the first doc whose row id another doc_id logged first."""
    task = choices_with_ids(reordered_copies(count))
    paths = harness.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    assert sorted((f.rule, Path(f.file).name, f.line) for f in result.findings) == expected


def copies_under_new_ids(count: int, field: str | None = "id", edit_other: bool = False):
    """The first `count` docs replaced by copies of the last, each given the replaced doc's row id (`field`;
    None: a dataset without one) and doc_id (and, with `edit_other`, a field that is neither question nor
    choices changed too), hashes redone."""

    def edit(task):
        for over in range(count):
            replacement = copy.deepcopy(task.samples[-1])
            if field is not None:
                replacement["doc"][field] = task.samples[over]["doc"][field]
            if edit_other:
                replacement["doc"]["source"] = f"copy {over}"
            replacement["doc_id"] = task.samples[over]["doc_id"]
            task.samples[over] = harness.with_hashes(replacement)

    return edit


def many_choices(edit=None, docs: int = 40):
    task = harness.choice_task(CHOICE, docs)
    for sample in task.samples:
        sample["doc"]["id"] = f"Mercury_{sample['doc_id']:04d}"
        sample["doc"]["question"] = f"Question {sample['doc_id']}?"
        harness.with_hashes(sample)
    if edit:
        edit(task)
    return task


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: many_choices(), []),
        # a split may repeat a question under two ids: five of forty docs are within what it explains
        (lambda: many_choices(copies_under_new_ids(5)), []),
        (lambda: many_choices(copies_under_new_ids(6)), [("LB725", CHOICE_LOG, 2)]),
        (
            lambda: many_choices(copies_under_new_ids(6, edit_other=True)),
            [("LB725", CHOICE_LOG, 2)],
        ),
        (lambda: ifeval_many(copies_under_new_ids(6, "key")), [("LB725", IFEVAL_LOG, 2)]),
        # no row id at all (GSM8K, MATH, BBH): the whole doc repeats, under its new doc_id
        (lambda: no_row_ids(copies_under_new_ids(6, None)), [("LB725", CHOICE_LOG, 2)]),
    ],
    ids=["honest", "five: a split's", "six", "six, another field edited", "ifeval", "no row id"],
)
def test_copies_under_new_ids_are_found_by_their_content(tmp_path, make, expected):
    """Failed samples replaced by copies of a passed one, each given the replaced doc's row id and doc_id with
    its hashes redone: no doc_hash and no row id repeats, but the question and choices do."""
    task = make()
    paths = harness.write_run(tmp_path, [task])
    result = audit_files(tmp_path, paths["results"].relative_to(tmp_path), None)
    found = sorted((f.rule, Path(f.file).name, f.line) for f in result.findings)
    assert [f for f in found if f[0] == "LB725"] == expected


def ifeval_many(edit=None):
    task = harness.ifeval_task([[True], [False]] * 10)
    if edit:
        edit(task)
    return task


def no_row_ids(edit=None):
    task = harness.choice_task(CHOICE, 40)
    if edit:
        edit(task)
    return task


def nested(depth: int):
    value: object = "innermost"
    for level in range(depth):
        value = [value] if level % 2 else {"level": value}
    return value


@pytest.mark.parametrize(
    "one, other",
    [
        ({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}),  # keys reordered: one doc
        ({"x": {"p": 1, "q": 2}}, {"x": {"q": 2, "p": 1}}),
        (1, 1.0),
        (1, True),
        (0, False),
        (1.0, True),
        ("1", 1),
        ("", 0),  # Python hashes them alike, in every process
        ([""], [0]),
        ({"a": ""}, {"a": 0}),
        (None, "None"),
        (float("nan"), float("nan")),
        (float("nan"), None),  # orjson writes all three as null
        (float("inf"), None),
        (float("inf"), -float("inf")),
        (0.0, -0.0),
        (0.1 + 0.2, 0.3),
        (-1, -2),  # Python hashes them alike
        (5, 5 + (1 << 61) - 1),  # ...and these
        (1 << 70, 1 << 70),
        ([], {}),
        ([1, 2], {"1": 2}),
        ([[1], 2], [1, [2]]),
        ({"a": [1]}, [["a", [1]]]),
        (["q", "c"], ["q", "c"]),
        ("é", "é"),
        (nested(300), nested(300)),
    ],
)
@pytest.mark.parametrize("beside", [None, float("nan")], ids=["orjson", "frozen"])
def test_docs_match_by_content_exactly_where_their_json_does(one, other, beside):
    """Content is matched as its JSON, keys sorted, would be: the same value in any key order matches, and no two
    values of different JSON match (1, 1.0 and true; -1 and -2, "" and 0, which Python hashes alike). A NaN
    beside the value leaves both keys to the frozen hash instead of orjson's JSON: the same holds."""
    from validator.audit.checks.repeated_docs import content_keys

    def doc(value, row):
        return {"id": row, "question": value, "choices": [value, beside], "extra": value}

    same_json = json.dumps(one, sort_keys=True) == json.dumps(other, sort_keys=True)
    one_keys = content_keys(doc(one, "a"), 0)
    other_keys = content_keys(doc(other, "b"), 1)
    assert [what for what, _ in one_keys] == [
        "the doc apart from its id fields",
        "the question and choices",
    ]
    assert (
        [key for _, key in one_keys] == [key for _, key in other_keys]
        if same_json
        else all(a != b for (_, a), (_, b) in zip(one_keys, other_keys, strict=True))
    )
    # what the hashes check says of a doc (sample.doc_plain) changes no key: only the work of finding it
    for value, row, doc_key in ((one, "a", 0), (other, "b", 1)):
        if orjson_writes_it(doc(value, row)):
            assert content_keys(doc(value, row), doc_key, plain=True) == content_keys(
                doc(value, row), doc_key
            )
    # a doc without id fields is matched by its doc_hash, and by its question and choices
    assert content_keys({"question": one}, 7)[0] == ("the doc", 7)
    assert (
        content_keys({"question": one}, 7)[1] == content_keys({"question": other}, 8)[1]
    ) is same_json


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from(
        [0, 1, -1, -2, 0.0, -0.0, 1.0, 1e-05, 1e16, float("nan"), float("inf"), -float("inf")]
    )
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=4, alphabet=st.sampled_from('ab1\ud800é"')),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "é", "id"]), children, max_size=3)
    ),
    max_leaves=12,
)


@pytest.mark.slow  # hundreds of drawn pairs of docs
@settings(max_examples=400, deadline=None)
@given(one=json_values, other=json_values, row=st.sampled_from([None, "x"]))
def test_drawn_docs_match_by_content_exactly_where_their_json_does(one, other, row):
    """Keys written by orjson where it writes the fields exactly, frozen in Python where it does not (NaN,
    infinities, integers past 64 bits, lone surrogates), whichever each doc takes: equal exactly where the JSON
    of what is compared, keys sorted, is. A doc found plain by the hashes check gets the keys it would get
    without being found so."""
    from validator.audit.checks.repeated_docs import content_keys

    def doc(value, choices):
        fields = {"question": value, "choices": choices, "other": value}
        return fields if row is None else {"id": row, **fields}

    docs = [doc(one, [one, 1]), doc(other, [other, 1])]
    keys = [content_keys(each, index) for index, each in enumerate(docs)]
    for index, (each, doc_keys) in enumerate(zip(docs, keys, strict=True)):
        if orjson_writes_it(each):
            assert content_keys(each, index, plain=True) == doc_keys
    same_json = json.dumps(one, sort_keys=True) == json.dumps(other, sort_keys=True)
    compared = [key for (what, key) in keys[0] if what != "the doc"]
    other_compared = [key for (what, key) in keys[1] if what != "the doc"]
    assert (compared == other_compared) is same_json


def test_the_question_and_the_rest_of_a_doc_never_match_each_other():
    """A doc's two keys share one table: a question and choices laid out like another doc's fields is not it."""
    from validator.audit.checks.repeated_docs import content_keys

    rest = content_keys({"id": 1, "a": "b", "c": "d"}, 0)[0][1]
    question = content_keys({"question": "a", "prompt": "b", "choices": "c", "options": "d"}, 0)[1][
        1
    ]
    assert rest != question


def test_content_keys_kept_are_bounded_and_later_ones_matched_against_them(monkeypatch):
    """Two content keys are kept per tracked doc however many docs a doc_id logs; a key past them is matched
    against those kept (a copy of a kept doc is found), not kept (a new key is its own first)."""
    from validator.audit.checks import repeated_docs

    class Log:
        spec = summary = None

    monkeypatch.setattr(repeated_docs, "MAX_TRACKED", 1)
    check = repeated_docs.RepeatedDocs(Log())
    assert [repeated_docs._first_by_content(check, key, 0) for key in (11, 12)] == [0, 0]
    assert repeated_docs._first_by_content(check, 13, 5) == 5
    assert repeated_docs._first_by_content(check, 13, 6) == 6  # 13 was not kept
    assert repeated_docs._first_by_content(check, 12, 7) == 0
    assert len(check.first_by_content) == 2
