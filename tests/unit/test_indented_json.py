"""indented_json writes exactly what json.dumps(indent=2, ensure_ascii=False) writes: doc_hash depends on every byte."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.harness.indented_json import dumps_indent2

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
    assert dumps_indent2(document) == json.dumps(document, indent=2, ensure_ascii=False)


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
