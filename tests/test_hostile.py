"""Every case of the hostile corpus (hostile_corpus.py), through the CLI and the Action entrypoint.

Each run happens under the audit hook of audited_run.py (no read outside the
workspace, no write but the runner's files, no network, no process), with a
timeout and an address-space limit, and must end with exactly the expected
rule ids, a parseable JSON report, no traceback, no workflow command but
ours, and every input file byte-for-byte and mtime unchanged.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from hostile_corpus import CANARY, CASES, HostileCase, Snapshot, outside_folder
from runner_mimic import commands
from test_action_injection import assert_only_our_commands

AUDITED = REPO / "tests" / "audited_run.py"
TIME_LIMIT_S = 60
MEMORY_LIMIT = 2 * 1024**3
REPORT = "lbnorm-report.json"


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def audited(args: list[str], ws: Path, env: dict[str, str], writable: list[Path] = ()) -> subprocess.CompletedProcess:
    env = env | {"AUDIT_WORKSPACE": str(ws), "AUDIT_WRITABLE": os.pathsep.join(map(str, writable)),
                 "PATH": os.environ["PATH"]}
    return subprocess.run([sys.executable, "-I", str(AUDITED), *args], cwd=ws, env=env, capture_output=True,
                          timeout=TIME_LIMIT_S, preexec_fn=_bounded)


def built(hostile: HostileCase, tmp_path: Path) -> tuple[Path, Path, Snapshot]:
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = outside_folder(tmp_path)
    hostile.build(ws, outside)
    return ws, outside, Snapshot.take(ws, outside)


def assert_clean_run(proc: subprocess.CompletedProcess, expected_exit: int) -> str:
    stdout = proc.stdout.decode("utf-8")  # must be valid UTF-8, even for names that are not
    stderr = proc.stderr.decode("utf-8")
    assert "AUDIT VIOLATION" not in stderr, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert proc.returncode == expected_exit, (proc.returncode, stdout[-2000:], stderr[-2000:])
    assert CANARY not in stdout + stderr
    return stdout + stderr


def test_the_corpus_has_at_least_30_hostile_cases():
    assert sum(1 for c in CASES if c.exit != 0) >= 30


@pytest.mark.parametrize("hostile", CASES, ids=lambda c: c.name)
def test_cli(hostile: HostileCase, tmp_path):
    ws, outside, before = built(hostile, tmp_path)
    base = ["check", "--root", str(ws), *hostile.options]
    proc = audited([*base, "--output-format", "json", *hostile.args], ws, {})
    output = assert_clean_run(proc, hostile.exit)
    report = json.loads(proc.stdout)
    assert {f["rule"] for f in report["findings"]} == hostile.rules, json.dumps(report["findings"])[:3000]
    assert all("\n" not in f["message"] for f in report["findings"])
    assert commands(output) == []

    proc = audited([*base, "-v", *hostile.args], ws, {"NO_COLOR": "1"})
    output = assert_clean_run(proc, hostile.exit)
    assert commands(output) == []
    assert all(len(line) < 2000 for line in output.splitlines())
    assert Snapshot.take(ws, outside) == before


@pytest.mark.parametrize("hostile", CASES, ids=lambda c: c.name)
def test_action_entrypoint(hostile: HostileCase, tmp_path):
    assert not hostile.options, "the Action takes limits as inputs; give the case its defaults"
    ws, outside, before = built(hostile, tmp_path)
    runner = tmp_path / "runner"
    runner.mkdir()
    output_file, summary_file = runner / "output", runner / "summary.md"
    output_file.write_text("")
    summary_file.write_text("")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(ws), "GITHUB_EVENT_NAME": "pull_request",
           "GITHUB_OUTPUT": str(output_file), "GITHUB_STEP_SUMMARY": str(summary_file), "HOME": str(runner),
           "INPUT_FILES": "\n".join(hostile.args), "INPUT_REPORT": REPORT}
    proc = audited(["action"], ws, env, writable=[output_file, summary_file, ws / REPORT])
    log = assert_clean_run(proc, hostile.exit)
    assert_only_our_commands(log)
    for annotation in (c for c in commands(log) if c.name in ("error", "warning")):
        # The real name, escaped, so GitHub can place it; `##[` must be broken up (the runner
        # has no escape for '#'), and a name that is not UTF-8 cannot be placed at all.
        named = annotation.properties.get("file")
        assert (named is None or os.path.lexists(ws / named.replace("##\\[", "##["))
                or "\\udc" in named or named.startswith("/")), named
    report = json.loads((ws / REPORT).read_text())
    assert {f["rule"] for f in report["findings"]} == hostile.rules
    assert [line.split("=")[0].split("<<")[0] for line in output_file.read_text().splitlines()
            if "=" in line or "<<" in line][:2] == ["passed", "files_checked"]
    assert summary_file.stat().st_size < 1024 * 1024 and CANARY not in summary_file.read_text()
    (ws / REPORT).unlink()
    assert Snapshot.take(ws, outside) == before
