"""Nothing from a pull request can become a workflow command (docs/security.md).

File names, model names, task names and values carry newlines, `::error`,
`::stop-commands::`, `::add-mask::` and `##[`; the runner mimic must find only
our own commands in stdout and stderr, in the CLI output and the action's.
"""

from __future__ import annotations

import json
import shutil

from support.action_runner import SUBMISSION, assert_only_our_commands, run_action
from support.common import EXAMPLE, run_cli
from support.runner_mimic import commands

PAYLOADS = [
    "\n::error file=x.py,line=1::forged",
    "\r\n::stop-commands::pwn",
    "\n::add-mask::lbnorm",
    "##[error]legacy forged",
    "  ::set-output name=passed::true",
    "%0A::warning::encoded",
]


def hostile_workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    results = json.loads(EXAMPLE.read_text())
    for i, payload in enumerate(PAYLOADS):
        results["results"][f"leaderboard_bbh_snarks{payload}{i}"] = {
            "acc_norm,none": 0.5
        }  # unknown tasks
    results["results"]["leaderboard_ifeval"]["prompt_level_strict_acc,none"] = PAYLOADS[
        3
    ]  # a string value
    results["model_name"] = "org/model" + PAYLOADS[0]
    for i, payload in enumerate(PAYLOADS):
        name = f"sub{i}{payload.replace('/', '_')}.json"
        (ws / f"results{i}.json").write_text(json.dumps(results))
        submission = SUBMISSION | {
            "results": f"results{i}.json",
            "model": "m" + payload,
            "reported": SUBMISSION["reported"] | {f"x{i}": 1.0},
        }
        submission[payload.strip() or "empty"] = "extra field"
        (ws / name).write_text(json.dumps(submission))
    (ws / ("broken" + PAYLOADS[1] + ".json")).write_text('{"a": ' + json.dumps(PAYLOADS[0]) + ",")
    shutil.copy(EXAMPLE, ws / "plain.json")
    return ws


def test_the_action_log_carries_only_our_commands(tmp_path):
    ws = hostile_workspace(tmp_path)
    proc, outputs, summary = run_action(ws, {"files": "*.json"})
    assert proc.returncode == 1
    found = assert_only_our_commands(proc.stdout + proc.stderr)
    assert sum(c.name == "error" for c in found) == 10  # capped, the rest pointed to
    assert "Traceback" not in proc.stderr
    # the outputs file has only our five outputs
    assert [line.split("=")[0] for line in outputs.splitlines()] == [
        "passed",
        "files_checked",
        "errors",
        "warnings",
        "report",
    ]
    # no raw HTML or links from the PR in the summary
    assert "<script" not in summary and "](" not in summary


def test_the_cli_text_and_json_output_carry_no_commands(tmp_path):
    ws = hostile_workspace(tmp_path)
    for output_format in ("text", "json"):
        proc = run_cli("check", "--output-format", output_format, "-v", "*.json", cwd=ws)
        assert proc.returncode == 1
        assert commands(proc.stdout + proc.stderr) == [], output_format
        if output_format == "json":
            report = json.loads(proc.stdout)
            # messages are one line: the value is shown, with ##[ broken up and newlines escaped
            assert any("##\\[error]legacy forged" in f["message"] for f in report["findings"])
            assert not any("\n" in f["message"] for f in report["findings"])


def test_normalize_output_carries_no_commands(tmp_path):
    ws = hostile_workspace(tmp_path)
    results = json.loads(EXAMPLE.read_text())
    results["model_name"] = "org/m\n::error::forged ##[add-mask]x"
    (ws / "r.json").write_text(json.dumps(results))
    for output_format in ("text", "json"):
        proc = run_cli(
            "normalize",
            "--output-format",
            output_format,
            "r.json",
            *[p.name for p in ws.glob("sub*")],
            cwd=ws,
        )
        assert commands(proc.stdout + proc.stderr) == [], output_format
