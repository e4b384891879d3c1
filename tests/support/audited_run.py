"""Run `python -m validator ...` under a Python audit hook that stops any escape.

    python -I tests/support/audited_run.py check --root WS ...

The hook (PEP 578) sees every file open, directory listing, socket and
process start of the validator's own code, so a test can prove what the
issue asks: nothing read outside the workspace, nothing written but the
files the runner gives us, no network, no program started. A violation
prints `AUDIT VIOLATION: ...` to stderr and exits 99 at once, so no later
output can hide it.

Environment: AUDIT_WORKSPACE (the folder that may be read), AUDIT_WRITABLE
(os.pathsep-separated files that may be written).
"""

from __future__ import annotations

import importlib.util
import os
import runpy
import sys
import sysconfig

WORKSPACE = os.path.realpath(os.environ["AUDIT_WORKSPACE"])
WRITABLE = {
    os.path.realpath(p) for p in os.environ.get("AUDIT_WRITABLE", "").split(os.pathsep) if p
}
# The interpreter, the standard library and the installed packages (ours included) may be read.
PACKAGE = importlib.util.find_spec(
    "validator"
).submodule_search_locations  # an editable install lives elsewhere
READABLE = {
    WORKSPACE,
    *(os.path.realpath(p) for p in sysconfig.get_paths().values()),
    os.path.realpath(sys.prefix),
    os.path.realpath(sys.base_prefix),
    *(
        os.path.realpath(os.path.join(folder, sub))
        for folder in PACKAGE
        for sub in ("", "schemas", "profiles")
    ),
}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
FORBIDDEN = (
    "socket.",
    "subprocess.",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "pty.",
    "ctypes.dlopen",
    "urllib.",
    "http.",
)


def _violation(reason: str) -> None:
    os.write(2, f"AUDIT VIOLATION: {reason}\n".encode("utf-8", "backslashreplace"))
    os._exit(99)


def _may_write(path: str) -> bool:
    """A writable file, or the temporary file the report is written to before it is renamed over its name."""
    real = os.path.realpath(path)
    folder, name = os.path.split(real)
    return real in WRITABLE or any(
        folder == os.path.dirname(w)
        and name.startswith(f".{os.path.basename(w)}.")
        and name.endswith(".tmp")
        for w in WRITABLE
    )


def _inside(path: str, folders) -> bool:
    real = os.path.realpath(path)
    return any(
        real == folder or real.startswith(folder.rstrip(os.sep) + os.sep) for folder in folders
    )


def _hook(event: str, args: tuple) -> None:
    if event.startswith(FORBIDDEN):
        _violation(f"{event} {args!r:.200}")
    if event == "open":
        path, mode, flags = args
        if isinstance(path, int) or path is None:
            return
        path = os.fsdecode(path)
        writing = any(c in (mode or "") for c in "wax+") or bool((flags or 0) & WRITE_FLAGS)
        if writing and not _may_write(path):
            _violation(f"write to {path!r}")
        if not writing and path not in ("/dev/null",) and not _inside(path, READABLE):
            _violation(f"read of {path!r} outside the workspace")
    elif event in ("os.listdir", "os.scandir"):
        folder = (args[0] if args else None) or "."
        if not isinstance(folder, int) and not _inside(os.fsdecode(folder), READABLE):
            _violation(f"listing of {folder!r} outside the workspace")


if __name__ == "__main__":
    sys.dont_write_bytecode = True  # the interpreter's own cache, not the validator writing
    sys.addaudithook(_hook)
    sys.argv = ["validator", *sys.argv[1:]]
    runpy.run_module("validator", run_name="__main__", alter_sys=True)
