"""What each command imports: a pull request's check pays for every module it loads, at every start."""

from __future__ import annotations

import subprocess
import sys

from support.common import EXAMPLES, REPO

LOADED_MODULES = """
import runpy, sys
sys.argv = ["validator", *sys.argv[1:]]
try:
    runpy.run_module("validator", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
sys.stdout = sys.__stdout__
print(" ".join(sorted(sys.modules)))
"""
COMMAND_MODULES = {
    f"validator.cli.{name}"
    for name in (
        "audit",
        "check",
        "config",
        "normalize",
        "profile",
        "rules",
        "submission",
        "survey",
    )
}
AUDIT = {
    "validator.audit.auditor",
    "validator.harness.drop",
    "validator.io.sample_logs",
    "validator.harness.choice_scores",
}
# Worker processes (re-audits of many files), jsonschema (only to explain an invalid submission), the
# reporters of formats not asked for.
HEAVY = {
    "multiprocessing",
    "concurrent.futures",
    "jsonschema",
    "xml.etree",
    "validator.report.junit",
    "validator.report.sarif",
}


def loaded_by(*args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", LOADED_MODULES, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    return set(proc.stdout.splitlines()[-1].split())


def test_version_loads_no_command():
    loaded = loaded_by("--version")
    assert not loaded & COMMAND_MODULES
    assert not {m for m in loaded if m.startswith(("validator.check", "validator.audit"))}


def test_a_check_loads_only_its_own_command():
    loaded = loaded_by("check", "-q", "examples/pythia-1b/submission.json")
    assert loaded & COMMAND_MODULES == {"validator.cli.check"}
    assert not {m for m in loaded if m.startswith("validator.survey")}
    assert not HEAVY & loaded


def test_an_invalid_submission_is_explained_by_jsonschema():
    loaded = loaded_by("check", "-q", str(EXAMPLES / "negative" / "LB201_schema"))
    assert "jsonschema" in loaded


def test_a_check_loads_the_sample_log_audit_only_when_a_submission_lists_logs():
    """Every pull request pays for start-up imports; the audit is for the few with logs."""
    honest = EXAMPLES / "positive"
    assert not AUDIT & loaded_by(
        "check",
        "-q",
        "--root",
        str(honest / "pythia_two_decimals"),
        str(honest / "pythia_two_decimals"),
    )
    assert AUDIT <= loaded_by(
        "check", "-q", "--root", str(honest / "samples_honest"), str(honest / "samples_honest")
    )
