"""Paths to shipped data, results-file variants, running the CLI: what every kind of test shares."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
EXAMPLES = REPO / "tests" / "examples"
EXAMPLE = REPO / "examples" / "pythia-1b" / "results_2025-01-27T10-10-36.877664.json"
V1_LIGHTEVAL = DATA / "v1" / "results_2023-09-08T17-00-44.389859.json"
V1_LM_EVAL_03 = DATA / "v1" / "results_lm_eval_03.json"
COMMUNITY = DATA / "community" / "results_2026-01-21T03-44-18.458309.json"
NORMALIZATION_PAGE = REPO / "docs" / "reference" / "normalization.md"


V2_GROUPS = (
    "leaderboard",
    "leaderboard_bbh",
    "leaderboard_gpqa",
    "leaderboard_math_hard",
    "leaderboard_musr",
)


def without_groups(doc: dict) -> dict:
    """The same run as lm-eval 2024-07..2025-04 wrote it: no group entries."""
    doc = copy.deepcopy(doc)
    for group in V2_GROUPS:
        doc["results"].pop(group, None)
    doc.pop("groups", None)
    return doc


def write_json(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc, indent=2))
    return path


def run_cli(
    *args: str, cwd: Path = REPO, env: dict[str, str | None] | None = None, fresh: bool = False
) -> subprocess.CompletedProcess:
    """Run `python -m validator ARGS` as a user would, from a clean environment (GITHUB_* and INPUT_* removed, then
    `env` applied: a value of None removes the variable); a JSON report it prints must follow its schema.

    The command runs in a process of its own, with its own working folder, environment, streams and exit status.
    Where the platform can fork, that process is a fork of this one, so it starts with lbnorm already imported (a
    new interpreter costs more than most commands do); `fresh=True` starts a new interpreter, for a test about what
    a start-up imports or does.
    """
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    clean["PYTHONPATH"] = str(REPO)
    for name, value in (env or {}).items():
        if value is None:
            clean.pop(name, None)
        else:
            clean[name] = value
    argv = [sys.executable, "-m", "validator", *args]
    if fresh or not CAN_FORK:
        proc = subprocess.run(argv, cwd=cwd, env=clean, capture_output=True, text=True, timeout=60)
    else:
        proc = forked_cli(argv, list(args), cwd, clean, timeout=60)
    wants_json = any(option in args for option in ("--output-format=json", "-ojson")) or any(
        a in ("--output-format", "-o") and b == "json" for a, b in zip(args, args[1:], strict=False)
    )
    if args[:1] in (("check",), ("audit",)) and wants_json and proc.stdout.lstrip().startswith("{"):
        assert_report_follows_its_schema(json.loads(proc.stdout), args[0])
    return proc


# Linux forks a process with threads safely enough for a child that only runs lbnorm and exits.
CAN_FORK = hasattr(os, "fork") and sys.platform == "linux"


def forked_cli(
    argv: list[str], args: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess:
    """`argv` (`python -m validator ARGS`) run by `validator.cli.main` with `args` in a forked child, in `cwd`
    with exactly the environment `env`; its output read as `subprocess.run(..., capture_output=True,
    text=True)` reads it."""
    from validator.cli import main

    program = str(REPO / "validator" / "__main__.py")
    return forked(main, argv, [program, *args], "validator", cwd, env, timeout)


def forked(
    main,
    argv: list[str],
    child_argv: list[str],
    package: str | None,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
) -> subprocess.CompletedProcess:
    """`argv` run as `main()` in a forked child that sees `child_argv` as sys.argv and a `__main__` of
    `package` (`python -m package`; None for a script), as forked_cli says."""
    import locale
    import tempfile
    import warnings

    # The standard streams as this interpreter made its own at start (the same locale; PYTHONIOENCODING
    # wins), and the output read back as subprocess's text mode reads it: the locale's encoding, strict.
    started = sys.__stdout__
    chosen, _, chosen_errors = env.get("PYTHONIOENCODING", "").partition(":")
    encoding = chosen or (started.encoding if started else locale.getpreferredencoding(False))
    errors = chosen_errors or (started.errors if started else "strict")
    text = locale.getpreferredencoding(False)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        with warnings.catch_warnings():
            # Python 3.12+ warns on forking a process with threads (pytest-xdist's I/O thread): the child
            # touches none of that thread's locks, it runs the command and leaves with os._exit.
            warnings.filterwarnings(
                "ignore", "This process .* is multi-threaded", DeprecationWarning
            )
            pid = os.fork()
        if pid == 0:  # the child: never returns into the test
            code = 70
            try:
                streams = (encoding, errors, out.fileno(), err.fileno())
                code = _child(main, child_argv, package, cwd, env, *streams)
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                os._exit(code)
        status = _wait(pid, timeout, argv)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    return subprocess.CompletedProcess(
        argv,
        os.waitstatus_to_exitcode(status),
        _as_text(stdout, text),
        _as_text(stderr, text),
    )


def _child(main, argv, package, cwd, env, encoding, errors, out_fd: int, err_fd: int) -> int:
    """Set the forked child up as `python -m package` (or a script) starts (arguments, `__main__`, folder,
    environment, standard streams), run `main`, and return its exit status."""
    import io
    import traceback
    import types
    import warnings

    null = os.open(os.devnull, os.O_RDONLY)
    for source, target in ((null, 0), (out_fd, 1), (err_fd, 2)):
        os.dup2(source, target)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding, errors
    )
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding, errors
    )
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
        encoding,
        "backslashreplace",
        line_buffering=True,
    )
    # Warnings as a new interpreter shows them: Python's default filters, printed to stderr (not recorded by
    # pytest); a log record with no handler of lbnorm's own goes to stderr too.
    warnings.resetwarnings()
    for action, category, module in _DEFAULT_WARNING_FILTERS:
        warnings.filterwarnings(action, category=category, module=module)
    if env.get("PYTHONWARNINGS"):
        warnings._processoptions(env["PYTHONWARNINGS"].split(","))
    warnings.showwarning = warnings._showwarning_orig
    warnings._showwarnmsg_impl = _show_warning
    if "logging" in sys.modules:
        sys.modules["logging"].root.handlers.clear()
    entry = types.ModuleType("__main__")
    entry.__package__ = package
    sys.modules["__main__"] = entry
    sys.argv = list(argv)
    try:
        returned = main()
        code = returned if isinstance(returned, int) else 0
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            code = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    return code & 0xFF


# What a Python started without -W or -X dev filters (the __main__ module's own deprecations shown once).
_DEFAULT_WARNING_FILTERS = (
    ("ignore", ResourceWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", DeprecationWarning, ""),
    ("default", DeprecationWarning, "__main__"),
)


def _show_warning(message) -> None:
    """A warning printed as Python prints it by default: to stderr, formatted by the warnings module."""
    import warnings

    sys.stderr.write(warnings._formatwarnmsg(message))


def _wait(pid: int, timeout: float, argv: list[str]) -> int:
    """The exit status of child `pid`; past `timeout` seconds it is killed, as subprocess.run does."""
    import select
    import signal
    import time

    try:
        watch = os.pidfd_open(pid)
    except OSError:  # a kernel without pidfd: look every few milliseconds
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            time.sleep(0.005)
        ready = []
    else:
        try:
            ready, _, _ = select.select([watch], [], [], timeout)
        finally:
            os.close(watch)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise subprocess.TimeoutExpired(argv, timeout)
    return os.waitpid(pid, 0)[1]


def _as_text(data: bytes, encoding: str) -> str:
    """Bytes as text the way subprocess's text mode decodes them (universal newlines)."""
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


