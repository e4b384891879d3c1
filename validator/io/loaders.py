"""Loaders: the only place that reads files. Everything they return is plain data.

Results files are parsed (documents.py) as JSON that may carry NaN/Infinity
tokens (lm-eval writes them); duplicate keys are refused, because which value
"wins" would otherwise depend on the parser. Profiles are YAML or JSON and
must pass schemas/profile.schema.json before they are used.
"""

from __future__ import annotations

import functools
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import ConfigError, DataError, FoldedKeys
from ..core.results import HarnessResults
from .documents import Document, DocumentError, kind_of, parse_document
from .limits import DEFAULT_LIMITS, LIMIT_OPTIONS, Limits, describe_size

# The profile model is imported where a profile is built: an audit of tasks no built-in profile names
# never loads it (a fresh process's start-up).
if TYPE_CHECKING:
    from ..core.profile import Profile

PROFILE_SCHEMA = "profile.schema.json"


def module_names(package_path: list[str]) -> list[str]:
    """The modules of a package, sorted, as pkgutil.iter_modules(package.__path__) names them: the .py files of
    its folder, listed without importing pkgutil (a fresh audit's start-up); through pkgutil for a package
    imported from an archive."""
    names: set[str] = set()
    for folder in package_path:
        try:
            entries = os.listdir(folder)
        except OSError:
            import pkgutil

            return sorted(module.name for module in pkgutil.iter_modules(package_path))
        names.update(
            entry[:-3] for entry in entries if entry.endswith(".py") and entry != "__init__.py"
        )
    return sorted(names)


def package_files():
    """The package's own files (profiles, schemas, templates): its folder, where every install
    pip makes puts it. Only a package imported from an archive goes through importlib.resources,
    which takes longer to import than a one-file check takes to read its files."""
    folder = Path(__file__).parent.parent
    if (folder / "profiles").is_dir():
        return folder
    from importlib import resources

    return resources.files("validator")


# Sample-log lines run to kilobytes: readline on the default 8 KiB buffer took three times as long as on
# 1 MiB (bench/survey_bench.py's DROP logs), a tenth of the audit's time.
READ_BUFFER = 1 << 20


def open_regular_file(
    path: Path, max_bytes: int, what: str = "file", option: str = "max_file_bytes"
):
    """A binary handle on a regular file no bigger than max_bytes.

    Raises DocumentError (LB101 unreadable or not a regular file, LB106 too
    large). The file is opened without blocking and checked after opening,
    so a FIFO or device that replaced a checked path can still not hang or
    flood the reader.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise DocumentError("LB101", "no such file") from None
    except OSError as exc:
        raise DocumentError("LB101", f"cannot be read ({exc.strerror or exc})") from None
    handle = os.fdopen(fd, "rb", buffering=READ_BUFFER)
    mode, size = (info := os.fstat(handle.fileno())).st_mode, info.st_size
    problem = None
    if stat.S_ISDIR(mode):
        problem = DocumentError("LB101", "is a directory, expected a file")
    elif not stat.S_ISREG(mode):
        problem = DocumentError(
            "LB101", "is not a regular file (a FIFO, device or socket); it is not read"
        )
    elif size > max_bytes:
        problem = DocumentError("LB106", _too_large(size, max_bytes, what, option))
    if problem:
        handle.close()
        raise problem
    return handle


def read_at_most(handle, limit: int) -> bytes:
    """handle.read(limit), a buffer at a time: a buffered file's read(n) allocates n bytes before reading
    (64 MB for the default limit, whatever the file holds)."""
    chunks, total = [], 0
    while total < limit:
        chunk = handle.read(min(READ_BUFFER, limit - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def sha256_of(path: Path, limits: Limits = DEFAULT_LIMITS) -> str:
    """The SHA-256 of a regular file within max_file_bytes (DocumentError otherwise), read by chunks."""
    import hashlib  # loading OpenSSL is a tenth of a start-up: only leaderboard checks hash

    digest = hashlib.sha256()
    with open_regular_file(path, limits.max_file_bytes) as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def read_untrusted(path: Path, limits: Limits = DEFAULT_LIMITS) -> str:
    """The text of a regular file no bigger than the limit: UTF-8, with or without a BOM (see open_regular_file)."""
    with open_regular_file(path, limits.max_file_bytes) as handle:
        data = read_at_most(handle, limits.max_file_bytes + 1)
    if len(data) > limits.max_file_bytes:
        raise DocumentError("LB106", _too_large(len(data), limits.max_file_bytes))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            "LB101", f"byte offset {exc.start} is not UTF-8; save the file as UTF-8"
        ) from None


def _too_large(size: int, limit: int, what: str = "file", option: str = "max_file_bytes") -> str:
    return (
        f"the {what} has {size:,} bytes, more than the limit of {describe_size(limit)} "
        f"(raise {LIMIT_OPTIONS[option]} if this {what} is honest)"
    )


def read_document(path: Path, display_path: str, limits: Limits = DEFAULT_LIMITS) -> Document:
    """Read and parse one untrusted file; DocumentError carries the rule id and position."""
    return parse_document(read_untrusted(path, limits), display_path, kind_of(path), limits)


def read_text(
    path: Path, error: type[Exception] = DataError, limits: Limits = DEFAULT_LIMITS
) -> str:
    """read_untrusted() for the CLI's own arguments: errors become `error` and name the path."""
    try:
        return read_untrusted(path, limits)
    except DocumentError as exc:
        raise _with_rule(error(f"{path}: {exc.message}"), exc.rule) from None


