"""Running batches of files, in this process or in worker processes that may die.

A worker can die without a Python exception: a native crash, the OOM
killer. multiprocessing.Pool never notices and waits for ever;
ProcessPoolExecutor raises BrokenProcessPool. The batches a dead pool held
are then run again in fresh workers, halved until the file that kills its
worker is alone, and that file becomes an LB110 finding. The run always ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..findings.internal import worker_died_finding
from .result import CheckResult

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# Below this many files, starting worker processes costs more than it saves.
PARALLEL_MIN_FILES = 64
PARALLEL_BATCH_FOLDERS = 25


@dataclass
class Partial:
    """One batch's outcome: its findings, the results files its submissions used, its bare results files."""

    result: CheckResult
    checked_with_submission: set[Path]
    bare: dict[Path, CheckResult]


Work = Callable[[list[Path]], Partial]


def split_batches(paths: list[Path], jobs: int) -> list[list[Path]]:
    """Split the files for `jobs` processes, keeping each folder whole.

    A submission and its results file usually share a folder; in one batch
    the results file is read once, with its submission. Small batches let
    the progress line move and keep each worker's memory flat.
    """
    if jobs <= 1 or len(paths) < PARALLEL_MIN_FILES:
        return [paths]
    folders: dict[Path, list[Path]] = {}
    for path in paths:
        folders.setdefault(path.parent, []).append(path)
    groups = list(folders.values())
    size = max(1, min(PARALLEL_BATCH_FOLDERS, len(groups) // (jobs * 4) or 1))
    return [
        [p for group in groups[i : i + size] for p in group] for i in range(0, len(groups), size)
    ]


def run_batches(
    work: Work,
    batches: list[list[Path]],
    jobs: int,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[Partial]:
    total, done = sum(map(len, batches)), 0
    if (
        len(batches) == 1
        and jobs <= 1
        or len(batches) == 1
        and len(batches[0]) < PARALLEL_MIN_FILES
    ):
        yield work(batches[0])
        if progress:
            progress(total, total)
        return
    # Worker processes are for large re-audits: one pull request's check never imports them.
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    lost: list[list[Path]] = []
    with _pool(jobs) as pool:
        futures = {pool.submit(work, batch): batch for batch in batches}
        for future in as_completed(futures):
            try:
                part = future.result()
            except BrokenProcessPool:
                lost.append(futures[future])
                continue
            done += len(futures[future])
            if progress:
                progress(done, total)
            yield part
    for batch in sorted(lost, key=lambda b: [p.as_posix() for p in b]):
        yield from _isolate(work, batch)
        done += len(batch)
        if progress:
            progress(done, total)


def _isolate(work: Work, paths: list[Path]) -> Iterator[Partial]:
    """Run a batch whose worker died again in a fresh worker, halving it until the culprit is alone."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        with _pool(1) as pool:
            part = pool.submit(work, paths).result()
    except BrokenProcessPool:
        if len(paths) == 1:
            yield _dead(paths[0])
            return
        middle = len(paths) // 2
        yield from _isolate(work, paths[:middle])
        yield from _isolate(work, paths[middle:])
        return
    yield part


def _dead(path: Path) -> Partial:
    result = CheckResult()
    result.findings.append(worker_died_finding(path.as_posix()))
    return Partial(result, set(), {})


def _pool(jobs: int) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=context)
