"""The action's entrypoint run as the GitHub runner runs it (docs/reference/workflow-commands.md).

`python -I -m validator action` in the workspace, with INPUT_* and GITHUB_*
variables, an outputs file, a summary file and a pull_request event.
"""

from __future__ import annotations

import hashlib
import html
import json
import shutil

import pytest
from support.action_runner import (
    OUR_COMMANDS,
    SUBMISSION,
    make_workspace,
    parse_outputs,
    run_action,
)
from support.common import EXAMPLE, REPO, line_of
from support.runner_mimic import commands


def test_a_dishonest_submission_fails_with_an_annotation_on_its_line(tmp_path):
    ws = make_workspace(tmp_path)
    proc, outputs, summary = run_action(ws, {"files": "submissions/**/*.json", "strict": "false"})
    assert proc.returncode == 1, proc.stderr
    line = line_of(ws / "submissions/pythia/inflated.json", '"bbh": 3.29')
    annotations = [c for c in commands(proc.stdout) if c.name in ("error", "warning")]
    assert [(c.name, c.properties) for c in annotations] == [
        (
            "error",
            {
                "file": "submissions/pythia/inflated.json",
                "line": str(line),
                "col": "5",
                "title": "LB601 score-divergence",
            },
        )
    ]
    # The annotation carries the numbers and points to the formula, which the summary and report keep.
    assert annotations[0].line == (
        f"::error file=submissions/pythia/inflated.json,line={line},col=5,title=LB601 score-divergence::"
        "bbh: reported 3.29, recomputed 2.2940 (|diff| 0.9960 > tolerance 0.01); "
        "formula and details: see the job summary and lbnorm-report.json"
    )
    assert len(annotations[0].data) <= 300
    assert parse_outputs(outputs) == {
        "passed": "false",
        "files_checked": "2",
        "errors": "1",
        "warnings": "0",
        "report": "lbnorm-report.json",
    }
    assert "## ❌ lbnorm failed: 2 file(s), 1 error(s), 0 warning(s)" in summary
    assert "| bbh | 3.29 | 2.2940 | +0.9960 | ❌ diverges |" in summary
    assert "| bbh | 2.29 | 2.2940 | -0.0040 | ✅ |" in summary
    report = json.loads((ws / "lbnorm-report.json").read_text())
    assert report["ok"] is False and report["findings"][0]["line"] == line
    assert "BBH = mean over 24 subtasks" in report["findings"][0]["details"]
    assert "BBH = mean over 24 subtasks" in summary
    assert {c.name for c in commands(proc.stdout + proc.stderr)} <= OUR_COMMANDS


def test_files_checked_counts_submissions_bare_results_and_unreadable_files(tmp_path):
    ws = make_workspace(tmp_path)  # two submissions naming one results file
    (ws / "submissions" / "broken.json").write_text('{"schema_version": 1,')
    shutil.copy(EXAMPLE, ws / "submissions" / "bare-results.json")
    proc, outputs, _ = run_action(ws, {"files": "submissions/**/*.json", "report": ""})
    assert proc.returncode == 1, proc.stderr
    # honest + inflated (results.json counted with them) + the bare results file + broken.json
    assert parse_outputs(outputs)["files_checked"] == "4"


def test_the_outputs_the_summary_and_the_report_count_the_same_files(tmp_path):
    """A file that was read and found bad (invalid JSON, a duplicate key) counts as checked everywhere."""
    ws = make_workspace(tmp_path)
    (ws / "b.json").write_text('{"schema_version": 1,')
    (ws / "d.json").write_text('{"schema_version": 1, "schema_version": 1}')
    proc, outputs, summary = run_action(ws, {"files": "b.json d.json"})
    assert proc.returncode == 1, proc.stderr
    assert parse_outputs(outputs)["files_checked"] == "2"
    assert "lbnorm failed: 2 file(s), 2 error(s)" in summary
    assert json.loads((ws / "lbnorm-report.json").read_text())["files_checked"] == 2
    assert "failed: 2 file(s) checked, 2 error(s)" in proc.stdout


def test_honest_submissions_pass(tmp_path):
    ws = make_workspace(tmp_path)
    (ws / "submissions/pythia/inflated.json").unlink()
    proc, outputs, summary = run_action(
        ws, {"files": "submissions/pythia/honest.json", "report": ""}
    )
    assert proc.returncode == 0, proc.stdout
    assert parse_outputs(outputs) == {
        "passed": "true",
        "files_checked": "1",
        "errors": "0",
        "warnings": "0",
        "report": "",
    }
    assert "## ✅ lbnorm passed" in summary
    assert not (ws / "lbnorm-report.json").exists()


