"""A submission's sample logs, audited: those it lists under `samples`, or those beside a bare results file.

The audit is imported only here, inside the functions: most submissions list no logs, and every
pull request pays for start-up imports.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..findings import Findings, format_json_path, make_finding
from ..io.documents import Document
from ..io.limits import Limits
from ..io.paths import PathRefused, Target, below, confine, relative_reference
from .context import CheckContext, Hit
from .result import CheckOptions, CheckResult

if TYPE_CHECKING:
    from ..audit.model import TaskAudit


def audit_listed_logs(
    root: Path,
    target: Target,
    document: Document,
    ctx: CheckContext,
    options: CheckOptions,
    result: CheckResult,
) -> list[TaskAudit]:
    """Audit the sample logs a submission lists under `samples` against its results (LB7xx)."""
    listed = document.data.get("samples") if isinstance(document.data, dict) else None
    if not isinstance(listed, list) or not listed or ctx.results_doc is None:
        return []
    # Loaded here, not at start-up: most submissions list no logs, and every pull request pays for imports.
    from ..audit.auditor import LogTarget, audit_logs
    from ..audit.reported_tasks import known_tasks
    from ..audit.spec import ProfileExpectations
    from ..io.sample_logs import UNPLACED_LOG, task_of

    if len(listed) > options.limits.max_files:
        add_hit(
            result,
            "LB700",
            Hit(
                document,
                ("samples",),
                (
                    f"lists {len(listed):,} sample logs, more than {options.limits.max_files:,}; none was audited "
                    f"(raise {Limits.OPTION_NAMES['max_files']} if this submission is honest)"
                ),
            ),
        )
        return []
    tasks = known_tasks(ctx.results_object() if ctx.results_root else ctx.results_doc.data)
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
    audited = audit_logs(
        ctx.results_doc,
        logs,
        options.limits,
        results_root=ctx.results_root,
        expectations=ProfileExpectations.of_profile(ctx.profile),
    )
    result.merge(audited)
    return audited.tasks


def audit_logs_beside(
    root: Path, target: Target, document: Document, options: CheckOptions, result: CheckResult
) -> list[TaskAudit]:
    """The sample logs lm-eval wrote beside a results file (an --output_path run folder), audited."""
    from ..audit.auditor import LogTarget, audit_logs
    from ..audit.reported_tasks import known_tasks
    from ..io.sample_logs import discover

    tasks = known_tasks(document.data)
    if not tasks:
        return []
    found, problems = discover(target.path, tasks)
    for problem in problems:
        result.findings.append(make_finding("LB700", target.display, problem))
    logs = []
    for log in found:
        try:
            logs.append(LogTarget(log.task, confine(root, below(root, log.path), options.boundary)))
        except (PathRefused, ValueError) as exc:
            result.findings.append(make_finding("LB700", target.display, str(exc)))
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
