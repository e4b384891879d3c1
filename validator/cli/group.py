"""The lbnorm click group: each command's module loaded on first use, and every exit code decided here.

See core/errors.py for the codes: 0 ok, 1 a data file is bad, 2 usage, 3 profile
or internal error.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from ..core.errors import ConfigError, ExitCode, LbnormError
from ..core.version import __version__
from ..io.safe_text import CommandSafeWriter, one_line

# Each command's module is imported when that command runs (or --help lists them all), so a check
# never loads the audit or the survey, and --version loads none of them.
COMMANDS = {
    "normalize": "normalize",
    "check": "check",
    "comment": "comment",  # lbnorm comment REPORT: the pull request comment
    "init": "init",  # lbnorm init: the workflows and pre-commit configuration of a repository
    "audit": "audit",
    "rules": "rules",
    "config": "config",
    "submission": "submission",  # lbnorm submission init
    "profile": "profile",  # lbnorm profile init|derive|check
    "survey": "survey",  # lbnorm survey
    "leaderboard": "leaderboard",  # lbnorm leaderboard
}


class LazyGroup(click.Group):
    """A group whose commands are imported by name, on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module = importlib.import_module(f".{COMMANDS[cmd_name]}", __package__)
            self.add_command(getattr(module, cmd_name))
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lbnorm")
def cli() -> None:
    """lbnorm: recompute leaderboard normalized scores from harness results."""


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("ignored", nargs=-1, type=click.UNPROCESSED)
def action(ignored: tuple[str, ...]) -> None:
    """Run as the GitHub Action (reads INPUT_* and GITHUB_* variables; see action.yml)."""
    from ..action import main as action_main

    sys.exit(action_main())


cli.add_command(action)


def run() -> None:
    """Run the command line on sys.argv and exit with its code."""
    # Every report goes through one guard against workflow commands; the Action writes its own commands.
    # A stream the caller closed (`>&-`) is None to Python: the report goes to the null device, the verdict to
    # the exit code, as with any stream.
    sys.stdout = sys.stdout or open(os.devnull, "w", encoding="utf-8")
    sys.stderr = sys.stderr or open(os.devnull, "w", encoding="utf-8")
    if sys.argv[1:2] != ["action"]:
        sys.stdout = CommandSafeWriter(sys.stdout)
    sys.stderr = CommandSafeWriter(sys.stderr)
    try:
        _main()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _main() -> None:
    try:
        # Without standalone mode click returns the code of --help/--version
        # and raises everything else, so every exit code is decided here.
        code = cli.main(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else ExitCode.OK)
    except click.ClickException as exc:
        exc.show()
        sys.exit(ExitCode.USAGE)
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            click.echo("lbnorm: interrupted", err=True)
            sys.exit(ExitCode.INTERRUPTED)
        click.echo("lbnorm: aborted", err=True)
        sys.exit(ExitCode.USAGE)
    except ConfigError as exc:
        click.echo(f"lbnorm: configuration error: {one_line(exc, 2000)}", err=True)
        sys.exit(ExitCode.CONFIG)
    except LbnormError as exc:
        click.echo(f"lbnorm: error: {one_line(exc, 2000)}", err=True)
        sys.exit(exc.exit_code)
    except (
        BrokenPipeError
    ):  # a stream not behind CommandSafeWriter (which outlives its reader): the verdict is
        sys.exit(ExitCode.CONFIG)  # unknown, and never 0
    except Exception as exc:  # an internal error must still say what to do
        if os.environ.get("LBNORM_DEBUG"):
            raise
        click.echo(
            f"lbnorm: internal error: {type(exc).__name__}: {one_line(exc)}; "
            "please report it with the command you ran",
            err=True,
        )
        sys.exit(ExitCode.CONFIG)
