"""The submission checks: one module per rule family, one function per rule.

A rule is a function `check(ctx) -> Iterable[Hit]` registered with
findings.registry.rule; its docstring is its documentation (`lbnorm rules`
prints it). Adding a rule is adding a function to a family's module, or a new
module to this folder: every module here is imported, and its rules register
themselves.
"""

from __future__ import annotations

import functools
import importlib

from ...findings.registry import Rule, registered_rules
from ...io.loaders import module_names


@functools.cache
def load_rule_modules() -> tuple[str, ...]:
    """Import every module of this folder (registering its rules); their names, sorted."""
    names = tuple(module_names(__path__))
    for name in names:
        importlib.import_module(f"{__name__}.{name}")
    return names


def check_rules() -> list[Rule]:
    """The rules a check runs, registered; the audit's (which run in the audit, not here) are left unloaded
    unless the audit loaded them, so a pull request's check never imports every audit check."""
    load_rule_modules()
    return registered_rules()


def all_rules() -> list[Rule]:
    """Every rule, the check's and the sample-log audit's, by id."""
    from ...audit.rules import load_audit_rules

    load_rule_modules()
    load_audit_rules()
    return registered_rules()


load_rule_modules()