def parse(
    text: str,
    origin: str,
    kind: str,
    error: type[Exception] = DataError,
    limits: Limits = DEFAULT_LIMITS,
) -> Any:
    """JSON (NaN tokens allowed, duplicate keys refused) or safe YAML, with line:column in errors."""
    try:
        return parse_document(text, origin, kind, limits).data
    except DocumentError as exc:
        where = f":{exc.line}:{exc.column}" if exc.line else ""
        raise _with_rule(error(f"{origin}{where}: {exc.message}"), exc.rule) from None


def _with_rule(error: Exception, rule: str) -> Exception:
    """The error, carrying the LB1xx rule the file breaks (normalize reports it as check does)."""
    error.rule = rule  # type: ignore[attr-defined]
    return error


def load_results(path: Path, limits: Limits = DEFAULT_LIMITS) -> HarnessResults:
    # Imported here: an audit reads no results file this way (a fresh audit's start-up)
    from .readers import read_results

    doc = parse(read_text(path, limits=limits), str(path), kind_of(path), limits=limits)
    try:
        return read_results(doc)
    except FoldedKeys as exc:
        raise FoldedKeys(f"{where(path, exc.path, limits)}: {exc}", exc.path) from None
    except DataError as exc:
        raise DataError(f"{path}: {exc}") from None


def where(path: Path, json_path: tuple, limits: Limits = DEFAULT_LIMITS) -> str:
    """'file:line:column' of a JSON path in a file (read again: only a refused file asks)."""
    line, column = read_document(path, str(path), limits).position(json_path)
    return f"{path}:{line}:{column}" if line else str(path)


# --- profiles ---------------------------------------------------------------------


# The built-in profile a submission is checked with when neither it nor the maintainer names one:
# the one place this name is set (the command line's help takes it from here).
DEFAULT_PROFILE = "open-llm-leaderboard-v2"


@functools.cache  # the audit asks for every task it meets, and the package's folder does not change
def builtin_profile_names() -> tuple[str, ...]:
    folder = package_files() / "profiles"
    return tuple(
        sorted(p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml"))
    )


@functools.cache
def builtin_profile_text(name: str) -> str:
    """A built-in profile's YAML text (`name` one of builtin_profile_names()). read_text ends its lines with
    "\n" whatever the checkout wrote (CRLF on Windows), so its parsed copy's CRC-32 holds on every system."""
    return (package_files() / "profiles" / f"{name}.yaml").read_text(encoding="utf-8")


def builtin_profile_yaml(name: str) -> Any:
    """A built-in profile's YAML parsed as every profile file is (safe YAML, duplicate keys refused): what its
    parsed copy holds, and what a run reads when the copy is not of its text."""
    return parse(builtin_profile_text(name), builtin_origin(name), "yaml", ConfigError)


def builtin_origin(name: str) -> str:
    """How messages name a built-in profile."""
    return f"'{name}' (built-in)"


@functools.cache
def load_builtin_profile(name: str, validate: bool = False) -> Profile:
    """A profile shipped in the package.

    Built-in profiles are validated against the schema by the test suite
    (tests/unit/test_profiles.py), so a run skips the schema: compiling it costs
    more than the rest of a one-file check. Cross-references are still checked.
    """
    if name not in builtin_profile_names():
        raise ConfigError(
            f"unknown profile '{name}'; built-in profiles: {', '.join(builtin_profile_names())}"
        )
    text = builtin_profile_text(name)
    origin = builtin_origin(name)
    if validate:
        return _profile_from_text(text, origin, "yaml")
    data = parsed_profile(name, text)
    if data is None:  # no parsed copy, or one of another text: the YAML itself
        data = builtin_profile_yaml(name)
    return _build(data, origin)


# Importing PyYAML costs more than the rest of a one-file check; each built-in profile therefore ships
# with its YAML parsed into JSON (profiles/parsed/<name>.json, written by scripts/parse_profiles.py).
# The copy names the CRC-32 and length of the text it was parsed from, and is used only for that text:
# a profile edited without writing its copy again is read from its YAML (tests/unit/test_profiles.py
# fails on a stale copy, so none ships). CRC-32, not sha256: hashlib would load OpenSSL, and a stale
# copy is a slip to catch, not an attack (the package's own files are not a submitter's).
PARSED_PROFILES = "profiles/parsed"


def parsed_profile_copy(name: str, text: str, data: Any) -> dict[str, Any]:
    """The parsed copy of a built-in profile: its YAML `text`, parsed to `data`."""
    return {
        "parsed_from": f"{name}.yaml",
        "text_crc32": _crc32(text),
        "text_length": len(text),
        "profile": data,
    }


def parsed_profile(name: str, text: str, folder: Path | None = None) -> Any:
    """The profile data of the parsed copy of `name`, if there is one and it was parsed from `text`."""
    path = (folder or package_files() / PARSED_PROFILES) / f"{name}.json"
    try:
        copy = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (
        isinstance(copy, dict)
        and copy.get("text_length") == len(text)
        and copy.get("text_crc32") == _crc32(text)
    ):
        return None
    return copy.get("profile")


def _crc32(text: str) -> int:
    import zlib  # here: an audit of tasks no built-in profile names never loads it

    return zlib.crc32(text.encode("utf-8"))


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
    return _build(data, origin)


def _build(data: Any, origin: str) -> Profile:
    from ..core.profile import build_profile

    return build_profile(data, origin)


@functools.cache
def package_schema(name: str) -> dict:
    """A JSON Schema the package ships (the repository's schemas/ folder)."""
    return json.loads((package_files() / "schemas" / name).read_text(encoding="utf-8"))


def _profile_validator():
    import jsonschema

    schema = json.loads((package_files() / "schemas" / PROFILE_SCHEMA).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)
