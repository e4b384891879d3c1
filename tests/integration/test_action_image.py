"""The real image: build the repository's Dockerfile, release it to a registry on loopback
and run it pulled by digest, as the runner runs a released action.

Mandatory when CI is set (CI runs as root on these machines); elsewhere it
runs only with LBNORM_IMAGE_TEST=1, because it needs root, apt and a few
minutes (LBNORM_IMAGE_TEST=0 skips it under CI, e.g. on GitHub's runners,
where ci.yml builds the image with the real base instead). Also the static
checks of the action's metadata and Dockerfile.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml
from support.action_runner import OUR_COMMANDS, make_workspace, parse_outputs
from support.common import REPO, line_of
from support.runner_mimic import commands

WANTED = os.environ.get("LBNORM_IMAGE_TEST", "1" if os.environ.get("CI") else "0") != "0"
# lbnorm, click, jsonschema, PyYAML, orjson and RE2 (its compiled library is about 1.5 MB): under 12 MB over the base
MAX_MB_OVER_BASE = 12


def test_action_yml_matches_the_github_actions_schema():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-actions",
            str(REPO / "action.yml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_action_inputs_are_snake_case_and_match_what_the_entrypoint_reads():
    action = yaml.safe_load((REPO / "action.yml").read_text())
    assert action["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert set(action["inputs"]) == {
        "files",
        "profile",
        "profile_file",
        "profile_sha256",
        "tolerance",
        "strict",
        "report",
        "max_file_size",
        "max_files",
        "max_depth",
        "max_string_length",
        "max_log_size",
        "stale_scorer_bound",
        "max_values",
        "config_file",
        "config_sha256",
        "max_log_records",
    }
    entrypoint = "\n".join(
        p.read_text() for p in sorted((REPO / "validator" / "action").glob("*.py"))
    )
    unread = [name for name in action["inputs"] if f'"{name}"' not in entrypoint]
    assert not unread, f"action.yml declares inputs the entrypoint never reads: {unread}"
    assert all("-" not in name and name.islower() for name in action["inputs"])
    assert set(action["outputs"]) == {"passed", "files_checked", "errors", "warnings", "report"}


def test_dockerfile_passes_hadolint():
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint is a test dependency: pip install '.[test]'"
    proc = subprocess.run(
        [hadolint, str(REPO / "Dockerfile")], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_dockerfile_rules_of_the_spec():
    text = (REPO / "Dockerfile").read_text()
    final_stage = text[text.rindex("\nFROM ") :]
    assert (
        'ENTRYPOINT ["/opt/lbnorm/venv/bin/python", "-I", "-m", "validator", "action"]'
        in final_stage
    )
    assert "\nUSER " not in text and "\nWORKDIR " not in text
    # The final stage only copies what the build stages made: no pip, no build tool runs in it.
    assert "\nRUN " not in final_stage and final_stage.count("\nCOPY --from=") == 2
    assert text.count("--require-hashes") == 2 and "--no-build-isolation" in text
    assert (REPO / ".dockerignore").read_text().startswith("# Allow-list")


def test_pre_commit_hook_runs_the_installed_command():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hooks[0]["id"] == "lbnorm-check" and hooks[0]["entry"] == "lbnorm check"
    assert (
        hooks[0]["language"] == "python"
    )  # the hooks' file patterns are tested end to end in test_pre_commit_hooks.py


@pytest.mark.skipif(
    not WANTED,
    reason="the real-image test runs when CI is set or LBNORM_IMAGE_TEST=1 "
    "(it needs root, apt and a few minutes)",
)
def test_the_real_image_checks_a_workspace_like_the_runner(tmp_path):
    if os.geteuid() != 0:
        pytest.fail("the real-image test is mandatory in CI and needs root to run dockerd")
    ws = make_workspace(tmp_path)
    (ws / "validator").mkdir()  # a planted package must not be imported in the image either
    (ws / "validator" / "__init__.py").write_text("print('::error::planted validator ran')\n")
    files, workflow = tmp_path / "file_commands", tmp_path / "workflow"
    files.mkdir()
    workflow.mkdir()
    (files / "set_output").write_text("")
    (files / "step_summary").write_text("")
    (workflow / "event.json").write_text(json.dumps({"pull_request": {"number": 1}}))
    facts_file = tmp_path / "facts.json"
    proc = subprocess.run(
        [
            str(REPO / ".ci" / "action-image-test.sh"),
            str(ws),
            str(files),
            str(workflow),
            "submissions/**/*.json",
        ],
        capture_output=True,
        text=True,
        timeout=1500,
        env=os.environ
        | {
            "IMAGE_FACTS_FILE": str(facts_file),
            "PYTHON": sys.executable,
            "LBNORM_VERSION": "1.0.0",
        },
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    facts = json.loads(facts_file.read_text())
    assert (facts["image_bytes"] - facts["base_bytes"]) / 2**20 <= MAX_MB_OVER_BASE, facts
    layers, rebuilt, base = (
        facts[k].split(",") for k in ("layers", "rebuilt_layers", "base_layers")
    )
    assert layers[: len(base)] == base and len(layers) == len(base) + 2  # dependencies, then lbnorm
    assert (
        rebuilt[:-1] == layers[:-1] and rebuilt[-1] != layers[-1]
    )  # a code change: the last layer only
    assert (
        facts["build_tools_importable"] == []
    )  # the entrypoint's interpreter sees no pip or build backend
    # ...and every runtime dependency, and the modules that need them, import there
    assert facts["unimportable"] == [], facts["unimportable"]
    assert facts["runs_image"].startswith("docker://127.0.0.1:") and facts["runs_image"].endswith(
        "/lbnorm/lbnorm-action@" + facts["pushed_digest"]
    )
    line = line_of(ws / "submissions/pythia/inflated.json", '"bbh": 3.29')
    assert (
        f"::error file=submissions/pythia/inflated.json,line={line},col=5,title=LB601 score-divergence::"
        in proc.stdout
    ), proc.stdout + proc.stderr
    assert {c.name for c in commands(proc.stdout)} <= OUR_COMMANDS and "planted" not in proc.stdout
    assert parse_outputs((files / "set_output").read_text()) == {
        "passed": "false",
        "files_checked": "2",
        "errors": "1",
        "warnings": "0",
        "report": "lbnorm-report.json",
    }
    assert "| bbh | 3.29 | 2.2940 | +0.9960 | ❌ diverges |" in (files / "step_summary").read_text()
    report = json.loads((ws / "lbnorm-report.json").read_text())
    assert report["findings"][0]["line"] == line
    assert report["lbnorm_version"] == "1.0.0"  # the release's build argument reached the wheel