_REPORT_VALIDATORS: dict = {}


def assert_report_follows_its_schema(doc: dict, kind: str) -> None:
    """The JSON report of `check` (and the Action) or `audit` is valid against the schema the package publishes."""
    import jsonschema

    from validator.report.json_report import report_schema

    if kind not in _REPORT_VALIDATORS:
        schema = report_schema(kind)
        jsonschema.Draft202012Validator.check_schema(schema)
        _REPORT_VALIDATORS[kind] = jsonschema.Draft202012Validator(schema)
    errors = sorted(_REPORT_VALIDATORS[kind].iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, f"the {kind} report breaks its schema: " + "; ".join(
        f"{'/'.join(map(str, e.path)) or '(top)'}: {e.message[:300]}" for e in errors[:5]
    )


def line_of(path, needle: str) -> int:
    """The number of the first line of the file that holds `needle`."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


# The shipped lm-eval run and the leaderboard profile it is submitted to (examples/)
TINY_RUN = REPO / "examples" / "lm-eval-output" / "example-org__tiny-model"
READING_BOARD = REPO / "examples" / "reading-board.yaml"
TINY_RUN_RESULTS = "results_2025-03-01T12-00-00.000000.json"


def reading_board(root: Path) -> Path:
    """A leaderboard checkout at `root`: the tiny model's honest run folder (`run/`), the board's profile, and
    the submission `submission init` writes for the run."""
    (root / ".git").mkdir()
    shutil.copytree(TINY_RUN, root / "run")
    shutil.copy(READING_BOARD, root / "reading-board.yaml")
    init = run_cli("submission", "init", "run", "--profile-file", "reading-board.yaml", cwd=root)
    assert init.returncode == 0, init.stdout + init.stderr
    return root
