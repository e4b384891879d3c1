"""Options shared by several commands, and how they combine with the configuration file.

Precedence, as in ruff: built-in defaults, then the configuration file
(.lbnorm.toml or [tool.lbnorm] in pyproject.toml, found upward from the
current directory; --config names one, --isolated ignores them), then the
command line. Options therefore default to None: "not given here".
"""

from __future__ import annotations

from pathlib import Path

import click

from ..core.errors import ConfigError
from ..core.settings import rule_codes
from ..io.limits import (
    DEFAULT_LIMITS,
    MAX_DEPTH_CEILING,
    describe_size,
    parse_size,
)
from ..io.loaders import (  # noqa: F401 (DEFAULT_PROFILE: re-exported for the commands)
    DEFAULT_PROFILE,
    builtin_profile_names,
    load_builtin_profile,
    load_profile_file,
)
from ..report.formats import FORMATS
from ..report.text_style import COLOR_CHOICES


class SizeType(click.ParamType):
    name = "size"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        try:
            return parse_size(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class RuleCodes(click.ParamType):
    """LB3,LB601: comma-separated rule ids or prefixes (the option may also be repeated)."""

    name = "codes"

    def convert(self, value, param, ctx):
        try:
            return rule_codes(
                [v for v in str(value).split(",") if v.strip()], f"--{param.name.replace('_', '-')}"
            )
        except ConfigError as exc:
            self.fail(str(exc).split(": ", 1)[-1], param, ctx)


def _stack(command, options):
    for option in reversed(options):
        command = option(command)
    return command


def _profile_choice(profile_help: str, profile_file_help: str) -> list:
    """--profile (a built-in one, as profile_name) and --profile-file, with a command's own help."""
    return [
        click.option(
            "--profile",
            "profile_name",
            type=click.Choice(builtin_profile_names()),
            help=profile_help,
        ),
        click.option("--profile-file", type=click.Path(path_type=Path), help=profile_file_help),
    ]


def profile_options(profile_help: str, profile_file_help: str, tolerance_help: str):
    """--profile, --profile-file and --tolerance, each with the command's own help: `check` and `leaderboard`
    score with them alike."""
    tolerance = click.option(
        "--tolerance", type=click.FloatRange(min=0.0, max=100.0), help=tolerance_help
    )
    return lambda command: _stack(
        command, [*_profile_choice(profile_help, profile_file_help), tolerance]
    )


def limit_options(command):
    """--max-file-size, --max-files, --max-depth, --max-values, --max-string-length, gathered into `limits`."""
    d = DEFAULT_LIMITS
    return _stack(
        command,
        [
            click.option(
                "--max-file-size",
                "max_file_bytes",
                type=SizeType(),
                help=f"Largest file read, e.g. 64M [default: {describe_size(d.max_file_bytes)}].",
            ),
            click.option(
                "--max-files",
                type=click.IntRange(min=1),
                help=f"Most files one run checks; more is an error (LB107), not a partial check "
                f"[default: {d.max_files}].",
            ),
            click.option(
                "--max-depth",
                type=click.IntRange(min=1, max=MAX_DEPTH_CEILING),
                help=f"Deepest nesting of objects and arrays (LB108) [default: {d.max_depth}].",
            ),
            click.option(
                "--max-values",
                type=click.IntRange(min=1),
                help=f"Most values (numbers, strings, objects, arrays) in one file or log record (LB112) "
                f"[default: {d.max_values:,}].",
            ),
            click.option(
                "--max-string-length",
                type=click.IntRange(min=1),
                help=f"Longest string or key, in characters [default: {d.max_string_length}].",
            ),
        ],
    )


def log_limit_option(command):
    """--max-log-size and --max-log-records, for commands that read sample logs."""
    command = click.option(
        "--max-log-records",
        type=click.IntRange(min=1),
        help="Most records read from one sample log (LB106); each costs time, so this bounds "
        f"the audit's time [default: {DEFAULT_LIMITS.max_log_records:,}].",
    )(command)
    return click.option(
        "--max-log-size",
        "max_log_bytes",
        type=SizeType(),
        help="Largest sample log read (logs are streamed, so this bounds time, not memory) "
        f"[default: {describe_size(DEFAULT_LIMITS.max_log_bytes)}].",
    )(command)


def remote_limit_options(command):
    """--remote-timeout, --listing-timeout and --unit-timeout, for the survey (the one command that reads URLs
    and runs units of work)."""
    seconds = click.FloatRange(min=0, min_open=True)
    command = click.option(
        "--remote-retries",
        type=click.IntRange(min=0),
        metavar="N",
        help="Times a remote file or folder that fails transiently (a dropped connection, 503, "
        "429, a timeout) is asked again, with backoff, before it is LB101 "
        f"[default: {DEFAULT_LIMITS.remote_retries}].",
    )(command)
    command = click.option(
        "--unit-timeout",
        type=seconds,
        metavar="SECONDS",
        help="Longest one unit of work (a log's audit) may run; its worker is then stopped and the "
        f"unit is a failed row that --resume runs again [default: {DEFAULT_LIMITS.unit_timeout:g}].",
    )(command)
    command = click.option(
        "--listing-timeout",
        type=seconds,
        metavar="SECONDS",
        help="Longest time listing one source's folder tree may take; longer is an error "
        f"[default: {DEFAULT_LIMITS.listing_timeout:g}].",
    )(command)
    return click.option(
        "--remote-timeout",
        type=seconds,
        metavar="SECONDS",
        help="Longest a remote store may take to connect or stay silent during a read; a log it "
        f"holds up longer is LB101 [default: {DEFAULT_LIMITS.remote_timeout:g}].",
    )(command)


def config_file_options(command):
    """--config and --isolated: where settings come from."""
    return _stack(
        command,
        [
            click.option(
                "--config",
                "config_file",
                type=click.Path(dir_okay=False, path_type=Path),
                help="Read settings from this file (.lbnorm.toml or pyproject.toml) instead of searching "
                "upward from the current directory.",
            ),
            click.option("--isolated", is_flag=True, help="Ignore every configuration file."),
        ],
    )


def config_options(command):
    """--config, --isolated and --root: where settings come from and which folder is the workspace."""
    return config_file_options(
        click.option(
            "--root",
            type=click.Path(file_okay=False, path_type=Path),
            help="The boundary for what files name or link to (a submission's results and samples, "
            "symlinks in a folder); with it, every path argument must lie inside it too "
            "[default: the enclosing git repository, else the current directory; for an argument "
            "outside it, that argument's repository or folder].",
        )(command)
    )


def report_options(command):
    """--output-format, --color, -v, -q."""
    return _stack(
        command,
        [
            click.option(
                "--output-format",
                type=click.Choice(FORMATS),
                help="text for people; json for scripts; github annotations; sarif for code scanning; "
                "junit for CI test reports [default: github when GITHUB_ACTIONS=true, else text].",
            ),
            click.option(
                "--color",
                type=click.Choice(COLOR_CHOICES),
                default="auto",
                show_default=True,
                help="Colour the text output; auto = on a terminal unless NO_COLOR is set.",
            ),
            click.option("-v", "--verbose", count=True, help="Show more: scores, audited logs."),
            click.option("-q", "--quiet", count=True, help="Show errors only."),
        ],
    )


def selection_options(command):
    """--select, --extend-select, --ignore, --extend-ignore, --warn, --error (ids or prefixes, as ruff's)."""
    codes = RuleCodes()
    return _stack(
        command,
        [
            click.option(
                "--select",
                multiple=True,
                type=codes,
                help="Only these rules (ids or prefixes, comma-separated: LB3,LB601) [default: LB, all].",
            ),
            click.option(
                "--extend-select", multiple=True, type=codes, help="Add rules to the selection."
            ),
            click.option(
                "--ignore",
                multiple=True,
                type=codes,
                help="Leave these rules out (replaces the configuration's).",
            ),
            click.option(
                "--extend-ignore",
                multiple=True,
                type=codes,
                help="Leave these rules out too (adds to the configuration's).",
            ),
            click.option(
                "--warn",
                "warn_codes",
                multiple=True,
                type=codes,
                help="Report these rules as warnings.",
            ),
            click.option(
                "--error",
                "error_codes",
                multiple=True,
                type=codes,
                help="Report these rules as errors.",
            ),
        ],
    )


def proving_profile_options(command):
    """--profile / --profile-file for the commands whose logs prove the profile's choice counts and split sizes
    (audit, survey)."""
    return _stack(
        command,
        _profile_choice(
            "A built-in profile whose choice counts and split sizes the logs must prove (LB715, LB718).",
            "Your own profile (YAML or JSON) whose choice counts and split sizes the logs must prove (LB715, "
            "LB718).",
        ),
    )
