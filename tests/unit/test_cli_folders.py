"""An lm-eval --output_path folder given to check, normalize and audit; paths relative to the cwd."""

from __future__ import annotations

import json
import shutil

import pytest
from support.common import REPO, run_cli

HONEST = REPO / "tests" / "examples" / "positive" / "samples_honest"
DATE = "2024-06-17T17-37-25.144953"


@pytest.fixture
def output_path(tmp_path):
    """<output_path>/<org>__<model>/results_<date>.json with its samples_<task>_<date>.jsonl beside it."""
    run = tmp_path / "out" / "EleutherAI__pythia-1b"
    run.mkdir(parents=True)
    shutil.copy(HONEST / "results.json", run / f"results_{DATE}.json")
    for log in HONEST.glob("samples_*.jsonl"):
        shutil.copy(log, run / log.name)
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_check_on_a_run_folder_audits_the_logs_beside_the_results(output_path):
    results = f"out/EleutherAI__pythia-1b/results_{DATE}.json"
    proc = run_cli("check", "--output-format", "json", "out", cwd=output_path)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stdout
    assert report["files_checked"] == 1
    assert sorted(report["audits"][results]) == ["drop", "leaderboard_musr_team_allocation"]
    proc = run_cli("check", "--no-audit-samples", "--output-format", "json", "out", cwd=output_path)
    assert json.loads(proc.stdout)["audits"] == {}


def test_a_tampered_log_beside_the_results_fails_the_check(output_path):
    log = next((output_path / "out" / "EleutherAI__pythia-1b").glob("samples_drop_*.jsonl"))
    records = [json.loads(line) for line in log.read_text().splitlines()]
    records[0]["f1"] = 1.0 - records[0]["f1"]
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    proc = run_cli("check", "--output-format", "json", "out/", cwd=output_path)
    assert proc.returncode == 1 and "LB708" in {
        f["rule"] for f in json.loads(proc.stdout)["findings"]
    }
    assert run_cli("check", "--no-audit-samples", "out/", cwd=output_path).returncode == 0


def test_normalize_and_audit_take_the_same_folder_and_globs(output_path):
    sub = output_path / "out"
    proc = run_cli("normalize", "--output-format", "json", ".", cwd=sub)
    assert proc.returncode == 0, proc.stderr
    assert [f["path"] for f in json.loads(proc.stdout)["files"]] == [
        f"EleutherAI__pythia-1b/results_{DATE}.json"
    ]
    proc = run_cli("audit", "-q", "out", cwd=output_path)
    assert proc.returncode == 0 and "2 log(s) audited" in proc.stdout, proc.stdout
    proc = run_cli("audit", "-q", "out/*/results_*.json", cwd=output_path)
    assert proc.returncode == 0 and "2 log(s) audited" in proc.stdout


def test_a_sample_log_given_to_check_is_pointed_to_audit(output_path):
    proc = run_cli("check", f"out/EleutherAI__pythia-1b/samples_drop_{DATE}.jsonl", cwd=output_path)
    assert proc.returncode == 1
    assert "LB113 not-for-check" in proc.stdout and "lbnorm audit" in proc.stdout


def test_arguments_are_relative_to_the_cwd_and_shown_as_typed(output_path):
    run = output_path / "out" / "EleutherAI__pythia-1b"
    proc = run_cli(
        "check", "--no-audit-samples", "--output-format", "json", f"results_{DATE}.json", cwd=run
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["scores"].keys() == {f"results_{DATE}.json"}
    proc = run_cli("check", "../../../elsewhere.json", cwd=run)
    assert proc.returncode == 1
    assert "../../../elsewhere.json: LB101 unreadable-file [error] no such file" in proc.stdout


@pytest.mark.parametrize("command", ["normalize", "audit"])
def test_a_folder_the_walk_does_not_enter_is_named_by_every_command(output_path, command):
    """Fail closed: normalize and audit say what they did not walk, as check does (LB111)."""
    hidden = output_path / "out" / ".later"
    hidden.mkdir()
    shutil.copy(HONEST / "results.json", hidden / f"results_{DATE}.json")
    proc = run_cli(command, "out", cwd=output_path)
    assert "out/.later" in proc.stdout + proc.stderr and "not walked" in proc.stdout + proc.stderr
    assert "internal error" not in proc.stderr


@pytest.mark.parametrize("command", ["check", "audit"])
def test_many_folders_not_walked_are_named_up_to_a_bound_then_counted(output_path, command):
    """Twenty-five hidden folders: the first twenty are each an LB111, one more counts the other five."""
    for n in range(25):
        (output_path / "out" / f".hidden-{n:02d}").mkdir()
    proc = run_cli(command, "--output-format", "json", "out", cwd=output_path)
    not_walked = [f for f in json.loads(proc.stdout)["findings"] if f["rule"] == "LB111"]
    assert [f["file"] for f in not_walked] == [f"out/.hidden-{n:02d}" for n in range(21)]
    assert (
        "and 5 more hidden entries or symlinked folders were not walked"
        in not_walked[-1]["message"]
    )


def test_a_log_no_results_file_claims_fails_the_audit_of_its_folder(output_path):
    """Another date's log and an undated one beside a run are findings, not passed over with exit 0."""
    run = output_path / "out" / "EleutherAI__pythia-1b"
    log = next(run.glob("samples_drop_*.jsonl"))
    stray = ["samples_drop_2023-01-01T00-00-00.000000.jsonl", "samples_drop.jsonl"]
    for name in stray:
        shutil.copy(log, run / name)
    proc = run_cli("audit", "--output-format", "json", "out", cwd=output_path)
    assert proc.returncode == 1, proc.stdout
    findings = json.loads(proc.stdout)["findings"]
    assert sorted((f["rule"], f["file"]) for f in findings) == [
        ("LB700", f"out/EleutherAI__pythia-1b/{name}") for name in sorted(stray)
    ]
    assert all("no results file of its date lies beside it" in f["message"] for f in findings)
    proc = run_cli(
        "audit", "-q", f"out/*/results_{DATE}.json", cwd=output_path
    )  # named, not walked for
    assert proc.returncode == 0, proc.stdout


def test_a_run_written_with_output_path_name_json_is_audited_and_normalized_in_its_folder(
    output_path,
):
    """lm-eval --output_path NAME.json names the results file NAME_<date>.json, beside the same logs."""
    run = output_path / "out" / "EleutherAI__pythia-1b"
    (run / f"results_{DATE}.json").rename(run / f"my_eval_{DATE}.json")
    (run / "notes_2024-01-01T00-00-00.json").write_text(
        "{}"
    )  # a date, but no log of it: not a results file
    proc = run_cli("audit", "-q", "out", cwd=output_path)
    assert proc.returncode == 0 and "2 log(s) audited" in proc.stdout, proc.stdout
    proc = run_cli("normalize", "--output-format", "json", "out", cwd=output_path)
    assert [f["path"] for f in json.loads(proc.stdout)["files"]] == [
        f"out/EleutherAI__pythia-1b/my_eval_{DATE}.json"
    ]
