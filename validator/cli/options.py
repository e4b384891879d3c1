"""Options shared by several commands: limits, profiles."""

from __future__ import annotations

from pathlib import Path

import click

from ..core.profile import Profile
from ..io.limits import DEFAULT_LIMITS, MAX_DEPTH_CEILING, Limits, describe_size, parse_size
from ..io.loaders import load_builtin_profile, load_profile_file

DEFAULT_PROFILE = "open-llm-leaderboard-v2"


class SizeType(click.ParamType):
    name = "size"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        try:
            return parse_size(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def limit_options(command):
    """--max-file-size, --max-files, --max-depth, --max-string-length, gathered into `limits`."""
    defaults = DEFAULT_LIMITS
    options = [
        click.option("--max-file-size", "max_file_bytes", type=SizeType(), default=defaults.max_file_bytes,
                     help=f"Largest file read, e.g. 64M [default: {describe_size(defaults.max_file_bytes)}]."),
        click.option("--max-files", type=click.IntRange(min=1), default=defaults.max_files, show_default=True,
                     help="Most files one run checks; more is an error (LB107), not a partial check."),
        click.option("--max-depth", type=click.IntRange(min=1, max=MAX_DEPTH_CEILING), default=defaults.max_depth,
                     show_default=True, help="Deepest nesting of objects and arrays (LB108)."),
        click.option("--max-values", type=click.IntRange(min=1), default=defaults.max_values, show_default=True,
                     help="Most values (numbers, strings, objects, arrays) in one file or log record (LB112)."),
        click.option("--max-string-length", type=click.IntRange(min=1), default=defaults.max_string_length,
                     show_default=True, help="Longest string or key, in characters."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def log_limit_option(command):
    """--max-log-size, for commands that read sample logs."""
    return click.option("--max-log-size", "max_log_bytes", type=SizeType(), default=DEFAULT_LIMITS.max_log_bytes,
                        help="Largest sample log read (logs are streamed, so this bounds time, not memory) "
                             f"[default: {describe_size(DEFAULT_LIMITS.max_log_bytes)}].")(command)


def limits_from(max_file_bytes: int, max_files: int, max_depth: int, max_string_length: int,
                max_log_bytes: int = DEFAULT_LIMITS.max_log_bytes, max_values: int = DEFAULT_LIMITS.max_values) -> Limits:
    return Limits(max_file_bytes=max_file_bytes, max_files=max_files, max_depth=max_depth,
                  max_string_length=max_string_length, max_log_bytes=max_log_bytes, max_values=max_values)


def profile_for_options(name: str | None, file: Path | None) -> Profile | None:
    """The maintainer's profile from --profile / --profile-file, or None when neither is given."""
    if name and file:
        raise click.UsageError("give either --profile or --profile-file, not both")
    if file:
        return load_profile_file(file)
    return load_builtin_profile(name) if name else None
