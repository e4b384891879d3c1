"""The sample-log audit's checks: one module per concern, each registered with @audit_check.

Adding a check to the audit is adding one module here: every module of this
package is imported, and its checks register themselves.
"""

from __future__ import annotations

import functools
import importlib

from ...io.loaders import module_names
from .base import CHECKS, AuditCheck, Sample, audit_check  # noqa: F401


@functools.cache  # every log's auditor asks; scanning this folder each time was a tenth of auditing small logs
def check_classes() -> tuple[type[AuditCheck], ...]:
    """Every registered check, in the order they see each sample."""
    for name in module_names(__path__):
        if name != "base":
            importlib.import_module(f"{__name__}.{name}")
    return tuple(cls for _, cls in sorted(CHECKS, key=lambda item: item[0]))


# The task-specific replays the checks import with the first sample that needs one, so that an audit of other
# tasks never loads them (a fresh process's start-up).
REPLAYS = (
    "re2",  # harness/linear_regex.py: a regex filter's or an IFEval doc's pattern
    "validator.harness.drop_flags",  # drop_scoring.py: a DROP sample
    "validator.harness.exact_match",  # exact_match.py: a generate_until task scored by exact_match
    "validator.harness.filters",  # responses.py: a filter that is not take_first
    "validator.harness.ifeval",  # instruction_checks.py: an IFEval sample
)


def import_replays() -> None:
    """Import every replay in REPLAYS: a survey's worker audits many tasks, and imports them once, before its
    first unit's deadline starts, instead of inside it."""
    for name in REPLAYS:
        importlib.import_module(name)
