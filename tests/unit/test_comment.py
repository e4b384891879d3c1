"""`lbnorm comment`: the pull request comment from a check report, whose every byte the pull request controls."""

from __future__ import annotations

import json
import re

import pytest
from support.common import REPO, run_cli

from validator.report.comment import COMMENT_LIMIT, MARKER, comment_markdown

RUN = "https://github.com/board-org/board/actions/runs/123456"
SHA = "0123456789abcdef0123456789abcdef01234567"
HOSTILE = (
    "@octocat <img src=x onerror=alert(1)> ![pixel](https://evil.example/p.png) "
    "[click](https://evil.example) https://evil.example www.evil.example #12 GH-7 "
    f"{SHA} <!-- lbnorm-verdict --> a | b </details> ::error::forged ##[warning]forged "
    "\n## heading\n- [ ] box ~~strike~~ `code` *em* _em_ <script>x</script> &amp; :+1:"
)


def report(**changes) -> dict:
    doc = {
        "ok": False,
        "files_checked": 1,
        "findings": [
            {
                "rule": "LB601",
                "name": "score-divergence",
                "severity": "error",
                "file": "submissions/a.json",
                "line": 7,
                "column": 5,
                "json_path": "$.reported.gpqa",
                "message": "gpqa: reported 1.0, recomputed 0.9876",
            }
        ],
        "scores": {
            "submissions/a.json": {
                "reported": {"gpqa": 1.0, "bbh": 2.35},
                "recomputed": {"gpqa": 0.9876, "bbh": 2.35},
            }
        },
        "notes": [],
        "audits": {},
        "suppressed_findings": 0,
        "lbnorm_version": "1.2.3",
    }
    doc.update(changes)
    return doc


def hostile_report() -> dict:
    doc = report()
    doc["findings"] = [
        dict(doc["findings"][0], file=HOSTILE, message=HOSTILE, name=HOSTILE),
        dict(doc["findings"][0], severity="warning", rule="LB105", message=HOSTILE),
    ]
    doc["scores"] = {HOSTILE: {"reported": {HOSTILE: 1.0}, "recomputed": {HOSTILE: 0.5}}}
    doc["lbnorm_version"] = HOSTILE
    return doc


def assert_inert(body: str) -> None:
    """Nothing in the body links, pings, embeds, breaks a table or forges the marker but what lbnorm wrote."""
    assert body.startswith(MARKER + "\n") and body.count(MARKER) == 1
    assert len(body) <= COMMENT_LIMIT
    without_run = body.replace(f"[The run]({RUN})", "")
    assert "<" not in without_run.replace(MARKER, "") and ">" not in without_run.replace(
        MARKER, ""
    ).replace("\n> ", "\n")
    assert not re.search(r"(?<!\\)\]\(", without_run) and "://" not in without_run
    assert not re.search(r"(?i)www\.", without_run)
    assert not re.search(r"@\w", body), "a mention"
    assert not re.search(r"(?i)(#|gh-)[0-9]", body), "an issue reference"
    assert not re.search(r"\b[0-9a-f]{7,40}\b", body), "a commit reference"
    for line in body.splitlines():
        assert not line.lstrip().startswith("::") and "##[" not in line
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line)
            assert len(cells) - 2 in (3, 5), line  # the findings table's 3 columns, the scores' 5


def test_a_report_becomes_a_table_of_scores_the_failing_findings_and_the_run():
    body = comment_markdown(report(), RUN, "failure")
    assert_inert(body)
    assert "## ❌ lbnorm failed" in body and f"[The run]({RUN})" in body
    assert "| submissions/a.json | gpqa | 1.00 | 0.9876 | +0.0124 |" in body
    assert "| submissions/a.json | bbh | 2.35 | 2.3500 | +0.0000 |" in body
    assert (
        "| submissions/a.json:7 | LB601 score-divergence | gpqa: reported 1.0, recomputed 0.9876 |"
        in body
    )


def test_only_an_ok_report_without_errors_from_a_successful_run_passes():
    passing = report(ok=True, findings=[])
    assert "✅ lbnorm passed" in comment_markdown(passing, RUN, "success")
    assert "✅ lbnorm passed" in comment_markdown(passing, None, None)
    for conclusion in ("failure", "cancelled", "timed_out", HOSTILE):
        assert "❌ lbnorm failed" in comment_markdown(passing, RUN, conclusion), conclusion
    lying = report(ok=True)  # ok beside an error: written by hand, not by lbnorm
    body = comment_markdown(lying, RUN, "success")
    assert "❌ lbnorm failed" in body and "not taken as a pass" in body


