"""Where a release of lbnorm lives, and the placeholders that stand for it until a release fills them.

The docs' snippets and the files `lbnorm init` writes name three coordinates: the
GitHub repository that holds the action and the pre-commit hooks, the release tag,
and the commit that tag points to (its action.yml runs the released image by digest).
Before a release they are the placeholders below. The release workflow fills them
into the release notes, the package metadata and `_release.py` of the wheel it
builds (scripts/release_action_yml.py), so an installed release knows its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

REPOSITORY_PLACEHOLDER = "OWNER/lbnorm"
TAG_PLACEHOLDER = "vX.Y.Z"
VERSION_PLACEHOLDER = "X.Y.Z"
COMMIT_PLACEHOLDER = "RELEASE_SHA"
PLACEHOLDERS = (COMMIT_PLACEHOLDER, REPOSITORY_PLACEHOLDER, TAG_PLACEHOLDER, VERSION_PLACEHOLDER)

REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")
TAG = re.compile(r"v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
COMMIT = re.compile(r"[0-9a-f]{40}")


class NotARelease(ValueError):
    """Coordinates that do not name a release (the message says which part and why)."""


@dataclass(frozen=True)
class Release:
    repository: str  # owner/name on GitHub
    tag: str  # vMAJOR.MINOR.PATCH
    commit: str  # the 40-hex commit the tag points to

    def __post_init__(self) -> None:
        if self.repository in ("", REPOSITORY_PLACEHOLDER) or not REPOSITORY.fullmatch(
            self.repository
        ):
            raise NotARelease(f"repository {self.repository!r} is not OWNER/NAME on GitHub")
        if not TAG.fullmatch(self.tag):
            raise NotARelease(f"tag {self.tag!r} is not vMAJOR.MINOR.PATCH (e.g. v1.0.0)")
        if not COMMIT.fullmatch(self.commit):
            raise NotARelease(f"commit {self.commit!r} is not 40 lower-case hex digits")

    @property
    def version(self) -> str:
        return self.tag[1:]

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repository}"


def fill(text: str, release: Release) -> str:
    """`text` with every placeholder replaced by the release's coordinate (the tag before the bare version)."""
    values = {
        COMMIT_PLACEHOLDER: release.commit,
        REPOSITORY_PLACEHOLDER: release.repository,
        TAG_PLACEHOLDER: release.tag,
        VERSION_PLACEHOLDER: release.version,
    }
    for placeholder in PLACEHOLDERS:
        text = text.replace(placeholder, values[placeholder])
    return text


def installed_release() -> Release | None:
    """The coordinates a release wrote into this installation, or None (a checkout, a development build)."""
    try:
        from ._release import COMMIT as commit
        from ._release import REPOSITORY as repository
        from ._release import TAG as tag
    except ImportError:
        return None
    return Release(repository, tag, commit)
