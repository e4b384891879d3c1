"""Release steps of .github/workflows/release.yml that need no GitHub, so tests run them too.

    python scripts/release_action_yml.py check --tag v1.2.3 [--notes FILE]
        The tag is vMAJOR.MINOR.PATCH, CHANGELOG.md has a dated section for it, and
        action.yml still builds from the Dockerfile. Prints `version=1.2.3` and
        `major=v1` (lines for $GITHUB_OUTPUT); --notes writes the section's text.
    python scripts/release_action_yml.py pin --image ghcr.io/OWNER/lbnorm-action \
            --digest sha256:<64 hex> [action.yml]
        Rewrites action.yml in place so the release runs the prebuilt image by digest:
        `image: docker://ghcr.io/OWNER/lbnorm-action@sha256:...`. Only that line changes.

Exit codes: 0 done, 1 the repository is not releasable as asked, 2 usage.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
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
    ends = [m.start() for m in matches[1:]] + [len(text)]
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
    reference = f"docker://{image}@{digest}"
    pinned = BUILD_LINE.sub(lambda m: f"{m[1]}{reference}", action_yml)
    before, after = yaml.safe_load(action_yml), yaml.safe_load(pinned)
    if before.get("runs") != {"using": "docker", "image": "Dockerfile"}:
        raise NotReleasable("action.yml's `runs` is not {using: docker, image: Dockerfile}")
    before["runs"]["image"] = reference
    if after != before:  # the regex must have changed runs.image and nothing else
        raise NotReleasable("rewriting action.yml changed more than runs.image")
    return pinned


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
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            version, major, notes = check_release(
                args.tag,
                (REPO / "CHANGELOG.md").read_text(encoding="utf-8"),
                (REPO / "action.yml").read_text(encoding="utf-8"),
            )
            if args.notes:
                args.notes.write_text(notes + "\n", encoding="utf-8")
            print(f"version={version}\nmajor={major}")
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
