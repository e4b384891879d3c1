"""Sample-log audit: re-derive a results file's raw numbers from its per-sample logs.

Each log is streamed once (io/sample_logs.py). A LogAuditor takes one record
at a time, checks its shape, and hands it to every audit check, a batch of
samples at a time (sample_batches.py; checks/: hashes,
coverage, multiple choice, DROP, aggregates), which keep only counters, so
memory does not grow with the log. At the end of the log each check compares
what it saw with the results file. Findings use the LB7xx rules (rules.py);
nothing here prints.
"""

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from ..findings import format_json_path, make_finding
from ..findings.internal import internal_error_finding
from ..io.documents import Document, DocumentError
from ..io.limits import DEFAULT_LIMITS, Limits
from ..io.loaders import read_document
from ..io.paths import PathRefused, Target, confine, confine_listed, display_path
from ..io.sample_logs import UNPLACED_LOG, SampleRecord, discover, read_records, task_of
from . import rules as _rules  # noqa: F401  (registers the LB7xx rules)
from .checks import Sample, check_classes
from .model import AuditResult, DropAudit, MetricAudit, TaskAudit  # noqa: F401  (the audit's public model)
from .reported_tasks import declared_groups, known_tasks, unmapped_groups
from .sample_batches import Batches
from .spec import NO_EXPECTATIONS, ProfileExpectations, TaskSpec
from .unnamed_filters import UnnamedFilters
from .work_budget import start_run

# Means are sum/len in log order; 1e-9 absorbs only the summation order of
# multi-rank runs (and Python 3.12's compensated sum()).
RAW_TOLERANCE = 1e-9


class LogTarget(NamedTuple):
    """A log to audit: the task of the results file it belongs to, and the file."""

    task: str
    target: Target  # confined: inside the workspace, a regular file


class LogAuditor:
    """Audits one task's log record by record with every check (in batches: sample_batches.py), then against the
    results file."""

    def __init__(
        self,
        spec: TaskSpec,
        log: str,
        results_doc: Document,
        result: AuditResult,
        tolerance: float = RAW_TOLERANCE,
        results_root: tuple = (),
        expectations: ProfileExpectations = NO_EXPECTATIONS,
    ):
        self.spec, self.name, self.results_doc, self.result = spec, log, results_doc, result
        self.expected_choices = expectations.choice_counts.get(
            spec.name
        )  # the profile's num_choices (LB715)
        self.doc_agreements = expectations.doc_agreements.get(spec.name)  # LB726's fields
        self.expected_split = expectations.split_sizes.get(
            spec.name
        )  # the profile's split size (LB718, coverage)
        self.results_root = (
            results_root  # where the results object sits in results_doc (embedded results)
        )
        self.tolerance = tolerance
        self.summary = TaskAudit(spec.name, log, expected=spec.n_effective)
        self.checks = [check(self) for check in check_classes() if check.applies(self)]
        # Each check's bound add, looked up once: every sample goes through each (every check made still finishes).
        self.adders: list[Callable[[Sample], None]] = [
            check.add for check in self.checks if check.sees_samples()
        ]
        self._scanned: tuple[SampleRecord, Document] | None = None
        self._unnamed_filters: UnnamedFilters | None = None
        self.batches = Batches(self.adders, self._at_record_now)

    def audit_records(self, records: Iterable[SampleRecord]) -> None:
        """Every record of the log through sample_of and the checks (see sample_batches.py)."""
        self.batches.audit(records, self.sample_of)

    def sample_of(self, record: SampleRecord) -> Sample | None:
        """The record's shape checked and counted: its Sample, for the checks, or None when it is not one."""
        data = record.data
        if type(data) is not dict:  # JSON makes no subclass of dict, and a bool's type is not int
            self.at_record("LB702", record, (), "a sample must be a JSON object")
            return None
        doc_id = data.get("doc_id")
        if not (type(doc_id) is int and doc_id >= 0):
            self.at_record("LB702", record, ("doc_id",), "doc_id must be a non-negative integer")
            return None
        summary = self.summary
        summary.samples += 1
        flt = data.get("filter")
        if type(flt) is not str:
            flt = self._unnamed_filter(doc_id)
        summary.filters[flt] = summary.filters.get(flt, 0) + 1
        return Sample(record, data, doc_id, flt)

    def _unnamed_filter(self, doc_id: int) -> str:
        """The filter of a sample logged without one (lm-eval before 0.4.7): see UnnamedFilters."""
        if self._unnamed_filters is None:
            self._unnamed_filters = UnnamedFilters(self.spec.filters)
        unnamed = self._unnamed_filters
        return unnamed.filters[0] if unnamed.single else unnamed.of(doc_id)

    def finish(self) -> TaskAudit:
        for check in self.checks:
            check.finish()
        return self.summary

    # --- findings, for the checks ---------------------------------------------------------
    def at_record(self, rule_id: str, record: SampleRecord, path: tuple, message: str) -> None:
        """A finding at the value at `path` inside one record of the log (held while a batch runs)."""
        if not self.batches.hold(rule_id, record, path, message):
            self._at_record_now(rule_id, record, path, message)

    def _at_record_now(self, rule_id: str, record: SampleRecord, path: tuple, message: str) -> None:
        if not self.result.has_room(self.name, rule_id):
            return
        line, column = self._record_position(record, path)
        prefix = (record.index,) if record.in_array else ()
        self.result.findings.append(
            make_finding(rule_id, self.name, message, format_json_path(prefix + path), line, column)
        )

    def _record_position(self, record: SampleRecord, path: tuple) -> tuple[int, int]:
        """One position scan per record, however many findings it has (the scan of a 20 MB record costs seconds)."""
        if self._scanned is None or self._scanned[0] is not record:
            self._scanned = (record, Document(self.name, record.text, record.data, "json"))
        return record_position(record, path, self._scanned[1])

    def at_line(self, rule_id: str, line: int, message: str) -> None:
        """A finding at a line of the log."""
        if self.result.has_room(self.name, rule_id):
            self.result.findings.append(
                make_finding(rule_id, self.name, message, line=line, column=1)
            )

    def at_results(self, rule_id: str, path: tuple, message: str) -> None:
        """A finding at `path` in the results file."""
        display, path = self.results_doc.display_path, self.results_root + path
        if self.result.has_room(display, rule_id):
            line, column = self.results_doc.position(path)
            self.result.findings.append(
                make_finding(rule_id, display, message, format_json_path(path), line, column)
            )


