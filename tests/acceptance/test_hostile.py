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
from support.action_runner import assert_only_our_commands
from support.common import REPO
from support.hostile_corpus import CANARY, CASES, HostileCase, Snapshot, outside_folder
from support.runner_mimic import commands

from validator.io.safe_text import table_cell

# Every case runs the CLI and the Action in subprocesses under an audit hook: minutes, so `slow`.
pytestmark = pytest.mark.slow

AUDITED = REPO / "tests" / "support" / "audited_run.py"
TIME_LIMIT_S = 60
MEMORY_LIMIT = 2 * 1024**3
REPORT = "lbnorm-report.json"


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def audited(
    args: list[str], ws: Path, env: dict[str, str], writable: list[Path] = ()
) -> subprocess.CompletedProcess:
    env = env | {
        "AUDIT_WORKSPACE": str(ws),
        "AUDIT_WRITABLE": os.pathsep.join(map(str, writable)),
        "PATH": os.environ["PATH"],
    }
    return subprocess.run(
        [sys.executable, "-I", str(AUDITED), *args],
        cwd=ws,
        env=env,
        capture_output=True,
        timeout=TIME_LIMIT_S,
        preexec_fn=_bounded,
    )


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
    assert {f["rule"] for f in report["findings"]} == hostile.rules, json.dumps(report["findings"])[
        :3000
    ]
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
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(ws),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_OUTPUT": str(output_file),
        "GITHUB_STEP_SUMMARY": str(summary_file),
        "HOME": str(runner),
        "INPUT_FILES": "\n".join(hostile.args),
        "INPUT_REPORT": REPORT,
    }
    proc = audited(["action"], ws, env, writable=[output_file, summary_file, ws / REPORT])
    log = assert_clean_run(proc, hostile.exit)
    assert_only_our_commands(log)
    for annotation in (c for c in commands(log) if c.name in ("error", "warning")):
        # The real name, escaped, so GitHub can place it; `##[` must be broken up (the runner
        # has no escape for '#'); a name that is not UTF-8, or that holds a control character, is
        # shown with its characters escaped as text, and cannot be placed.
        named = annotation.properties.get("file")
        assert (
            named is None
            or os.path.lexists(ws / named.replace("##\\[", "##["))
            or "\\udc" in named
            or named.replace("##\\[", "##[")
            in {
                table_cell(os.path.relpath(os.path.join(folder, name), ws))
                for folder, _, names in os.walk(ws)
                for name in names
            }
            or named.startswith("/")
        ), named
        assert named is None or named.isprintable(), named
    report = json.loads((ws / REPORT).read_text())
    assert {f["rule"] for f in report["findings"]} == hostile.rules
    assert [
        line.split("=")[0].split("<<")[0]
        for line in output_file.read_text().splitlines()
        if "=" in line or "<<" in line
    ][:2] == ["passed", "files_checked"]
    assert summary_file.stat().st_size < 1024 * 1024 and CANARY not in summary_file.read_text()
    (ws / REPORT).unlink()
    assert Snapshot.take(ws, outside) == before


# --- failures inside one file, and workers that die ----------------------------------------------


def _workspace_with_submissions(ws: Path, count: int) -> None:
    from support.hostile_corpus import honest

    for i in range(count):
        folder = ws / f"s{i:03}"
        folder.mkdir()
        honest(folder)


def test_an_unforeseen_error_in_one_file_fails_that_file_only(tmp_path, monkeypatch):
    """Fault injection: whatever raises while one file is checked becomes LB110 for it; the rest are checked."""
    from validator.check import checker

    _workspace_with_submissions(tmp_path, 3)
    real = checker._read_and_score

    def explode_on_s001(ctx, result):
        if ctx.submission is not None and ctx.submission.display_path.startswith("s001/"):
            raise ZeroDivisionError("planted")
        real(ctx, result)

    monkeypatch.setattr(checker, "_read_and_score", explode_on_s001)
    result = checker.run_check(["*/submission.json"], checker.CheckOptions(root=tmp_path))
    assert [(f.rule, f.file) for f in result.findings] == [("LB110", "s001/submission.json")]
    assert "ZeroDivisionError" in result.findings[0].message
    assert [f.path for f in result.files] == ["s000/submission.json", "s002/submission.json"]


def test_a_worker_that_dies_becomes_a_finding_and_the_run_ends(tmp_path, monkeypatch):
    """SIGKILL in a --jobs worker (as the OOM killer does): LB110 for that file, every other file checked."""
    import signal

    from validator.check import checker

    _workspace_with_submissions(tmp_path, 40)  # 80 files: enough for worker processes
    real = checker._parse

    def die_on_s017(target, limits, result):
        if target.display == "s017/submission.json":
            os.kill(os.getpid(), signal.SIGKILL)
        return real(target, limits, result)

    monkeypatch.setattr(checker, "_parse", die_on_s017)  # forked workers inherit the patch
    result = checker.run_check(["*/*.json"], checker.CheckOptions(root=tmp_path, jobs=2))
    assert [(f.rule, f.file) for f in result.findings] == [("LB110", "s017/submission.json")]
    assert len([f for f in result.files if f.kind == "submission"]) == 39


# --- the Action's report file ---------------------------------------------------------------


