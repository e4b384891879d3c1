"""scripts/release_action_yml.py: the release steps of release.yml that run without GitHub."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml
from conftest import REPO

SCRIPT = REPO / "scripts" / "release_action_yml.py"
sys.path.insert(0, str(SCRIPT.parent))
from release_action_yml import NotReleasable, check_release, pin_image  # noqa: E402

DIGEST = "sha256:" + "0123456789abcdef" * 4
IMAGE = "ghcr.io/leaderboard-org/lbnorm-action"
CHANGELOG = "# Changelog\n\n## [Unreleased]\n\n## [1.2.3] - 2026-11-23\n\n### Fixed\n- a thing\n\n## [1.2.2] - 2026-10-01\n\nold\n"
BUILDS = (REPO / "action.yml").read_text(encoding="utf-8")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60
    )


def test_the_repository_can_release_its_changelog_version(tmp_path):
    notes = tmp_path / "notes.md"
    proc = run("check", "--tag", "v1.0.0", "--notes", str(notes))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "version=1.0.0\nmajor=v1\n"  # lines for $GITHUB_OUTPUT
    assert notes.read_text().startswith("The first release.")


def test_check_returns_the_version_major_tag_and_that_versions_notes():
    assert check_release("v1.2.3", CHANGELOG, BUILDS) == ("1.2.3", "v1", "### Fixed\n- a thing")


@pytest.mark.parametrize(
    "tag, changelog, action_yml, why",
    [
        ("v1.2", CHANGELOG, BUILDS, "is not vMAJOR.MINOR.PATCH"),
        ("1.2.3", CHANGELOG, BUILDS, "is not vMAJOR.MINOR.PATCH"),
        ("v01.2.3", CHANGELOG, BUILDS, "is not vMAJOR.MINOR.PATCH"),
        ("v1.2.3-rc1", CHANGELOG, BUILDS, "is not vMAJOR.MINOR.PATCH"),
        ("v1.2.4", CHANGELOG, BUILDS, "CHANGELOG.md has no '## [1.2.4] - YYYY-MM-DD' section"),
        (
            "v1.2.3",
            CHANGELOG.replace(" - 2026-11-23", ""),
            BUILDS,
            "has no '## [1.2.3] - YYYY-MM-DD' section",
        ),
        (
            "v1.2.3",
            CHANGELOG,
            BUILDS.replace("image: Dockerfile", f"image: docker://{IMAGE}@{DIGEST}"),
            "does not build from the Dockerfile",
        ),
    ],
)
def test_check_refuses(tag, changelog, action_yml, why):
    with pytest.raises(NotReleasable, match=re.escape(why)):
        check_release(tag, changelog, action_yml)


def test_check_exits_1_with_a_one_line_message():
    proc = run("check", "--tag", "v9.9.9")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "CHANGELOG.md has no '## [9.9.9]" in proc.stderr


def test_pin_changes_the_image_line_and_nothing_else(tmp_path):
    action = tmp_path / "action.yml"
    action.write_text(BUILDS, encoding="utf-8")
    proc = run("pin", "--image", IMAGE, "--digest", DIGEST, str(action))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"image=docker://{IMAGE}@{DIGEST}\n"
    before, after = BUILDS.splitlines(keepends=True), action.read_text().splitlines(keepends=True)
    changed = [(old, new) for old, new in zip(before, after, strict=False) if old != new]
    assert len(before) == len(after) and changed == [
        ("  image: Dockerfile\n", f"  image: docker://{IMAGE}@{DIGEST}\n")
    ]
    assert yaml.safe_load(action.read_text())["runs"] == {
        "using": "docker",
        "image": f"docker://{IMAGE}@{DIGEST}",
    }
    again = run(
        "pin", "--image", IMAGE, "--digest", DIGEST, str(action)
    )  # a release commit is never re-pinned
    assert again.returncode == 1 and "0 `image: Dockerfile` lines" in again.stderr


@pytest.mark.parametrize(
    "image, digest, why",
    [
        (IMAGE, "sha256:abc", "is not sha256:<64 lower-case hex digits>"),
        (IMAGE, DIGEST.upper(), "is not sha256:<64 lower-case hex digits>"),
        (IMAGE, "sha512:" + "0" * 128, "is not sha256:<64 lower-case hex digits>"),
        ("ghcr.io/Leaderboard-Org/lbnorm-action", DIGEST, "in lower case"),
        (f"docker://{IMAGE}", DIGEST, "no docker:// prefix"),
        (f"{IMAGE}:1.2.3", DIGEST, "no tag, no digest"),
        ("lbnorm-action", DIGEST, "registry/owner/name"),
    ],
)
def test_pin_refuses_a_reference_the_runner_would_not_pull_by_digest(image, digest, why):
    with pytest.raises(NotReleasable, match=re.escape(why)):
        pin_image(BUILDS, image, digest)


def test_pin_refuses_an_action_yml_it_cannot_rewrite_safely():
    twice = BUILDS + "# image: Dockerfile\nextra:\n  image: Dockerfile\n"
    with pytest.raises(NotReleasable, match="2 `image: Dockerfile` lines"):
        pin_image(twice, IMAGE, DIGEST)
    elsewhere = BUILDS.replace("  image: Dockerfile", "  image: Dockerfile\n  args: [x]")
    with pytest.raises(NotReleasable, match="is not {using: docker, image: Dockerfile}"):
        pin_image(elsewhere, IMAGE, DIGEST)