def record_position(record: SampleRecord, path: tuple, document: Document) -> tuple[int, int]:
    """Line and column in the log of the value at `path` inside one record (`document`: the record's text)."""
    line, column = document.position(path)
    if line is None:
        return record.line, record.column
    assert column is not None  # a position gives a line and a column, or neither
    return record.line + line - 1, column + record.column - 1 if line == 1 else column


# --- a whole results file -------------------------------------------------------------------


def audit_logs(
    results_doc: Document,
    logs: list[LogTarget],
    limits: Limits = DEFAULT_LIMITS,
    tolerance: float = RAW_TOLERANCE,
    results_root: tuple = (),
    expectations: ProfileExpectations = NO_EXPECTATIONS,
    unlogged_tasks: bool = True,
) -> AuditResult:
    """Audit each log against the results file; one bad log never stops the others.

    `expectations` (a maintainer's profile's num_choices and split sizes) are for the logs to prove (LB715, LB718).
    `unlogged_tasks=False` leaves out LB707 (tasks with no log among `logs`): a survey audits
    one log at a time and reports the tasks without a log once per run.
    """
    result = AuditResult(results_file=results_doc.display_path)
    data: Any = results_doc.data
    for part in results_root:
        data = data.get(part) if isinstance(data, dict) else None
    data = data if isinstance(data, dict) else {}
    for log in logs:
        auditor = LogAuditor(
            TaskSpec.from_results(data, log.task),
            log.target.display,
            results_doc,
            result,
            tolerance,
            results_root,
            expectations,
        )
        try:
            auditor.audit_records(read_records(log.target.path, limits))
            summary = auditor.finish()
        except DocumentError as exc:
            # The rest of the log cannot be trusted; counts and sums over part of it would only repeat this.
            result.findings.append(
                make_finding(
                    exc.rule, log.target.display, exc.message, line=exc.line, column=exc.column
                )
            )
            auditor.summary.notes.append(unread_note(exc.message))
            summary = auditor.summary
        except Exception as exc:  # noqa: BLE001 - one log's failure fails that log; the others are audited
            result.findings.append(internal_error_finding(log.target.display, exc))
            auditor.summary.notes.append(
                "the audit of this log stopped on an internal error (LB110)"
            )
            summary = auditor.summary
        result.tasks.append(summary)
    if unlogged_tasks:
        _tasks_without_logs(results_doc, data, logs, result, results_root)
    return result


def _tasks_without_logs(
    results_doc: Document,
    data: dict,
    logs: list[LogTarget],
    result: AuditResult,
    results_root: tuple,
) -> None:
    """LB707 naming every task of the file with no log among `logs`: each config, and each results entry that is
    no group (a task's config deleted, or the whole configs section, must not take its numbers out of the list)."""
    if not logs:
        return
    configs_section, results_section = data.get("configs"), data.get("results")
    configs = configs_section if isinstance(configs_section, dict) else {}
    results = results_section if isinstance(results_section, dict) else {}
    groups = set(declared_groups(data)) | set(unmapped_groups(data))
    tasks = [*configs, *(task for task in results if task not in configs and task not in groups)]
    logged = {log.task for log in logs}
    missing = [task for task in tasks if task not in logged]
    if missing:
        path = results_root + (("configs" if missing[0] in configs else "results"), missing[0])
        line, column = results_doc.position(path)
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5:,} more" if len(missing) > 5 else ""
        )
        result.findings.append(
            make_finding(
                "LB707",
                results_doc.display_path,
                (
                    f"{len(missing):,} of {len(tasks):,} tasks have no sample log, so their numbers are not audited: "
                    f"{shown}; add their samples_<task>_<date>.jsonl"
                ),
                format_json_path(path),
                line,
                column,
            )
        )


