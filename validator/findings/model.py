"""A finding: one rule broken at one place of one file."""

from typing import NamedTuple

ERROR = "error"
WARNING = "warning"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1}


class Finding(NamedTuple):
    """One rule's report about one place of one file: what every reporter prints, the JSON report's entry."""

    rule: str
    name: str
    severity: str
    file: str
    message: str
    json_path: str | None = None
    line: int | None = None
    column: int | None = None
    details: str | None = None  # what a long message had beyond its short line (JSON, SARIF, -v)

    def sort_key(self) -> tuple:
        """File, line, column, rule, then the rest: a total order, so reports diff cleanly run to run."""
        return (
            self.file,
            self.line or 0,
            self.column or 0,
            self.rule,
            SEVERITY_ORDER[self.severity],
            self.json_path or "",
            self.message,
        )

    def as_dict(self) -> dict:
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "json_path": self.json_path,
            "message": self.message,
            **({"details": self.details} if self.details else {}),
        }


def format_json_path(path: tuple) -> str:
    """('results', 'acc_norm,none', 0) -> $.results['acc_norm,none'][0]"""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isascii() and part.isidentifier():  # [A-Za-z_][A-Za-z0-9_]*
            out += f".{part}"
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out += f"['{escaped}']"
    return out
