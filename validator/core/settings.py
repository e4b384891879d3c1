"""Settings a maintainer chooses: from a configuration file, then command-line options on top.

Pure data and validation; io/config.py finds and reads the file. Keys are
written as in ruff's configuration (kebab-case in `[tool.lbnorm]`). Every
value is a maintainer's bound, never a submitter's: a submission cannot set
any of these.
"""

import re
from collections.abc import Mapping
from typing import Any, NamedTuple, Self

from .errors import ConfigError

RULE_CODE = r"LB\d{0,3}"  # compiled by re the first time a configuration selects rules
LIMIT_KEYS = {
    "max-file-size": "max_file_bytes",
    "max-files": "max_files",
    "max-depth": "max_depth",
    "max-string-length": "max_string_length",
    "max-log-size": "max_log_bytes",
    "max-values": "max_values",
    "max-log-records": "max_log_records",
    "unit-timeout": "unit_timeout",
}
SIZE_KEYS = {"max-file-size", "max-log-size"}
SECONDS_KEYS = {"unit-timeout"}
RULE_LIST_KEYS = ("select", "extend-select", "ignore", "extend-ignore", "warn", "error")


class Settings(NamedTuple):
    """None (or empty) means "not set here": the next layer down decides. (Read only: the empty defaults are
    shared.)"""

    tolerance: float | None = None
    profile: str | None = None
    profile_file: str | None = None  # as written; relative to the configuration file's folder
    strict: bool | None = None
    audit_samples: bool | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] | None = None
    extend_ignore: tuple[str, ...] = ()
    warn: tuple[str, ...] = ()
    error: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = {}
    limits: Mapping[str, Any] = {}  # Limits field name -> int or size text
    source: str | None = None  # the file these came from, for messages and `lbnorm config`

    def overlay(self, top: Self) -> Self:
        """These settings with `top`'s set values on top (extend-* lists add up, as in ruff)."""
        changes: dict[str, Any] = {}
        for name in self._fields:
            value = getattr(top, name)
            if name in ("extend_select", "extend_ignore", "warn", "error"):
                changes[name] = getattr(self, name) + value
            elif name in ("per_file_ignores", "limits"):
                changes[name] = {**getattr(self, name), **value}
            elif value is not None:
                changes[name] = value
        return self._replace(**changes)

    def ignored(self) -> tuple[str, ...]:
        return (self.ignore or ()) + self.extend_ignore

    def selected(self) -> tuple[str, ...]:
        return (self.select if self.select is not None else ("LB",)) + self.extend_select


def settings_from_mapping(table: Mapping[str, Any], source: str) -> Settings:
    """Validate a `[tool.lbnorm]` table; a wrong key or value is a ConfigError naming the file and the key."""
    known = {
        "tolerance",
        "profile",
        "profile-file",
        "strict",
        "audit-samples",
        "per-file-ignores",
        *RULE_LIST_KEYS,
        *LIMIT_KEYS,
    }
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(
            f"{source}: unknown key '{unknown[0]}' in [tool.lbnorm]; known keys: {', '.join(sorted(known))}"
        )
    values: dict[str, Any] = {"source": source}
    if "tolerance" in table:
        values["tolerance"] = _tolerance(table["tolerance"], source)
    for key in ("profile", "profile-file"):
        if key in table:
            values[key.replace("-", "_")] = _string(table[key], key, source)
    for key in ("strict", "audit-samples"):
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"{source}: '{key}' is {table[key]!r}; use true or false")
            values[key.replace("-", "_")] = table[key]
    for key in RULE_LIST_KEYS:
        if key in table:
            values[key.replace("-", "_")] = rule_codes(table[key], f"{source}: '{key}'")
    if "per-file-ignores" in table:
        values["per_file_ignores"] = _per_file_ignores(table["per-file-ignores"], source)
    values["limits"] = {
        LIMIT_KEYS[k]: _limit(table[k], k, source) for k in LIMIT_KEYS if k in table
    }
    return Settings(**values)


def rule_codes(value: Any, where: str) -> tuple[str, ...]:
    """A list of rule ids or prefixes (LB, LB3, LB301); raises ConfigError otherwise."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f'{where} must be a list of rule ids or prefixes, e.g. ["LB301", "LB5"]')
    codes = tuple(v.strip().upper() for v in value)
    for code in codes:
        if not re.fullmatch(RULE_CODE, code):
            raise ConfigError(
                f"{where}: '{code}' is not a rule id or prefix; write e.g. LB301 or LB3"
            )
    return codes


def _per_file_ignores(value: Any, source: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{source}: 'per-file-ignores' must be a table of glob = [rule ids]")
    return {
        str(glob): rule_codes(codes, f"{source}: per-file-ignores '{glob}'")
        for glob, codes in value.items()
    }


def _tolerance(value: Any, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 100.0:
        raise ConfigError(
            f"{source}: 'tolerance' is {value!r}; use a number of normalized points between 0 and 100"
        )
    return float(value)


def _string(value: Any, key: str, source: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{source}: '{key}' must be a non-empty string")
    return value.strip()


def _limit(value: Any, key: str, source: str) -> int | float | str:
    """Sizes may be written as text ("64M"); io/config.py parses them. Counts are whole positive numbers,
    seconds positive numbers."""
    if isinstance(value, str) and key in SIZE_KEYS:
        return value
    if key in SECONDS_KEYS:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e9:
            raise ConfigError(f"{source}: '{key}' is {value!r}; use a positive number of seconds")
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"{source}: '{key}' is {value!r}; use a positive whole number"
            + (' or a size such as "64M"' if key in SIZE_KEYS else "")
        )
    return value
