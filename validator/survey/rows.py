"""The survey table's row: one run x task, flat enough for CSV and Parquet.

COLUMNS fixes the order. `metrics` (every metric's reported / from-samples /
recomputed value) and `rules` (findings counted by rule id) are nested in
JSON lines and written as JSON text in CSV and Parquet.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from contextvars import ContextVar
from typing import Any, cast

from ..audit.model import TaskAudit
from ..check import rules as _rules  # noqa: F401  (registers the check's rules that rows name: LB101, LB111, LB404)
from ..findings.model import ERROR, WARNING, Finding
from ..findings.selection import RuleSelection
from ..io.safe_text import one_line

COLUMNS = (
    "run",
    "model",
    "task",
    "log",
    "status",
    "samples",
    "expected",
    "hashes_checked",
    "hash_mismatches",
    "task_hash",
    "metric",
    "reported",
    "from_samples",
    "recomputed",
    "max_abs_diff",
    "published_metric",
    "published",
    "published_diff",
    "reproduced",
    "drop_n",
    "em_recomputed",
    "f1_recomputed",
    "em_nl",
    "f1_nl",
    "em_nl_lstrip",
    "f1_nl_lstrip",
    "f1_ws",
    "rate_W",
    "rate_W_impacting",
    "rate_D",
    "rate_D_prime",
    "rate_L",
    "errors",
    "warnings",
    "rules",
    "first_finding",
    "error",
    "retries",
    "notes",
    "metrics",
)
NOTES_SEPARATOR = " | "  # between a row's notes, in its one-line `notes` cell
NESTED = ("rules", "metrics")
DROP_COLUMNS = (
    "em_recomputed",
    "f1_recomputed",
    "em_nl",
    "f1_nl",
    "em_nl_lstrip",
    "f1_nl_lstrip",
    "f1_ws",
    "rate_W",
    "rate_W_impacting",
    "rate_D",
    "rate_D_prime",
    "rate_L",
)
MAX_METRICS = (
    100  # per row; a results entry can list any number of metrics (the findings still cover all)
)
# The metric a row shows first when no published score names one: what leaderboards publish.
_HEADLINE = ("f1,none", "acc_norm,none", "acc,none", "exact_match,none")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """Text UTF-8 can write. os.fsdecode keeps a file name's bytes that are not UTF-8 as lone surrogates, and a
    JSON file can spell one (\\udcff): such a byte is shown as \\xff, any other lone surrogate as \\udXXX. The
    file itself is still opened by its real name."""
    return LONE_SURROGATE.sub(_escaped, text)


def _escaped(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def blank_row(run: str, model: str, task: str, log: str) -> dict:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        run=run,
        model=model,
        task=task,
        log=log,
        errors=0,
        warnings=0,
        retries=0,
        rules={},
        metrics={},
    )
    return row


def finding_row(
    run: str, model: str, task: str, log: str, status: str, findings: list[Finding]
) -> dict:
    row = blank_row(run, model, task, log)
    row["status"] = status
    _count_findings(row, findings)
    return row


def task_row(
    run: str, model: str, task: str, log: str, audit: TaskAudit | None, findings: list[Finding]
) -> dict:
    row = blank_row(run, model, task, log)
    _count_findings(row, findings)
    if (
        audit is None
    ):  # the log was refused before a line was read (a link out of its folder, not a file)
        row.update(
            status="not audited", error=findings[0].message if findings else "the log was not read"
        )
        return row
    row["status"] = (
        "findings" if row["rules"] else "ok"
    )  # the rules selected: an ignored rule's finding is not one
    if audit.notes:  # what the audit could not check: an "ok" row says how far it goes
        row["notes"] = one_line(printable(NOTES_SEPARATOR.join(audit.notes)), 1000)
    row.update(
        samples=audit.samples,
        expected=audit.expected,
        hashes_checked=audit.hashes_checked,
        hash_mismatches=audit.hash_mismatches,
        task_hash=audit.task_hash,
    )
    row["metrics"] = {
        m.key: {
            "reported": number(m.reported),
            "from_samples": number(m.from_samples),
            "recomputed": number(m.recomputed),
        }
        for m in audit.metrics[:MAX_METRICS]
    }
    _headline(row)
    if audit.drop is not None:
        drop = audit.drop.as_dict()
        row["drop_n"] = drop["n"]
        row.update({name: number(drop.get(name)) for name in DROP_COLUMNS})
    return row


def with_metrics(row: dict, metrics: dict) -> dict:
    """The row with these metrics ({key: {"reported", "from_samples", "recomputed"}}) and its headline."""
    row["metrics"] = {
        key: {name: number(value) for name, value in values.items()}
        for key, values in list(metrics.items())[:MAX_METRICS]
    }
    _headline(row)
    return row


def _headline(row: dict) -> None:
    metrics = row["metrics"]
    if not metrics:
        return
    key = next(
        (k for k in _HEADLINE if k in metrics), next(iter(metrics))
    )  # else the results file's first
    values = metrics[key]
    row.update(
        metric=key,
        reported=values["reported"],
        from_samples=values["from_samples"],
        recomputed=values["recomputed"],
    )
    differences = [
        abs(v["reported"] - other)
        for v in metrics.values()
        if v["reported"] is not None
        for other in (v["from_samples"], v["recomputed"])
        if other is not None
    ]
    row["max_abs_diff"] = max(differences) if differences else None


# The maintainer's rule selection for the unit being run (work.run_unit sets it): a row counts the findings of
# the rules selected, each at the severity the maintainer chose; rules that mean "could not be judged" are
# always counted, at their own severity (findings.selection).
SELECTION: ContextVar[RuleSelection | None] = ContextVar("selection", default=None)


def _count_findings(row: dict, findings: list[Finding]) -> None:
    selection = SELECTION.get()
    if selection is not None:
        findings = selection.apply(findings)
    row["errors"] = sum(1 for f in findings if f.severity == ERROR)
    row["warnings"] = sum(1 for f in findings if f.severity == WARNING)
    row["rules"] = dict(sorted(Counter(f.rule for f in findings).items()))
    first = min(findings, key=lambda f: (f.severity != ERROR, f.rule, f.line or 0), default=None)
    if first is not None:
        where = f" (line {first.line})" if first.line else ""
        # printable first: one_line would show a name's \\xff as \\udcff, not as the row's `log` shows it.
        row["first_finding"] = one_line(
            printable(f"{first.rule} {first.file}{where}: {first.message}"), 400
        )


def number(value: Any) -> float | None:
    """Numbers as floats (lm-eval logs 0 and 1.0 alike); anything else, NaN, infinities and integers no float
    holds (a submitter's 400 digits: isfinite raised on them) as None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def plain(value: Any) -> Any:
    """The row as JSON can hold it: a submitter's 1e308 - (-1e308) is inf, and inf is no JSON number."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# Rows of something that was not audited at all: a unit that failed, a run without logs or whose results
# cannot be read, a log placed under no task, a repeat, a folder not listed. They fail a survey whatever the
# rule selection says (a maintainer's --select that leaves their findings out must not pass them); a task
# without a log ("no log") is LB707's, which a leaderboard that accepts partial logs may demote.
def is_unclaimed_log(row: dict) -> bool:
    """A row of a sample log no results file claims (layout.ORPHAN_LOG): it stands in for a run, but is none."""
    return row["status"] == "unplaced log" and row["run"] == row["log"]


UNJUDGED = frozenset(
    {
        "failed",
        "not audited",
        "no logs",
        "unreadable results",
        "unplaced log",
        "duplicate run",
        "unlisted folder",
    }
)


def sort_key(row: dict) -> tuple:
    return (row["run"], row["task"], row["log"], row["status"] or "")


_NONE = type(None)
_NUMBER = (float, int, _NONE)
_TYPES = {
    **dict.fromkeys(("run", "model", "task", "log"), (str,)),
    **dict.fromkeys(
        ("status", "task_hash", "metric", "published_metric", "first_finding", "error", "notes"),
        (str, _NONE),
    ),
    **dict.fromkeys(
        ("samples", "expected", "hashes_checked", "hash_mismatches", "drop_n"), (int, _NONE)
    ),
    "errors": (int,),
    "warnings": (int,),
    "reproduced": (bool, _NONE),
    "rules": (dict,),
    "metrics": (dict,),
}
_COLUMN_TYPES = tuple((column, _TYPES.get(column, _NUMBER)) for column in COLUMNS)
_METRIC_VALUES = ("reported", "from_samples", "recomputed")
_PUBLISHED_VALUES = ("published", "published_diff")
_JSON_KIND = {
    dict: "object",
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    _NONE: "null",
}


def rows_problem(rows: object) -> str | None:
    """Why `rows` (a unit's, read back from JSON) are not the survey's rows, or None: a list of objects with
    exactly the table's columns, each of its type, numbers finite and within 64 bits (Parquet), text that UTF-8
    can write. The tables, the summary and the exit code read every one of these without checking again."""
    if type(rows) is not list:
        return f"its rows are a JSON {_JSON_KIND.get(type(rows), 'value')}, not a list"
    for number, row in enumerate(rows, start=1):
        problem = _row_problem(row)
        if problem:
            return f"row {number}: {problem}"
    return None


def _row_problem(row: object) -> str | None:
    if type(row) is not dict:
        return f"a JSON {_JSON_KIND.get(type(row), 'value')}, not an object"
    if len(row) != len(COLUMNS) or not all(column in row for column in COLUMNS):
        missing = [column for column in COLUMNS if column not in row]
        return f"no column {missing[0]!r}" if missing else "a column the table does not have"
    for column, types in _COLUMN_TYPES:
        if not _sound(row[column], types):
            return f"{column!r} cannot hold {_shown(row[column])}"
    rules = row["rules"]
    if not all(_sound(rule, (str,)) and _sound(count, (int,)) for rule, count in rules.items()):
        return f"'rules' cannot hold {_shown(rules)}"
    for key, entry in row["metrics"].items():
        if not _sound(key, (str,)) or _metric_problem(entry):
            return f"'metrics' cannot hold {_shown(key)}: {_shown(entry)}"
    return None


def _metric_problem(entry: object) -> bool:
    """An entry is {reported, from_samples, recomputed}, and with a published score {published, published_diff,
    reproduced} too (the summary reads all three of a score not reproduced)."""
    if type(entry) is not dict or not all(
        _sound(entry.get(name, ""), _NUMBER) for name in _METRIC_VALUES
    ):
        return True
    if len(entry) == len(_METRIC_VALUES):
        return False
    return (
        len(entry) != len(_METRIC_VALUES) + 3
        or not _sound(entry.get("reproduced"), (bool,))
        or not all(_sound(entry.get(name, ""), _NUMBER) for name in _PUBLISHED_VALUES)
    )


def _sound(value: object, types: tuple) -> bool:
    kind = type(value)
    if kind not in types:
        return False
    if kind is float:
        return math.isfinite(cast(float, value))
    if kind is int:
        return -(1 << 63) <= cast(int, value) < 1 << 63
    return kind is not str or not LONE_SURROGATE.search(cast(str, value))


def _shown(value: object) -> str:
    text = (
        repr(value) if type(value) is float else json.dumps(value)
    )  # repr: nan and inf as Python says them
    return text if len(text) <= 60 else f"{text[:50]}... ({len(text):,} characters)"
