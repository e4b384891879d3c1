"""`lbnorm audit`: recompute results files' numbers from their sample logs."""

import os
import sys
from pathlib import Path
from typing import NamedTuple

import click

from ..core.errors import ExitCode
from ..findings import Findings, make_finding
from ..findings.internal import not_walked_findings
from ..io.discovery import results_files, split_logs, unclaimed_logs
from ..report import json_report
from ..report.audit import report_json as audit_json
from ..report.audit import report_text as audit_text
from ..report.formats import default_format, reporters
from ..report.text_style import Painter, ReportOptions, finding_line, use_color
from .arguments import expand_arguments
from .configuration import command_line_settings, effective
from .options import (
    config_options,
    limit_options,
    log_limit_option,
    proving_profile_options,
    report_options,
    selection_options,
)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@proving_profile_options
@click.option(
    "--strict", is_flag=True, help="Warnings (the DROP pathologies among them) fail the audit too."
)
@config_options
@selection_options
@report_options
@limit_options
@log_limit_option
def audit(
    paths: tuple[str, ...],
    profile_name: str | None,
    profile_file: Path | None,
    strict: bool,
    config_file: Path | None,
    isolated: bool,
    root: Path | None,
    output_format: str | None,
    color: str,
    verbose: int,
    quiet: int,
    **options,
) -> None:
    """Recompute results files' raw numbers from their per-sample logs.

    PATHS are results files, folders (an lm-eval --output_path folder: every
    results_<date>.json below it, each with the samples_<task>_<date>.jsonl
    logs beside it; a log no results file takes is LB700) or globs, relative
    to the current directory. To audit
    chosen logs, name one results file and the logs after it. Checks hashes,
    coverage of doc_ids, every aggregate, acc/acc_norm from log-likelihoods,
    and DROP's EM/F1 with the deep dive's failure modes. Exit 0: no errors;
    1: errors (or warnings with --strict); 2: usage; 3: internal error.
    """
    from ..audit.auditor import audit_files
    from ..audit.spec import ProfileExpectations

    run = effective(
        command_line_settings(
            strict=strict, profile=profile_name, profile_file=profile_file, **options
        ),
        config_file,
        isolated,
        root,
    )
    expectations = ProfileExpectations.of_profile(
        run.profile()
    )  # a maintainer's (option or configuration file), or none
    found = expand_arguments(run.workspace, paths, run.limits.max_files)
    others, logs = split_logs(found.paths)
    cwd = Path(os.getcwd())
    results = results_files(others, found.literal, cwd)
    if logs and len(results) != 1:
        raise click.UsageError(
            "to audit chosen sample logs, name exactly one results file before them "
            f"(found {len(results)}); or pass the run folder to audit every log beside it"
        )
    selection, combined = run.selection(), AuditRun()
    for argument, message in found.problems:
        combined.add_loose(
            make_finding("LB101" if "outside" in message else "LB100", argument, message)
        )
    for finding in not_walked_findings(found.skipped):
        combined.add_loose(finding)
    for path, why in unclaimed_logs(
        found.logs, results
    ):  # a log a folder holds must not pass unseen
        combined.add_loose(make_finding("LB700", path.as_posix(), why))
    for path in results:
        audited = audit_files(cwd, path, logs or None, run.limits, expectations, found.boundary)
        audited.findings = selection.apply(audited.findings)
        combined.add(audited)
    report = ReportOptions(
        strict=run.strict,
        verbosity=verbose - quiet,
        color=use_color(sys.stdout, color),
        root=str(cwd),
    )
    fmt = default_format(output_format, os.environ)
    if fmt in ("text", "json") and len(combined.audits) == 1 and not combined.loose:
        reporters(audit_text, audit_json)[fmt](combined.audits[0], sys.stdout, report)
    else:
        AUDIT_RUN_REPORTERS[fmt](combined, sys.stdout, report)
    passed = combined.ok(run.strict) and combined.audits and all(a.tasks for a in combined.audits)
    sys.exit(ExitCode.OK if passed else ExitCode.DATA)


class AuditedFile(NamedTuple):
    """A results file of the run, which the JUnit reporter lists as a test suite."""

    path: str  # what the junit reporter lists as a test suite


class AuditRun(Findings):
    """Several results files audited in one run: one Findings for the github, sarif and junit reporters."""

    def __init__(self):
        super().__init__()
        self.audits = []  # one AuditResult per results file
        self.loose = []  # findings about the arguments themselves (outside the workspace, matched nothing)

    @property
    def files(self) -> list[AuditedFile]:
        return [AuditedFile(a.results_file) for a in self.audits]

    def add(self, audited) -> None:
        self.audits.append(audited)
        self.findings.extend(audited.findings)

    def add_loose(self, finding) -> None:
        self.loose.append(finding)
        self.findings.append(finding)


def _run_text(run: AuditRun, out, options: ReportOptions) -> None:
    for audited in run.audits:
        audit_text(audited, out, options)
    paint = Painter(options.color)
    for finding in run.loose:
        out.write(finding_line(finding, paint))
    if len(run.audits) != 1 or run.loose:
        verdict = "ok" if run.ok(options.strict) and run.audits else "failed"
        out.write(f"{verdict}: {len(run.audits)} results file(s) audited\n")


def _run_json(run: AuditRun, out, options: ReportOptions) -> None:
    import io
    import json

    from ..core.version import __version__

    docs = []
    for audited in run.audits:
        buffer = io.StringIO()
        audit_json(audited, buffer, options)
        docs.append(json.loads(buffer.getvalue()))
    doc = {
        "ok": run.ok(options.strict) and bool(run.audits),
        "audits": docs,
        "findings": [f.as_dict() for f in run.loose],
        "lbnorm_version": __version__,
    }
    json_report.write_report(doc, out)


AUDIT_RUN_REPORTERS = reporters(_run_text, _run_json)
