"""The position-aware pass: every JSON path maps to the line and column of its value."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.common import EXAMPLE

from validator.io.documents import (
    DocumentError,
    non_finite_paths,
    parse_document,
    scan_json,
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)


def leaf_paths(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from leaf_paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from leaf_paths(child, (*path, index))


@settings(max_examples=200)
@given(json_values, st.sampled_from([None, 0, 1, 2]))
def test_every_path_points_at_its_member(value, indent):
    """A member's offset is its key's opening quote; an array item's is the item's first character."""
    text = json.dumps(value, indent=indent)
    positions, duplicates = scan_json(text)
    assert duplicates == []
    for path, child in leaf_paths(value):
        offset = positions[path]
        if path and isinstance(path[-1], str):
            key_end = offset + len(json.dumps(path[-1]))
            assert json.loads(text[offset:key_end]) == path[-1]
        else:
            decoded, _ = json.JSONDecoder().raw_decode(text, offset)
            assert decoded == child


def test_positions_in_the_example_file():
    doc = parse_document(EXAMPLE.read_text(), "example.json", "json")
    line, column = doc.position(("results", "leaderboard_bbh_snarks", "acc_norm,none"))
    assert (
        EXAMPLE.read_text()
        .splitlines()[line - 1][column - 1 :]
        .startswith('"acc_norm,none": 0.5393258426966292')
    )
    # a path that does not exist falls back to its nearest ancestor
    assert doc.position(("results", "leaderboard_bbh_snarks", "nope")) == doc.position(
        ("results", "leaderboard_bbh_snarks")
    )


def test_duplicate_keys_are_located_in_json_and_yaml():
    for text, kind, where in (
        ('{"a": {"b": 1,\n "b": 2}}', "json", (2, 2)),
        ("a: 1\nb:\n  c: 1\n  c: 2\n", "yaml", (4, 3)),
    ):
        try:
            parse_document(text, "f", kind)
        except DocumentError as exc:
            assert (exc.rule, (exc.line, exc.column)) == ("LB103", where)
        else:
            raise AssertionError("duplicate not detected")


def test_syntax_errors_carry_line_and_column():
    for text, kind in (('{\n  "a": 1,\n  }', "json"), ("a: [1, 2\nb: 3\n", "yaml")):
        try:
            parse_document(text, "f", kind)
        except DocumentError as exc:
            assert exc.rule == "LB102" and exc.line and exc.column
        else:
            raise AssertionError("syntax error not detected")


def test_yaml_positions_point_at_keys():
    doc = parse_document("model: m\nreported:\n  bbh: 2.29\n  average: 4.97\n", "s.yaml", "yaml")
    assert doc.position(("reported", "average")) == (4, 3)


def test_non_finite_values_are_found_anywhere():
    data = json.loads('{"a": [1, NaN, {"b": Infinity}], "c": -Infinity, "d": 1e308}')
    assert non_finite_paths(data) == [("a", 1), ("a", 2, "b"), ("c",)]


BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(9)
)


@pytest.mark.slow  # a stress test of the alias budget
def test_a_yaml_alias_bomb_fails_fast_with_a_clear_error():
    import time

    start = time.perf_counter()
    try:
        parse_document(BILLION_LAUGHS, "bomb.yaml", "yaml")
    except DocumentError as exc:
        assert exc.rule == "LB112" and "alias bomb" in exc.message
    else:
        raise AssertionError("10**10 values were accepted")
    assert (
        time.perf_counter() - start < 30
    )  # bounded work, not a hang (a generous bound, not a benchmark)


def test_deep_yaml_nesting_is_a_data_error():
    try:
        parse_document("[" * 5000 + "]" * 5000, "deep.yaml", "yaml")
    except DocumentError as exc:
        assert exc.rule == "LB108"
    else:
        raise AssertionError("accepted")


@pytest.mark.parametrize(
    "kind, text",
    [
        ("json", "[" * 100 + "]" * 100),
        ("json", '{"a": ' * 100 + "1" + "}" * 100),
        ("json", "[" * 100_000 + "]" * 100_000),
        ("yaml", "a:\n" + "".join(" " * i + "- \n" for i in range(1, 100))),
        # libyaml 0.2.6 on (PyYAML 6.0.4) refuses past 1,000 levels in its scanner, before the first event
        ("yaml", "- " * 1100 + "x"),
        ("yaml", "[" * 1001 + "]" * 1001),
    ],
)
def test_nesting_past_the_depth_limit_is_lb108(kind, text):
    with pytest.raises(DocumentError) as caught:
        parse_document(text, "deep", kind)
    assert caught.value.rule == "LB108"


def nesting_depth(value) -> int:
    """Levels of objects and arrays, counted on the parsed value (the plain form of budgets.json_too_deep)."""
    children = (
        value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    )
    return 0 if children is None else 1 + max(map(nesting_depth, children), default=0)


bracket_heavy_text = st.text(alphabet='[]{}\\"a ,:', max_size=12)
nested_values = st.recursive(
    st.none() | st.integers() | bracket_heavy_text,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(bracket_heavy_text, children, max_size=3)
    ),
    max_leaves=30,
)


@pytest.mark.slow  # hundreds of drawn nested documents
@settings(max_examples=500, deadline=None)
@given(nested_values, st.integers(min_value=0, max_value=8), st.sampled_from([None, 2]))
def test_the_depth_budget_is_the_parsed_depth(value, max_depth, indent):
    """Brackets inside strings (escaped quotes too) never count; the shortcut and the exact pass agree."""
    from validator.io.budgets import json_too_deep

    text = json.dumps(value, indent=indent)
    assert json_too_deep(text, max_depth) == (nesting_depth(value) > max_depth)


@settings(max_examples=300, deadline=None)
@given(nested_values, st.integers(min_value=0, max_value=8))
def test_the_depth_read_from_a_parsed_value_is_the_depth_its_text_has(value, max_depth):
    """A log line parsed before its depth is known is held to the budget by its value's depth: its text's,
    where no key is repeated."""
    from validator.io.budgets import json_too_deep, value_within_depth

    assert value_within_depth(value, max_depth) == (not json_too_deep(json.dumps(value), max_depth))


@settings(max_examples=300, deadline=None)
@given(
    nested_values,
    st.integers(min_value=0, max_value=8),
    st.integers(min_value=1, max_value=200),
    st.booleans(),
)
def test_a_line_within_its_budgets_by_the_reader_s_shortcut_is_within_them(
    value, max_depth, max_values, ascii
):
    """The log reader's shortcut on a line's bytes and counted openers never passes a line the exact passes
    refuse."""
    from validator.io.budgets import json_too_deep, json_too_many_values, line_openers, line_within

    text = json.dumps(value, ensure_ascii=ascii)
    raw = text.encode("utf-8")
    if line_within(text, len(raw), line_openers(raw), max_depth, max_values):
        assert not json_too_deep(text, max_depth)
        assert not json_too_many_values(text, max_values)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet='[]{}"\\\na ', max_size=40), st.integers(min_value=0, max_value=6))
def test_the_depth_found_by_splitting_at_quotes_is_the_depth_the_regex_finds(text, max_depth):
    """nested_past cuts the strings out by splitting at the quotes where that finds what _STRING finds: on any
    text at all, valid JSON or not, the same answer as the regex alone."""
    from itertools import accumulate

    from validator.io import budgets

    brackets = re.sub(r"[^\[\]{}]+", "", budgets._STRING.sub("", text)).encode("ascii")
    by_regex = max(accumulate(map(budgets._STEP.__getitem__, brackets)), default=0) > max_depth
    assert budgets.nested_past(text, max_depth) == by_regex


def test_a_text_past_the_split_s_bounds_is_read_by_the_regex(monkeypatch):
    """A text of more characters or quotes than the split takes (a hostile line of quotes would be millions
    of parts) gives the regex's answer all the same."""
    import random
    from itertools import accumulate

    from validator.io import budgets

    monkeypatch.setattr(budgets, "SPLIT_CHARS", 24)
    monkeypatch.setattr(budgets, "SPLIT_QUOTES", 4)
    draw = random.Random(7)
    for _ in range(20_000):
        text = "".join(draw.choices('[]{}"\\\na', k=draw.randint(0, 40)))
        brackets = re.sub(r"[^\[\]{}]+", "", budgets._STRING.sub("", text)).encode("ascii")
        depth = max(accumulate(map(budgets._STEP.__getitem__, brackets)), default=0)
        assert budgets.nested_past(text, 2) == (depth > 2), repr(text)