def test_no_matching_files_fails_clearly(tmp_path):
    ws = make_workspace(tmp_path)
    proc, outputs, _ = run_action(ws, {"files": "nothing/*.json"})
    assert proc.returncode == 1
    assert (
        "::error title=LB100 no-files::'nothing/*.json' matched no file; check the path or glob"
        in proc.stdout
    )
    assert parse_outputs(outputs)["passed"] == "false"


def test_a_hyphenated_input_and_a_pinned_profile_file(tmp_path):
    ws = make_workspace(tmp_path)
    profile = ws / ".github" / "lbnorm-profile.yaml"
    profile.parent.mkdir()
    profile.write_text((REPO / "validator/profiles/open-llm-leaderboard-v2.yaml").read_text())
    digest = hashlib.sha256(profile.read_bytes()).hexdigest()
    proc, outputs, _ = run_action(
        ws,
        {"files": "submissions/pythia/honest.json", "profile_sha256": digest},
        extra_env={"INPUT_PROFILE-FILE": ".github/lbnorm-profile.yaml"},
    )
    assert proc.returncode == 0, proc.stdout
    # the PR edits the profile: the pin no longer matches, and nothing is checked
    profile.write_text(profile.read_text().replace("num_choices: 19", "num_choices: 18"))
    proc, _, _ = run_action(
        ws,
        {"files": "submissions/pythia/honest.json", "profile_sha256": digest},
        extra_env={"INPUT_PROFILE-FILE": ".github/lbnorm-profile.yaml"},
    )
    assert proc.returncode == 3
    assert (
        "::error title=lbnorm configuration,file=.github/lbnorm-profile.yaml::"
        "profile_file .github/lbnorm-profile.yaml has sha256" in proc.stdout
    )


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({"files": ""}, "input 'files' is empty"),
        ({"files": "a.json", "strict": "yes"}, "input 'strict' is 'yes'; use true or false"),
        ({"files": "a.json", "tolerance": "lots"}, "input 'tolerance' is 'lots', not a number"),
        (
            {"files": "a.json", "stale_scorer_bound": "nan"},
            "input 'stale_scorer_bound' is nan; use a number",
        ),
        ({"files": "a.json", "profile": "v3"}, "input 'profile' is 'v3'; built-in profiles"),
        ({"files": "a.json", "profile_file": "p.yaml"}, "'profile_file' needs 'profile_sha256'"),
    ],
)
def test_bad_inputs_are_configuration_errors(tmp_path, inputs, message):
    proc, _, _ = run_action(make_workspace(tmp_path), inputs)
    assert proc.returncode == 2 and message in proc.stdout


def test_the_stale_scorer_bound_input_accepts_a_published_math_value_as_a_warning(tmp_path):
    ws = make_workspace(tmp_path)
    results = ws / "submissions" / "pythia" / "results.json"
    doc = json.loads(results.read_text())
    doc["versions"] = {
        f"leaderboard_math_{k}_hard": 2.0
        for k in (
            "algebra",
            "counting_and_prob",
            "geometry",
            "intermediate_algebra",
            "num_theory",
            "prealgebra",
            "precalculus",
        )
    }
    results.write_text(json.dumps(doc))
    published = SUBMISSION | {
        "results": "results.json",
        "reported": SUBMISSION["reported"] | {"math_lvl5": 0.91, "average": 5.07},
    }
    (ws / "submissions" / "pythia" / "published.json").write_text(json.dumps(published))
    files = {"files": "submissions/pythia/published.json"}
    assert run_action(ws, files)[0].returncode == 1  # fail closed: LB606
    proc, _, _ = run_action(ws, files | {"stale_scorer_bound": "1"})
    assert proc.returncode == 0 and "LB607" in proc.stdout


def test_more_than_ten_errors_are_capped_with_a_pointer_to_the_rest(tmp_path):
    ws = make_workspace(tmp_path)
    for i in range(12):
        bad = SUBMISSION | {
            "results": "results.json",
            "reported": SUBMISSION["reported"] | {"gpqa": 50 + i},
        }
        (ws / "submissions" / "pythia" / f"bad{i:02}.json").write_text(json.dumps(bad, indent=2))
    proc, outputs, summary = run_action(ws, {"files": "submissions/**/*.json"})
    errors = [c for c in commands(proc.stdout) if c.name == "error"]
    assert len(errors) == 10
    assert errors[-1].properties == {"title": "lbnorm: more findings"}
    assert errors[-1].data == (
        "4 more errors are not annotated (GitHub shows 10 per step); "
        "see the job summary and lbnorm-report.json"
    )
    assert parse_outputs(outputs)["errors"] == "13"
    assert summary.count("LB601 score-divergence") == 13


