"""The Action reads a configuration file only when the workflow pins it (config_file + config_sha256)."""

from __future__ import annotations

import hashlib

from support.action_runner import make_workspace, parse_outputs, run_action

INFLATED = "submissions/pythia/inflated.json"  # bbh reported one point too high: LB601


def pinned(ws, text: str) -> dict[str, str]:
    (ws / ".lbnorm.toml").write_text(text)
    return {
        "config_file": ".lbnorm.toml",
        "config_sha256": hashlib.sha256(text.encode()).hexdigest(),
    }


def test_a_configuration_file_in_the_pull_request_is_not_read_without_a_pin(tmp_path):
    ws = make_workspace(tmp_path)
    (ws / ".lbnorm.toml").write_text('ignore = ["LB601"]\ntolerance = 5\n')
    proc, outputs, _ = run_action(ws, {"files": INFLATED})
    assert proc.returncode == 1 and parse_outputs(outputs)["errors"] == "1"
    proc, _, _ = run_action(ws, {"files": INFLATED, "config_file": ".lbnorm.toml"})
    assert proc.returncode == 2 and "'config_file' needs 'config_sha256'" in proc.stdout


def test_a_pinned_configuration_applies_and_an_edited_one_stops_the_run(tmp_path):
    ws = make_workspace(tmp_path)
    inputs = pinned(ws, '[tool.lbnorm]\nwarn = ["LB601"]\n')
    proc, outputs, _ = run_action(ws, {"files": INFLATED, **inputs})
    assert proc.returncode == 0 and parse_outputs(outputs)["warnings"] == "1", proc.stdout
    (ws / ".lbnorm.toml").write_text(
        '[tool.lbnorm]\nignore = ["LB"]\n'
    )  # the pull request edits it
    proc, _, _ = run_action(ws, {"files": INFLATED, **inputs})
    assert proc.returncode == 3 and "config_file .lbnorm.toml has sha256" in proc.stdout


def test_inputs_set_in_the_workflow_win_over_the_pinned_file(tmp_path):
    ws = make_workspace(tmp_path)
    inputs = pinned(ws, "tolerance = 2.0\n")
    assert run_action(ws, {"files": INFLATED, **inputs})[0].returncode == 0
    assert run_action(ws, {"files": INFLATED, **inputs, "tolerance": "0.01"})[0].returncode == 1


def test_a_pinned_file_may_not_name_an_unpinned_profile_file(tmp_path):
    ws = make_workspace(tmp_path)
    proc, _, _ = run_action(ws, {"files": INFLATED, **pinned(ws, 'profile-file = "board.yaml"\n')})
    assert proc.returncode == 2 and "may not name a profile-file" in proc.stdout


def test_a_limit_input_set_to_the_default_still_wins_over_the_pinned_file(tmp_path):
    """An input equal to lbnorm's default is not taken for an empty one: a workflow that sets the limit
    back to the default overrides a pinned file's tighter bound."""
    from validator.io.limits import DEFAULT_LIMITS

    ws = make_workspace(tmp_path)
    inputs = pinned(ws, 'max-file-size = "1K"\n')
    proc, _, _ = run_action(ws, {"files": INFLATED, **inputs})
    assert proc.returncode == 1 and "LB106" in proc.stdout  # the pinned bound applies
    proc, outputs, _ = run_action(
        ws, {"files": INFLATED, **inputs, "max_file_size": str(DEFAULT_LIMITS.max_file_bytes)}
    )
    assert (
        proc.returncode == 1
        and "LB106" not in proc.stdout
        and parse_outputs(outputs)["errors"] == "1"
    )  # LB601
