"""The Action's inputs: INPUT_<NAME> variables read, checked and typed.

Inputs arrive upper-cased; a hyphen survives, so INPUT_PROFILE-FILE is accepted
as well as INPUT_PROFILE_FILE. A wrong input is the maintainer's configuration:
an InputError, exit 2.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from ..check.checker import DEFAULT_TOLERANCE
from ..io.limits import DEFAULT_LIMITS, MAX_DEPTH_CEILING, Limits, parse_size

TRUE_VALUES, FALSE_VALUES = ("true", "True", "TRUE"), ("false", "False", "FALSE")
DEFAULT_REPORT = "lbnorm-report.json"


class InputError(Exception):
    """A workflow input is wrong: the maintainer's configuration, exit 2."""


@dataclass(frozen=True)
class ActionInputs:
    files: list[str]
    profile: str
    profile_file: str
    profile_sha256: str
    tolerance: float
    strict: bool
    report: str
    limits: Limits = DEFAULT_LIMITS
    stale_scorer_bound: float | None = None  # the maintainer's opt-in (LB607); empty input: none
    config_file: str = (
        ""  # a .lbnorm.toml / pyproject.toml in the repository, read only when pinned
    )
    config_sha256: str = ""
    tolerance_set: bool = (
        True  # False: the input was empty, so a pinned configuration file may set it
    )
    strict_set: bool = True
    limits_set: frozenset[str] = (
        frozenset()
    )  # the Limits fields whose input the workflow set (those win)


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    files = _files(input_value(env, "files"))
    if not files:
        raise InputError("input 'files' is empty: list the submission files or globs to check")
    return ActionInputs(
        files=files,
        profile=input_value(env, "profile").strip(),
        profile_file=input_value(env, "profile_file").strip(),
        profile_sha256=input_value(env, "profile_sha256").strip().lower(),
        tolerance=_tolerance(input_value(env, "tolerance").strip() or str(DEFAULT_TOLERANCE)),
        strict=_boolean(input_value(env, "strict").strip() or "false", "strict"),
        report=input_value(env, "report", DEFAULT_REPORT).strip(),
        limits=Limits(**_limits(env)),
        stale_scorer_bound=_points(
            input_value(env, "stale_scorer_bound").strip(), "stale_scorer_bound"
        ),
        config_file=input_value(env, "config_file").strip(),
        config_sha256=input_value(env, "config_sha256").strip().lower(),
        tolerance_set=bool(input_value(env, "tolerance").strip()),
        strict_set=bool(input_value(env, "strict").strip()),
        limits_set=frozenset(_limits(env)),
    )


def _limits(env: Mapping[str, str]) -> dict[str, int]:
    """The Limits fields the inputs set: max_file_size, max_log_size (64M, 10MB, bytes), max_files, max_depth,
    max_string_length, max_values, max_log_records; an empty input is not set (the default)."""
    values = {}
    sizes = ("max_file_bytes", "max_log_bytes")
    for field, name in (
        ("max_file_bytes", "max_file_size"),
        ("max_files", "max_files"),
        ("max_depth", "max_depth"),
        ("max_string_length", "max_string_length"),
        ("max_log_bytes", "max_log_size"),
        ("max_values", "max_values"),
        ("max_log_records", "max_log_records"),
    ):
        text = input_value(env, name).strip()
        if not text:
            continue
        try:
            values[field] = parse_size(text) if field in sizes else int(text)
        except ValueError:
            raise InputError(
                f"input '{name}' is {text!r}; use a whole number"
                + (" of bytes, or K, M or G (e.g. 64M)" if field in sizes else "")
            ) from None
        if values[field] < 1:
            raise InputError(f"input '{name}' is {text!r}; use a positive number")
        if field == "max_depth" and values[field] > MAX_DEPTH_CEILING:
            raise InputError(
                f"input 'max_depth' is {text}; the most lbnorm allows is {MAX_DEPTH_CEILING}"
            )
    return values


def input_value(env: Mapping[str, str], name: str, default: str = "") -> str:
    """INPUT_NAME, or INPUT_NA-ME when the workflow used a hyphen; both set and different is an error."""
    values = {
        key: env[key]
        for key in (f"INPUT_{name.upper()}", f"INPUT_{name.upper().replace('_', '-')}")
        if key in env
    }
    if len(set(values.values())) > 1:
        raise InputError(f"inputs {' and '.join(values)} disagree; set only {name}")
    return next(iter(values.values()), default)


def _files(value: str) -> list[str]:
    """One glob per line; a single line may hold several, separated by spaces (quote names with spaces)."""
    lines = [line.strip() for line in value.splitlines() if line.strip()]
    if len(lines) == 1:
        try:
            return shlex.split(lines[0])
        except ValueError as exc:
            raise InputError(f"input 'files' cannot be split: {exc}") from None
    return lines


def _boolean(value: str, name: str) -> bool:
    # The same rule as @actions/core getBooleanInput (YAML 1.2 core schema).
    if value in TRUE_VALUES:
        return True
    if value in FALSE_VALUES:
        return False
    raise InputError(f"input '{name}' is {value!r}; use true or false")


def _tolerance(value: str) -> float:
    points = _points(value, "tolerance")
    if points is None:  # the caller fills an empty input with the default
        raise InputError("input 'tolerance' is empty")
    return points


def _points(value: str, name: str) -> float | None:
    """A number of normalized points between 0 and 100; an empty input is None."""
    if not value:
        return None
    try:
        points = float(value)
    except ValueError:
        raise InputError(f"input '{name}' is {value!r}, not a number") from None
    if not 0.0 <= points <= 100.0:
        raise InputError(
            f"input '{name}' is {value}; use a number of normalized points between 0 and 100"
        )
    return points
