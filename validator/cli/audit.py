"""`lbnorm audit`: recompute a results file's numbers from its sample logs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..core.errors import ExitCode
from ..report.audit import REPORTERS as AUDIT_REPORTERS
from ..report.check import ReportOptions, use_color
from .options import limit_options, limits_from, log_limit_option


@click.command()
@click.argument("results", type=click.Path(path_type=Path))
@click.argument("samples", nargs=-1, type=click.Path(path_type=Path))
@click.option("--root", type=click.Path(file_okay=False, path_type=Path),
              help="Workspace: the results file and every log must be inside it [default: the folder of RESULTS].")
@click.option("--strict", is_flag=True, help="Warnings (the DROP pathologies among them) fail the audit too.")
@click.option("--output-format", type=click.Choice(sorted(AUDIT_REPORTERS)), default="text", show_default=True)
@click.option("-v", "--verbose", count=True, help="Also list the flagged DROP samples.")
@click.option("-q", "--quiet", count=True, help="Show errors only.")
@limit_options
@log_limit_option
def audit(results: Path, samples: tuple[Path, ...], root: Path | None, strict: bool, output_format: str,
          verbose: int, quiet: int, **limits: int) -> None:
    """Recompute a results file's raw numbers from its per-sample logs.

    RESULTS is an lm-eval 0.4.x results file. SAMPLES are its logs
    (samples_<task>_<date>.jsonl, or the 0.4.0-0.4.2 JSON-array form); without
    them, the logs beside RESULTS with the same date are used. Checks hashes,
    coverage of doc_ids, every aggregate, acc/acc_norm from log-likelihoods,
    and DROP's EM/F1 with the deep dive's failure modes. Exit 0: no errors;
    1: errors (or warnings with --strict); 2: usage; 3: internal error.
    """
    from ..audit.auditor import audit_files

    workspace = Path(os.path.abspath(root if root is not None else results.parent))
    if not workspace.is_dir():
        raise click.UsageError(f"--root {root} is not a directory")
    inside = [Path(os.path.relpath(os.path.abspath(path), workspace)) for path in (results, *samples)]
    result = audit_files(workspace, inside[0], inside[1:] or None, limits_from(**limits))
    report = ReportOptions(strict=strict, verbosity=verbose - quiet, color=use_color(sys.stdout))
    AUDIT_REPORTERS[output_format](result, sys.stdout, report)
    sys.exit(ExitCode.OK if result.ok(strict) and result.tasks else ExitCode.DATA)
