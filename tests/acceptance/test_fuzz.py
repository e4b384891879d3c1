"""Property-based fuzzing of every entry point with structured hostile submissions (hypothesis).

Each example is a workspace: an honest pythia-1b submission and results file
(JSON or YAML), a sample log it lists, and a maintainer profile file, with
hostile features planted at random places: non-string keys, nesting in every
JSON and YAML shape, extreme numbers, wrong types, and strings that try to
become workflow commands, pings or links. `check`, `normalize`, `audit` and
the Action run on it under the audit hook of audited_run.py. For each:

- the process exits 0, 1 or 2 (3 only for the maintainer's own bad profile), never by a signal;
- no traceback, no workflow command from the input;
- stdout is a complete JSON report when one is asked for (the Action: its report file);
- nothing outside the workspace is read or written (the audit hook exits 99 otherwise);
- a feature that makes a file broken (too deep, a non-string key, a huge number) never passes.

CI runs a fixed, derandomized budget; a longer run is one command:

    LBNORM_FUZZ_EXAMPLES=2000 python -m pytest -q tests/acceptance/test_fuzz.py
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.hostile_corpus import CANARY, MUSR_LOG, RESULTS, SUBMISSION, outside_folder
from support.runner_mimic import commands
from test_hostile import REPORT, audited

# Hundreds of generated files through every entry point in subprocesses: `slow`.
pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("LBNORM_FUZZ_EXAMPLES", "6"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 50,
    database=None,
    suppress_health_check=list(HealthCheck),
)
DEEP = 3000  # far past the default --max-depth of 64, and past what recursive parsers survive in some shapes

HOSTILE_STRINGS = [
    "::error file=x.py,line=1::forged",
    "##[error]forged",
    "a\n::warning::b",
    "@octocat please",
    "https://evil.example/x",
    "www.evil.example",
    "\u202eevil\u2028",
    "\x1b[2Jclear",
    "\ud800",
    "²",
    "9" * 5000,
    "x" * 100_000,
    "",
    " ",
    "%0A::error::x",
]
EXTREME_NUMBERS = [
    0,
    -1,
    1e308,
    -1e308,
    5e-324,
    2**63,
    10**300,
    1.7976931348623157e308,
    0.1,
    1.5,
    True,
    None,
]
# Features that make a file broken: a run that reads the file must fail (exit 1).
BREAKING = {"deep", "nonstring_key", "huge_int", "hex_int"}


@dataclass
class Plant:
    """One hostile feature and where it goes."""

    kind: str
    where: str  # "submission", "results" or "log"
    path: tuple  # keys leading to the planted value
    value: object = None
    shape: str = ""


@dataclass
class Workspace:
    submission_yaml: bool
    results_yaml: bool
    plants: list[Plant] = field(default_factory=list)


paths_in_submission = st.sampled_from(
    [
        ("model",),
        ("reported", "bbh"),
        ("reported", "x"),
        ("notes",),
        ("profile",),
        ("schema_version",),
        ("results",),
        ("samples",),
    ]
)
paths_in_results = st.sampled_from(
    [
        ("results", "leaderboard_bbh_snarks", "acc_norm,none"),
        ("model_name",),
        ("n-samples", "leaderboard_musr_team_allocation", "effective"),
        ("n-shot", "leaderboard_bbh_snarks"),
        ("config", "limit"),
        ("configs", "leaderboard_musr_team_allocation", "filter_list"),
        ("configs", "leaderboard_musr_team_allocation", "metric_list"),
        ("results", "t::error::x"),
        ("group_subtasks",),
        ("results",),
    ]
)
paths_in_log = st.sampled_from(
    [
        ("doc_id",),
        ("doc",),
        ("target",),
        ("acc_norm",),
        ("filtered_resps",),
        ("doc_hash",),
        ("arguments",),
    ]
)


@st.composite
def plants(draw) -> Plant:
    where = draw(st.sampled_from(["submission", "results", "log"]))
    path = draw(
        {"submission": paths_in_submission, "results": paths_in_results, "log": paths_in_log}[where]
    )
    kind = draw(
        st.sampled_from(
            [
                "string",
                "number",
                "wrong_type",
                "deep",
                "nonstring_key",
                "huge_int",
                "hex_int",
                "duplicate_key",
            ]
        )
    )
    value = {
        "string": st.sampled_from(HOSTILE_STRINGS),
        "number": st.sampled_from(EXTREME_NUMBERS),
        "wrong_type": st.sampled_from([[], {}, [1, "a"], {"a": [None]}, "five", 5]),
    }.get(kind, st.none())
    shape = draw(
        st.sampled_from(
            [
                "json_array",
                "json_object",
                "yaml_flow",
                "yaml_flow_map",
                "yaml_block",
                "yaml_key",
                "yaml_indent",
            ]
        )
    )
    return Plant(kind, where, path, draw(value), shape)


workspaces = st.builds(
    Workspace, st.booleans(), st.booleans(), st.lists(plants(), min_size=1, max_size=3)
)


# --- turning a drawn workspace into files ------------------------------------------------------


def _set(data: dict, path: tuple, value) -> None:
    for key in path[:-1]:
        child = data.get(key)
        if not isinstance(child, dict):
            child = data[key] = {}
        data = child
    data[path[-1]] = value


def _placeholder(index: int) -> str:
    return f"PLANT{index}PLANT"


def _deep_text(shape: str, yaml_file: bool) -> str:
    """Nesting as text: serialisers cannot write it, parsers must refuse it before they recurse."""
    if not yaml_file or shape in ("json_array", "json_object"):
        return (
            "[" * DEEP + "]" * DEEP
            if shape != "json_object"
            else '{"a": ' * DEEP + "1" + "}" * DEEP
        )
    if shape == "yaml_flow_map":
        return "{a: " * DEEP + "1" + "}" * DEEP
    return (
        "[" * DEEP + "]" * DEEP
    )  # block shapes are planted as whole documents (see _block_document)


def _block_document(shape: str) -> str:
    if shape == "yaml_key":
        return "? " * DEEP + "x\n"
    if shape == "yaml_indent":
        return "".join(" " * i + "a:\n" for i in range(DEEP)) + " " * DEEP + "1\n"
    return "- " * DEEP + "x\n"


def _render(
    data: dict, as_yaml: bool, plants_here: list[tuple[int, Plant]]
) -> tuple[str, set[str]]:
    """The file's text and the kinds of the plants that made it in (a later plant can overwrite an earlier one)."""
    for index, plant in plants_here:
        if plant.kind in ("string", "number", "wrong_type"):
            _set(data, plant.path, plant.value)
        else:
            _set(data, plant.path, _placeholder(index))
    text = (
        yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10**9)
        if as_yaml
        else json.dumps(data)
    )
    applied = set()
    for index, plant in plants_here:
        quoted = [f'"{_placeholder(index)}"', _placeholder(index)]
        token = next((q for q in quoted if q in text), None)
        if token is None:
            continue
        text = text.replace(token, _raw(plant, as_yaml), 1)
        applied.add(plant.kind)
    return text, applied


