"""The GitHub Action entrypoint: `python -I -m validator action`, run by the runner in the container.

Inputs arrive as INPUT_<NAME> variables (upper-cased; a hyphen survives, so
INPUT_PROFILE-FILE is accepted as well as INPUT_PROFILE_FILE). The workspace
is $GITHUB_WORKSPACE: every file read must be inside it. Rules never come
from the pull request: built-in profiles live in the image, and a
maintainer's profile file must match the sha256 given in the workflow.

An entry module: it may import every layer below it.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TextIO, cast

from ..check.checker import CheckOptions, CheckResult, run_check
from ..check.rules import all_rules, check_rules
from ..core.errors import ConfigError, ExitCode
from ..core.profile import Profile
from ..findings import ERROR, WARNING
from ..findings.selection import RuleSelection, SelectionError
from ..io.config import limits_of, read_config
from ..io.documents import DocumentError
from ..io.limits import DEFAULT_LIMITS
from ..io.loaders import (
    builtin_profile_names,
    load_builtin_profile,
    load_profile_file,
    open_regular_file,
)
from ..io.paths import PathRefused, confine
from ..io.report_file import ReportFile, ReportRefused
from ..io.safe_text import CommandSafeWriter, one_line
from ..report.check import ReportOptions, report_json, report_text
from ..report.github import (
    annotation_lines,
    escape_data,
    failure_annotation,
    failure_outputs,
    failure_summary,
    output_block,
    summary_markdown,
)
from .inputs import DEFAULT_REPORT, ActionInputs, InputError, input_value, read_inputs


def maintainer_profile(inputs: ActionInputs, workspace: Path) -> Profile | None:
    """The built-in profile named in the workflow, or a profile file pinned by its sha256."""
    if inputs.profile and inputs.profile_file:
        raise InputError("set either 'profile' or 'profile_file', not both")
    if inputs.profile:
        if inputs.profile not in builtin_profile_names():
            raise InputError(
                f"input 'profile' is {inputs.profile!r}; built-in profiles: "
                f"{', '.join(builtin_profile_names())}"
            )
        return load_builtin_profile(inputs.profile)
    if not inputs.profile_file:
        return None
    return load_profile_file(
        _pinned(workspace, "profile_file", inputs.profile_file, inputs.profile_sha256)
    )


def _pinned(workspace: Path, name: str, file: str, sha256: str) -> Path:
    """A file of the repository whose sha256 the workflow pins: a pull request cannot edit the rules it is judged by."""
    pin = name.replace("_file", "_sha256")
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise InputError(
            f"'{name}' needs '{pin}' (64 hex digits, from `sha256sum FILE`): "
            "the pin stops a pull request from editing the rules it is judged by"
        )
    try:
        target = confine(workspace, Path(file))
    except PathRefused as exc:
        raise ConfigError(f"{name}: {exc}") from None
    digest = _bounded_sha256(target.path, name)
    if digest != sha256:
        raise ConfigError(
            f"{name} {target.display} has sha256 {digest}, but the workflow pins "
            f"{sha256}; if the maintainers changed the file, update the pin"
        )
    return target.path


def _bounded_sha256(path: Path, name: str) -> str:
    """The sha256 of a regular file no larger than the file limit (a sparse 10 GB file must not be read whole)."""
    import hashlib  # OpenSSL loads only for a pinned profile or configuration

    try:
        with open_regular_file(path, DEFAULT_LIMITS.max_file_bytes, "file") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except DocumentError as exc:
        raise ConfigError(f"{name}: {exc.message}") from None


def maintainer_config(
    inputs: ActionInputs, workspace: Path
) -> tuple[ActionInputs, Profile | None, RuleSelection]:
    """Apply a pinned configuration file (config_file + config_sha256); the workflow's own inputs win.

    Without config_file no configuration is read, whatever the pull request adds: a
    .lbnorm.toml in a pull request is rules the pull request could edit.
    """
    if not inputs.config_file:
        return inputs, maintainer_profile(inputs, workspace), RuleSelection()
    settings = read_config(
        _pinned(workspace, "config_file", inputs.config_file, inputs.config_sha256)
    )
    if settings.profile_file:
        raise InputError(
            "a configuration file read by the Action may not name a profile-file (it would not be "
            "pinned); set the inputs profile_file and profile_sha256 instead"
        )
    if settings.profile and not (inputs.profile or inputs.profile_file):
        inputs = replace(inputs, profile=settings.profile)
    # An input set in the workflow wins, even one set to the default (a loosening of the pinned file's bound).
    explicit = {k: v for k, v in inputs.limits._asdict().items() if k in inputs.limits_set}
    inputs = replace(inputs, limits=limits_of(settings)._replace(**explicit))
    if not inputs.tolerance_set and settings.tolerance is not None:
        inputs = replace(inputs, tolerance=settings.tolerance)
    if not inputs.strict_set and settings.strict is not None:
        inputs = replace(inputs, strict=settings.strict)
    selection = RuleSelection(
        select=settings.selected(),
        ignore=settings.ignored(),
        warn=settings.warn,
        error=settings.error,
        per_file_ignores=tuple(settings.per_file_ignores.items()),
    )
    check_rules()
    try:
        selection.validate()
    except SelectionError:
        all_rules()  # a code no check rule matches may name an audit rule: loaded only then
        try:
            selection.validate()
        except SelectionError as exc:
            raise ConfigError(f"{settings.source}: {exc}") from None
    return inputs, maintainer_profile(inputs, workspace), selection


def run_action(env: Mapping[str, str], out: TextIO, err: TextIO) -> int:
    try:
        workspace = workspace_of(env)
        report_file = _prepare_report(
            workspace, input_value(env, "report", DEFAULT_REPORT).strip(), out
        )
    except InputError as exc:
        return _configuration_error(env, out, err, exc, ExitCode.USAGE)
    try:
        return _run(env, workspace, report_file, out, err)
    except Exception as exc:  # noqa: BLE001 - lbnorm broke: the summary and outputs must still say so
        failure = RuntimeError(
            f"internal error: {type(exc).__name__}: {one_line(exc)}; please report it with the workflow run"
        )
        return _configuration_error(
            env, out, err, failure, ExitCode.CONFIG, "lbnorm internal error"
        )
    finally:
        if report_file is not None:
            report_file.close()


def _run(
    env: Mapping[str, str],
    workspace: Path,
    report_file: ReportFile | None,
    out: TextIO,
    err: TextIO,
) -> int:
    try:
        inputs, profile, selection = maintainer_config(read_inputs(env), workspace)
    except InputError as exc:
        return _configuration_error(env, out, err, exc, ExitCode.USAGE, workspace=workspace)
    except ConfigError as exc:
        return _configuration_error(env, out, err, exc, ExitCode.CONFIG, workspace=workspace)
    result = run_check(
        inputs.files,
        CheckOptions(
            root=workspace,
            tolerance=inputs.tolerance,
            profile=profile,
            limits=inputs.limits,
            jobs=os.cpu_count() or 1,
            stale_scorer_bound=inputs.stale_scorer_bound,
            selection=selection,
            audit_beside=True,  # the logs lm-eval wrote beside a results file are audited, listed or not
        ),
    )
    report_path = _write_report(report_file, result, inputs.strict, out)
    details = f"see the job summary{' and ' + report_path if report_path else ''}"
    for line in annotation_lines(result, details):
        out.write(line + "\n")
    out.write("::group::lbnorm report\n")
    guarded = CommandSafeWriter(out)
    # the reporter only writes and flushes, which the guard offers
    report_text(result, cast(TextIO, guarded), ReportOptions(strict=inputs.strict, verbosity=1))
    guarded.flush()
    out.write("::endgroup::\n")
    _append(
        env.get("GITHUB_STEP_SUMMARY"),
        summary_markdown(result, inputs.strict, inputs.tolerance),
        err,
    )
    _append(
        env.get("GITHUB_OUTPUT"),
        output_block(
            {
                "passed": "true" if result.ok(inputs.strict) else "false",
                "files_checked": str(result.files_checked()),
                "errors": str(result.count(ERROR)),
                "warnings": str(result.count(WARNING)),
                "report": report_path or "",
            }
        ),
        err,
    )
    return ExitCode.OK if result.ok(inputs.strict) else ExitCode.DATA


def workspace_of(env: Mapping[str, str]) -> Path:
    """$GITHUB_WORKSPACE, an existing folder: the runner always sets it, so anything else is a setup error."""
    value = env.get("GITHUB_WORKSPACE", "")
    if not value:
        raise InputError(
            "GITHUB_WORKSPACE is not set; run lbnorm as a step of a GitHub Actions job "
            "(or set it to the checkout folder)"
        )
    path = Path(value)
    if not path.is_absolute() or not path.is_dir():
        raise InputError(
            f"GITHUB_WORKSPACE is {one_line(value)!r}, not an absolute path to a folder"
        )
    return path.resolve()


def _configuration_error(
    env: Mapping[str, str],
    out: TextIO,
    err: TextIO,
    exc: Exception,
    code: int,
    title: str = "lbnorm configuration",
    workspace: Path | None = None,
) -> int:
    """The run cannot start (or lbnorm broke): one ::error (on the pinned file to blame, if one is), a job
    summary that states the error in one line, and outputs that count it: never errors=0 beside passed=false."""
    message = one_line(exc, 2000)
    if workspace is not None:
        message = message.replace(f"{workspace}/", "")
    out.write(failure_annotation(title, message, *_blamed_file(env, message)) + "\n")
    _append(env.get("GITHUB_STEP_SUMMARY"), failure_summary(title, message, code), err)
    _append(env.get("GITHUB_OUTPUT"), output_block(failure_outputs()), err)
    return code


def _blamed_file(env: Mapping[str, str], message: str) -> tuple[str | None, int | None]:
    """The pinned profile or configuration file a message is about, with the line it names ('file:3:1: ...'),
    or (None, None)."""
    for name in ("profile_file", "config_file"):
        try:
            value = input_value(env, name).strip()
        except InputError:
            continue  # the inputs disagree: the workflow is to blame, not a file
        if value and (message.startswith(name) or value in message):
            where = re.match(re.escape(value) + r":(\d+):", message)
            return value, int(where[1]) if where else None
    return None, None


def _prepare_report(workspace: Path, name: str, out: TextIO) -> ReportFile | None:
    """Open the report's folder and remove a stale report before anything is checked (see io/report_file.py)."""
    if not name:
        return None
    try:
        return ReportFile.prepare(workspace, name)
    except ReportRefused as exc:
        out.write(
            f"::warning title=lbnorm report::{_data(f'{exc}; no report is written ({name})')}\n"
        )
    except OSError as exc:
        out.write(
            f"::warning title=lbnorm report::{_data(f'cannot prepare the report {name} ({exc.strerror})')}\n"
        )
    return None


def _write_report(
    report_file: ReportFile | None, result: CheckResult, strict: bool, out: TextIO
) -> str | None:
    if report_file is None:
        return None
    text = io.StringIO()
    report_json(result, text, ReportOptions(strict=strict))
    try:
        return report_file.write(text.getvalue().encode("utf-8"))
    except OSError as exc:
        out.write(
            f"::warning title=lbnorm report::{_data(f'cannot write the report ({exc.strerror})')}\n"
        )
        return None


def _append(path: str | None, text: str, err: TextIO) -> None:
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        err.write(f"lbnorm: cannot write {one_line(path)} ({exc.strerror})\n")


def _data(problem: Exception | str) -> str:
    return escape_data(str(problem))


def main(env: Mapping[str, str] | None = None) -> int:
    return run_action(os.environ if env is None else env, sys.stdout, sys.stderr)
