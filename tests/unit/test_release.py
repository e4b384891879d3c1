"""scripts/release_action_yml.py: the release steps of release.yml that run without GitHub."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from support.common import CAN_FORK, REPO, forked

from validator.core.release import PLACEHOLDERS, REPOSITORY_PLACEHOLDER
from validator.core.version import semantic_version

SCRIPT = REPO / "scripts" / "release_action_yml.py"
sys.path.insert(0, str(SCRIPT.parent))
from release_action_yml import (  # noqa: E402
    NotReleasable,
    changelog_sections,
    check_release,
    main,
    pin_image,
)

# semver.org's regular expression for a valid version (2.0.0).
SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?"
)

DIGEST = "sha256:" + "0123456789abcdef" * 4
IMAGE = "ghcr.io/leaderboard-org/lbnorm-action"
CHANGELOG = "# Changelog\n\n## [Unreleased]\n\n## [1.2.3] - 2026-11-23\n\n### Fixed\n- a thing\n\n## [1.2.2] - 2026-10-01\n\nold\n"
BUILDS = (REPO / "action.yml").read_text(encoding="utf-8")


def run(*args: str) -> subprocess.CompletedProcess:
    """`python scripts/release_action_yml.py ARGS`: its main() in a forked child where the platform forks
    (a new interpreter costs more than the script's work; see support.common.run_cli)."""
    argv = [sys.executable, str(SCRIPT), *args]
    if not CAN_FORK:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60)
    return forked(main, argv, argv[1:], None, Path.cwd(), dict(os.environ), timeout=60)


def test_the_changelog_releases_nothing_until_a_version_is_tagged():
    sections = changelog_sections((REPO / "CHANGELOG.md").read_text(encoding="utf-8"))
    tags = subprocess.run(
        ["git", "-C", str(REPO), "tag", "--list", "v*"], capture_output=True, text=True
    ).stdout.split()
    assert set(sections) <= {tag[1:] for tag in tags}, "a dated CHANGELOG section without its tag"
    assert "## [Unreleased]" in (REPO / "CHANGELOG.md").read_text(encoding="utf-8")


def release_root(tmp_path: Path) -> Path:
    """A copy of the files the release steps read, with CHANGELOG's Unreleased section dated 1.2.3."""
    root = tmp_path / "root"
    (root / "validator" / "core").mkdir(parents=True)
    for name in ("pyproject.toml", "action.yml"):
        shutil.copy2(REPO / name, root / name)
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    (root / "CHANGELOG.md").write_text(
        changelog.replace("## [Unreleased]", "## [Unreleased]\n\n## [1.2.3] - 2026-11-23", 1),
        encoding="utf-8",
    )
    return root


def test_a_dated_section_makes_the_repository_releasable(tmp_path):
    notes = tmp_path / "notes.md"
    root = release_root(tmp_path)
    proc = run("check", "--tag", "v1.2.3", "--notes", str(notes), "--root", str(root))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "version=1.2.3\nmajor=v1\n"  # lines for $GITHUB_OUTPUT
    assert notes.read_text().startswith("### Added\n- ")
    assert "\n- `lbnorm check`: validate submissions" in notes.read_text()


COMMIT = "0123456789abcdef0123456789abcdef01234567"
COORDINATES = ("--repository", "example-org/lbnorm", "--tag", "v1.2.3", "--commit", COMMIT)