def _raw(plant: Plant, as_yaml: bool) -> str:
    if plant.kind == "deep":
        return _deep_text(plant.shape, as_yaml)
    if plant.kind == "huge_int":
        return "9" * 5000
    if plant.kind == "hex_int":
        return ("0x" + "f" * 4000) if as_yaml else "9" * 4400
    if plant.kind == "nonstring_key":
        return "{1: a, null: b, 2001-01-01: c, [x]: d}" if as_yaml else '{"k": 1, "k": 2}'
    return '{"k": 1, "k": 2}' if not as_yaml else "{k: 1, k: 2}"  # duplicate_key


def build(ws: Path, drawn: Workspace) -> set[str]:
    """Write the workspace; return which files carry a breaking feature."""
    results_name = "results.yaml" if drawn.results_yaml else "results.json"
    submission_name = "submission.yaml" if drawn.submission_yaml else "submission.json"
    submission = json.loads(json.dumps(SUBMISSION)) | {
        "results": results_name,
        "samples": [MUSR_LOG],
    }
    results = json.loads(json.dumps(RESULTS))
    log = {"doc_id": 0, "doc": {"q": "question"}, "target": "A", "acc_norm": 1.0}
    plants_at = {"submission": [], "results": [], "log": []}
    for index, plant in enumerate(drawn.plants):
        plants_at[plant.where].append((index, plant))
    broken = set()
    for where, data, name, as_yaml in (
        ("submission", submission, submission_name, drawn.submission_yaml),
        ("results", results, results_name, drawn.results_yaml),
        ("log", log, MUSR_LOG, False),
    ):
        text, applied = _render(data, as_yaml, plants_at[where])
        block = [
            p
            for _, p in plants_at[where]
            if p.kind == "deep"
            and as_yaml
            and p.shape.startswith("yaml_")
            and p.shape not in ("yaml_flow", "yaml_flow_map")
        ]
        if block:
            text, applied = _block_document(block[0].shape), {"deep"}
        (ws / name).write_text(
            text + ("\n" if where == "log" else ""), encoding="utf-8", errors="surrogatepass"
        )
        if applied & BREAKING and where != "log":
            broken.add(name)
    return broken


