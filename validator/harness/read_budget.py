"""What counting a pattern's matches may cost, asked of a caller's budget. Pure.

linear_regex.py runs each search in time linear in the text, but counting
matches searches once per match: each search is a call (about a microsecond,
what RE2 takes to read SEARCH_COST bytes), and a pattern that reads past its
matches (pattern_shape.reads_far: `a(?:.*X)?` reads on to the text's end
after every match) makes the count quadratic. Inside `reading(spend)`, each
search is asked of `spend` (a run's work budget: audit/work_budget.py) before
it is made, with what a pattern that reads far may read past one pass over the
text; a refusal raises ReadsRefused, which the caller reports as work past its
budget (LB716). Outside, each count is bounded on its own (linear_regex.py).
"""

from collections.abc import Callable
from contextvars import ContextVar

# Asked for what a search costs, in bytes read, before it is made: False refuses it
Spend = Callable[[int], bool]
SEARCH_COST = 256  # bytes RE2 reads in the time one search's call takes
READS: ContextVar[Spend | None] = ContextVar("reads", default=None)


class ReadsRefused(Exception):
    """The `reading` in force refused a search of a pattern's matches."""


class reading:  # noqa: N801 (used as a function: `with reading(spend):`)
    """Inside, each search counting a pattern's matches is asked of `spend` (see the module's docstring). A class,
    not a generator: IFEval enters one for each instruction it replays."""

    __slots__ = ("spend", "token")

    def __init__(self, spend: Spend):
        self.spend = spend

    def __enter__(self) -> None:
        self.token = READS.set(self.spend)

    def __exit__(self, *raised: object) -> None:
        READS.reset(self.token)


def ask(amount: int) -> None:
    """Ask the `reading` in force for `amount` (nothing outside one); ReadsRefused where it says no."""
    spend = READS.get()
    if spend is not None and not spend(amount):
        raise ReadsRefused


def ask_searches(count: int) -> None:
    """Ask for `count` searches, one at a time (SEARCH_COST each), as linear_regex's _matches asks for them."""
    spend = READS.get()
    if spend is not None:
        for _ in range(count):
            if not spend(SEARCH_COST):
                raise ReadsRefused