# --- from file names to an audit ------------------------------------------------------------


def unread_note(why: str) -> str:
    """The note of a log that stopped being read (local or streamed alike: the survey's table shows it)."""
    return f"the log could not be read to the end ({why}); its counts, hashes and aggregates were not compared"


def place_logs(
    root: Path,
    results: Target,
    data: Any,
    named: list[Path] | None,
    result: AuditResult,
    boundaries: dict[Path, Path] | None = None,
) -> list[LogTarget]:
    """The logs to audit: those named (paths relative to root), or those found beside the results file.

    `boundaries` maps each path to the folder it must resolve inside (None or a missing path: the root).
    """
    boundaries = boundaries or {}
    tasks = known_tasks(data)
    if named is None:
        found, problems = discover(results.path, tasks)
        for problem in problems:
            result.findings.append(make_finding("LB700", results.display, problem))
        if not found and not problems:
            result.findings.append(
                make_finding(
                    "LB700",
                    results.display,
                    (
                        "no sample log beside this results file; lm-eval writes samples_<task>_<date>.jsonl next to "
                        "results_<date>.json with --log_samples (or name the logs after the results file)"
                    ),
                )
            )
        # Listed in the folder the results file resolved into: each needs only an lstat (confine_listed)
        paths, listed = [log.path for log in found], True
        boundaries = {path: boundaries.get(results.path, root) for path in paths}
    else:
        paths, listed = named, False
    logs: list[LogTarget] = []
    for path in paths:
        target = _confined(root, path, result, boundaries.get(path), listed)
        if target is None:
            continue
        task = task_of(target.path.name, tasks)
        if task is None:
            result.findings.append(make_finding("LB700", target.display, UNPLACED_LOG))
            continue
        logs.append(LogTarget(task, target))
    return logs


def _confined(
    root: Path, path: Path, result: AuditResult, boundary: Path | None, listed: bool
) -> Target | None:
    try:
        if listed:
            return confine_listed(root, path.parent, path.name, boundary)
        return confine(root, path, boundary)
    except PathRefused as exc:
        result.findings.append(
            make_finding("LB700", display_path(root, path), f"{exc} (--root sets the workspace)")
        )
        return None


def audit_files(
    root: Path,
    results_path: Path,
    sample_paths: list[Path] | None,
    limits: Limits = DEFAULT_LIMITS,
    expectations: ProfileExpectations = NO_EXPECTATIONS,
    boundaries: dict[Path, Path] | None = None,
) -> AuditResult:
    """`python -m validator audit`: read the results file, place the logs, audit them.

    `boundaries` maps the results file and named logs to the folder each must resolve inside (default: root);
    logs found beside the results file keep to its boundary.

    Whatever goes wrong that no rule foresaw is LB110 for the results file: the report is still complete.
    """
    root = root.resolve()
    start_run()  # every log of the run shares one replay budget
    result = AuditResult(results_file=display_path(root, results_path))
    try:
        return _audit_files(
            root, results_path, sample_paths, limits, result, expectations, boundaries or {}
        )
    except Exception as exc:  # noqa: BLE001
        result.findings.append(internal_error_finding(result.results_file, exc))
        result.close()
        return result


def _audit_files(
    root: Path,
    results_path: Path,
    sample_paths: list[Path] | None,
    limits: Limits,
    result: AuditResult,
    expectations: ProfileExpectations = NO_EXPECTATIONS,
    boundaries: dict[Path, Path] | None = None,
) -> AuditResult:
    boundaries = boundaries or {}
    try:
        results = confine(root, results_path, boundaries.get(results_path))
        document = read_document(results.path, results.display, limits)
    except PathRefused as exc:
        result.findings.append(make_finding("LB101", result.results_file, str(exc)))
        return result
    except DocumentError as exc:
        result.findings.append(
            make_finding(
                exc.rule, result.results_file, exc.message, line=exc.line, column=exc.column
            )
        )
        return result
    if not known_tasks(document.data):
        result.findings.append(
            make_finding(
                "LB202",
                results.display,
                (
                    "no 'configs' or 'results' object: sample logs are audited against lm-eval 0.4.x results files"
                ),
            )
        )
        return result
    fences = {**boundaries, results.path: boundaries.get(results_path, root)}
    logs = place_logs(root, results, document.data, sample_paths, result, fences)
    audited = audit_logs(document, logs, limits, expectations=expectations)
    result.merge(audited)
    result.tasks = audited.tasks
    result.close()
    return result
