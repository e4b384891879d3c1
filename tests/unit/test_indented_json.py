"""indented_json writes exactly what json.dumps(indent=2, ensure_ascii=False) writes: doc_hash depends on every byte.

Both writers are held to it: dumps_indent2, and indent2_utf8, which leaves the docs orjson writes alike to orjson."""

import json

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.harness.indented_json import dumps_indent2, indent2_utf8, orjson_writes_it

# What json.loads can return, with the characters escaping cares about.
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(
        alphabet=st.characters(blacklist_categories=())
        | st.sampled_from('"\\\n\t\x00\x7f\u2028é𝔘'),
        max_size=20,
    )
)
documents = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=30,
)


@pytest.mark.slow  # hundreds of drawn documents
@settings(max_examples=500, deadline=None)
@given(documents)
def test_the_text_is_json_dumps_text(document):
    expected = json.dumps(document, indent=2, ensure_ascii=False)
    assert dumps_indent2(document) == expected
    assert indent2_utf8(document) == expected.encode("utf-8", "surrogatepass")


def lm_eval_bytes(document) -> bytes:
    return json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8", "surrogatepass")


def test_floats_of_every_exponent_are_written_as_json_dumps_writes_them():
    """orjson writes 1e-05 as 0.00001 and 1e-07 as 1e-7: such a float must not reach it."""
    values = []
    for exponent in range(-325, 309):
        for mantissa in ("1", "1.5", "2.492785885963177", "9.999999999999998"):
            value = float(f"{mantissa}e{exponent}")
            values += [value, -value]
    values += [0.0, -0.0, float("nan"), float("inf"), float("-inf")]
    for value in values:
        assert indent2_utf8({"x": [value]}) == lm_eval_bytes({"x": [value]}), value


def test_every_code_point_is_escaped_as_json_dumps_escapes_it():
    """Every code point but the surrogates, which orjson refuses (the test above), through orjson itself."""
    characters = [chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]
    for start in range(0, len(characters), 4096):
        text = "".join(characters[start : start + 4096])
        document = {"text": text, text[:40]: [text[-1]]}
        assert orjson.dumps(document, option=orjson.OPT_INDENT_2) == lm_eval_bytes(document)


def test_what_orjson_refuses_or_writes_otherwise_is_written_as_json_dumps_writes_it():
    nested: list = []
    for _ in range(300):  # past orjson's 254 levels
        nested = [nested]
    deepest: object = "x"  # a doc --max-depth 500 lets through: not walked to the recursion limit
    for level in range(499):
        deepest = {"k": deepest} if level % 2 else [deepest]
    for document in (
        {"id": 2**64, "negative": -(2**63) - 1},
        {"id": 2**64 - 1, "negative": -(2**63)},
        {"q": json.loads('"\\ud800"')},
        nested,
        deepest,
        {1: "int key"},
        {"t": (1, 2)},
        {},
        [],
        {"a": {}, "b": [], "c": [[], {}]},
    ):
        assert indent2_utf8(document) == lm_eval_bytes(document)


def test_orjson_writes_the_usual_doc():
    """The fast writer is the one a usual doc meets: a multiple-choice, GSM8K or DROP doc."""
    assert orjson_writes_it({"question": "q?", "choices": ["a", "b"], "label": 1})
    assert orjson_writes_it({"question": "q", "answer": "#### 12", "score": 0.25})
    assert orjson_writes_it(
        {"passage": "p", "answers_spans": {"spans": ["1"], "types": ["number"]}, "id": None}
    )
    assert not orjson_writes_it({"tiny": [1e-05]})
    assert not orjson_writes_it({"t": (1, 2)})
    # orjson writes these as null; the copies check's keys (sample.doc_plain) count on their refusal here too
    for value in (float("nan"), float("inf"), -float("inf")):
        assert not orjson_writes_it({"x": ["a", value]})


def test_the_text_of_a_lone_surrogate_from_a_json_escape_is_json_dumps_text():
    document = json.loads('{"q": "\\ud800 and \\udfff", "a": [["\\ud83d"]]}')
    assert dumps_indent2(document) == json.dumps(document, indent=2, ensure_ascii=False)


def test_values_json_loads_never_returns_are_left_to_json_dumps():
    # {"1": ...} first: its written key is kept, and the int key 1 after it must not be taken for it
    for document in (
        {1: "int key"},
        {"t": (1, 2)},
        {"k": {None: [1.5, {True: "x"}]}},
        {"1": 0},
        {"1": 0, 1: 2},
    ):
        assert dumps_indent2(document) == json.dumps(document, indent=2, ensure_ascii=False)


def test_long_strings_are_escaped_exactly_wherever_the_character_that_needs_it_sits():
    """A long ASCII string without anything to escape is written as it is; one such character anywhere
    (first, last, middle; every control character, '"', '\\') sends it to the escaper, and DEL never does."""
    for special in [chr(code) for code in range(0x20)] + ['"', "\\", "\x7f", "é"]:
        for length in (256, 257, 5000):
            for at in (0, length // 2, length - 1):
                text = ("a" * length)[:at] + special + ("a" * length)[at + 1 :]
                document = {"passage": text, "list": [text]}
                assert dumps_indent2(document) == json.dumps(
                    document, indent=2, ensure_ascii=False
                ), (special, at)


def test_the_written_keys_kept_for_the_next_doc_are_bounded_and_short():
    """Keys are the submitter's: a log of docs with ever new keys, or huge ones, must not grow the kept keys."""
    from validator.harness import indented_json

    indented_json._KEY_PREFIXES.clear()
    many = {f'key {n} "quoted"\t': n for n in range(indented_json._KEY_PREFIXES_MAX + 500)}
    long_key = {"k" * (indented_json._KEY_LENGTH_MAX + 1): "v"}
    try:
        for document in (many, long_key, many, long_key):
            assert dumps_indent2(document) == json.dumps(document, indent=2, ensure_ascii=False)
            assert len(indented_json._KEY_PREFIXES) <= indented_json._KEY_PREFIXES_MAX
        assert all(len(key) <= indented_json._KEY_LENGTH_MAX for key in indented_json._KEY_PREFIXES)
        honest = {"passage": "p", "question": "q"}
        dumps_indent2(honest)
        assert set(honest) <= set(indented_json._KEY_PREFIXES), (
            "a full cache starts again: honest keys get in"
        )
    finally:
        indented_json._KEY_PREFIXES.clear()  # no junk keys for the tests after this one
