"""The JSON reports of `check` and `audit`: one writer, and the schema each follows.

The schemas ship in the package (schemas/report.schema.json for `check` and the
Action, schemas/audit-report.schema.json for `audit`); their `$id` carries the
report's version. Keys are only ever added, each with a new schema version.
"""

from __future__ import annotations

import json
from typing import TextIO

from ..io.loaders import package_schema
from ..io.safe_text import neutralize_json

SCHEMAS = {"check": "report.schema.json", "audit": "audit-report.schema.json"}


def write_report(doc: dict, out: TextIO) -> None:
    """The report as indented ASCII JSON (no NaN: the reporters write null for a value that is not finite)."""
    out.write(neutralize_json(json.dumps(doc, indent=2, ensure_ascii=True, allow_nan=False)) + "\n")


def report_schema(kind: str) -> dict:
    """The JSON Schema of the `check` or `audit` report."""
    return package_schema(SCHEMAS[kind])