def test_a_planted_validator_or_json_package_is_never_imported(tmp_path):
    ws = make_workspace(tmp_path)
    marker = tmp_path / "PWNED"
    for package in ("validator", "json", "click", "yaml"):
        (ws / package).mkdir()
        (ws / package / "__init__.py").write_text(
            f"open({str(marker)!r}, 'a').write({package!r})\nprint('::error::planted {package} ran')\n"
        )
    proc, _, _ = run_action(ws, {"files": "submissions/pythia/honest.json"}, fresh=True)
    assert not marker.exists(), marker.read_text()
    assert proc.returncode == 0 and "planted" not in proc.stdout


def test_the_report_is_never_written_through_a_symlink(tmp_path):
    ws = make_workspace(tmp_path)
    target = tmp_path / "outside.txt"
    target.write_text("keep me")
    (ws / "lbnorm-report.json").symlink_to(target)
    proc, outputs, _ = run_action(ws, {"files": "submissions/pythia/honest.json"})
    assert target.read_text() == "keep me"
    assert "::warning title=lbnorm report::the report path is a symlink" in proc.stdout
    assert parse_outputs(outputs)["report"] == ""


def run_in_process(ws, inputs: dict[str, str]) -> tuple[int, str, str, dict[str, str]]:
    """The entrypoint called as `python -m validator action` calls it: exit code, stdout, summary, outputs."""
    import io

    from validator.action import run_action as entrypoint

    files = ws.parent / "runner"
    files.mkdir(exist_ok=True)
    summary, outputs = files / "summary.md", files / "output"
    summary.write_text("")
    outputs.write_text("")
    env = {
        "GITHUB_WORKSPACE": str(ws),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        **{f"INPUT_{name.upper()}": value for name, value in inputs.items()},
    }
    out = io.StringIO()
    code = entrypoint(env, out, io.StringIO())
    return code, out.getvalue(), summary.read_text(), parse_outputs(outputs.read_text())


FAILED_OUTPUTS = {
    "passed": "false",
    "files_checked": "0",
    "errors": "1",
    "warnings": "0",
    "report": "",
}


@pytest.mark.parametrize(
    "inputs, code, message",
    [
        ({"files": "a.json", "tolerance": "lots"}, 2, "input 'tolerance' is 'lots', not a number"),
        ({"files": "a.json", "profile": "v3"}, 2, "input 'profile' is 'v3'; built-in profiles"),
        ({"files": ""}, 2, "input 'files' is empty"),
    ],
)
def test_a_configuration_error_shows_in_the_summary_and_counts_in_the_outputs(
    tmp_path, inputs, code, message
):
    exit_code, _, summary, outputs = run_in_process(make_workspace(tmp_path), inputs)
    assert exit_code == code
    lines = summary.splitlines()
    assert lines[0] == f"## ❌ lbnorm failed: configuration error (exit {code})"
    assert message in html.unescape(lines[2])
    assert outputs == FAILED_OUTPUTS


def test_a_pinned_file_to_blame_is_annotated_on_its_line_without_the_workspace_path(tmp_path):
    ws = make_workspace(tmp_path)
    (ws / "lbnorm-profile.yaml").write_text("name: [unclosed\n")
    digest = hashlib.sha256((ws / "lbnorm-profile.yaml").read_bytes()).hexdigest()
    inputs = {"files": "submissions", "profile_file": "lbnorm-profile.yaml"}
    code, out, summary, outputs = run_in_process(ws, inputs | {"profile_sha256": digest})
    assert code == 3
    (error,) = [c for c in commands(out) if c.name == "error"]
    assert (error.properties["file"], error.properties["line"]) == ("lbnorm-profile.yaml", "2")
    assert str(ws) not in summary and "lbnorm-profile.yaml:2:1:" in summary.splitlines()[2]
    assert outputs == FAILED_OUTPUTS
    code, out, _, _ = run_in_process(ws, inputs | {"profile_sha256": "0" * 64})
    (error,) = [c for c in commands(out) if c.name == "error"]
    assert code == 3 and error.properties["file"] == "lbnorm-profile.yaml"


def test_an_internal_error_still_writes_a_summary_and_failing_outputs(tmp_path, monkeypatch):
    from validator import action

    def broken(*args, **kwargs):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(action, "run_check", broken)
    code, out, summary, outputs = run_in_process(make_workspace(tmp_path), {"files": "submissions"})
    assert code == 3
    assert "::error title=lbnorm internal error::internal error: ZeroDivisionError" in out
    assert summary.startswith("## ❌ lbnorm failed: internal error (exit 3)")
    assert outputs == FAILED_OUTPUTS