def test_every_string_of_a_hostile_report_is_inert():
    body = comment_markdown(hostile_report(), RUN, HOSTILE)
    assert_inert(body)
    assert "❌ lbnorm failed" in body
    assert "octocat" in body and "onerror" in body  # shown as text, not dropped


def test_a_huge_report_is_cut_to_whole_rows_under_the_comment_limit():
    doc = report()
    doc["findings"] = [
        dict(doc["findings"][0], message=f"finding {i} " + "x" * 300) for i in range(5_000)
    ]
    doc["scores"] = {
        f"submissions/{i}.json": {"reported": {"gpqa": 1.0}, "recomputed": {"gpqa": 0.5}}
        for i in range(3_000)
    }
    body = comment_markdown(doc, RUN, "failure")
    assert_inert(body)
    assert len(body) <= COMMENT_LIMIT
    assert "more row(s) left out" in body and body.endswith("\n")


def write(tmp_path, doc, name="lbnorm-report.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def test_the_command_renders_a_report_the_check_wrote(tmp_path):
    proc = run_cli(
        "check",
        "--output-format",
        "json",
        "tests/examples/negative/LB601_moved_by_0_1/submission.json",
    )
    assert proc.returncode == 1, proc.stderr
    path = write(tmp_path, proc.stdout)
    rendered = run_cli("comment", str(path), "--run-url", RUN, "--conclusion", "failure")
    assert rendered.returncode == 0, rendered.stderr
    assert_inert(rendered.stdout)
    assert "| LB601 score-divergence |" in rendered.stdout


@pytest.mark.parametrize(
    "content, why",
    [
        ("not json", "not valid json"),
        ('{"ok": true, "ok": false}', "appears twice"),
        (json.dumps(report(ok="yes")), "at ok"),
        (json.dumps(report(extra=1)), "Additional properties"),
        (json.dumps(report(findings=[{"rule": "LB601"}])), "at findings/0"),
        ("[" * 100 + "]" * 100, "nest"),
    ],
)
def test_a_report_that_is_none_gets_a_comment_saying_so_and_exit_1(tmp_path, content, why):
    proc = run_cli("comment", str(write(tmp_path, content)), "--run-url", RUN)
    assert proc.returncode == 1
    assert_inert(proc.stdout)
    assert "no verdict" in proc.stdout and why.lower() in proc.stderr.lower(), proc.stderr
    assert proc.stderr.count("\n") == 1


def test_a_missing_or_oversized_report_is_none_either(tmp_path):
    proc = run_cli("comment", str(tmp_path / "absent.json"), "--run-url", RUN)
    assert proc.returncode == 1 and "no verdict" in proc.stdout
    big = report()
    big["notes"] = [{"file": "a", "message": "x" * 1_000_000} for _ in range(17)]
    proc = run_cli("comment", str(write(tmp_path, big)))
    assert proc.returncode == 1 and "no verdict" in proc.stdout and "limit" in proc.stderr


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "https://evil.example/x",
        "https://github.com/a/b/actions/runs/1) [x](https://evil.example",
        "http://github.com/a/b/actions/runs/1",
    ],
)
def test_the_run_link_must_be_a_run(tmp_path, url):
    proc = run_cli("comment", str(write(tmp_path, report())), "--run-url", url)
    assert proc.returncode == 2 and "--run-url" in proc.stderr and proc.stdout == ""


def test_the_example_workflows_never_run_the_pull_requests_code():
    workflows = REPO / "examples" / "workflows"
    check = (workflows / "lbnorm.yml").read_text()
    comment = (workflows / "lbnorm-comment.yml").read_text()
    import yaml

    check_doc, comment_doc = yaml.safe_load(check), yaml.safe_load(comment)
    assert list(check_doc[True]) == ["pull_request"] and check_doc["permissions"] == {
        "contents": "read"
    }
    assert list(comment_doc[True]) == ["workflow_run"] and comment_doc["permissions"] == {}
    assert comment_doc[True]["workflow_run"]["workflows"] == [check_doc["name"]]
    (job,) = comment_doc["jobs"].values()
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    uses = [step.get("uses", "") for step in job["steps"]]
    assert not any("checkout" in u for u in uses), "the comment workflow checks nothing out"
    assert "lbnorm comment" in comment and MARKER in comment
    artifact = next(
        s for s in check_doc["jobs"]["check"]["steps"] if "upload-artifact" in s.get("uses", "")
    )
    assert artifact["with"]["name"] == "lbnorm-report" and "--name lbnorm-report" in comment
