"""Reporters for `audit`. A reporter only formats an AuditResult; it decides nothing.

JSON contract (stable; keys are only ever added), schemas/audit-report.schema.json:
    {"ok": bool, "results_file": str, "logs_audited": int,
     "findings": [{"rule", "name", "severity", "file", "line", "column", "json_path", "message"}],
     "tasks": {task: {"log", "samples", "filters", "expected", "hashes_checked", "hash_mismatches",
                      "task_hash", "metrics": {key: {"reported", "from_samples", "recomputed", "samples", "note"}},
                      "drop": null | {the DROP report's fields, "counts", "variant", "flagged_samples"}, "notes"}},
     "lbnorm_version": str}
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TextIO

from ..core.version import __version__
from ..findings import ERROR, WARNING
from ..io.safe_text import one_line
from . import json_report
from .formats import Reporter
from .text_style import Painter, ReportOptions, finding_line

if (
    TYPE_CHECKING
):  # the audit itself loads only when a log is audited (start-up cost of every check)
    from ..audit.auditor import AuditResult, TaskAudit


def report_json(result: AuditResult, out: TextIO, options: ReportOptions) -> None:
    doc = {
        "ok": result.ok(options.strict),
        "results_file": result.results_file,
        "logs_audited": len(result.tasks),
        "findings": [f.as_dict() for f in result.findings],
        "tasks": {task.task: task.as_dict() for task in result.tasks},
        "lbnorm_version": __version__,
    }
    json_report.write_report(doc, out)


def report_text(result: AuditResult, out: TextIO, options: ReportOptions) -> None:
    paint = Painter(options.color)
    if options.verbosity >= 0 and result.tasks:
        out.write(paint.bold(one_line(result.results_file)) + "\n")
        for task in result.tasks:
            out.write(task_text(task, details=options.verbosity > 0))
    shown = [f for f in result.findings if options.verbosity >= 0 or f.severity == ERROR]
    for finding in shown:
        out.write(finding_line(finding, paint))
    verdict = "ok" if result.ok(options.strict) else "failed"
    out.write(
        f"{paint.verdict(verdict)}: {len(result.tasks)} log(s) audited, {result.count(ERROR)} error(s), "
        f"{result.count(WARNING)} warning(s)"
        + (" (--strict: warnings fail)" if options.strict else "")
        + "\n"
    )


def task_text(task: TaskAudit, details: bool = False) -> str:
    """A task's audit in a few indented lines (also used by `check -v`)."""
    filters = (
        ", ".join(f"{one_line(name, 40)} {count:,}" for name, count in task.filters.items())
        or "none"
    )
    expected = f" (n-samples.effective {task.expected:,})" if task.expected is not None else ""
    hashes = (
        f"hashes {task.hashes_checked - task.hash_mismatches:,}/{task.hashes_checked:,} ok"
        if task.hashes_checked
        else "no hashes logged (lm-eval < 0.4.3)"
    )
    lines = [
        f"  {one_line(task.task, 120)}: {one_line(task.log)}: {task.samples:,} samples [{filters}]{expected}; "
        f"{hashes}; task hash {task.task_hash}"
    ]
    for metric in task.metrics:
        if metric.note:
            lines.append(f"    {one_line(metric.key, 60):<28} {one_line(metric.note)}")
        else:
            recomputed = (
                f"  recomputed {_num(metric.recomputed)}" if metric.recomputed is not None else ""
            )
            lines.append(
                f"    {one_line(metric.key, 60):<28} results {_num(metric.reported)}  "
                f"samples {_num(metric.from_samples)}{recomputed}"
            )
    if task.drop:
        lines.extend(_drop_lines(task.drop.as_dict(), details))
    lines.extend(f"    note: {one_line(note)}" for note in task.notes)
    return "\n".join(lines) + "\n"


def _drop_lines(report: dict, details: bool) -> list[str]:
    variant = report["variant"]
    lines = [
        f"    DROP: n {report['n']:,} of {_count(report['n_expected'])}; EM {_num(report['em_recomputed'])} "
        f"F1 {_num(report['f1_recomputed'])} recomputed, {report['n_mismatch']:,} sample(s) differ from the log",
        f"    rates: W {_pct(report['rate_W'])} (lost a gold number {_pct(report['rate_W_impacting'])}), "
        f"D {_pct(report['rate_D'])}, D' {_pct(report['rate_D_prime'])}, L {_pct(report['rate_L'])}",
        f"    split at first newline: EM {_num(report['em_nl'])} F1 {_num(report['f1_nl'])}; after lstrip: "
        f"EM {_num(report['em_nl_lstrip'])} F1 {_num(report['f1_nl_lstrip'])}; whitespace as spaces: "
        f"F1 {_num(report['f1_ws'])}",
        f"    stop sequences: {one_line(variant['until'])} (samples: {one_line(variant['until_in_samples'])}); "
        f"few-shot {one_line(variant['num_fewshot'])}; version {one_line(variant['version'])}",
    ]
    if details:
        for sample in report["flagged_samples"][:20]:
            lines.append(
                f"      doc_id {sample['doc_id']} line {sample['line']} {'/'.join(sample['flags'])}: "
                f"{one_line(sample['prediction'], 80)} -> F1 {sample['f1']}, split@\\n "
                f"{sample['f1_split_newline']}"
            )
    return lines


def _num(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return one_line(value, 40) if value is not None else "-"
    return f"{value:.4f}" if math.isfinite(value) else str(value)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _count(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else "?"


REPORTERS: dict[str, Reporter] = {
    "text": report_text,
    "json": report_json,
}
