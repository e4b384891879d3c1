"""Error types and the exit codes they map to.

Exit codes are a contract with CI scripts and the GitHub Action:
0 success, 1 bad data (a submitted file), 2 bad usage (command line),
3 a problem with the tool's own configuration (a profile file) or an
internal error. A traceback is never the answer to bad data.
"""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    DATA = 1
    USAGE = 2
    CONFIG = 3
    INTERRUPTED = 130  # Ctrl-C, as shells report a command SIGINT ended (128 + 2)


class LbnormError(Exception):
    """Base class: an expected failure with a one-line, user-facing message."""

    exit_code = ExitCode.CONFIG


class DataError(LbnormError):
    """A submitted file cannot be read or normalized."""

    exit_code = ExitCode.DATA


class ConfigError(LbnormError):
    """A profile (built-in or --profile-file) is missing or invalid."""

    exit_code = ExitCode.CONFIG


class FoldedKeys(DataError):
    """Two keys of a submitted file that a reader takes for one (acc and acc,none; two names of one task).

    Which of the two values a reader keeps would decide the score while the other one is audited, so the file is
    refused (LB103) at `path`, the JSON path of the second key."""

    rule = "LB103"

    def __init__(self, message: str, path: tuple = ()):
        super().__init__(message)
        self.path = path
