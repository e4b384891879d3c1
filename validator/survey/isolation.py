"""A batch lost with its worker is split in halves until the unit that kills workers stands alone.

Units travel in batches (batches.py), and a worker that dies (killed, out
of memory, a crash in native code) takes its whole batch with it: the
executor cannot tell which unit was the cause. So a lost batch (WorkerLost)
is neither retried whole nor failed whole: its halves run again, then the
halves of whichever half is lost again, until a unit is lost alone. It
then runs once more with nothing else running; lost again, it gets a
"failed" row saying so, and every other unit of the batch is audited. A
worker killed once from outside (a restart, an operator, the kernel's
out-of-memory killer choosing it) costs nothing but smaller batches.

A task that raises instead is not split: a unit's own errors are its row's
(work.py), so a raising task is the worker's or lbnorm's failure, and
splitting it would only convict whichever unit ran last on a bad worker.
Its units are failed, saying so.

Every batch the halving makes runs once, and a unit lost alone runs once
more: a survey's losses are at most about three per unit, however its
units behave. When two passes in a row lose most of their batches (at
least FAILING_PASS, and over three quarters), the cluster is failing, not
a unit: the lost batches are failed whole, saying so, and --resume runs
them again. (One such pass is not enough: a log that kills workers in
most of the first pass's batches loses half of the second's.) A pass that
loses most of its batches is no evidence against any one unit, so a unit it
lost alone goes on to the next pass with the halves instead of running
alone: when every worker dies (a process limit, workers that cannot
start), no unit is called the one that kills them.

A unit that runs past its deadline (deadlines.py) is known by the beacon
its worker keeps: it gets a failed row at once, and the units it travelled
with run again in the next pass, without it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..io.safe_text import one_line
from .deadlines import Overdue
from .journal import rows_text
from .sources import Unit
from .work import failed_rows

Batch = list[Unit]
Result = tuple[Batch, list[str]]  # each unit's rows as journal text (journal.rows_text)
Outcome = tuple[
    Batch, "list[str] | Exception"
]  # an executor's one pass: the rows, or why the batch failed
FAILING_PASS = (
    8  # a pass that loses at least this many batches, and over 3/4 of them, is mostly lost
)


class WorkerLost(Exception):
    """The batch's worker died under it. The text is fixed (no pid, port or task key), so a failed row reads the
    same whichever worker it was."""


class ClusterLost(RuntimeError):
    """The survey cannot go on where it runs: a Dask scheduler gone or without workers for too long, or a
    machine that cannot start the local pool's workers. The journal keeps what finished, for --resume."""


def failed_batch(batch: Batch, reason: str) -> list[str]:
    return [rows_text(failed_rows(unit, reason)) for unit in batch]


def isolate(
    run_once: Callable[[list[Batch]], Iterator[Outcome]], batches: list[Batch]
) -> Iterator[Result]:
    """Run the batches with run_once, then the halves of the lost ones, and so on (see the module docstring)."""
    mostly_lost_before = False
    while batches:
        again: list[
            Batch
        ] = []  # the units an overdue one travelled with: they run in the next pass
        lost = yield from _finished(run_once(batches), again)
        mostly_lost = len(lost) >= FAILING_PASS and 4 * len(lost) > 3 * len(batches)
        failing, mostly_lost_before = mostly_lost and mostly_lost_before, mostly_lost
        split, suspects = again, []
        for batch, error in lost:
            if failing:
                yield batch, failed_batch(batch, _cluster_failing(error))
            elif len(batch) > 1:
                split += [batch[: len(batch) // 2], batch[len(batch) // 2 :]]
            elif (
                mostly_lost
            ):  # no evidence against one unit: it goes on with the halves, to the next pass
                split.append(batch)
            else:
                suspects.append(batch)
        for suspect in suspects:
            # Alone on the whole cluster, not only in its batch: a Dask worker may hold two tasks, and the
            # other one is lost with it (a pool lane holds one). A second loss now is the unit's own doing.
            for batch, error in (yield from _finished(run_once([suspect]), split)):
                yield batch, failed_batch(batch, _lost_alone(error))
        batches = split


def _finished(outcomes: Iterator[Outcome], again: list[Batch]):
    """Yield the batches that ran as results, and those whose task raised as failed; return the lost ones.
    A batch whose unit ran past its deadline yields that unit failed, and adds the others to `again`."""
    lost = []
    for batch, outcome in outcomes:
        if isinstance(outcome, Overdue):
            index = min(max(outcome.index, 0), len(batch) - 1)
            yield batch[index : index + 1], failed_batch(batch[index : index + 1], outcome.reason())
            again.extend(part for part in (batch[:index], batch[index + 1 :]) if part)
        elif isinstance(outcome, WorkerLost):
            lost.append((batch, outcome))
        elif isinstance(outcome, Exception):
            yield (
                batch,
                failed_batch(
                    batch,
                    f"its task failed ({_why(outcome)}), with every unit it carried: "
                    "not this unit's doing (its own errors are findings); --resume "
                    "runs it again",
                ),
            )
        else:
            yield batch, outcome
    return lost


def _why(error: Exception) -> str:
    return one_line(f"{type(error).__name__}: {error}", 200)


def _lost_alone(error: WorkerLost) -> str:
    return (
        f"{error} while it ran this unit alone, with nothing else running, after its batch was lost: this unit "
        "is what kills workers (out of memory, killed, or a crash), and the units it travelled with were "
        "audited without it; audit it alone (lbnorm audit) to see why, or --resume runs it again"
    )


def _cluster_failing(error: WorkerLost) -> str:
    return (
        f"{error} with this unit's batch, which was not split to find the cause: most tasks of this pass and "
        "of the one before lost their workers too, so the cluster is failing, not one unit; --resume runs it "
        "again"
    )
