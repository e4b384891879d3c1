"""lbnorm's own files in a leaderboard repository: its reports, a survey's settings, profiles, pre-commit and
CI files.

A folder check meets them beside the submissions. They are recognised by what they hold, never by
name alone, and only when they hold no field of a submission or a results file: a submission named
or shaped like a report is still checked as a submission.
"""

from __future__ import annotations

from typing import Any

from .roles import RESULTS_FIELDS, SUBMISSION_FIELDS


def own_file_kind(data: Any) -> str | None:
    """What lbnorm file this is ('lbnorm's JSON report', 'an lbnorm profile', ...), or None."""
    if not isinstance(data, dict):
        return None
    keys = set(data)
    if keys & {"results", *SUBMISSION_FIELDS, *RESULTS_FIELDS}:
        return None
    if "lbnorm_version" in keys and keys & {"findings", "audits", "tasks"}:
        return "lbnorm's JSON report"
    if "lbnorm" in keys and any(isinstance(key, str) and key.startswith("limits.") for key in keys):
        return "a survey's settings (settings.json beside its units.jsonl)"
    if "profile_format" in keys or {"benchmarks", "normalize"} <= keys:
        return "an lbnorm profile"
    if isinstance(data.get("repos"), list):
        return "a pre-commit configuration"
    if "jobs" in keys and keys & {"on", True}:  # YAML 1.1 reads the key `on` as true
        return "a CI workflow"
    if "runs" in keys and keys & {"inputs", "outputs", "name"}:
        return "an Action's metadata (action.yml)"
    return None


def own_file_message(kind: str) -> str:
    where = {
        "an lbnorm profile": "check it with `lbnorm profile check`",
        "lbnorm's JSON report": "it is lbnorm's output, not an input",
    }.get(kind, "lbnorm does not check it")
    return f"this is {kind}, not a submission or results file; {where}"
