"""What a check is asked (CheckOptions) and what it gives back (CheckResult, one FileReport per file)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.profile import Profile
from ..findings import Finding, Findings
from ..findings.selection import RuleSelection
from ..io.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:  # the audit is imported only for a submission that lists its logs
    from ..audit.model import TaskAudit

DEFAULT_TOLERANCE = 0.01


@dataclass(frozen=True)
class CheckOptions:
    root: Path  # paths are relative to it and shown relative to it (the current directory)
    tolerance: float = DEFAULT_TOLERANCE
    profile: Profile | None = (
        None  # the maintainer's; None: the submission's built-in or the default
    )
    limits: Limits = DEFAULT_LIMITS
    jobs: int = 1  # worker processes for large runs (a re-audit); 1 checks in this process
    stale_scorer_bound: float | None = (
        None  # the maintainer's opt-in (LB607); None: stale differences fail
    )
    selection: RuleSelection = RuleSelection()  # the maintainer's --select/--ignore/--warn/--error
    audit_beside: bool = (
        False  # a bare results file also audits the sample logs lm-eval wrote beside it
    )
    boundary: Path | None = None  # what files name or link to stays inside it (None: the root)


@dataclass
class FileReport:
    path: str
    kind: str  # "submission" or "results"
    profile: str | None = None
    reported: dict[str, float] = field(default_factory=dict)
    recomputed: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    audit: list[TaskAudit] = field(default_factory=list)  # the sample logs the submission listed
    # A submission's: the model it names, and the file its results were read from (the submission itself
    # when it embeds them), as shown in findings; None when it names none.
    model: str | None = None
    results: str | None = None


class CheckResult(Findings):
    """A check's findings and the report of each file it checked."""

    def __init__(
        self, findings: list[Finding] | None = None, files: list[FileReport] | None = None
    ) -> None:
        super().__init__(findings)
        self.files: list[FileReport] = [] if files is None else files
        self.suppressed = 0  # findings that only followed from a root cause (see root_causes.py)

    def files_checked(self) -> int:
        """Files checked, one definition for every report and output: each submission (with the results
        file it names), each results file no submission named, and each file that was read (or refused)
        and found bad, an LB1xx finding (LB100 and LB107 name globs, not files; LB111 names what was not
        walked)."""
        not_files = ("LB100", "LB107", "LB111")
        unreadable = {
            f.file for f in self.findings if f.rule.startswith("LB1") and f.rule not in not_files
        }
        # A finding on the results file a submission names, or on a log it audited, is that submission's.
        used = {r.results for r in self.files} | {t.log for r in self.files for t in r.audit}
        return len({report.path for report in self.files} | (unreadable - used))
