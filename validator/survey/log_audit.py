"""One sample log audited for the survey: a local one confined to its source folder, or a remote one
read as a stream; both through the audit's own LogAuditor."""

from __future__ import annotations

import functools
import os
import posixpath

from ..audit.auditor import LogAuditor, LogTarget, audit_logs, unread_note
from ..audit.model import AuditResult
from ..audit.spec import NO_EXPECTATIONS, ProfileExpectations, TaskSpec
from ..findings import make_finding
from ..io.documents import Document, DocumentError
from ..io.limits import Limits
from ..io.paths import PathRefused, confine_in
from .records import stream_records
from .stores import FileRef, open_stream


def audit_local(
    document: Document,
    task: str,
    log: FileRef,
    limits: Limits,
    expectations: ProfileExpectations = NO_EXPECTATIONS,
) -> AuditResult:
    """The audit's own entry point, with the log confined to its source folder (no symlink out of it)."""
    try:
        target = confine_in(resolved_folder(source_root(log)), log.name)
    except PathRefused as exc:
        result = AuditResult(results_file=document.display_path)
        result.findings.append(make_finding("LB700", log.name, str(exc)))
        return result
    result = audit_logs(
        document, [LogTarget(task, target)], limits, expectations=expectations, unlogged_tasks=False
    )
    result.close()
    return result


@functools.lru_cache(maxsize=64)
def resolved_folder(folder: str) -> str:
    """os.path.realpath of a source folder, once per batch of units: run_batch forgets it, with the results
    files it parsed, because a worker outlives surveys and a source folder may be a symlink re-pointed
    between two of them (current -> v1, then v2). Below it, each log's own path is resolved every time."""
    return os.path.realpath(folder)


def source_root(ref: FileRef) -> str:
    """The local folder the file was listed under (its name is relative to it)."""
    location = ref.location.removeprefix(
        "file://"
    )  # a string, not local_path's Path: this runs for every log
    return (
        location[: len(location) - len(ref.name)]
        if location.endswith(ref.name)
        else posixpath.dirname(location)
    )


def audit_stream(
    document: Document,
    task: str,
    log: FileRef,
    limits: Limits,
    expectations: ProfileExpectations = NO_EXPECTATIONS,
) -> AuditResult:
    """audit_logs for a log read as a stream (remote): the same LogAuditor, fed record by record."""
    result = AuditResult(results_file=document.display_path)
    data = document.data if isinstance(document.data, dict) else {}
    auditor = LogAuditor(
        TaskSpec.from_results(data, task), log.name, document, result, expectations=expectations
    )
    try:
        with open_stream(
            log, limits.max_log_bytes, "max_log_bytes", limits.remote_timeout, limits.remote_retries
        ) as handle:
            auditor.audit_records(stream_records(handle, limits))
    except DocumentError as exc:
        result.findings.append(
            make_finding(exc.rule, log.name, exc.message, line=exc.line, column=exc.column)
        )
        auditor.summary.notes.append(unread_note(exc.message))
        result.tasks.append(auditor.summary)
        result.close()
        return result
    result.tasks.append(auditor.finish())
    result.close()
    return result