LATEX = (
    r"$\\frac{\\sqrt{x^{2}}}{\\left\\{y\\right\\}}$ " * 20
)  # about a hundred braces, all in one string
DEEP_THEN_SHALLOW = '{"doc_id": ' + "[" * 900 + "]" * 900 + ', "doc_id": 0}'
# Within MAX_DEPTH_CEILING's 500 openers: parsed, and json keeps the last doc_id, 0
SOMEWHAT_DEEP_THEN_SHALLOW = '{"doc_id": ' + "[" * 100 + "]" * 100 + ', "doc_id": 0}'
# The same past PARSED_FIRST_CHARS characters: judged on its text
LONG_SOMEWHAT_DEEP_THEN_SHALLOW = SOMEWHAT_DEEP_THEN_SHALLOW.replace(
    ', "doc_id": 0}', ', "pad": "' + "x" * 70_000 + '", "doc_id": 0}'
)


@pytest.mark.parametrize(
    "line, rule",
    [
        (
            '{"doc": {"solution": "' + LATEX + '"}, "doc_id": 0}',
            None,
        ),  # openers in a string: within
        ('{"a": ' * 70 + "1" + "}" * 70, "LB108"),  # 70 levels of objects: past the default 64
        ('{"a": ' * 70 + "1" + "}" * 69, "LB108"),  # past the budget and broken: the budget is told
        ('{"doc": "' + LATEX + '", "x": [1, }', "LB701"),  # openers in a string, then broken JSON
        (
            DEEP_THEN_SHALLOW,
            "LB108",
        ),  # a key repeated: json would keep the last value, but 900 brackets are judged before any parse
        (SOMEWHAT_DEEP_THEN_SHALLOW, None),  # the record json reads nests one level
        (LONG_SOMEWHAT_DEEP_THEN_SHALLOW, "LB108"),
        (
            "[" * 100 + "]" * 100,
            "LB108",
        ),  # within the ceiling, past the budget: its value is too deep
    ],
)
def test_a_log_record_with_many_openers_is_judged_by_its_value_or_past_the_ceiling_by_its_text(
    tmp_path, line, rule
):
    """Both readers of log records (the local one and the survey's streams) hold a record of at most 500
    openers and 65,536 characters to the depth budget by the value json reads, and judge any other by its
    text before any parse."""
    from validator.io.limits import DEFAULT_LIMITS
    from validator.io.log_lines import load_record
    from validator.io.sample_logs import read_records

    assert line.count("{") + line.count("[") > DEFAULT_LIMITS.max_depth
    log = tmp_path / "samples_task_2024-01-01T00-00-00.jsonl"
    log.write_text(line + "\n")
    for read in (
        lambda: [record.data for record in read_records(log, DEFAULT_LIMITS)],
        lambda: load_record(line, 1, 1, DEFAULT_LIMITS),
    ):
        if rule is None:
            assert read()
            continue
        with pytest.raises(DocumentError) as caught:
            read()
        assert (caught.value.rule, caught.value.line) == (rule, 1)


