"""A rule's name and the link to its documentation, for the summary's tables.

Each rule is documented on its family's page of docs/reference/rules/ (one
section per rule, headed `LBnnn name`), in the repository of the release
installed (its tag), or on main before a release fills that in.
"""

from __future__ import annotations

from ..check.rules import all_rules
from ..core.release import REPOSITORY_PLACEHOLDER, installed_release

# Id prefix -> the page of docs/reference/rules/ that documents the family (longest prefix first).
FAMILY_PAGES = (
    ("LB70", "sample-logs"),
    ("LB71", "sample-log-checks"),
    ("LB72", "sample-log-checks"),
    ("LB1", "input"),
    ("LB2", "submission"),
    ("LB3", "tasks"),
    ("LB4", "values"),
    ("LB5", "runs"),
    ("LB6", "scores"),
)


def rule_name(rule_id: str) -> str:
    rule = next((rule for rule in all_rules() if rule.id == rule_id), None)
    return rule.name if rule else ""


def rule_page(rule_id: str) -> tuple[str, str] | None:
    """(page, anchor) of the rule's section in docs/reference/rules/, or None for an unknown id."""
    name = rule_name(rule_id)
    page = next((page for prefix, page in FAMILY_PAGES if rule_id.startswith(prefix)), None)
    if not name or page is None:
        return None
    return page, f"{rule_id}-{name}".lower()


def rule_url(rule_id: str) -> str | None:
    where = rule_page(rule_id)
    if where is None:
        return None
    release = installed_release()
    repository = release.repository if release else REPOSITORY_PLACEHOLDER
    ref = release.tag if release else "main"
    page, anchor = where
    return f"https://github.com/{repository}/blob/{ref}/docs/reference/rules/{page}.md#{anchor}"
