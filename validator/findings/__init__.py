"""Findings and the rule registry, shared by check and audit. May import io and core only."""

from . import input_rules, internal  # noqa: F401, E402  (registers the LB1xx rules every reader reports)
from .collection import Findings  # noqa: F401
from .model import ERROR, SEVERITY_ORDER, WARNING, Finding, format_json_path  # noqa: F401
from .registry import RULES, Rule, make_finding, registered_rules, rule  # noqa: F401