def test_a_log_record_parsed_before_its_depth_is_known_is_held_to_the_value_budget(tmp_path):
    """A record of 65 to 500 openers, past a value budget of 50: LB112 from both readers, before any parse."""
    from validator.io.limits import Limits
    from validator.io.log_lines import load_record
    from validator.io.sample_logs import read_records

    line = (
        '{"doc": [' + ",".join(["[]"] * 70) + "]}"
    )  # an object: a log that opens with "[" is an array
    limits = Limits(max_values=50)
    log = tmp_path / "samples_task_2024-01-01T00-00-00.jsonl"
    log.write_text(line + "\n")
    for read in (lambda: list(read_records(log, limits)), lambda: load_record(line, 1, 1, limits)):
        with pytest.raises(DocumentError) as caught:
            read()
        assert (caught.value.rule, caught.value.line) == ("LB112", 1)


def test_the_depth_limit_is_a_setting():
    from validator.io.limits import Limits

    parse_document("[" * 100 + "]" * 100, "deep.json", "json", Limits(max_depth=100))
    with pytest.raises(DocumentError, match="more than 99 levels"):
        parse_document("[" * 100 + "]" * 100, "deep.json", "json", Limits(max_depth=99))


@pytest.mark.parametrize(
    "kind, text, line",
    [
        ("json", '{\n "a": "' + "x" * 1_000_001 + '"}', 2),
        ("json", '{\n "' + "k" * 1_000_001 + '": 1}', 1),
        ("json", '{"a":\n ' + "7" * 5_000_000 + "}", 2),
        ("yaml", "a:\n  b: " + "x" * 1_000_001, 2),
    ],
)
def test_long_strings_keys_and_numbers_are_lb109(kind, text, line):
    with pytest.raises(DocumentError) as caught:
        parse_document(text, "long", kind)
    assert caught.value.rule == "LB109" and caught.value.line == line


def test_reading_a_small_file_allocates_about_its_size_not_the_size_limit(tmp_path):
    """A buffered file's read(n) allocates n bytes first: reading up to the 64 MB limit at once would take 64 MB
    for every results file, whatever its size."""
    import tracemalloc

    from validator.io.loaders import READ_BUFFER, read_untrusted

    path = tmp_path / "results.json"
    path.write_text('{"results": {}}', encoding="utf-8")
    tracemalloc.start()
    try:
        assert read_untrusted(path) == '{"results": {}}'
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * READ_BUFFER, f"{peak:,} bytes to read 15"  # its buffer and one read: 2 MiB
