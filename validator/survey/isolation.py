"""A batch lost with its worker is split in halves until the unit that kills workers stands alone.

Units travel in batches (batches.py), and a worker that dies (killed, out
of memory, a crash in native code) takes its whole batch with it: the
executor cannot tell which unit was the cause. (A task that raises, which
a unit's own errors never make it do, is lost the same way.) So a lost
batch is neither retried whole nor failed whole: its halves run again,
then the halves of whichever half is lost again, until a unit is lost
alone. It then runs once more with nothing else running; lost again, it
gets a "failed" row saying so, and every other unit of the batch is
audited. A worker killed once from outside (a restart, an operator, the
kernel's out-of-memory killer choosing it) costs nothing but smaller
batches. A unit that kills workers costs about log2(batch) + 2 losses;
MAX_LOSSES bounds the whole survey's, so a survey whose every unit kills
its worker still ends, with every unit failed.
"""

from __future__ import annotations

from typing import Callable, Iterator

from ..io.safe_text import one_line
from .journal import rows_text
from .sources import Unit
from .work import failed_rows

Batch = list[Unit]
Result = tuple[Batch, list[str]]  # each unit's rows as journal text (journal.rows_text)
Outcome = tuple[Batch, "list[str] | Exception"]  # an executor's one pass: the rows, or why the batch was lost
MAX_LOSSES = 64


def failed_batch(batch: Batch, reason: str) -> list[str]:
    return [rows_text(failed_rows(unit, reason)) for unit in batch]


def isolate(run_once: Callable[[list[Batch]], Iterator[Outcome]], batches: list[Batch],
            max_losses: int = MAX_LOSSES) -> Iterator[Result]:
    """Run the batches with run_once, then the halves of the lost ones, and so on (see the module docstring)."""
    losses = 0
    while batches:
        lost = [(batch, outcome) for batch, outcome in (yield from _finished(run_once(batches)))]
        batches, suspects = [], []
        for batch, error in lost:
            losses += 1
            if losses > max_losses:
                yield batch, failed_batch(batch, _lost_too_often(error, max_losses))
            elif len(batch) > 1:
                half = len(batch) // 2
                batches += [batch[:half], batch[half:]]
            else:
                suspects.append(batch)
        for suspect in suspects:
            # Alone on the whole cluster, not only in its batch: a Dask worker may hold two tasks, and the
            # other one is lost with it (a pool lane holds one). A second loss now is the unit's own doing.
            for batch, error in (yield from _finished(run_once([suspect]))):
                losses += 1
                yield batch, failed_batch(batch, _lost_alone(error))


def _finished(outcomes: Iterator[Outcome]):
    """Yield the batches that ran as results; return the lost ones with why."""
    lost = []
    for batch, outcome in outcomes:
        if isinstance(outcome, Exception):
            lost.append((batch, outcome))
        else:
            yield batch, outcome
    return lost


def _why(error: Exception) -> str:
    return one_line(f"{type(error).__name__}: {error}", 200)


def _lost_alone(error: Exception) -> str:
    return (f"run alone, with nothing else running, its task failed again ({_why(error)}) after its batch "
            "failed: this unit is the cause (its worker lost: out of memory, killed, or a crash; or an error), "
            "and the units it travelled with were audited without it; audit it alone (lbnorm audit) to see why, "
            "or --resume runs it again")


def _lost_too_often(error: Exception, max_losses: int) -> str:
    return (f"its batch failed ({_why(error)}) after batches had failed {max_losses} times in this survey, so it "
            "was not split again to find the cause; --resume runs it again")
