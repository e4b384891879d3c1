"""The work one run may spend replaying the harness's checkers and filters, shared by every log it reads.

A submitter writes the responses' length and how many patterns each doc asks
to run over them. Every pattern runs in time linear in the text: under RE2
(harness/linear_regex.py), or where its kwarg is plain words, by str methods
or re (harness/plain_words.py, literal_patterns.py), each run charged as the passes
over the text it may make. What is counted is those reads, in characters, as
the replays do them. The budget belongs to the run, not to a
log: more tasks or more logs share it rather than add to it. A run starts it
afresh (`lbnorm check`, `lbnorm audit`, the Action, and each unit of survey
work); worker processes each hold one, and their number is the maintainer's.
Work past it is not done, and what it would have vouched for is not audited
(LB716), which fails the run: the bound never passes anything.
"""

from __future__ import annotations

# Characters read per run (an honest IFEval run of 541 docs: about 23 million)
REPLAY_BUDGET = 2_000_000_000


class WorkBudget:
    """Characters the replays of one run may still read."""

    def __init__(self, total: int):
        self.total = total
        self.left = total

    def spend(self, characters: float) -> bool:
        """Take `characters` from what is left; False, taking nothing, where that is more than is left."""
        if characters > self.left:
            return False
        self.left -= int(characters)
        return True


_RUN = [WorkBudget(REPLAY_BUDGET)]


def start_run(total: int | None = None) -> WorkBudget:
    """A fresh budget for the run now starting in this process (REPLAY_BUDGET unless told)."""
    _RUN[0] = WorkBudget(REPLAY_BUDGET if total is None else total)
    return _RUN[0]


def run_budget() -> WorkBudget:
    """The budget of the run in progress in this process."""
    return _RUN[0]
