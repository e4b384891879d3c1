"""Loaders: the only place that reads files. Everything they return is plain data.

Results files are parsed as JSON that may carry NaN/Infinity tokens (lm-eval
writes them); duplicate keys are refused, because which value "wins" would
otherwise depend on the parser. Profiles are YAML or JSON and must pass
schemas/profile.schema.json before they are used.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

from .errors import ConfigError, DataError
from .profile import Profile, build_profile
from .readers import read_results
from .results import HarnessResults

PROFILE_SCHEMA = "profile.schema.json"


class DuplicateKeyError(ValueError):
    pass


def read_text(path: Path, error: type[Exception] = DataError) -> str:
    """Read UTF-8 (a BOM is allowed); other bytes are an error naming the offset."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise error(f"{path}: is a directory, expected a file") from None
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: byte offset {exc.start} is not UTF-8; save the file as UTF-8") from None


def parse_json(text: str, origin: str, error: type[Exception] = DataError) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_refuse_duplicates)
    except json.JSONDecodeError as exc:
        raise error(f"{origin}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except DuplicateKeyError as exc:
        raise error(f"{origin}: {exc}") from None
    except RecursionError:
        raise error(f"{origin}: nesting is too deep to be a results file") from None


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(f"key '{key}' appears twice in one object; keep one value")
            seen.add(key)
    return obj


def load_results(path: Path) -> HarnessResults:
    doc = parse_json(read_text(path), str(path))
    try:
        return read_results(doc)
    except DataError as exc:
        raise DataError(f"{path}: {exc}") from None


# --- profiles ---------------------------------------------------------------------

def builtin_profile_names() -> list[str]:
    folder = resources.files("validator") / "profiles"
    return sorted(p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml"))


@functools.cache
def load_builtin_profile(name: str) -> Profile:
    if name not in builtin_profile_names():
        raise ConfigError(f"unknown profile '{name}'; built-in profiles: {', '.join(builtin_profile_names())}")
    text = (resources.files("validator") / "profiles" / f"{name}.yaml").read_text(encoding="utf-8")
    return _profile_from_text(text, f"'{name}' (built-in)", yaml_text=True)


def load_profile_file(path: Path) -> Profile:
    text = read_text(path, ConfigError)
    return _profile_from_text(text, str(path), yaml_text=path.suffix.lower() != ".json")


def _profile_from_text(text: str, origin: str, yaml_text: bool) -> Profile:
    data = _parse_yaml(text, origin) if yaml_text else parse_json(text, origin, ConfigError)
    errors = sorted(_profile_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = "; ".join(f"at {e.json_path}: {e.message}" for e in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise ConfigError(f"profile {origin} does not match {PROFILE_SCHEMA}: {first}{more}")
    return build_profile(data, origin)


def _parse_yaml(text: str, origin: str) -> Any:
    import yaml  # imported here: only profile files need it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{origin}{where}: not valid YAML: {problem}") from None


@functools.cache
def _profile_validator():
    import jsonschema

    schema = json.loads((resources.files("validator") / "schemas" / PROFILE_SCHEMA).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)
