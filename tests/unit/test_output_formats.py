"""--output-format github|sarif|junit, --color, and the JSON path on text findings."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from support.common import DATA, REPO, line_of, run_cli

SARIF_SCHEMA = json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text())


def sarif_of(cwd, *args):
    proc = run_cli("check", "--output-format", "sarif", *args, cwd=cwd)
    assert proc.returncode == 1, proc.stderr
    return json.loads(proc.stdout)


def test_sarif_validates_against_the_published_schema_with_rules_locations_and_fingerprints(
    workspace,
):
    log = sarif_of(workspace, "bad.json", "missing.json")
    jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(
        log
    )
    run = log["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "LB601" in rules and rules == sorted(rules)
    divergence = next(r for r in run["results"] if r["ruleId"] == "LB601")
    assert rules[divergence["ruleIndex"]] == "LB601" and divergence["level"] == "error"
    location = divergence["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "bad.json", "uriBaseId": "SRCROOT"}
    assert location["region"] == {
        "startLine": line_of(workspace / "bad.json", '"gpqa": 1.0'),
        "startColumn": 5,
    }
    assert divergence["properties"]["jsonPath"] == "$.reported.gpqa"
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == workspace.resolve().as_uri() + "/"


def test_sarif_fingerprints_stay_while_lines_move(workspace):
    before = sarif_of(workspace, "bad.json")["runs"][0]["results"]
    text = (workspace / "bad.json").read_text()
    (workspace / "bad.json").write_text(text.replace("{", "{\n\n\n", 1))
    after = sarif_of(workspace, "bad.json")["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in before] == [r["partialFingerprints"] for r in after]
    assert before[0]["locations"] != after[0]["locations"]


def test_junit_is_read_by_a_junit_consumer(workspace):
    junitparser = pytest.importorskip("junitparser")
    proc = run_cli("check", "--output-format", "junit", "good.json", "bad.json", cwd=workspace)
    assert proc.returncode == 1
    root = ET.fromstring(proc.stdout)
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "1"
    report = junitparser.JUnitXml.fromstring(proc.stdout)
    suites = {suite.name: suite for suite in report}
    assert set(suites) == {"good.json", "bad.json"}
    assert suites["good.json"].failures == 0 and suites["bad.json"].failures == 1
    case = next(iter(suites["bad.json"]))
    assert (
        case.name.startswith("LB601 score-divergence ")
        and "gpqa: reported 1.0" in case.result[0].message
    )


def run_in_actions(cwd, *args):
    return run_cli(*args, cwd=cwd, env={"GITHUB_ACTIONS": "true", "NO_COLOR": None})


def test_github_annotations_are_the_default_inside_github_actions(workspace):
    """As yamllint: GITHUB_ACTIONS=true picks the annotation format; --output-format still wins."""
    proc = run_in_actions(workspace, "check", "bad.json")
    gpqa = line_of(workspace / "bad.json", '"gpqa": 1.0')
    assert proc.returncode == 1
    assert proc.stdout.startswith(
        f"::error file=bad.json,line={gpqa},col=5,title=LB601 score-divergence::gpqa:"
    )
    assert "failed: 1 file(s) checked, 1 error(s)" in proc.stdout
    assert not run_in_actions(
        workspace, "check", "--output-format", "text", "bad.json"
    ).stdout.startswith("::")


@pytest.mark.parametrize(
    "color, env, painted",
    [
        ("always", {}, True),
        ("never", {}, False),
        ("always", {"NO_COLOR": "1"}, True),
        ("auto", {}, False),
    ],
)
def test_color_option(workspace, color, env, painted):
    """auto colours only a terminal (a pipe here); always/never are explicit; NO_COLOR only affects auto."""
    proc = run_cli("check", "--color", color, "bad.json", cwd=workspace, env=env)
    assert ("\x1b[31m" in proc.stdout) == painted


def test_every_text_finding_carries_its_json_path(workspace):
    proc = run_cli("check", "bad.json", cwd=workspace)
    assert proc.stdout.splitlines()[0].endswith("(at $.reported.gpqa)")


def test_the_upload_sarif_workflow_in_the_docs_passes_the_workflow_schema_and_zizmor(tmp_path):
    """docs/cli.md's code-scanning workflow, as a user saves it, checked with the tools our own workflows pass."""
    import re
    import shutil

    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(# \.github/workflows/lbnorm-sarif\.yml\n.*?)```", text, re.S)
    assert block and "security-events: write" in block[1]
    workflow = tmp_path / ".github" / "workflows" / "lbnorm-sarif.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(block[1], encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(workflow),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    zizmor = shutil.which("zizmor")
    assert zizmor, "zizmor is a test dependency: pip install '.[test]'"
    config = tmp_path / "zizmor.yml"
    config.write_text(
        "rules:\n  unpinned-uses:\n    config:\n      policies:\n        '*': hash-pin\n"
    )
    proc = subprocess.run(
        [
            zizmor,
            "--offline",
            "--persona",
            "pedantic",
            "--no-progress",
            "--config",
            str(config),
            str(workflow),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def sarif_results(cwd, *args, env=None):
    proc = run_cli("check", "--output-format", "sarif", *args, cwd=cwd, env=env)
    log = json.loads(proc.stdout)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    return log["runs"][0]["results"]


def test_every_sarif_result_has_a_location_with_a_region(workspace):
    (workspace / "broken.json").write_text("{")
    results = sarif_results(workspace, "bad.json", "broken.json", "missing/*.json")
    assert {r["ruleId"] for r in results} >= {"LB601", "LB100"}
    for result in results:
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1, result


def test_a_glob_that_matched_nothing_points_at_the_workflow_line_that_names_it(workspace):
    workflow = workspace / ".github" / "workflows" / "lbnorm.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(
        "on: pull_request\njobs:\n  x:\n    steps:\n      - run: lbnorm check 'missing/*.json'\n"
    )
    env = {"GITHUB_WORKFLOW_REF": "org/board/.github/workflows/lbnorm.yml@refs/pull/7/merge"}
    (nothing,) = [r for r in sarif_results(workspace, "missing/*.json", env=env)]
    assert nothing["ruleId"] == "LB100"
    location = nothing["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == ".github/workflows/lbnorm.yml"
    assert location["region"] == {"startLine": 5, "startColumn": 1}
    # Outside a workflow (or a workflow that is not in the workspace): the glob itself, line 1.
    (nothing,) = sarif_results(workspace, "missing/*.json")
    location = nothing["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "missing/%2A.json"
    assert location["region"] == {"startLine": 1, "startColumn": 1}


def test_sarif_lists_what_code_scanning_shows_errors_first_and_says_how_many_are_left_out():
    from validator.findings import ERROR, WARNING, Finding
    from validator.report.sarif import MAX_RESULTS, sarif_log
    from validator.report.text_style import ReportOptions

    warnings = [
        Finding("LB105", "non-finite-stderr", WARNING, "a.json", f"w{i}", f"$.w{i}", i + 1, 1)
        for i in range(MAX_RESULTS)
    ]
    errors = [
        Finding("LB601", "score-divergence", ERROR, "a.json", f"e{i}", f"$.e{i}", i + 1, 1)
        for i in range(3)
    ]
    log = sarif_log(warnings + errors, ReportOptions())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    run = log["runs"][0]
    assert len(run["results"]) == MAX_RESULTS == 5000
    assert [r["message"]["text"] for r in run["results"][:3]] == [
        "e0 (at $.e0)",
        "e1 (at $.e1)",
        "e2 (at $.e2)",
    ]
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["message"]["text"].startswith("3 more finding(s) are not listed")
    assert "invocations" not in sarif_log(errors, ReportOptions())["runs"][0]


JUNIT_XSD = DATA / "junit" / "junit-10.xsd"


def junit_of(cwd, *args):
    proc = run_cli("check", "--output-format", "junit", *args, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def test_junit_is_valid_against_the_schema_pytest_validates_its_own_output_against(workspace):
    xmlschema = pytest.importorskip("xmlschema")
    schema = xmlschema.XMLSchema(str(JUNIT_XSD))
    (workspace / "broken.json").write_text("{")
    report = junit_of(workspace, "good.json", "bad.json", "broken.json", "missing/*.json")
    schema.validate(report)
    names = [case.get("name") for case in ET.fromstring(report).iter("testcase")]
    assert "LB601 score-divergence at $.reported.gpqa" in names
    assert not any(re.search(r"\d+:\d+", name) for name in names), names
    assert len(names) >= 4


def test_junit_names_stay_while_lines_move(workspace):
    def names():
        return [
            c.get("name") for c in ET.fromstring(junit_of(workspace, "bad.json")).iter("testcase")
        ]

    before = names()
    text = (workspace / "bad.json").read_text()
    (workspace / "bad.json").write_text(text.replace("{", "{\n\n\n", 1))
    assert names() == before and before