def _action(ws: Path, **inputs: str) -> tuple[int, str, dict[str, str]]:
    import io

    from validator.action import run_action

    output = ws.parent / "output"
    output.write_text("")
    env = {
        "GITHUB_WORKSPACE": str(ws),
        "GITHUB_OUTPUT": str(output),
        "INPUT_FILES": "submission.json",
        "INPUT_REPORT": REPORT,
    } | {f"INPUT_{k.upper()}": v for k, v in inputs.items()}
    out = io.StringIO()
    code = run_action(env, out, io.StringIO())
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return code, out.getvalue(), outputs


@pytest.fixture
def honest_ws(tmp_path) -> Path:
    from support.hostile_corpus import honest

    ws = tmp_path / "ws"
    ws.mkdir()
    honest(ws)
    return ws


def test_the_report_is_complete_json_and_replaces_a_stale_one(honest_ws):
    (honest_ws / REPORT).write_text('{"passed": true, "stale": 1}')
    code, _, outputs = _action(honest_ws)
    assert code == 0 and outputs["report"] == REPORT
    report = json.loads((honest_ws / REPORT).read_text())
    assert "stale" not in report and report["findings"] == []
    assert (honest_ws / REPORT).stat().st_uid == honest_ws.stat().st_uid
    assert [p.name for p in honest_ws.iterdir() if p.name.endswith(".tmp")] == []


def test_a_stale_report_does_not_survive_a_run_that_ends_early(honest_ws):
    (honest_ws / REPORT).write_text('{"passed": true}')
    code, log, outputs = _action(honest_ws, tolerance="lots")
    assert code == 2 and "::error title=lbnorm configuration::" in log
    assert (
        not (honest_ws / REPORT).exists()
        and outputs["passed"] == "false"
        and outputs["report"] == ""
    )


@pytest.mark.parametrize("trap", ["fifo", "hard link", "symlink", "directory", "symlinked folder"])
def test_a_planted_report_path_is_refused_with_a_warning(honest_ws, tmp_path, trap):
    outside = tmp_path / "outside.json"
    outside.write_text("keep me")
    name = REPORT
    if trap == "fifo":
        os.mkfifo(honest_ws / REPORT)
    elif trap == "hard link":
        os.link(outside, honest_ws / REPORT)
    elif trap == "symlink":
        os.symlink(outside, honest_ws / REPORT)
    elif trap == "directory":
        (honest_ws / REPORT).mkdir()
    else:
        os.symlink(tmp_path, honest_ws / "out")
        name = "out/outside.json"
    code, log, outputs = _action(honest_ws, report=name)
    assert code == 0 and outputs["report"] == ""
    assert "::warning title=lbnorm report::" in log
    assert outside.read_text() == "keep me"


@pytest.mark.parametrize("workspace", [None, "", "relative/ws", "/no/such/folder"])
def test_a_missing_or_invalid_workspace_is_a_configuration_error(tmp_path, workspace):
    import io

    from validator.action import run_action

    env = {"INPUT_FILES": "submission.json"} | (
        {"GITHUB_WORKSPACE": workspace} if workspace is not None else {}
    )
    out = io.StringIO()
    assert run_action(env, out, io.StringIO()) == 2
    assert out.getvalue().startswith("::error title=lbnorm configuration::GITHUB_WORKSPACE")


def test_a_log_with_more_records_than_the_budget_fails_at_the_first_one_over(tmp_path):
    """Each record costs time whatever its size: 7 million 13-byte lines fit in a 100 MB file."""
    from validator.io.documents import DocumentError
    from validator.io.limits import Limits
    from validator.io.sample_logs import read_records

    log = tmp_path / "samples_x_2024.jsonl"
    log.write_text('{"doc_id": 0}\n' * 5)
    with pytest.raises(DocumentError) as raised:
        list(read_records(log, Limits(max_log_records=3)))
    assert (raised.value.rule, raised.value.line) == (
        "LB106",
        4,
    ) and "--max-log-records" in raised.value.message
    assert len(list(read_records(log, Limits(max_log_records=5)))) == 5


def test_no_report_line_can_become_a_workflow_command_whatever_wrote_it():
    """The stream guard catches what a code path forgot to sanitise, even split across writes."""
    import io

    from validator.io.safe_text import CommandSafeWriter, command_stream

    raw = io.StringIO()
    guarded = CommandSafeWriter(raw)
    guarded.write("note: ok\n::error file=a::forged\r  ::warning::x #")
    guarded.write("#[error]legacy\n")
    command_stream(guarded).write("::error title=lbnorm::ours\n")
    assert raw.getvalue().splitlines() == [
        "note: ok",
        "\\::error file=a::forged",
        "\\::warning::x ##\\[error]legacy",
        "::error title=lbnorm::ours",
    ]


def test_the_job_summary_pings_nobody_and_links_nowhere():
    from validator.io.safe_text import markdown_cell

    text = markdown_cell(
        "@octocat see https://evil.example/x, www.evil.example and ftp://x; mail a@b.example "
        "x_www.evil.example"
    )
    for bait in ("@octocat", "https://", "www.evil", "ftp://", "a@b"):
        assert bait not in text
    assert text.replace("\u200b", "") == (
        "@octocat see https://evil.example/x, www.evil.example and ftp://x; "
        "mail a@b.example x\\_www.evil.example"
    )
