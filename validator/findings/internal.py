"""LB110-LB111: what the run could not judge, said as findings instead of lost.

Whatever goes wrong inside one file (an exception lbnorm did not foresee, a
worker process that died) fails that file, and the run goes on with the
others. The walk names every folder and hidden file it did not enter.
"""

from __future__ import annotations

from .model import ERROR, WARNING, Finding
from .registry import make_finding, rule


@rule("LB110", "internal-error-in-file", ERROR, runs=False)
def internal_error_in_file(ctx):
    """lbnorm could not finish checking this file: an unforeseen error, or its worker process died.

    The file is failed, never passed, and every other file is still checked.
    This is a bug in lbnorm (or a file built to crash it): please report it
    with the file. Exit 3 is kept for a broken installation or a bad
    maintainer profile, never for something a pull request wrote.
    """


@rule("LB111", "not-walked", WARNING, runs=False)
def not_walked(ctx):
    """A hidden entry (its name starts with '.') or a symlinked folder below a walked folder was not entered.

    Symlinked folders are never followed (two links to '.' would make '**'
    walk for ever) and hidden names are matched only by a pattern that asks
    for them (".config/*.json"). The warning names what was skipped, so no
    file goes unchecked without a word. Version-control folders (.git, .hg,
    .svn) are skipped silently.
    """


# A thousand hidden files are one warning each up to here, then one that counts the rest.
MAX_SKIP_FINDINGS = 20
NOT_WALKED = (
    "not walked: a hidden name or a symlinked folder; name it explicitly in the paths "
    "(e.g. '.folder/*.json' or its real folder) if it holds files to check"
)


def not_walked_findings(skipped: list) -> list[Finding]:
    """LB111 naming each path (a pathlib path) the walk did not enter, so a maintainer knows what was not
    checked: the first MAX_SKIP_FINDINGS, then one that counts the rest."""
    findings = [
        make_finding("LB111", path.as_posix(), NOT_WALKED) for path in skipped[:MAX_SKIP_FINDINGS]
    ]
    if len(skipped) > MAX_SKIP_FINDINGS:
        rest = len(skipped) - MAX_SKIP_FINDINGS
        findings.append(
            make_finding(
                "LB111",
                skipped[MAX_SKIP_FINDINGS].as_posix(),
                f"and {rest:,} more hidden entries or symlinked folders were not walked",
            )
        )
    return findings


def internal_error_finding(file: str, exc: BaseException) -> Finding:
    return make_finding(
        "LB110",
        file,
        f"lbnorm could not finish checking this file ({type(exc).__name__}: "
        f"{str(exc)[:200]}); the file is failed. Please report this file to the lbnorm maintainers",
    )


def worker_died_finding(file: str) -> Finding:
    return make_finding(
        "LB110",
        file,
        "the worker process checking this file died (a native crash or out of "
        "memory); the file is failed. Please report this file to the lbnorm maintainers",
    )
