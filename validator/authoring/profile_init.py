"""`lbnorm profile init`: a built-in profile as the start of a leaderboard's own.

The built-in YAML is copied as it ships (its comments, sources and notes say
where each fact comes from), under a header that says how to edit, check and
use it. Only the name changes when --name is given.
"""

from __future__ import annotations

import re

from ..core.errors import ConfigError
from ..io.loaders import builtin_profile_names
from ..io.loaders import builtin_profile_text as read_builtin_profile_text

HEADER = """\
# Your leaderboard's profile, started from the built-in profile '{builtin}'.
# Edit it as your leaderboard computes its scores:
#   - benchmarks[].tasks: the harness task names, and num_choices, which sets
#     each random-guess baseline (1/num_choices) and so every normalized score;
#   - benchmarks[].metrics / aggregation, and average.order;
#   - name: what submissions write under "profile" (rename it once you change facts).
# Then:
#   lbnorm profile check {output}        every problem, with its line
#   lbnorm check --profile-file {output} SUBMISSIONS...
# and pin it in the GitHub Action with profile_file and profile_sha256
# (sha256sum {output}). The format: schemas/profile.schema.json.

"""
_NAME_LINE = re.compile(r"^name: .*$", re.MULTILINE)


def builtin_profile_text(builtin: str, output: str, name: str | None = None) -> str:
    if builtin not in builtin_profile_names():
        raise ConfigError(
            f"unknown profile '{builtin}'; built-in profiles: {', '.join(builtin_profile_names())}"
        )
    text = read_builtin_profile_text(builtin)
    if name is not None:
        text = _NAME_LINE.sub(f"name: {name}", text, count=1)
    return HEADER.format(builtin=builtin, output=output) + text
