"""LB2xx: the submission file's shape and what it points at."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator

from ...findings import ERROR
from ...findings.registry import rule
from ...io.loaders import package_files
from ...io.schema_subset import certainly_valid
from ..context import REPORTED, CheckContext, Hit

SUBMISSION_SCHEMA = "submission.schema.json"


@rule("LB201", "schema", ERROR)
def schema(ctx: CheckContext) -> Iterator[Hit]:
    """The submission does not match schemas/submission.schema.json.

    Every schema error is reported, each at its own JSON path and line. The
    schema has no field for tolerances or rules: those belong to the
    maintainer. Out-of-range reported scores are reported by LB402 instead.
    """
    if ctx.submission is None or certainly_valid(_schema(), ctx.submission.data):
        return
    for error in sorted(
        _validator().iter_errors(ctx.submission.data), key=lambda e: list(map(str, e.path))
    ):
        path = tuple(error.absolute_path)
        if path[:1] == (REPORTED,) and error.validator in ("minimum", "maximum"):
            continue  # LB402 says it better
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = set(error.schema.get("properties", {}))
            for key in sorted(set(error.instance) - allowed):
                yield Hit(
                    ctx.submission,
                    (*path, key),
                    f"'{key}' is not a submission field (allowed: {', '.join(sorted(allowed))})",
                )
            continue
        yield Hit(ctx.submission, path, error.message)


@rule("LB203", "results-path", ERROR, runs=False)
def results_path(ctx):
    """The submission's `results` path is absolute, leaves the repository, or is not a regular file.

    Paths are relative to the submission file and must resolve, symlinks
    included, inside the checked workspace.
    """


@rule("LB204", "profile-mismatch", ERROR)
def profile_mismatch(ctx: CheckContext) -> Iterator[Hit]:
    """The submission names a profile other than the one this leaderboard checks with, or an unknown one.

    When the maintainer passes --profile / --profile-file, that profile is
    authoritative; a submission cannot choose the rules it is judged by.
    """
    named = ctx.submission_data().get("profile")
    if isinstance(named, str) and named != ctx.profile.name:
        yield Hit(
            ctx.submission,
            ("profile",),
            f"submission says profile '{named}', but it is checked with '{ctx.profile.name}'; "
            f"compute the numbers for '{ctx.profile.name}' or remove the field",
        )


@functools.cache
def _schema() -> dict:
    return json.loads((package_files() / "schemas" / SUBMISSION_SCHEMA).read_text("utf-8"))


@functools.cache
def _validator():
    import jsonschema

    return jsonschema.Draft202012Validator(_schema())
