"""The project's own workflows, the example workflow in docs/action.md, and the version snippets.

Workflows are checked offline with the vendored GitHub schemas of check-jsonschema and
with zizmor's security audits, both real tools installed as test extras; the rest are
the house rules for a workflow (pinned actions, least privilege, bounded runs).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
FULL_SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+){0,2}$")
TAG = re.compile(r"v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
sys.path.insert(0, str(REPO / "scripts"))
from release_action_yml import changelog_sections  # noqa: E402


def docs_workflow(tmp_path: Path) -> Path:
    """The example workflow of docs/action.md, as a user would save it."""
    text = (REPO / "docs" / "action.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(# \.github/workflows/lbnorm\.yml\n.*?)```", text, re.S)
    assert block, (
        "docs/action.md has no ```yaml block starting with '# .github/workflows/lbnorm.yml'"
    )
    path = tmp_path / ".github" / "workflows" / "lbnorm.yml"
    path.parent.mkdir(parents=True)
    path.write_text(block[1], encoding="utf-8")
    return path


def all_workflows(tmp_path: Path) -> list[Path]:
    return [*WORKFLOWS, docs_workflow(tmp_path)]


def test_the_project_has_ci_self_test_and_release_workflows():
    assert {p.name for p in WORKFLOWS} == {"ci.yml", "self-test.yml", "release.yml"}


def test_workflows_match_the_github_workflows_schema(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, all_workflows(tmp_path)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_zizmor_finds_nothing_offline(tmp_path):
    zizmor = shutil.which("zizmor")
    assert zizmor, "zizmor is a test dependency: pip install '.[test]'"
    proc = subprocess.run(
        [
            zizmor,
            "--offline",
            "--persona",
            "pedantic",
            "--no-progress",
            str(REPO / ".github" / "workflows"),
            str(REPO / "action.yml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The docs' workflow names this action by its release tag, the one line a user pins
    # to a commit of their choosing; every other action in it must be hash-pinned.
    config = tmp_path / "zizmor.yml"
    config.write_text(
        "rules:\n  unpinned-uses:\n    config:\n      policies:\n"
        "        org/lbnorm-action: ref-pin\n        '*': hash-pin\n"
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
            str(docs_workflow(tmp_path / "docs")),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_by_a_full_sha_with_its_version(path):
    uses = [
        line.split("uses:", 1)[1].strip()
        for line in path.read_text().splitlines()
        if "uses:" in line
    ]
    assert uses
    for ref in uses:
        if ref.startswith("./"):
            continue
        assert FULL_SHA_PIN.match(ref), (
            f"{path.name}: {ref!r} is not owner/action@<40 hex> # vX.Y.Z"
        )


def test_one_action_has_one_sha_in_every_file(tmp_path):
    pins: dict[str, set[str]] = {}
    for path in all_workflows(tmp_path):
        for action, sha in re.findall(r"uses: ([\w.-]+/[\w./-]+)@([0-9a-f]{40})", path.read_text()):
            pins.setdefault(action, set()).add(sha)
    assert pins and all(len(shas) == 1 for shas in pins.values()), pins


@pytest.mark.parametrize("name", ["ci.yml", "self-test.yml", "release.yml", "docs"])
def test_least_privilege_bounded_runs_and_no_persisted_credentials(name, tmp_path):
    path = docs_workflow(tmp_path) if name == "docs" else REPO / ".github" / "workflows" / name
    workflow = yaml.safe_load(path.read_text())
    assert workflow["permissions"] in ({}, {"contents": "read"}), (
        "top-level permissions: {} or contents: read"
    )
    assert "group" in workflow["concurrency"]
    for job_id, job in workflow["jobs"].items():
        assert 0 < job["timeout-minutes"] <= 30, job_id
        granted = job.get("permissions", {})
        assert name == "release.yml" or not granted, (
            f"{job_id}: only the release job is granted more"
        )
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False, job_id
            assert "${{" not in step.get("run", ""), (
                f"{job_id}: pass expressions to run: through env"
            )
    if name == "release.yml":
        assert workflow["jobs"]["release"]["permissions"] == {
            "contents": "write",
            "packages": "write",
            "id-token": "write",
            "attestations": "write",
        }
        assert workflow[True]["push"]["tags"] == [
            "v[0-9]+.[0-9]+.[0-9]+"
        ]  # yaml reads `on` as True


def test_the_self_test_runs_the_checkout_and_reads_both_verdicts_from_outputs():
    jobs = yaml.safe_load((REPO / ".github" / "workflows" / "self-test.yml").read_text())["jobs"]
    steps = {step.get("id"): step for job in jobs.values() for step in job["steps"]}
    assert steps["honest"]["uses"] == steps["inflated"]["uses"] == "./"
    assert (
        steps["inflated"]["continue-on-error"] is True
        and "continue-on-error" not in steps["honest"]
    )
    for step_id in ("honest", "inflated"):
        assert (REPO / steps[step_id]["with"]["files"]).is_file()
    check = next(
        step for step in steps.values() if "steps.inflated.outcome" in str(step.get("env"))
    )
    assert check["env"]["HONEST_PASSED"] == "${{ steps.honest.outputs.passed }}"
    assert check["env"]["INFLATED_PASSED"] == "${{ steps.inflated.outputs.passed }}"


def released_versions() -> set[str]:
    return set(changelog_sections((REPO / "CHANGELOG.md").read_text(encoding="utf-8")))


def test_the_changelog_has_released_versions_in_tag_format():
    versions = released_versions()
    assert versions and all(TAG.fullmatch("v" + v) for v in versions)


def version_snippets() -> list[tuple[str, str]]:
    """(where, version) of every `rev:` and `uses: .../lbnorm-action@` a user copies from the docs or the hook file."""
    found = []
    for path in [
        REPO / "README.md",
        *sorted((REPO / "docs").glob("*.md")),
        REPO / ".pre-commit-hooks.yaml",
    ]:
        text = path.read_text(encoding="utf-8")
        found += [(path.name, m) for m in re.findall(r"^\s*#?\s*rev: (\S+)", text, re.M)]
        found += [(path.name, m) for m in re.findall(r"uses: \S+/lbnorm-action@(\S+)", text)]
    return found


def test_snippets_name_a_released_version_in_tag_format():
    snippets = version_snippets()
    assert {where for where, _ in snippets} >= {"action.md", "pre-commit.md"}
    for where, version in snippets:
        assert TAG.fullmatch(version), f"{where}: {version!r} is not a vX.Y.Z tag"
        assert version[1:] in released_versions(), (
            f"{where}: {version} is not a release in CHANGELOG.md"
        )
