"""`python -m validator check` as a maintainer runs it: exit codes, output, options."""

from __future__ import annotations

import json

import pytest
from support.common import EXAMPLE, REPO, line_of, run_cli


def test_the_quick_start_example_passes():
    proc = run_cli("check", "-v", "examples/pythia-1b/submission.json")
    assert proc.returncode == 0, proc.stdout
    assert "ok: 1 file(s) checked, 0 error(s), 0 warning(s)" in proc.stdout


def test_all_files_are_checked_and_the_results_file_is_not_checked_twice(workspace):
    proc = run_cli("check", "--output-format", "json", "*.json", cwd=workspace)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert report["files_checked"] == 2  # good.json and bad.json; results.json belongs to them
    gpqa_line = line_of(workspace / "bad.json", '"gpqa": 1.0')
    assert [(f["rule"], f["file"], f["line"]) for f in report["findings"]] == [
        ("LB601", "bad.json", gpqa_line)
    ]
    assert (
        "GPQA = max(p - 1/4, 0) / (1 - 1/4) * 100 with p = 0.25671140939597314"
        in report["findings"][0]["message"]
    )


def test_text_output_and_quiet_and_no_color(workspace):
    proc = run_cli("check", "bad.json", cwd=workspace)
    needle = '"gpqa": 1.0'
    where = f"bad.json:{line_of(workspace / 'bad.json', needle)}:5"
    assert proc.stdout.splitlines()[0].startswith(
        f"{where}: LB601 score-divergence [error] gpqa: reported 1.0, recomputed 0.8949"
    )
    assert "\x1b[" not in proc.stdout  # not a terminal
    assert (
        run_cli("check", "-q", "good.json", cwd=workspace).stdout
        == "ok: 1 file(s) checked, 0 error(s), 0 warning(s)\n"
    )


