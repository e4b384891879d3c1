"""`lbnorm init`: a leaderboard repository's workflows and pre-commit configuration, pinned to a release.

The files are the examples of examples/workflows/ (shipped in the package as
validator/authoring/templates), with the release's coordinates filled in where
the examples hold placeholders (core/release.py), and the repository's choices
made on exact lines: the submissions' glob, and the profile, a built-in one by
name or the repository's own file pinned by its sha256.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..core.errors import ConfigError
from ..core.release import Release, fill
from ..io.loaders import package_files

# Template in the package -> where it goes in the repository, and what it is for.
TARGETS = {
    "lbnorm.yml": (
        ".github/workflows/lbnorm.yml",
        "checks the submissions of every pull request, forks included, with a read-only token",
    ),
    "lbnorm-comment.yml": (
        ".github/workflows/lbnorm-comment.yml",
        "posts the verdict on the pull request as one comment, from the report as data",
    ),
    "pre-commit-config.yaml": (
        ".pre-commit-config.yaml",
        "runs the hooks lbnorm-check and lbnorm-recheck before each commit",
    ),
}
DEFAULT_FILES = "submissions/**/*.json"
DEFAULT_PROFILE = "open-llm-leaderboard-v2"
GLOB_CHARS = re.compile(r"[*?\[\]{}!]")


@dataclass(frozen=True)
class Choices:
    """What a repository decides: where its submissions are, and which profile they are held to."""

    files: str = DEFAULT_FILES
    profile: str | None = DEFAULT_PROFILE
    profile_file: str | None = None  # relative to the repository, forward slashes
    profile_sha256: str | None = None


def profile_pin(root: Path, profile_file: Path) -> tuple[str, str]:
    """(path relative to the repository, sha256) of the repository's own profile file."""
    resolved = profile_file.resolve()
    try:
        relative = resolved.relative_to(root.resolve())
    except ValueError:
        raise ConfigError(
            f"{profile_file}: the profile file must be inside the repository {root}, "
            "where the workflow reads it"
        ) from None
    return PurePosixPath(relative).as_posix(), hashlib.sha256(resolved.read_bytes()).hexdigest()


def render(name: str, release: Release, choices: Choices) -> str:
    """The file `name` of the templates, filled in for this release and these choices."""
    text = fill(_template(name), release)
    if name == "lbnorm.yml":
        text = _one_line(
            text, f"          files: {DEFAULT_FILES}", f"          files: {_q(choices.files)}"
        )
        text = _one_line(text, '    paths: ["submissions/**"]', _paths_filter(choices.files))
        text = _one_line(text, f"          profile: {DEFAULT_PROFILE}", _profile_inputs(choices))
    elif name == "pre-commit-config.yaml" and (choices.profile_file or choices.profile):
        args = (
            f"[--profile-file, {_q(choices.profile_file)}]"
            if choices.profile_file
            else f"[--profile, {_q(choices.profile)}]"
        )
        for hook in ("lbnorm-check", "lbnorm-recheck"):
            line = f"      - id: {hook}"
            text = _one_line(text, line, f"{line}\n        args: {args}")
    return text


def rendered_files(release: Release, choices: Choices) -> dict[str, tuple[str, str]]:
    """{path in the repository: (text, what it does)} for every file `lbnorm init` writes."""
    return {
        target: (render(name, release, choices), purpose)
        for name, (target, purpose) in TARGETS.items()
    }


def _template(name: str) -> str:
    return (package_files() / "authoring" / "templates" / name).read_text("utf-8")


def _one_line(text: str, line: str, replacement: str) -> str:
    """`text` with its one line `line` replaced; a template without it is a packaging error."""
    lines = text.split("\n")
    if lines.count(line) != 1:
        raise ConfigError(f"lbnorm's template lacks the line {line.strip()!r}; reinstall lbnorm")
    lines[lines.index(line)] = replacement
    return "\n".join(lines)


def _q(value: str | None) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is YAML's)."""
    return json.dumps(value, ensure_ascii=False)


def _paths_filter(files: str) -> str:
    """The folder before the glob's first pattern, as `paths:`; none when the glob starts with a pattern."""
    fixed = []
    for part in files.split("/")[:-1]:
        if GLOB_CHARS.search(part):
            break
        fixed.append(part)
    if not fixed:
        return "    # every pull request: the glob names no folder to filter on"
    return f"    paths: [{_q('/'.join(fixed) + '/**')}]"


def _profile_inputs(choices: Choices) -> str:
    if choices.profile_file:
        return (
            f"          profile_file: {_q(choices.profile_file)}\n"
            f"          profile_sha256: {choices.profile_sha256} # update it with the profile"
        )
    return f"          profile: {_q(choices.profile)}"
