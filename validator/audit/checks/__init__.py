"""The sample-log audit's checks: one module per concern, each registered with @audit_check.

Adding a check to the audit is adding one module here: every module of this
package is imported, and its checks register themselves.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from .base import CHECKS, AuditCheck, Sample, audit_check  # noqa: F401


@functools.cache  # every log's auditor asks; scanning this folder each time was a tenth of auditing small logs
def check_classes() -> tuple[type[AuditCheck], ...]:
    """Every registered check, in the order they see each sample."""
    for module in pkgutil.iter_modules(__path__):
        if module.name != "base":
            importlib.import_module(f"{__name__}.{module.name}")
    return tuple(cls for _, cls in sorted(CHECKS, key=lambda item: item[0]))
