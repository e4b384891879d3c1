"""The Action's entrypoint run as the GitHub runner runs it: a workspace, INPUT_* and GITHUB_* variables,
an outputs file, a summary file and a pull_request event."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from support.common import CAN_FORK, EXAMPLE, REPO, forked_cli
from support.runner_mimic import commands

OUR_COMMANDS = {"error", "warning", "group", "endgroup"}
SUBMISSION = json.loads((REPO / "examples" / "pythia-1b" / "submission.json").read_text())


def make_workspace(root: Path) -> Path:
    ws = root / "workspace"
    (ws / "submissions" / "pythia").mkdir(parents=True)
    shutil.copy(EXAMPLE, ws / "submissions" / "pythia" / "results.json")
    honest = SUBMISSION | {"results": "results.json"}
    (ws / "submissions" / "pythia" / "honest.json").write_text(json.dumps(honest, indent=2))
    inflated = honest | {"reported": honest["reported"] | {"bbh": 3.29}}
    (ws / "submissions" / "pythia" / "inflated.json").write_text(json.dumps(inflated, indent=2))
    return ws


def run_action(
    ws: Path, inputs: dict[str, str], extra_env: dict[str, str] | None = None, fresh: bool = False
):
    """`python -I -m validator action` in the workspace `ws`: the process, the outputs file, the summary.

    The entrypoint runs in a forked child of the test process (support.common.run_cli says why);
    `fresh=True` starts a new isolated interpreter, for a test about what the process imports.
    """
    files = ws.parent / "runner"
    files.mkdir(exist_ok=True)
    event = files / "event.json"
    event.write_text(
        json.dumps(
            {
                "action": "synchronize",
                "number": 7,
                "pull_request": {"number": 7, "base": {"sha": "a" * 40}, "head": {"sha": "b" * 40}},
            }
        )
    )
    (files / "output").write_text("")
    (files / "summary.md").write_text("")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(files),
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(ws),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_OUTPUT": str(files / "output"),
        "GITHUB_STEP_SUMMARY": str(files / "summary.md"),
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    env.update(extra_env or {})
    argv = [sys.executable, "-I", "-m", "validator", "action"]
    if fresh or not CAN_FORK:
        proc = subprocess.run(argv, cwd=ws, env=env, capture_output=True, text=True, timeout=120)
    else:
        proc = forked_cli(argv, ["action"], ws, env, timeout=120)
    return proc, (files / "output").read_text(), (files / "summary.md").read_text()


def parse_outputs(text: str) -> dict[str, str]:
    outputs, lines = {}, iter(text.splitlines())
    for line in lines:
        if "<<" in line and "=" not in line.split("<<")[0]:
            name, delimiter = line.split("<<", 1)
            value = []
            for body in lines:
                if body == delimiter:
                    break
                value.append(body)
            outputs[name] = "\n".join(value)
        else:
            name, _, value = line.partition("=")
            outputs[name] = value
    return outputs


def assert_only_our_commands(output: str) -> list:
    found = commands(output)
    assert {c.name for c in found} <= OUR_COMMANDS, [
        c.line for c in found if c.name not in OUR_COMMANDS
    ]
    for command in found:
        if command.name in ("error", "warning"):
            assert command.properties["title"].startswith(("LB", "lbnorm")), command.line
            assert set(command.properties) <= {"file", "line", "col", "title"}, command.line
    return found
