"""`lbnorm profile check`: every problem of a profile file, each at its line.

The same checks as --profile-file (schemas/profile.schema.json, then the
cross-references of core/profile.py), but all of them at once and with
positions, the way a linter reports. A placeholder left by `profile derive`
("FILL IN: ...") fails the schema where it stands and is named as such.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.profile import cross_reference_problems as profile_cross_references
from ..io.documents import Document, DocumentError, parse_document
from ..io.loaders import PROFILE_SCHEMA, package_files, read_untrusted

PLACEHOLDER = "FILL IN"
MAX_PROBLEMS = 200  # a profile with more problems than this is not a draft worth reading to the end
_QUOTED = re.compile(r"(benchmark|task|source) (?:id |name )?'([^']+)'")


@dataclass(frozen=True)
class ProfileProblem:
    line: int | None
    column: int | None
    message: str
    rule: str = ""  # the LB1xx rule of a file that cannot be read ('' for a profile's own problems)

    def shown(self, path: str) -> str:
        """The finding line every command prints: `path:line:col: RULE name [error] message`."""
        where = f"{path}:{self.line}:{self.column}" if self.line else path
        rule = f"{self.rule} {_rule_name(self.rule)} " if self.rule else ""
        message = self.message.removeprefix(f"{path}: ")
        return f"{where}: {rule}[error] {message}"


def _rule_name(rule_id: str) -> str:
    from ..findings.registry import RULES

    return RULES[rule_id].name if rule_id in RULES else ""


def check_profile_file(path: Path) -> list[ProfileProblem]:
    """Every problem of the profile at `path`, in file order; [] when it can be used."""
    try:
        document = parse_document(read_untrusted(path), str(path), kind_of_profile(path))
    except DocumentError as exc:
        return [ProfileProblem(exc.line, exc.column, exc.message, exc.rule)]
    problems = placeholder_problems(document.data, document) + schema_problems(document)
    if not problems:
        problems = cross_reference_problems(document)
    return sorted(problems, key=lambda p: (p.line or 0, p.column or 0))[:MAX_PROBLEMS]


def kind_of_profile(path: Path) -> str:
    """Profiles are YAML unless they end in .json (as --profile-file reads them)."""
    return "json" if path.suffix.lower() == ".json" else "yaml"


def placeholder_problems(value, document: Document, path: tuple = ()) -> list[ProfileProblem]:
    """Every "FILL IN: ..." string, wherever it stands (the schema rejects most, not all: a filter is any string)."""
    if isinstance(value, str):
        if value.startswith(PLACEHOLDER):
            return [
                ProfileProblem(
                    *document.position(path), f"placeholder to fill in at {_dotted(path)}: {value}"
                )
            ]
        return []
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    return [
        problem
        for key, item in items
        for problem in placeholder_problems(item, document, (*path, key))
    ]


def schema_problems(document: Document) -> list[ProfileProblem]:
    problems = []
    for error in _validator().iter_errors(document.data):
        if _holds_placeholder(error.instance):
            continue  # placeholder_problems names it
        path = tuple(error.absolute_path)
        problems.append(
            ProfileProblem(*document.position(path), f"{_dotted(path)}: {error.message}")
        )
    return problems


def _holds_placeholder(instance) -> bool:
    if isinstance(instance, str):
        return instance.startswith(PLACEHOLDER)
    return isinstance(instance, list) and any(_holds_placeholder(item) for item in instance)


def cross_reference_problems(document: Document) -> list[ProfileProblem]:
    """What build_profile refuses (ids in the average exist, choice counts known...), placed at the thing named."""
    return [
        ProfileProblem(*_place(document, message), message)
        for message in profile_cross_references(document.data)
    ]


def _place(document: Document, message: str) -> tuple[int | None, int | None]:
    """The line of the benchmark, task or source a cross-reference message names first."""
    data = document.data
    for kind, name in _QUOTED.findall(message):
        for b, bench in enumerate(data["benchmarks"]):
            if kind == "benchmark" and bench.get("id") == name:
                return document.position(("benchmarks", b, "id"))
            for t, task in enumerate(bench.get("tasks", ())):
                if kind == "task" and name in (task.get("task"), *task.get("aliases", ())):
                    return document.position(("benchmarks", b, "tasks", t))
    if message.startswith("average.order"):
        return document.position(("average", "order"))
    return None, None


def _dotted(path: tuple) -> str:
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    return text.lstrip(".") or "(top level)"


@functools.cache
def _validator():
    import jsonschema

    schema = json.loads((package_files() / "schemas" / PROFILE_SCHEMA).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)
