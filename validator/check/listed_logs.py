"""A submission's sample logs, audited: those it lists under `samples` and those lm-eval wrote beside its
results file, or those beside a bare results file.

The audit is imported only here, inside the functions: most submissions list no logs, and every
pull request pays for start-up imports.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..findings import Findings, format_json_path, make_finding
from ..io.documents import Document
from ..io.limits import LIMIT_OPTIONS
from ..io.paths import PathRefused, Target, below, confine, relative_reference
from .context import CheckContext, Hit
from .result import CheckOptions, CheckResult

if TYPE_CHECKING:
    from ..audit.auditor import LogTarget
    from ..audit.model import TaskAudit


def audit_listed_logs(
    root: Path,
    target: Target,
    document: Document,
    ctx: CheckContext,
    options: CheckOptions,
    result: CheckResult,
    results_target: Target | None = None,
) -> list[TaskAudit]:
    """Audit a submission's sample logs against its results (LB7xx): those it lists under `samples`, and
    (with `audit_beside`) those lm-eval wrote beside its results file, listed or not: leaving `samples` out,
    or listing only some logs, must not take a log that is there out of the audit."""
    if ctx.results_doc is None:
        return []
    listed = document.data.get("samples") if isinstance(document.data, dict) else None
    listed = listed if isinstance(listed, list) else []
    beside = options.audit_beside and results_target is not None and _has_logs(results_target)
    if not listed and not beside:
        return []
    # Loaded here, not at start-up: most submissions list no logs, and every pull request pays for imports.
    from ..audit.auditor import audit_logs
    from ..audit.reported_tasks import known_tasks
    from ..audit.spec import ProfileExpectations

    if len(listed) > options.limits.max_files:
        add_hit(
            result,
            "LB700",
            Hit(
                document,
                ("samples",),
                (
                    f"lists {len(listed):,} sample logs, more than {options.limits.max_files:,}; none was audited "
                    f"(raise {LIMIT_OPTIONS['max_files']} if this submission is honest)"
                ),
            ),
        )
        return []
    tasks = known_tasks(ctx.results_object() if ctx.results_root else ctx.results_doc.data)
    logs = _listed(root, target, document, listed, tasks, options, result)
    if beside and results_target is not None and tasks:
        seen = {log.target.path for log in logs}
        covered = {log.task for log in logs}
        for log in _beside(root, results_target, tasks, options, result, covered):
            # A log of a task the results lack scores none of their numbers: the submission did not use it.
            if log.target.path not in seen and log.task in tasks and log.task not in covered:
                logs.append(log)
    if not logs:
        return []
    audited = audit_logs(
        ctx.results_doc,
        logs,
        options.limits,
        results_root=ctx.results_root,
        expectations=ProfileExpectations.of_profile(ctx.profile),
    )
    result.merge(audited)
    return audited.tasks


def _has_logs(results: Target) -> bool:
    """Whether any log could lie beside the results file (a cheap look before the audit is imported)."""
    try:
        with os.scandir(results.path.parent) as entries:
            return any(
                entry.name.endswith(".jsonl") for entry in entries
            )  # as io.sample_logs.claims
    except OSError:
        return False


def _listed(
    root: Path,
    target: Target,
    document: Document,
    listed: list,
    tasks: set[str],
    options: CheckOptions,
    result: CheckResult,
) -> list[LogTarget]:
    """The logs named under `samples`, each once, placed on its task."""
    from ..audit.auditor import LogTarget
    from ..io.sample_logs import UNPLACED_LOG, task_of

    logs, seen = [], set()
    for index, entry in enumerate(listed):
        if not isinstance(entry, str):
            continue  # LB201 reports it
        try:
            log = relative_reference(root, target.path, entry, options.boundary)
        except PathRefused as exc:
            add_hit(result, "LB700", Hit(document, ("samples", index), str(exc)))
            continue
        if log.path in seen:
            continue  # listed twice: audited once (a log listed 500 times must not cost 500 audits)
        seen.add(log.path)
        task = task_of(log.path.name, tasks)
        if task is None:
            add_hit(result, "LB700", Hit(document, ("samples", index), UNPLACED_LOG))
            continue
        logs.append(LogTarget(task, log))
    return logs


def _beside(
    root: Path,
    results: Target,
    tasks: set[str],
    options: CheckOptions,
    result: CheckResult,
    covered: frozenset[str] | set[str] = frozenset(),
) -> list[LogTarget]:
    """The logs lm-eval wrote beside a results file; two logs for one task are LB700 unless the
    submission lists the one it means (`covered`)."""
    from ..audit.auditor import LogTarget
    from ..io.sample_logs import discover

    found, problems = discover(results.path, tasks)
    for problem in problems:
        if not any(f" for task {task} (" in problem for task in covered):
            result.findings.append(make_finding("LB700", results.display, problem))
    logs = []
    for log in found:
        try:
            logs.append(LogTarget(log.task, confine(root, below(root, log.path), options.boundary)))
        except (PathRefused, ValueError) as exc:
            result.findings.append(make_finding("LB700", results.display, str(exc)))
    return logs


def audit_logs_beside(
    root: Path, target: Target, document: Document, options: CheckOptions, result: CheckResult
) -> list[TaskAudit]:
    """The sample logs lm-eval wrote beside a results file (an --output_path run folder), audited."""
    from ..audit.auditor import audit_logs
    from ..audit.reported_tasks import known_tasks

    tasks = known_tasks(document.data)
    if not tasks:
        return []
    logs = _beside(root, target, tasks, options, result)
    if not logs:
        return []
    audited = audit_logs(document, logs, options.limits)
    result.merge(audited)
    return audited.tasks


def add_hit(result: Findings, rule_id: str, hit: Hit) -> None:
    """A rule's hit as a finding, at its line and column, unless the rule's cap for the file is reached."""
    if not result.has_room(hit.document.display_path, rule_id):
        return
    line, column = hit.document.position(hit.path)
    result.findings.append(
        make_finding(
            rule_id,
            hit.document.display_path,
            hit.message,
            json_path=format_json_path(hit.path),
            line=line,
            column=column,
        )
    )