# --- the properties -------------------------------------------------------------------------


def _assert_sane(proc, allowed=(0, 1, 2)) -> str:
    stdout = proc.stdout.decode("utf-8")
    stderr = proc.stderr.decode("utf-8")
    assert proc.returncode in allowed, (
        proc.returncode,
        stdout[-1500:],
        stderr[-1500:],
    )  # a signal is negative
    assert "Traceback" not in stderr and "AUDIT VIOLATION" not in stderr, stderr[-3000:]
    assert CANARY not in stdout + stderr
    return stdout


def _fresh(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("fuzz")
    ws = root / "ws"
    ws.mkdir()
    outside_folder(root)
    return root, ws


@FUZZ
@given(drawn=workspaces)
def test_check_normalize_and_audit_fail_closed(tmp_path_factory, drawn):
    root, ws = _fresh(tmp_path_factory)
    broken = build(ws, drawn)
    submission = next(p.name for p in ws.iterdir() if p.name.startswith("submission"))
    results = next(p.name for p in ws.iterdir() if p.name.startswith("results"))

    proc = audited(["check", "--root", str(ws), "--output-format", "json", "*"], ws, {})
    report = json.loads(_assert_sane(proc))
    assert "findings" in report and report["lbnorm_version"]
    assert commands(proc.stdout.decode() + proc.stderr.decode()) == []
    if broken:
        assert proc.returncode == 1, (broken, report["findings"][:5])
        assert {f["file"] for f in report["findings"] if f["severity"] == "error"} & broken

    proc = audited(["normalize", "--output-format", "json", results], ws, {})
    normalized = json.loads(_assert_sane(proc))
    assert set(normalized) == {"lbnorm_version", "files", "errors"}
    if results in broken:
        assert proc.returncode == 1 and normalized["errors"]

    proc = audited(
        ["audit", "--root", str(ws), "--output-format", "json", results, MUSR_LOG], ws, {}
    )
    json.loads(_assert_sane(proc))
    assert submission  # the check above read it


@FUZZ
@given(drawn=workspaces)
def test_the_action_fails_closed_and_always_writes_its_report(tmp_path_factory, drawn):
    root, ws = _fresh(tmp_path_factory)
    broken = build(ws, drawn)
    (ws / REPORT).write_text('{"passed": true, "stale": "committed in the pull request"}')
    runner = root / "runner"
    runner.mkdir()
    output, summary = runner / "output", runner / "summary.md"
    output.write_text("")
    summary.write_text("")
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(ws),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "HOME": str(runner),
        "INPUT_FILES": "submission.*",
        "INPUT_REPORT": REPORT,
    }
    proc = audited(["action"], ws, env, writable=[output, summary, ws / REPORT])
    log = _assert_sane(proc)
    assert {c.name for c in commands(log)} <= {"error", "warning", "group", "endgroup"}
    report = json.loads((ws / REPORT).read_text())
    assert "stale" not in report
    assert "passed=" in output.read_text()
    if {n for n in broken if n.startswith("submission")}:
        assert proc.returncode == 1 and report["ok"] is False
    text = summary.read_text()
    assert "@octocat" not in text and "https://evil" not in text and CANARY not in text


profiles = st.one_of(
    st.sampled_from(
        [
            "[" * DEEP + "]" * DEEP,
            "- " * DEEP + "x",
            "? " * DEEP + "x",
            "{1: a}",
            "name: 5",
            "benchmarks: " + "9" * 5000,
            "0x" + "f" * 5000,
            "",
            "::error::x",
            "a: &a [*a]",
        ]
    ),
    st.recursive(
        st.none() | st.integers() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=10,
    ).map(lambda v: json.dumps({"name": "fuzz", "benchmarks": v})),
)


@FUZZ
@given(profile=profiles)
def test_a_broken_maintainer_profile_is_a_configuration_error_not_a_crash(
    tmp_path_factory, profile
):
    """A bad profile is the maintainer's configuration: exit 3 (or 2) with one line, never a signal or traceback."""
    root, ws = _fresh(tmp_path_factory)
    (ws / "submission.json").write_text(json.dumps(SUBMISSION | {"results": "results.json"}))
    (ws / "results.json").write_text(json.dumps(RESULTS))
    (ws / "profile.yaml").write_text(profile, encoding="utf-8")
    for command in (["check", "--root", str(ws), "submission.json"], ["normalize", "results.json"]):
        proc = audited([*command, "--profile-file", "profile.yaml"], ws, {})
        _assert_sane(proc, allowed=(0, 1, 2, 3))
        assert len(proc.stderr.decode().splitlines()) <= 2
