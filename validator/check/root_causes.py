"""Root causes: one finding for the cause, not fifty for its consequences.

A submission checked with the wrong profile breaks every task and score
rule (LB204 alone can bring 14 errors and 44 warnings); unreadable results break
every rule that reads them. When a root cause is an error, the findings
that only follow from it are dropped from that submission's findings and
the root cause says how many there were. The verdict does not change: the
root cause is itself an error.
"""

from __future__ import annotations

from ..findings import ERROR, WARNING, Finding

# root cause -> rule prefixes whose findings it makes meaningless
DEPENDENTS = {
    "LB204": ("LB3", "LB6"),  # wrong profile: tasks and scores are another board's
    "LB202": ("LB3", "LB4", "LB5", "LB6"),  # results unreadable: nothing about them can be judged
    "LB203": ("LB3", "LB4", "LB5", "LB6"),  # results file refused
}


def collapse(findings: list[Finding]) -> tuple[list[Finding], int]:
    """The findings of one submission check with dependents of a root cause removed, and how many were."""
    roots = [f for f in findings if f.rule in DEPENDENTS and f.severity == ERROR]
    if not roots:
        return findings, 0
    prefixes = tuple(p for root in roots for p in DEPENDENTS[root.rule])
    dependents = [f for f in findings if f.rule.startswith(prefixes) and f.rule not in DEPENDENTS]
    if not dependents:
        return findings, 0
    errors = sum(1 for f in dependents if f.severity == ERROR)
    warnings = sum(1 for f in dependents if f.severity == WARNING)
    note = (
        f" ({errors} error(s) and {warnings} warning(s) that follow from this are not listed; "
        "fix this first and run again)"
    )
    first, dropped = roots[0], {id(f) for f in dependents}
    kept = [
        f._replace(message=f.message + note) if f is first else f
        for f in findings
        if id(f) not in dropped
    ]
    return kept, len(dependents)
