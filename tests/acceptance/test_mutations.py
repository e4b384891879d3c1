"""Mutated honest submissions never crash lbnorm or reach the runner as commands.

Hypothesis takes the shipped pythia-1b submission and its results file and
deletes keys, changes types, inserts strings with control characters and
workflow commands, and swaps numbers for huge or non-finite ones. Whatever it
builds, `check` must exit 0 or 1 without a traceback, its JSON report must
parse, and neither the CLI nor the Action may print a workflow command that
is not ours.
"""

from __future__ import annotations

import io
import json
import math
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.action_runner import assert_only_our_commands
from support.common import EXAMPLE
from support.runner_mimic import commands

from validator.action import run_action
from validator.cli import cli

RESULTS = json.loads(EXAMPLE.read_text())
SUBMISSION = json.loads((EXAMPLE.parent / "submission.json").read_text()) | {
    "results": "results.json"
}

HOSTILE_TEXT = st.sampled_from(
    [
        "\n::error::forged",
        "##[error]x",
        "\r\n::add-mask::y",
        "\x00",
        "\x1b[2J",
        "\u2028",
        "\ud800",
        "%0A::warning::z",
        "",
        "a" * 5000,
    ]
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -0.0, 5e-324]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    HOSTILE_TEXT,
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
MUTATION = st.tuples(
    st.sampled_from(["submission", "results"]),
    st.integers(min_value=0),
    st.sampled_from(["delete", "replace", "rename_key", "add_key"]),
    VALUES,
    HOSTILE_TEXT,
)


def paths(value, prefix=()):
    """Every path into a JSON value (the root included)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


def mutate(doc, index: int, kind: str, value, text: str):
    doc = json.loads(json.dumps(doc))
    candidates = paths(doc)
    path = candidates[index % len(candidates)]
    if not path:
        return value if kind == "replace" else doc
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    key = path[-1]
    if kind == "delete":
        del parent[key]
    elif kind == "replace":
        parent[key] = value
    elif kind == "rename_key" and isinstance(parent, dict):
        parent[str(key) + text] = parent.pop(key)
    elif kind == "add_key" and isinstance(parent, dict):
        parent[text or "k"] = value
    return doc


def write_workspace(ws: Path, mutations) -> None:
    docs = {"submission": SUBMISSION, "results": RESULTS}
    for target, index, kind, value, text in mutations:
        docs[target] = mutate(docs[target], index, kind, value, text)
    for target, doc in docs.items():
        text = json.dumps(doc, indent=1)  # NaN/Infinity tokens as lm-eval writes them
        (ws / f"{target}.json").write_text(text, encoding="utf-8", errors="surrogatepass")


@pytest.mark.slow  # a whole check of each drawn mutation
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MUTATION, min_size=1, max_size=4))
def test_mutated_submissions_end_in_a_clean_finding(mutations):
    with tempfile.TemporaryDirectory() as folder:
        ws = Path(folder)
        write_workspace(ws, mutations)
        result = CliRunner().invoke(
            cli,
            ["check", "--root", str(ws), "--output-format", "json", str(ws / "submission.json")],
            catch_exceptions=False,
        )
        assert result.exit_code in (0, 1), result.output
        report = json.loads(result.stdout)  # hints go to stderr
        assert report["ok"] == (result.exit_code == 0)
        assert all(
            "\n" not in f["message"] and "\r" not in f["message"] for f in report["findings"]
        )
        assert commands(result.output) == []

        out, err = io.StringIO(), io.StringIO()
        code = run_action(
            {"GITHUB_WORKSPACE": str(ws), "INPUT_FILES": "submission.json", "INPUT_REPORT": ""},
            out,
            err,
        )
        assert code == result.exit_code
        assert_only_our_commands(out.getvalue() + err.getvalue())
