"""What a checked file claims to be: a submission, a results file, or (refused) both.

A file is judged as what it claims to be, whatever other role a run gives it: a results file another
submission names is still a submission if it carries a submission's fields, and is checked as one; a
file that claims both roles at once is refused (LB202), so that no number in it is read in one role
and left unchecked in the other.
"""

from __future__ import annotations

from typing import Any

# The top-level fields of a submission (schemas/submission.schema.json) that no results file has.
SUBMISSION_FIELDS = ("schema_version", "reported", "model", "profile", "samples")
# Top-level fields that lm-eval (0.3, 0.4) or lighteval write in a results file, and no submission has.
RESULTS_FIELDS = (
    "versions",
    "config",
    "configs",
    "n-shot",
    "n-samples",
    "group_subtasks",
    "groups",
    "higher_is_better",
    "task_hashes",
    "model_name",
    "model_name_sanitized",
    "lm_eval_version",
    "config_general",
    "config_tasks",
    "summary_tasks",
    "summary_general",
)
SUBMISSION = "submission"
RESULTS = "results"


def role_of(data: Any) -> str:
    """SUBMISSION when the file carries any submission field, else RESULTS when it has a results object, else
    SUBMISSION (a file of neither shape is held to the submission schema, which says what is missing)."""
    if not isinstance(data, dict) or submission_field(data):
        return SUBMISSION
    return RESULTS if "results" in data else SUBMISSION


def submission_field(data: Any) -> str | None:
    """The first submission field the file carries, or None."""
    if not isinstance(data, dict):
        return None
    return next((field for field in SUBMISSION_FIELDS if field in data), None)


def both_roles(data: Any) -> tuple[str, str] | None:
    """(a submission field, a results-file field) when the file claims to be both, else None.

    A submission's `results` is a path or a whole results file embedded (an object with its own `results`);
    an object of task entries there, or a results file's own top-level fields, make it a results file too."""
    claimed = submission_field(data)
    if claimed is None:
        return None
    results = data.get("results")
    if isinstance(results, dict) and results and "results" not in results:
        return claimed, "results (an object of task entries)"
    found = next((field for field in RESULTS_FIELDS if field in data), None)
    return (claimed, found) if found else None


def both_roles_message(fields: tuple[str, str]) -> str:
    submission_field, results_field = fields
    return (
        f"this file is both a submission (it has '{submission_field}') and a results file (it has "
        f"'{results_field}'); keep the results file as the harness wrote it and put the submission in "
        "a file of its own that names it in 'results'"
    )


def not_results_message(reference: str, field: str) -> str:
    return (
        f"'{reference}' is a submission (it has '{field}'), not a results file; name the results file "
        "the harness wrote (each submission is checked on its own)"
    )
