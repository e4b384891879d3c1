"""Release steps of .github/workflows/release.yml that need no GitHub, so tests run them too.

    python scripts/release_action_yml.py check --tag v1.2.3 [--notes FILE]
        The tag is vMAJOR.MINOR.PATCH, CHANGELOG.md has a dated section for it, and
        action.yml still builds from the Dockerfile. Prints `version=1.2.3` and
        `major=v1` (lines for $GITHUB_OUTPUT); --notes writes the section's text.
    python scripts/release_action_yml.py pin --image ghcr.io/OWNER/lbnorm-action \
            --digest sha256:<64 hex> [action.yml]
        Rewrites action.yml in place so the release runs the prebuilt image by digest:
        `image: docker://ghcr.io/OWNER/lbnorm-action@sha256:...`. Only that line changes.

    python scripts/release_action_yml.py stamp --repository OWNER/NAME --tag v1.2.3 --commit SHA
        Fills the release's coordinates in before the sdist and the wheel are built: the
        project URLs of pyproject.toml and validator/core/_release.py, which `lbnorm init`
        reads to pin the workflows and hooks it writes to this release.
    python scripts/release_action_yml.py notes --repository OWNER/NAME --tag v1.2.3 --commit SHA
        Prints the release notes: the CHANGELOG section, then the snippets of the docs
        with the release's coordinates filled in.

Every command takes --root (default: this repository). The coordinates' placeholders
and how they are filled live in validator/core/release.py.

Exit codes: 0 done, 1 the repository is not releasable as asked, 2 usage.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from validator.core.release import (  # noqa: E402
    REPOSITORY_PLACEHOLDER,
    NotARelease,
    Release,
    fill,
)

TAG = re.compile(r"v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
# An OCI reference without tag or digest: registry host[:port], then lower-case path components.
IMAGE = re.compile(r"[a-z0-9.-]+(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)+")
BUILD_LINE = re.compile(r"^([ \t]+image:[ \t]*)(['\"]?)Dockerfile\2[ \t]*$", re.MULTILINE)
SECTION = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})\s*$", re.MULTILINE)


class NotReleasable(Exception):
    """The repository or the arguments do not allow this release step."""


def changelog_sections(text: str) -> dict[str, str]:
    """Released versions in CHANGELOG.md (`## [1.2.3] - 2026-01-31`) and each one's text."""
    matches = list(SECTION.finditer(text))
    ends = [m.start() for m in matches[1:]] + [len(text)] if matches else []
    return {m["version"]: text[m.end() : end].strip() for m, end in zip(matches, ends, strict=True)}


def check_release(tag: str, changelog: str, action_yml: str) -> tuple[str, str, str]:
    """(version, major tag, release notes) for a tag that may be released, else NotReleasable."""
    if not TAG.fullmatch(tag):
        raise NotReleasable(f"tag {tag!r} is not vMAJOR.MINOR.PATCH (e.g. v1.0.0)")
    version = tag[1:]
    notes = changelog_sections(changelog).get(version)
    if not notes:
        raise NotReleasable(
            f"CHANGELOG.md has no '## [{version}] - YYYY-MM-DD' section with text; "
            "write the release notes first"
        )
    if not BUILD_LINE.search(action_yml):
        raise NotReleasable(
            "action.yml does not build from the Dockerfile (`image: Dockerfile`); "
            "tag a commit of main, not a release commit"
        )
    return version, tag.split(".")[0], notes


def pin_image(action_yml: str, image: str, digest: str) -> str:
    """action.yml with `image: Dockerfile` replaced by the prebuilt image pinned by digest."""
    if not IMAGE.fullmatch(image):
        raise NotReleasable(
            f"image {image!r} is not a registry/owner/name reference in lower case "
            "(no tag, no digest, no docker:// prefix)"
        )
    if not DIGEST.fullmatch(digest):
        raise NotReleasable(f"digest {digest!r} is not sha256:<64 lower-case hex digits>")
    found = BUILD_LINE.findall(action_yml)
    if len(found) != 1:
        raise NotReleasable(
            f"action.yml has {len(found)} `image: Dockerfile` lines; expected exactly one"
        )
    import yaml  # only this step parses YAML: stamp and notes run on the build's tools alone

    reference = f"docker://{image}@{digest}"
    pinned = BUILD_LINE.sub(lambda m: f"{m[1]}{reference}", action_yml)
    before, after = yaml.safe_load(action_yml), yaml.safe_load(pinned)
    if before.get("runs") != {"using": "docker", "image": "Dockerfile"}:
        raise NotReleasable("action.yml's `runs` is not {using: docker, image: Dockerfile}")
    before["runs"]["image"] = reference
    if after != before:  # the regex must have changed runs.image and nothing else
        raise NotReleasable("rewriting action.yml changed more than runs.image")
    return pinned


