"""What counting a pattern's matches may read, asked of a caller's budget. Pure.

linear_regex.py runs each search in time linear in the text, but counting
matches searches once per match, and a pattern such as `a(?:.*X)?` reads on
to the text's end after every one. Inside `reading(spend)`, what the searches
may read past one pass over the text is asked of `spend` (a run's work budget:
audit/work_budget.py) search by search; a refusal raises ReadsRefused, which
the caller reports as work past its budget (LB716).
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Spend = Callable[
    [int], bool
]  # asked for reads of a text, in bytes, before they are made: False refuses
READS: ContextVar[Spend | None] = ContextVar("reads", default=None)


class ReadsRefused(Exception):
    """The `reading` in force refused what counting a pattern's matches may read past one pass over the text."""


@contextmanager
def reading(spend: Spend) -> Iterator[None]:
    """Inside, what counting matches reads past one pass over the text is asked of `spend`, search by search;
    outside, each count is bounded alone (linear_regex.py)."""
    token = READS.set(spend)
    try:
        yield
    finally:
        READS.reset(token)
