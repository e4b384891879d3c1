"""The schema proof (validator/io/schema_subset.py) never calls valid what jsonschema finds invalid."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support.common import EXAMPLES, REPO

from validator.io.schema_subset import certainly_valid

SCHEMA = json.loads((REPO / "schemas" / "submission.schema.json").read_text(encoding="utf-8"))
JSONSCHEMA = jsonschema.Draft202012Validator(SCHEMA)
HONEST = json.loads((REPO / "examples" / "pythia-1b" / "submission.json").read_text())

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["a b", "", " ", "org/model", "x" * 300, "open-llm-leaderboard-v2"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = ["schema_version", "model", "profile", "results", "reported", "samples", "tolerance"]


@st.composite
def submissions(draw) -> dict:
    """The honest submission with fields replaced, removed or added, and reported scores changed."""
    doc = json.loads(json.dumps(HONEST))
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=3)):
        action = draw(st.sampled_from(["replace", "remove"]))
        if action == "remove":
            doc.pop(field, None)
        else:
            doc[field] = draw(json_values)
    if isinstance(doc.get("reported"), dict) and draw(st.booleans()):
        key = draw(st.sampled_from(["average", "bbh", "Bad Key", "x" * 70, "gpqa"]))
        doc["reported"][key] = draw(
            json_values | st.floats(-1, 101) | st.integers(-1, 101) | st.just(True)
        )
    if draw(st.booleans()):
        doc["samples"] = draw(
            st.lists(st.sampled_from(["a.jsonl", "b.jsonl", "", 1, None]), max_size=3)
        )
    return doc


@pytest.mark.slow  # hundreds of drawn submissions, each validated
@settings(max_examples=400, deadline=None)
@given(submissions())
def test_a_proven_submission_has_no_schema_error(doc):
    if certainly_valid(SCHEMA, doc):
        assert not list(JSONSCHEMA.iter_errors(doc)), doc


def example_submissions() -> list:
    """Every example submission that parses as JSON or YAML (the others test the parsers, not the schema)."""
    paths = [REPO / "examples" / "pythia-1b" / "submission.json"]
    paths += sorted(EXAMPLES.glob("*/*/submission.*"))
    cases = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
            doc = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (ValueError, yaml.YAMLError):
            continue
        honest = "negative" not in path.parts
        cases.append(pytest.param(doc, honest, id=path.relative_to(REPO).parent.as_posix()))
    return cases


@pytest.mark.parametrize(("doc", "honest"), example_submissions())
def test_no_example_is_proven_valid_against_jsonschema_and_the_honest_ones_are(doc, honest):
    """A proof is never wrong; and honest submissions take the fast path (else it saves nothing)."""
    errors = [e.message for e in JSONSCHEMA.iter_errors(doc)]
    if certainly_valid(SCHEMA, doc):
        assert not errors
    else:
        assert not honest, "an honest submission must not need jsonschema"


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"type": "integer"}, True),
        ({"type": "number"}, False),
        ({"const": 1}, True),
        ({"const": 1}, 1.0),
        ({"minimum": 0}, float("nan")),
        ({"uniqueItems": True}, [1, True]),
        ({"patternProperties": {"a": {}}}, {}),
        ({"oneOf": [{"minimum": 0}, {"maximum": 5}]}, 3),
        ({"oneOf": [{"type": "string"}, {"minLength": 1}]}, "abc"),
        ({"$ref": "#"}, {}),
        ({"type": "string"}, b"bytes"),
    ],
)
def test_what_it_cannot_prove_is_left_to_jsonschema(schema, instance):
    assert not certainly_valid(schema, instance)
