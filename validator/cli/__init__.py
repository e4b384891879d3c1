"""Command line: each command gathers options, calls one analysis and hands the result to a reporter.

One module per command; group.py builds the click group and decides every exit
code (see core/errors.py): 0 ok, 1 a data file is bad, 2 usage, 3 profile or
internal error. May import every other package.

This module is what the `lbnorm` script imports, so it loads nothing else:
`lbnorm --version` prints the version without loading click or any command.
"""

from __future__ import annotations

import os
import sys

# New container objects between two collections of the youngest generation
_COLLECT_AFTER = 50_000


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        sys.exit(print_version())
    import gc

    # A command imports a few hundred modules and frees almost everything it reads by reference counting.
    # At the collector's default threshold (700 new objects, 2000 in Python 3.13) it walks the modules'
    # objects again and again as they are imported, about 6 ms of a 90 ms audit of 60 small logs; past
    # 50,000 it runs a few times, and what it may find waits a little longer (an audit's peak memory: within
    # 2 MB).
    gc.set_threshold(_COLLECT_AFTER)
    from .group import run

    try:
        run()
    finally:
        # What the command imported and made goes with the process. Frozen, it is skipped by the garbage
        # collections the interpreter runs as it shuts down, which walked all of it (a fresh audit of a small
        # run ended about a tenth sooner). Python promises no finalizer at exit; lbnorm closes its files itself.
        gc.freeze()


def print_version() -> int:
    """What click's version option prints for the group (`lbnorm, version X`), and exit code 0.

    A reader that went away (`lbnorm --version | true`) or a closed stream leaves the code 0,
    as for every other command (io/safe_text.CommandSafeWriter).
    """
    from ..core.version import __version__

    try:
        sys.stdout.write(f"lbnorm, version {__version__}\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The text still buffered would fail again at exit: it goes to the null device instead.
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except AttributeError:  # no stdout at all (`>&-`): None to Python
        pass
    return 0


def __getattr__(name: str):
    """`validator.cli.cli` (the click group, for mkdocs-click and tests) loads group.py on first use."""
    if name in ("cli", "COMMANDS", "LazyGroup"):
        from . import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
