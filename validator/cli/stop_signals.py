"""Ctrl-C and SIGTERM during a long command: raised where the main thread is, and remembered.

Python raises KeyboardInterrupt wherever the main thread is when SIGINT
comes. Where that is inside a garbage-collector callback, an at-fork handler
or a `__del__`, the exception is printed ("Exception ignored in ...") and
lost, and the command runs on to its end (a survey's pool forking its
workers can lose half the SIGTERMs sent meanwhile). So each signal is also
remembered, and check() raises it again where the command looks: after each
unit, and before and after writing its tables. SIGTERM (a CI job cancelled,
`kill`) stops the command as Ctrl-C does, rather than ending it where it
stands.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

# What signal.signal accepts and returns: a handler, SIG_DFL/SIG_IGN, or None for one not set from Python.
SignalHandler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None

STOPS = (signal.SIGINT, signal.SIGTERM)


class Stopped(KeyboardInterrupt):
    """The command was asked to stop by `signum`."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return (
            128 + self.signum
        )  # as a shell reports a command a signal ended: 130 for Ctrl-C, 143 for SIGTERM


class StopSignals:
    """A context in which SIGINT and SIGTERM raise Stopped, and check() raises one that was swallowed."""

    def __init__(self):
        self.signum: int | None = None
        self.previous: dict[int, SignalHandler] = {}
        self.previous_hook = sys.unraisablehook
        self.deferring = False

    def __enter__(self) -> StopSignals:
        if (
            threading.current_thread() is threading.main_thread()
        ):  # only the main thread may set handlers
            # A signal the command was started ignoring (a background job's Ctrl-C) stays ignored, as Python does.
            self.previous = {
                signum: signal.signal(signum, self._stop)
                for signum in STOPS
                if signal.getsignal(signum) is not signal.SIG_IGN
            }
            self.previous_hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    @contextlib.contextmanager
    def deferred(self):
        """A block a stop must not cut short (closing the workers, removing half-written tables): a signal in it is
        only remembered; check() raises it afterwards. A second Ctrl-C must not leave a cluster half closed."""
        self.deferring = True
        try:
            yield
        finally:
            self.deferring = False

    def _unraisable(self, unraisable) -> None:
        """A Stopped that Python dropped is remembered (check() raises it again): not 'Exception ignored in ...'
        with its traceback printed before the command's own last line."""
        if not isinstance(unraisable.exc_value, Stopped):
            self.previous_hook(unraisable)

    def _stop(self, signum: int, frame) -> None:
        self.signum = signum
        if not self.deferring:
            raise Stopped(signum)

    def check(self, *ignored) -> None:
        """Raise the stop asked for, if any (its exception may have been lost where the signal landed)."""
        if self.signum is not None:
            raise Stopped(self.signum)

    def __exit__(self, *exc_info) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        if self.previous:
            sys.unraisablehook = self.previous_hook
