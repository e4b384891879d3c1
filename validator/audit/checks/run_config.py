"""The run's settings the results file writes twice: `n-shot` and `versions` against the task's own config.

lm-eval writes `n-shot.<task>` from the task config's num_fewshot and
`versions.<task>` from its metadata.version, in the same run as `configs`.
A file where they differ was edited: `check` reads the few-shot count from
`n-shot` (LB503) and the version from `versions` (LB507), so either could be
rewritten to pass a leaderboard's setting while `configs` still tells what
ran. A survey does not run `check`, so the audit says it for every logged
task. Rule LB723 (`check` also reports a version's conflict for a profile's
tasks as LB508).
"""

from __future__ import annotations

from ...core.results import fewshot_disagrees, versions_disagree
from ..spec import MISSING
from .base import AuditCheck, audit_check


@audit_check(order=5)
class RunConfig(AuditCheck):
    """LB723: n-shot or versions disagrees with the task's config in the same file."""

    def sees_samples(self) -> bool:
        return False

    def finish(self) -> None:
        spec, config = self.spec, self.spec.config
        task = spec.name
        if (
            spec.n_shot is not MISSING
            and "num_fewshot" in config
            and fewshot_disagrees(spec.n_shot, config)
        ):
            self.log.at_results(
                "LB723",
                ("n-shot", task),
                (
                    f"n-shot.{task} is {spec.n_shot!r}, but configs.{task}.num_fewshot is {config['num_fewshot']!r}; "
                    "lm-eval writes the first from the second in the same run, so the file was edited"
                ),
            )
        metadata = config.get("metadata")
        declared = metadata.get("version", MISSING) if isinstance(metadata, dict) else MISSING
        if (
            spec.listed_version is not MISSING
            and declared is not MISSING
            and versions_disagree(spec.listed_version, declared)
        ):
            self.log.at_results(
                "LB723",
                ("versions", task),
                (
                    f"versions.{task} is {spec.listed_version!r}, but configs.{task}.metadata.version is {declared!r}; "
                    "lm-eval writes both from the same task, so the file was edited"
                ),
            )
