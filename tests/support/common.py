"""Paths to shipped data, results-file variants, running the CLI: what every kind of test shares."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
EXAMPLES = REPO / "tests" / "examples"
EXAMPLE = REPO / "examples" / "pythia-1b" / "results_2025-01-27T10-10-36.877664.json"
V1_LIGHTEVAL = DATA / "v1" / "results_2023-09-08T17-00-44.389859.json"
V1_LM_EVAL_03 = DATA / "v1" / "results_lm_eval_03.json"
COMMUNITY = DATA / "community" / "results_2026-01-21T03-44-18.458309.json"
NORMALIZATION_PAGE = REPO / "docs" / "reference" / "normalization.md"


V2_GROUPS = (
    "leaderboard",
    "leaderboard_bbh",
    "leaderboard_gpqa",
    "leaderboard_math_hard",
    "leaderboard_musr",
)


def without_groups(doc: dict) -> dict:
    """The same run as lm-eval 2024-07..2025-04 wrote it: no group entries."""
    doc = copy.deepcopy(doc)
    for group in V2_GROUPS:
        doc["results"].pop(group, None)
    doc.pop("groups", None)
    return doc


def write_json(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc, indent=2))
    return path


def run_cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """Run `python -m validator` as a user would, from a clean environment; a JSON report it prints must follow its schema."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run(
        [sys.executable, "-m", "validator", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    wants_json = any(option in args for option in ("--output-format=json", "-ojson")) or any(
        a in ("--output-format", "-o") and b == "json" for a, b in zip(args, args[1:], strict=False)
    )
    if args[:1] in (("check",), ("audit",)) and wants_json and proc.stdout.lstrip().startswith("{"):
        assert_report_follows_its_schema(json.loads(proc.stdout), args[0])
    return proc


_REPORT_VALIDATORS: dict = {}


def assert_report_follows_its_schema(doc: dict, kind: str) -> None:
    """The JSON report of `check` (and the Action) or `audit` is valid against the schema the package publishes."""
    import jsonschema

    from validator.report.json_report import report_schema

    if kind not in _REPORT_VALIDATORS:
        schema = report_schema(kind)
        jsonschema.Draft202012Validator.check_schema(schema)
        _REPORT_VALIDATORS[kind] = jsonschema.Draft202012Validator(schema)
    errors = sorted(_REPORT_VALIDATORS[kind].iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, f"the {kind} report breaks its schema: " + "; ".join(
        f"{'/'.join(map(str, e.path)) or '(top)'}: {e.message[:300]}" for e in errors[:5]
    )


def line_of(path, needle: str) -> int:
    """The number of the first line of the file that holds `needle`."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)
