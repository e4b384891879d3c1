"""Resource limits for untrusted input, with defaults a maintainer can change.

Whoever opens a pull request controls the size and shape of every file, so
each dimension that costs time or memory has a cap and a rule id (LB106-LB109).
The defaults leave room for real files: lm-eval 0.4 results carry every
task's `configs` and run to a few MB; their nesting stays under 15 levels.
"""

import re
from typing import NamedTuple

KIB, MIB, GIB = 1024, 1024**2, 1024**3
# Parsers and our walks recurse once per level: no option may allow more than this.
MAX_DEPTH_CEILING = 500
_SIZE = (
    r"(?P<number>\d+)\s*(?P<unit>[kmg]?)(?:i?b)?"  # compiled by re the first time a size is given
)


class Limits(NamedTuple):
    """Every input bound, with the rule that reports going past it: what a submitter's file can make a run spend."""

    max_file_bytes: int = (
        64 * MIB
    )  # LB106; MTEB's results repo caps at 10 MB, lm-eval files reach a few MB
    max_files: int = 20_000  # LB107; a 5,000-submission re-audit matches 10,000 files
    max_depth: int = 64  # LB108; nesting of objects and arrays (at most MAX_DEPTH_CEILING)
    max_string_length: int = 1_000_000  # LB109; characters in one string or key
    max_log_bytes: int = 4 * GIB  # LB106 for a sample log; MMLU-Pro's log alone runs to ~600 MB
    max_log_records: int = (
        500_000  # LB106 for a sample log; MMLU-Pro logs 12,032 records, each costs ~20 us
    )
    max_values: int = (
        1_000_000  # LB112; values in one file or log record (an lm-eval results file: ~20,000)
    )
    # Remote stores (survey): seconds a connection or a read may stay silent, and to list one source's tree.
    remote_timeout: float = 60.0  # LB101; a Hub or bucket answers in well under a second
    listing_timeout: float = 600.0  # a 5,000-folder tree over HTTP lists in about a minute
    remote_retries: int = (
        3  # a transient remote error (reset, 503, timeout) is retried this often per file
    )
    # Seconds one unit of survey work (a log's audit) may run; a 1 GB log audits in well under a minute.
    unit_timeout: float = 600.0


DEFAULT_LIMITS = Limits()

# The same names are the CLI options and the Action inputs (documented in README).
LIMIT_OPTIONS = {
    "max_file_bytes": "--max-file-size",
    "max_files": "--max-files",
    "max_depth": "--max-depth",
    "max_string_length": "--max-string-length",
    "max_log_bytes": "--max-log-size",
    "max_values": "--max-values",
    "max_log_records": "--max-log-records",
    "remote_timeout": "--remote-timeout",
    "listing_timeout": "--listing-timeout",
    "unit_timeout": "--unit-timeout",
    "remote_retries": "--remote-retries",
}


def parse_size(text: str) -> int:
    """'64M', '64MiB', '10MB', '500k' or a plain number of bytes; K, M and G are powers of 1024."""
    match = re.fullmatch(_SIZE, text.strip(), re.IGNORECASE)
    if not match:
        raise ValueError(
            f"{text!r} is not a size; write a number of bytes or use K, M or G (e.g. 64M)"
        )
    factor = {"": 1, "k": KIB, "m": MIB, "g": GIB}[match["unit"].lower()]
    return int(match["number"]) * factor


def describe_size(size: int) -> str:
    for unit, factor in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size:,} bytes"
