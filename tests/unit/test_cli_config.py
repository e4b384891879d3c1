"""Configuration files found as ruff finds them, rule selection, root causes, `lbnorm config` and `rules CODE`."""

from __future__ import annotations

import json

import pytest
from support.common import REPO, run_cli

from validator.check.rules import all_rules
from validator.findings import ERROR, WARNING, Finding
from validator.findings.selection import RuleSelection, SelectionError


def codes(report: dict) -> list[tuple[str, str]]:
    return [(f["rule"], f["severity"]) for f in report["findings"]]


# --- discovery ----------------------------------------------------------------------------------


def test_pyproject_above_the_cwd_sets_the_tolerance(workspace):
    (workspace / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n\n[tool.lbnorm]\ntolerance = 0.2\n"
    )
    (workspace / ".git").mkdir()  # the workspace is the repository's top: ../bad.json is inside it
    (workspace / "sub").mkdir()
    assert run_cli("check", "../bad.json", cwd=workspace / "sub").returncode == 0
    assert run_cli("check", "--isolated", "../bad.json", cwd=workspace / "sub").returncode == 1
    assert (
        run_cli("check", "--tolerance", "0.001", "../good.json", cwd=workspace / "sub").returncode
        == 1
    )


def test_the_nearest_file_wins_and_a_pyproject_without_the_table_is_passed_over(workspace):
    (workspace / ".lbnorm.toml").write_text("tolerance = 0.2\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    proc = run_cli("config", "--output-format", "json", cwd=workspace / "sub")
    doc = json.loads(proc.stdout)
    assert (
        doc["config_file"] == str(workspace / ".lbnorm.toml")
        and doc["settings"]["tolerance"] == 0.2
    )
    (workspace / "sub" / ".lbnorm.toml").write_text("[tool.lbnorm]\nstrict = true\n")
    doc = json.loads(run_cli("config", "--output-format", "json", cwd=workspace / "sub").stdout)
    assert doc["config_file"] == str(workspace / "sub" / ".lbnorm.toml")
    assert doc["settings"]["strict"] is True and doc["settings"]["tolerance"] == 0.01


def test_the_search_stops_at_the_top_of_the_git_repository(workspace):
    (workspace / ".lbnorm.toml").write_text("tolerance = 0.2\n")
    repo = workspace / "repo"
    (repo / ".git").mkdir(parents=True)
    doc = json.loads(run_cli("config", "--output-format", "json", cwd=repo).stdout)
    assert doc["config_file"] is None and doc["workspace"] == str(repo)


def test_config_names_a_file_and_prints_the_effective_settings(workspace):
    (workspace / "board.toml").write_text(
        '[tool.lbnorm]\nignore = ["LB601"]\nmax-file-size = "1M"\n'
        '[tool.lbnorm.per-file-ignores]\n"legacy/*" = ["LB3"]\n'
    )
    assert run_cli("check", "--config", "board.toml", "bad.json", cwd=workspace).returncode == 0
    text = run_cli("config", "--config", "board.toml", cwd=workspace).stdout
    assert "# configuration file: board.toml" in text
    assert 'ignore = ["LB601"]' in text and "max-file-size = 1048576  # 1 MiB" in text
    assert '"legacy/*" = ["LB3"]' in text


@pytest.mark.parametrize(
    "content, message",
    [
        ("tolerance = 'high'\n", "'tolerance' is 'high'; use a number"),
        ("colour = true\n", "unknown key 'colour' in [tool.lbnorm]"),
        ("ignore = ['E501']\n", "'E501' is not a rule id or prefix"),
        ("tolerance = \n", "not valid TOML"),
    ],
)
def test_a_wrong_configuration_names_the_file_and_the_key(workspace, content, message):
    (workspace / ".lbnorm.toml").write_text(content)
    proc = run_cli("check", "good.json", cwd=workspace)
    assert proc.returncode == 3 and proc.stderr.startswith("lbnorm: configuration error: ")
    assert (
        str(workspace / ".lbnorm.toml") in proc.stderr
        and message in proc.stderr
        and "Traceback" not in proc.stderr
    )


# --- rule selection, as ruff selects -------------------------------------------------------------


def finding(rule_id: str, severity: str = ERROR, file: str = "a.json") -> Finding:
    return Finding(rule=rule_id, name="x", severity=severity, file=file, message="m")


@pytest.mark.parametrize(
    "selection, kept",
    [
        (RuleSelection(), ["LB301", "LB601", "LB705"]),
        (RuleSelection(select=("LB6",)), ["LB601"]),
        (RuleSelection(ignore=("LB3",)), ["LB601", "LB705"]),
        (
            RuleSelection(select=("LB301",), ignore=("LB3",)),
            ["LB301"],
        ),  # the more specific code wins
        (RuleSelection(select=("LB3",), ignore=("LB3",)), []),  # a tie: ignoring wins
        (RuleSelection(per_file_ignores=(("a.json", ("LB7",)),)), ["LB301", "LB601"]),
        (RuleSelection(per_file_ignores=(("b/*", ("LB7",)),)), ["LB301", "LB601", "LB705"]),
    ],
)
def test_selection_by_id_and_prefix(selection, kept):
    all_rules()
    found = [finding("LB301", WARNING), finding("LB601"), finding("LB705")]
    assert [f.rule for f in selection.validate().apply(found)] == kept


def test_severity_changes_and_the_rules_that_always_stay():
    all_rules()
    selection = RuleSelection(warn=("LB6",), error=("LB601",), ignore=("LB1",))
    kept = selection.validate().apply([finding("LB601"), finding("LB602"), finding("LB101")])
    assert [(f.rule, f.severity) for f in kept] == [
        ("LB601", ERROR),
        ("LB602", WARNING),
        ("LB101", ERROR),
    ]
    for wrong in (
        RuleSelection(ignore=("LB101",)),
        RuleSelection(warn=("LB600",)),
        RuleSelection(select=("LB9",)),
    ):
        with pytest.raises(SelectionError):
            wrong.validate()


def test_selection_on_the_command_line(workspace):
    assert run_cli("check", "--ignore", "LB601", "bad.json", cwd=workspace).returncode == 0
    assert run_cli("check", "--select", "LB3,LB5", "bad.json", cwd=workspace).returncode == 0
    proc = run_cli("check", "--warn", "LB6", "--output-format", "json", "bad.json", cwd=workspace)
    assert proc.returncode == 0 and codes(json.loads(proc.stdout)) == [("LB601", "warning")]
    assert run_cli("check", "--warn", "LB6", "--strict", "bad.json", cwd=workspace).returncode == 1
    proc = run_cli("check", "--ignore", "LB101", "bad.json", cwd=workspace)
    assert proc.returncode == 2 and "LB101 cannot be ignored" in proc.stderr


# --- root causes -----------------------------------------------------------------------------------


def test_a_wrong_profile_is_reported_once_with_the_count_of_its_consequences(workspace):
    submission = json.loads((workspace / "good.json").read_text())
    (workspace / "v1.json").write_text(
        json.dumps(submission | {"profile": "open-llm-leaderboard-v2"}, indent=2)
    )
    proc = run_cli(
        "check",
        "--profile",
        "open-llm-leaderboard-v1",
        "--output-format",
        "json",
        "v1.json",
        cwd=workspace,
    )
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and codes(report) == [("LB204", "error")]
    assert report["suppressed_findings"] > 10
    assert "that follow from this are not listed" in report["findings"][0]["message"]
    # ignoring the root cause brings its consequences back: nothing can pass by hiding it
    proc = run_cli(
        "check",
        "--profile",
        "open-llm-leaderboard-v1",
        "--ignore",
        "LB204",
        "--output-format",
        "json",
        "v1.json",
        cwd=workspace,
    )
    report = json.loads(proc.stdout)
    assert (
        proc.returncode == 1 and len(report["findings"]) > 10 and report["suppressed_findings"] == 0
    )


# --- rules CODE ------------------------------------------------------------------------------------


def test_rules_explains_one_rule_or_a_family():
    one = run_cli("rules", "LB601").stdout
    assert one.startswith("LB601 score-divergence (error)") and "--ignore LB601" in one
    assert "Example (tests/examples/negative/LB601_" in one and "(at $.reported." in one
    family = run_cli("rules", "lb6").stdout
    every = [r["id"] for r in json.loads(run_cli("rules", "--output-format", "json").stdout)]
    assert [line.split()[0] for line in family.splitlines() if line.startswith("LB")] == [
        rule_id for rule_id in every if rule_id.startswith("LB6")
    ]
    assert "LB601" in family and "LB301" not in family
    assert run_cli("rules", "LB999").returncode == 2
    assert "Always reported" in run_cli("rules", "LB101").stdout


def test_python_m_validator_and_lbnorm_are_the_same_program():
    assert run_cli("--version").stdout.startswith("lbnorm, version")
    assert (REPO / "pyproject.toml").read_text().count('lbnorm = "validator.cli:main"') == 1


# --- a maintainer's profile accepts extra tasks by glob ---------------------------------------------


def test_a_profile_ignores_extra_tasks_by_glob(tmp_path):
    honest = REPO / "tests" / "examples" / "positive" / "samples_honest"
    for path in honest.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    v2 = (REPO / "validator" / "profiles" / "open-llm-leaderboard-v2.yaml").read_text()
    (tmp_path / "board.yaml").write_text(v2 + '\nignore_tasks: ["dr?p*"]\n')
    args = ("check", "--output-format", "json", "submission.json")
    # the example logs two of its tasks: LB707 names the others, which no profile setting hides
    unlogged = ("LB707", "warning")
    assert codes(json.loads(run_cli(*args, cwd=tmp_path).stdout)) == [
        unlogged,
        ("LB301", "warning"),  # drop
    ]
    assert codes(
        json.loads(run_cli("check", "--profile-file", "board.yaml", *args[1:], cwd=tmp_path).stdout)
    ) == [unlogged]


@pytest.mark.parametrize(
    "github",
    [
        {"GITHUB_EVENT_NAME": "pull_request"},
        {"GITHUB_EVENT_NAME": "pull_request_target"},
        {"GITHUB_EVENT_NAME": "merge_group"},
        {"GITHUB_EVENT_NAME": "push"},
        {"GITHUB_ACTIONS": "true"},
    ],
)
def test_a_github_actions_workflow_does_not_discover_the_configuration(workspace, github):
    """In CI the checkout, and any .lbnorm.toml in it, may be the change under test's."""
    (workspace / ".lbnorm.toml").write_text('ignore = ["LB6"]\ntolerance = 100\n')
    proc = run_cli("check", "bad.json", cwd=workspace, env=github)
    assert proc.returncode == 1 and "is not read in a GitHub Actions workflow" in proc.stderr
    proc = run_cli("check", "--config", ".lbnorm.toml", "bad.json", cwd=workspace, env=github)
    assert proc.returncode == 0
    assert (
        run_cli("check", "bad.json", cwd=workspace).returncode == 0
    )  # on a maintainer's machine it is read
