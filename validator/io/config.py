"""Finding and reading the configuration file, as ruff does.

From the current directory upward, the first `.lbnorm.toml`, or
`pyproject.toml` with a `[tool.lbnorm]` table, is the configuration; a
`pyproject.toml` without that table is passed over. The search stops at
the top of a git repository, so a checkout never picks up settings from
the folders around it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import ConfigError
from ..core.settings import Settings, settings_from_mapping
from .limits import DEFAULT_LIMITS, Limits, parse_size
from .loaders import read_untrusted

CONFIG_NAMES = (".lbnorm.toml", "pyproject.toml")
MAX_CONFIG_BYTES = 1024 * 1024


def find_config(start: Path) -> Path | None:
    """The nearest configuration file at or above `start`, or None."""
    for folder in (start, *start.parents):
        dedicated = folder / ".lbnorm.toml"
        if dedicated.is_file():
            return dedicated
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and _has_lbnorm_table(pyproject):
            return pyproject
        if (folder / ".git").exists():
            return None
    return None


def read_config(path: Path) -> Settings:
    """The settings in a `.lbnorm.toml` (top level or [tool.lbnorm]) or a pyproject.toml's [tool.lbnorm]."""
    table = _lbnorm_table(path, _parse(path))
    settings = settings_from_mapping(table, str(path))
    if settings.profile_file:  # written relative to the configuration file, as ruff's paths are
        settings = settings._replace(profile_file=str(path.parent / settings.profile_file))
    return settings


def limits_of(settings: Settings, base: Limits = DEFAULT_LIMITS) -> Limits:
    values = {}
    for name, value in settings.limits.items():
        try:
            values[name] = parse_size(value) if isinstance(value, str) else value
        except ValueError as exc:
            raise ConfigError(f"{settings.source}: {exc}") from None
    return base._replace(**values)


def _has_lbnorm_table(path: Path) -> bool:
    try:
        return isinstance(_parse(path).get("tool", {}).get("lbnorm"), dict)
    except ConfigError:
        return (
            False  # someone else's broken pyproject.toml is not ours to report unless it is named
        )


def _parse(path: Path) -> dict[str, Any]:
    try:
        text = read_untrusted(path, Limits(max_file_bytes=MAX_CONFIG_BYTES))
    except Exception as exc:  # DocumentError or OSError: the file cannot be read
        raise ConfigError(f"{path}: cannot be read ({getattr(exc, 'message', exc)})") from None
    import tomllib  # here: most runs find no TOML file, and its parser's import is a millisecond or two

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _lbnorm_table(path: Path, document: dict[str, Any]) -> dict[str, Any]:
    tool = (
        document.get("tool", {}).get("lbnorm") if isinstance(document.get("tool"), dict) else None
    )
    if path.name == "pyproject.toml":
        if not isinstance(tool, dict):
            raise ConfigError(f"{path}: no [tool.lbnorm] table")
        return tool
    return tool if isinstance(tool, dict) else document
