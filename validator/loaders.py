"""Loaders: the only place that reads files. Everything they return is plain data.

Results files are parsed (documents.py) as JSON that may carry NaN/Infinity
tokens (lm-eval writes them); duplicate keys are refused, because which value
"wins" would otherwise depend on the parser. Profiles are YAML or JSON and
must pass schemas/profile.schema.json before they are used.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

from .documents import DocumentError, kind_of, parse_document
from .errors import ConfigError, DataError
from .profile import Profile, build_profile
from .readers import read_results
from .results import HarnessResults

PROFILE_SCHEMA = "profile.schema.json"


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


def parse(text: str, origin: str, kind: str, error: type[Exception] = DataError) -> Any:
    """JSON (NaN tokens allowed, duplicate keys refused) or safe YAML, with line:column in errors."""
    try:
        return parse_document(text, origin, kind).data
    except DocumentError as exc:
        where = f":{exc.line}:{exc.column}" if exc.line else ""
        raise error(f"{origin}{where}: {exc.message}") from None


def load_results(path: Path) -> HarnessResults:
    doc = parse(read_text(path), str(path), kind_of(path))
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
    return _profile_from_text(text, f"'{name}' (built-in)", "yaml")


def load_profile_file(path: Path) -> Profile:
    text = read_text(path, ConfigError)
    return _profile_from_text(text, str(path), "json" if path.suffix.lower() == ".json" else "yaml")


def _profile_from_text(text: str, origin: str, kind: str) -> Profile:
    data = parse(text, origin, kind, ConfigError)
    errors = sorted(_profile_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = "; ".join(f"at {e.json_path}: {e.message}" for e in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise ConfigError(f"profile {origin} does not match {PROFILE_SCHEMA}: {first}{more}")
    return build_profile(data, origin)


@functools.cache
def _profile_validator():
    import jsonschema

    schema = json.loads((resources.files("validator") / "schemas" / PROFILE_SCHEMA).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)
