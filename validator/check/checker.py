"""The checker: files in, findings and scores out. No printing here (see report/check.py).

For each file matched by the patterns: read it inside the workspace, parse it,
and either check it as a submission (its results file is loaded and checked
with it) or, for a bare results file, run only the raw-file checks. One bad
file never stops the others.

Files are visited smallest first, so submissions come before the results
files they reference; a results file already checked with its submission is
not read again, and one document at a time is held in memory.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..audit.work_budget import start_run
from ..core.errors import DataError, FoldedKeys
from ..core.normalization import one_entry_per_task, plain_mean, score_benchmark
from ..core.profile import Profile
from ..findings import ERROR, make_finding
from ..findings.internal import internal_error_finding, not_walked_findings
from ..io.discovery import (
    SAMPLE_LOG_PASSED_TO_CHECK,
    is_sample_log,
    named_literally,
    only_logs_message,
)
from ..io.documents import Document, DocumentError
from ..io.limits import LIMIT_OPTIONS, Limits
from ..io.loaders import DEFAULT_PROFILE, builtin_profile_names, load_builtin_profile, read_document
from ..io.paths import (
    ENTRIES_PER_FILE,
    PathRefused,
    Target,
    confine,
    display_path,
    expand,
    relative_reference,
)
from ..io.readers import read_results
from .context import AVERAGE, CheckContext, Hit
from .listed_logs import add_hit, audit_listed_logs, audit_logs_beside
from .own_files import own_file_kind, own_file_message
from .result import DEFAULT_TOLERANCE, CheckOptions, CheckResult, FileReport  # noqa: F401 (re-exported)
from .roles import (
    RESULTS,
    both_roles,
    both_roles_message,
    not_results_message,
    role_of,
    submission_field,
)
from .root_causes import collapse
from .rules import check_rules
from .workers import PARALLEL_MIN_FILES, Partial, run_batches, split_batches  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    pass

BARE_RESULTS_NOTE = (
    "a bare results file: only the raw-file checks ran (no reported numbers to compare)"
)


def run_check(
    patterns: list[str], options: CheckOptions, progress: Callable[[int, int], None] | None = None
) -> CheckResult:
    """Check every file the patterns match; `progress(done, total)` is called as batches finish."""
    check_rules()  # register the rule modules
    start_run()  # every log the run audits shares one replay budget
    result = CheckResult()
    root = options.root.resolve()
    matched = expand(root, patterns, options.limits.max_files)
    for pattern in matched.unmatched:
        result.findings.append(
            make_finding("LB100", pattern, f"'{pattern}' matched no file; check the path or glob")
        )
    for pattern in matched.only_logs:
        result.findings.append(make_finding("LB100", pattern, only_logs_message(pattern)))
    result.findings += not_walked_findings(matched.skipped)
    if matched.too_many:
        result.findings.append(
            make_finding(
                "LB107",
                " ".join(patterns),
                (
                    f"more than {options.limits.max_files:,} checkable files match (or the folders hold more than "
                    f"{ENTRIES_PER_FILE} entries per allowed file); nothing was checked (narrow the globs, "
                    f"or raise {LIMIT_OPTIONS['max_files']} for a full re-audit)"
                ),
            )
        )
        result.close()
        return result
    batches = split_batches(matched.paths, options.jobs)
    checked_with_submission: set[Path] = set()
    bare: dict[Path, CheckResult] = {}
    named = frozenset(Path(p) for p in patterns if named_literally(p))
    work = functools.partial(_check_batch, root, options=options, named=named)
    for part in run_batches(work, batches, options.jobs, progress):
        result.merge(part.result)
        result.files.extend(part.result.files)
        result.suppressed += part.result.suppressed
        checked_with_submission |= part.checked_with_submission
        bare.update(part.bare)
    for path, outcome in bare.items():
        if path not in checked_with_submission:
            result.merge(outcome)
            result.files.extend(outcome.files)
            result.suppressed += outcome.suppressed
    audited = {task.log for report in result.files for task in report.audit}
    result.findings = [  # a log named beside its results file was audited with it
        f for f in result.findings if not (f.rule == "LB113" and f.file in audited)
    ]
    result.close()
    result.findings = options.selection.apply(result.findings)
    result.files.sort(key=lambda f: f.path)
    return result


def _check_batch(
    root: Path, paths: list[Path], options: CheckOptions, named: frozenset[Path] = frozenset()
) -> Partial:
    """Check files smallest first: submissions come before the results files they use."""
    check_rules()
    part = Partial(CheckResult(), set(), {})
    for path in sorted(paths, key=lambda p: (_size(root / p), p.as_posix())):
        try:
            _check_one(root, path, options, part, path in named)
        except Exception as exc:  # noqa: BLE001 - whatever breaks in one file fails that file, not the run
            part.result.findings.append(internal_error_finding(display_path(root, path), exc))
    part.result.shown.clear()
    return part


def _check_one(
    root: Path, path: Path, options: CheckOptions, part: Partial, named: bool = False
) -> None:
    try:
        target = confine(root, path, options.boundary)
    except PathRefused as exc:
        part.result.findings.append(make_finding("LB101", str(path), str(exc)))
        return
    if target.path in part.checked_with_submission or target.path in part.bare:
        return
    if is_sample_log(target.path):
        part.result.findings.append(
            make_finding("LB113", target.display, SAMPLE_LOG_PASSED_TO_CHECK)
        )
        return
    document = _parse(target, options.limits, part.result)
    if document is None:
        return
    kind = own_file_kind(document.data)
    if (
        kind is not None
    ):  # met in a folder: passed over quietly, as ruff passes over what is not Python
        if named:
            part.result.findings.append(
                make_finding("LB113", target.display, own_file_message(kind))
            )
        return
    conflict = both_roles(document.data)
    if conflict:
        add_hit(part.result, "LB202", Hit(document, (conflict[0],), both_roles_message(conflict)))
        return
    if role_of(document.data) == RESULTS:
        # Checked now (one document in memory at a time); reported only
        # if no submission checks it as its results file.
        part.bare[target.path] = CheckResult()
        _check_bare_results(root, target, document, options, part.bare[target.path])
    else:
        part.checked_with_submission |= _check_submission(
            root, target, document, options, part.result
        )


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0  # confine() reports it


def _parse(target: Target, limits: Limits, result: CheckResult) -> Document | None:
    try:
        return read_document(target.path, target.display, limits)
    except DocumentError as exc:
        result.findings.append(
            make_finding(exc.rule, target.display, exc.message, line=exc.line, column=exc.column)
        )
        return None


# --- one submission ---------------------------------------------------------------------


def _check_submission(
    root: Path, target: Target, document: Document, options: CheckOptions, result: CheckResult
) -> set[Path]:
    """Check a submission and its results; return the results file it used, if any."""
    before = len(result.findings)
    profile = options.profile or _submission_profile(document)
    ctx = CheckContext(
        profile=profile,
        tolerance=options.tolerance,
        submission=document,
        stale_scorer_bound=options.stale_scorer_bound,
    )
    report = FileReport(path=target.display, kind="submission", profile=profile.name)
    used: set[Path] = set()
    results_target: Target | None = None
    results_value = document.data.get("results") if isinstance(document.data, dict) else None
    if isinstance(results_value, str):
        try:
            results_target = relative_reference(root, target.path, results_value, options.boundary)
        except PathRefused as exc:
            add_hit(result, "LB203", Hit(document, ("results",), str(exc)))
        else:
            ctx.results_doc = _parse(results_target, options.limits, result)
            claimed = submission_field(ctx.results_doc.data) if ctx.results_doc else None
            if claimed:  # judged as what it claims to be, on its own: never read as results
                add_hit(
                    result,
                    "LB202",
                    Hit(document, ("results",), not_results_message(results_value, claimed)),
                )
                ctx.results_doc = None
                results_target = None
            else:
                used.add(results_target.path)
                report.results = results_target.display
    elif isinstance(results_value, dict):
        claimed = submission_field(results_value)
        if claimed:
            add_hit(
                result,
                "LB202",
                Hit(document, ("results", claimed), not_results_message("results", claimed)),
            )
        else:
            ctx.results_doc, ctx.results_root = document, ("results",)
            report.results = target.display
    model = document.data.get("model") if isinstance(document.data, dict) else None
    report.model = model if isinstance(model, str) else None
    _read_and_score(ctx, result)
    _run_rules(ctx, result)
    report.audit = audit_listed_logs(root, target, document, ctx, options, result, results_target)
    report.reported = {k: v for k, v in ctx.reported().items() if isinstance(v, (int, float))}
    report.recomputed = _recomputed(ctx)
    result.files.append(report)
    _collapse_since(before, options, result)
    return used


def _collapse_since(before: int, options: CheckOptions, result: CheckResult) -> None:
    """Apply the rule selection to one file's findings, then keep only its root causes (a root cause the
    maintainer ignored cannot hide its consequences)."""
    kept, suppressed = collapse(options.selection.apply(result.findings[before:]))
    result.findings[before:] = kept
    result.suppressed += suppressed


def _submission_profile(document: Document) -> Profile:
    named = document.data.get("profile") if isinstance(document.data, dict) else None
    if isinstance(named, str) and named in builtin_profile_names():
        return load_builtin_profile(named)
    return load_builtin_profile(DEFAULT_PROFILE)  # an unknown name is reported by LB204


def _check_bare_results(
    root: Path, target: Target, document: Document, options: CheckOptions, result: CheckResult
) -> None:
    profile = options.profile or load_builtin_profile(DEFAULT_PROFILE)
    ctx = CheckContext(
        profile=profile, tolerance=options.tolerance, submission=None, results_doc=document
    )
    _read_and_score(ctx, result)
    _run_rules(ctx, result)
    report = FileReport(
        path=document.display_path,
        kind="results",
        profile=profile.name,
        recomputed=_recomputed(ctx),
        notes=[BARE_RESULTS_NOTE],
    )
    if options.audit_beside:
        report.audit = audit_logs_beside(root, target, document, options, result)
    result.files.append(report)
    _collapse_since(0, options, result)


def _read_and_score(ctx: CheckContext, result: CheckResult) -> None:
    if ctx.results_doc is None:
        return
    try:
        ctx.results = read_results(
            ctx.results_object() if ctx.results_root else ctx.results_doc.data
        )
        one_entry_per_task(ctx.profile, ctx.results)
    except FoldedKeys as exc:
        ctx.results = None  # which of the two keys to read would be a guess: nothing is scored
        add_hit(result, exc.rule, Hit(ctx.results_doc, ctx.results_root + exc.path, str(exc)))
        return
    except DataError as exc:
        add_hit(result, "LB202", Hit(ctx.results_doc, ctx.results_root, str(exc)))
        return
    for bench in ctx.profile.benchmarks:
        if bench.retired and not any(ctx.results.find(t.names) for t in bench.tasks):
            continue
        try:
            ctx.scores[bench.id] = score_benchmark(bench, ctx.results, ctx.profile.normalize)
        except DataError as exc:
            ctx.unscored[bench.id] = str(exc)
    if all(b in ctx.scores for b in ctx.profile.average_order):
        ctx.average = plain_mean([ctx.scores[b].score for b in ctx.profile.average_order])


def _run_rules(ctx: CheckContext, result: CheckResult) -> None:
    before = len(result.findings)
    for rule in check_rules():
        if rule.check is not None:
            for hit in rule.check(ctx):
                add_hit(result, rule.id, hit)
    # Safety net: a number we could not recompute is never silently accepted.
    explained = any(f.severity == ERROR for f in result.findings[before:])
    if ctx.results is not None and ctx.unscored and not explained:
        for bench_id, reason in ctx.unscored.items():
            add_hit(
                result,
                "LB600",
                Hit(
                    ctx.results_doc, ctx.results_root, f"{bench_id} cannot be recomputed: {reason}"
                ),
            )
    ids = {bench.id for bench in ctx.profile.benchmarks}
    for key in ctx.reported() if ctx.results is not None else ():
        if key in ids and key not in ctx.scores and key not in ctx.unscored:
            message = f"reported {key} cannot be recomputed: the results hold none of its tasks"
            add_hit(result, "LB600", Hit(ctx.submission, ("reported", key), message))


def _recomputed(ctx: CheckContext) -> dict[str, float]:
    scores = {bench_id: score.score for bench_id, score in ctx.scores.items()}
    if ctx.average is not None:
        scores[AVERAGE] = ctx.average
    return scores


# --- findings ----------------------------------------------------------------------------