def test_stamp_writes_the_coordinates_into_the_metadata_and_the_package(tmp_path):
    root = release_root(tmp_path)
    proc = run("stamp", *COORDINATES, "--root", str(root))
    assert proc.returncode == 0 and proc.stdout == "version=1.2.3\n", proc.stderr
    urls = tomllib.loads((root / "pyproject.toml").read_text())["project"]["urls"]
    assert urls["Source"] == "https://github.com/example-org/lbnorm"
    assert all(url.startswith("https://github.com/example-org/lbnorm") for url in urls.values())
    assert REPOSITORY_PLACEHOLDER not in (root / "pyproject.toml").read_text()
    namespace: dict = {}
    exec((root / "validator" / "core" / "_release.py").read_text(), namespace)
    assert (namespace["REPOSITORY"], namespace["TAG"], namespace["COMMIT"]) == (
        "example-org/lbnorm",
        "v1.2.3",
        COMMIT,
    )
    again = run("stamp", *COORDINATES, "--root", str(root))
    assert again.returncode == 1 and "stamp a fresh checkout" in again.stderr


@pytest.mark.parametrize(
    "option, value, why",
    [
        ("--repository", "OWNER/lbnorm", "is not OWNER/NAME"),
        ("--repository", "example-org", "is not OWNER/NAME"),
        ("--tag", "1.2.3", "is not vMAJOR.MINOR.PATCH"),
        ("--commit", "v1.2.3", "is not 40 lower-case hex digits"),
        ("--commit", COMMIT.upper(), "is not 40 lower-case hex digits"),
    ],
)
def test_stamp_and_notes_refuse_coordinates_that_name_no_release(tmp_path, option, value, why):
    arguments = list(COORDINATES)
    arguments[arguments.index(option) + 1] = value
    for command in ("stamp", "notes"):
        proc = run(command, *arguments, "--root", str(release_root(tmp_path / command)))
        assert proc.returncode == 1 and why in proc.stderr and proc.stderr.count("\n") == 1


def test_the_notes_are_the_changelog_section_then_the_snippets_filled_in(tmp_path):
    proc = run("notes", *COORDINATES, "--root", str(release_root(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("### Added\n- ")
    assert "\n- `lbnorm check`: validate submissions" in proc.stdout
    assert f"uses: example-org/lbnorm@{COMMIT} # v1.2.3" in proc.stdout
    assert f"rev: {COMMIT} # frozen: v1.2.3" in proc.stdout
    assert "pip install lbnorm==1.2.3" in proc.stdout
    use = proc.stdout[proc.stdout.index("## Use this release") :]
    assert not any(placeholder in use for placeholder in PLACEHOLDERS)


@pytest.mark.parametrize(
    "pep440, semver",
    [
        ("1.2.3", "1.2.3"),
        ("1.2", "1.2.0"),
        ("1.2.3rc1", "1.2.3-rc.1"),
        ("0.0.1.dev4+g1a2b3c4", "0.0.1-dev.4+g1a2b3c4"),
        ("0.0.1.dev4+g1a2b3c4.d20261206", "0.0.1-dev.4+g1a2b3c4.d20261206"),
        ("1.0.0rc1.dev2", "1.0.0-rc.1.dev.2"),
        ("1.2.3.post1", "1.2.3+post.1"),
        ("1!2.0", "2.0.0+epoch.1"),
        ("0.0.0+unknown", "0.0.0+unknown"),
        ("not a version", "0.0.0+unknown"),
    ],
)
def test_sarif_semantic_version_is_semver(pep440, semver):
    assert semantic_version(pep440) == semver
    assert SEMVER.fullmatch(semver)


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


def test_the_action_image_locks_every_runtime_dependency():
    """The image installs requirements-action.txt alone (--no-deps): a core dependency missing from it is a
    module the Action cannot import (without RE2, every sample-log audit in the image would fail)."""
    from packaging.requirements import Requirement

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    locked = {
        match.group(1).lower().replace("_", "-"): match.group(2)
        for match in re.finditer(
            r"^([A-Za-z0-9_.-]+)==(\S+) \\$", (REPO / "requirements-action.txt").read_text(), re.M
        )
    }
    for dependency in map(Requirement, declared):
        name = dependency.name.lower().replace("_", "-")
        assert name in locked, f"{name} is not in requirements-action.txt"
        assert dependency.specifier.contains(locked[name]), (name, locked[name])