USE_THIS_RELEASE = """\
## Use this release

The action, pinned to this release's commit (`.github/workflows/lbnorm.yml`):

```yaml
      - uses: OWNER/lbnorm@RELEASE_SHA # vX.Y.Z
```

The pre-commit hooks (`.pre-commit-config.yaml`):

```yaml
repos:
  - repo: https://github.com/OWNER/lbnorm
    rev: RELEASE_SHA # frozen: vX.Y.Z
    hooks:
      - id: lbnorm-check
      - id: lbnorm-recheck
```

The command line: `pip install lbnorm==X.Y.Z`. In a leaderboard repository, `lbnorm init`
writes the workflows and the pre-commit configuration pinned to this release.
"""


def stamp(root: Path, release: Release) -> None:
    """Write the release's coordinates where the sdist and the wheel take them from."""
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    if REPOSITORY_PLACEHOLDER not in text:
        raise NotReleasable(
            f"pyproject.toml has no {REPOSITORY_PLACEHOLDER} placeholder; stamp a fresh checkout"
        )
    pyproject.write_text(text.replace(REPOSITORY_PLACEHOLDER, release.repository), "utf-8")
    (root / "validator" / "core" / "_release.py").write_text(
        "# Written by the release workflow (scripts/release_action_yml.py stamp); not in git.\n"
        f"REPOSITORY = {release.repository!r}\nTAG = {release.tag!r}\nCOMMIT = {release.commit!r}\n",
        encoding="utf-8",
    )


def release_notes(changelog: str, release: Release) -> str:
    """The CHANGELOG section of the release, then how to use it, with its coordinates filled in."""
    notes = changelog_sections(changelog).get(release.version)
    if not notes:
        raise NotReleasable(f"CHANGELOG.md has no '## [{release.version}] - YYYY-MM-DD' section")
    return f"{notes}\n\n{fill(USE_THIS_RELEASE, release)}"


def _release(args: argparse.Namespace) -> Release:
    try:
        return Release(args.repository, args.tag, args.commit)
    except NotARelease as exc:
        raise NotReleasable(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="may this tag be released?")
    check.add_argument("--tag", required=True)
    check.add_argument("--notes", type=Path, help="write the CHANGELOG section here")
    pin = commands.add_parser("pin", help="point action.yml at the prebuilt image")
    pin.add_argument("--image", required=True)
    pin.add_argument("--digest", required=True)
    pin.add_argument("action_yml", nargs="?", type=Path, default=REPO / "action.yml")
    for name, description in (
        ("stamp", "write the release's coordinates into the package before it is built"),
        ("notes", "print the release notes with the release's coordinates"),
    ):
        command = commands.add_parser(name, help=description)
        command.add_argument("--repository", required=True)
        command.add_argument("--tag", required=True)
        command.add_argument("--commit", required=True)
    for command in commands.choices.values():
        command.add_argument("--root", type=Path, default=REPO)
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            version, major, notes = check_release(
                args.tag,
                (args.root / "CHANGELOG.md").read_text(encoding="utf-8"),
                (args.root / "action.yml").read_text(encoding="utf-8"),
            )
            if args.notes:
                args.notes.write_text(notes + "\n", encoding="utf-8")
            print(f"version={version}\nmajor={major}")
        elif args.command == "stamp":
            release = _release(args)
            stamp(args.root, release)
            print(f"version={release.version}")
        elif args.command == "notes":
            changelog = (args.root / "CHANGELOG.md").read_text(encoding="utf-8")
            sys.stdout.write(release_notes(changelog, _release(args)))
        else:
            text = args.action_yml.read_text(encoding="utf-8")
            args.action_yml.write_text(pin_image(text, args.image, args.digest), encoding="utf-8")
            print(f"image=docker://{args.image}@{args.digest}")
    except NotReleasable as exc:
        print(f"release_action_yml: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