def _exit_code_with_stdout(args: list[str], stdout: str, cwd) -> int:
    """The exit code of `python -m validator ARGS` whose stdout is a pipe no one reads ('gone': the reader
    exited first, as `| head -0` does) or a closed descriptor ('closed': `>&-`)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env["PYTHONPATH"] = str(REPO)
    command = [sys.executable, "-m", "validator", *args]
    if stdout == "closed":
        return subprocess.run(
            command,
            cwd=cwd,
            env=env,
            stderr=subprocess.DEVNULL,
            timeout=60,
            preexec_fn=lambda: os.close(1),
        ).returncode
    read, write = os.pipe()
    os.close(read)  # every write the command makes meets a pipe without a reader: EPIPE
    try:
        return subprocess.run(
            command, cwd=cwd, env=env, stdout=write, stderr=subprocess.DEVNULL, timeout=60
        ).returncode
    finally:
        os.close(write)


@pytest.mark.parametrize("stdout", ["gone", "closed"])
@pytest.mark.parametrize("file, code", [("good.json", 0), ("bad.json", 1)])
def test_a_report_no_one_reads_keeps_the_verdict(workspace, stdout, file, code):
    """`lbnorm check bad.json | head -0` keeps its exit code: a broken pipe is not taken for success."""
    assert _exit_code_with_stdout(["check", file], stdout, workspace) == code


def test_tolerance_is_the_maintainers_knob(workspace):
    assert run_cli("check", "--tolerance", "0.2", "bad.json", cwd=workspace).returncode == 0
    assert run_cli("check", "--tolerance", "0.001", "good.json", cwd=workspace).returncode == 1


def test_strict_makes_warnings_fail(workspace):
    results = json.loads((workspace / "results.json").read_text())
    results["results"]["leaderboard_mmlu_pro"]["acc_stderr,none"] = 0.5
    (workspace / "results.json").write_text(json.dumps(results))
    assert run_cli("check", "good.json", cwd=workspace).returncode == 0
    proc = run_cli("check", "--strict", "good.json", cwd=workspace)
    assert proc.returncode == 1 and "LB405" in proc.stdout


def test_maintainer_profile_file_is_used(workspace):
    profile = workspace.parent / "board.yaml"
    profile.write_text(
        (REPO / "validator" / "profiles" / "open-llm-leaderboard-v2.yaml")
        .read_text()
        .replace("name: open-llm-leaderboard-v2", "name: my-board")
    )
    proc = run_cli("check", "--profile-file", str(profile), "good.json", cwd=workspace)
    assert proc.returncode == 1 and "LB204 profile-mismatch" in proc.stdout


@pytest.mark.parametrize(
    "args, code",
    [
        (["check"], 2),
        (["check", "--tolerance", "-1", "x.json"], 2),
        (["check", "--profile", "nope", "x.json"], 2),
        (["check", "--root", "/no/such/dir", "x.json"], 2),
        (["check", "--profile-file", "/no/such/profile.yaml", "x.json"], 3),
    ],
)
def test_usage_and_configuration_errors(args, code):
    proc = run_cli(*args)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_file_outside_the_root_is_refused(workspace):
    proc = run_cli("check", "--root", str(workspace), str(EXAMPLE))
    assert proc.returncode == 1 and f"is outside the workspace {workspace} (--root)" in proc.stdout
    assert "pass a --root that contains the file" in proc.stdout


def test_rules_lists_every_rule_with_its_documentation():
    proc = run_cli("rules", "--output-format", "json")
    rules = json.loads(proc.stdout)
    from validator.check.rules import all_rules

    assert len(rules) == len(all_rules()) >= 55 and all(
        r["doc"] and r["severity"] in ("error", "warning") for r in rules
    )
    assert [r["id"] for r in rules] == sorted(r["id"] for r in rules)


@pytest.mark.slow  # starts a pool of worker processes
def test_worker_processes_give_the_same_report_as_one_process(tmp_path):
    """A re-audit over many folders: --jobs 2 must find exactly what one process finds."""
    from validator.check.checker import PARALLEL_MIN_FILES

    submission = json.loads((EXAMPLE.parent / "submission.json").read_text())
    for i in range(PARALLEL_MIN_FILES):
        folder = tmp_path / f"m{i:03d}"
        folder.mkdir()
        (folder / "results.json").write_text(EXAMPLE.read_text())
        reported = submission["reported"] | ({"bbh": 9.99} if i % 7 == 0 else {})
        (folder / "submission.json").write_text(
            json.dumps(submission | {"results": "results.json", "reported": reported})
        )
    (tmp_path / "m000" / "orphan.json").write_text(
        EXAMPLE.read_text()
    )  # a bare results file nobody uses
    reports = []
    for jobs in ("1", "2"):
        proc = run_cli(
            "check", "--jobs", jobs, "--output-format", "json", "m*/*.json", cwd=tmp_path
        )
        assert proc.returncode == 1
        reports.append(json.loads(proc.stdout))
    assert reports[0] == reports[1]
    assert reports[0]["files_checked"] == PARALLEL_MIN_FILES + 1
    assert sum(f["rule"] == "LB601" for f in reports[0]["findings"]) == len(
        range(0, PARALLEL_MIN_FILES, 7)
    )


def test_ctrl_c_exits_130_not_as_a_usage_error(monkeypatch, capsys):
    """click turns Ctrl-C into Abort; lbnorm exits 130 for it, as a shell does for an interrupted command, with
    one line on stderr: not a usage error (2), which would blame the command line."""
    import click

    from validator.cli import group as entry

    def interrupted(**kwargs):
        raise click.exceptions.Abort() from KeyboardInterrupt()

    monkeypatch.setattr(entry.cli, "main", interrupted)
    with pytest.raises(SystemExit) as stopped:
        entry._main()
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "lbnorm: interrupted\n"


@pytest.mark.parametrize("padded", ["naming.json", "inflated.json"])
def test_a_submission_named_as_results_is_still_checked_as_a_submission(tmp_path, padded):
    """Files are visited smallest first: in either order, the submission that another names as its results
    is judged as a submission (its reported numbers compared), and the one naming it is refused."""
    submission = json.loads((EXAMPLE.parent / "submission.json").read_text())
    (tmp_path / "results.json").write_text(EXAMPLE.read_text())
    inflated = submission | {"results": "results.json"}
    inflated["reported"] = inflated["reported"] | {"bbh": 9.99}
    files = {"inflated.json": inflated, "naming.json": submission | {"results": "inflated.json"}}
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data, indent=2) + " " * 5000 * (name == padded))
    proc = run_cli("check", "--output-format", "json", "naming.json", "inflated.json", cwd=tmp_path)
    findings = {(f["rule"], f["file"]) for f in json.loads(proc.stdout)["findings"]}
    assert proc.returncode == 1
    assert ("LB601", "inflated.json") in findings
    assert ("LB202", "naming.json") in findings


def test_a_results_file_that_carries_a_submission_field_is_refused_in_both_roles(tmp_path):
    submission = json.loads((EXAMPLE.parent / "submission.json").read_text())
    results = json.loads(EXAMPLE.read_text()) | {"samples": []}
    (tmp_path / "results.json").write_text(json.dumps(results, indent=2))
    (tmp_path / "submission.json").write_text(
        json.dumps(submission | {"results": "results.json"}, indent=2)
    )
    proc = run_cli("check", "--output-format", "json", "*.json", cwd=tmp_path)
    findings = [(f["rule"], f["file"], f["message"]) for f in json.loads(proc.stdout)["findings"]]
    assert proc.returncode == 1
    assert [(rule, file) for rule, file, _ in findings] == [
        ("LB202", "results.json"),
        ("LB202", "submission.json"),
    ]
    assert "both a submission (it has 'samples') and a results file" in findings[0][2]
