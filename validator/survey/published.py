"""Published scores (from a manifest) against the ones re-derived from the logs.

Every published (task, metric) of a run is compared; none is dropped. A row
may carry several: each metric's comparison sits in the row's `metrics`
(`published`, `published_diff`, `reproduced`), and the row's own columns show
the first one not reproduced (else the first one), with `reproduced` true
only when every one of them is. A published metric the task does not have is
not reproduced, and so is a published task the results file does not have:
the run's own unit gives it a row of its own (unlisted_task_rows), so a
published number never leaves the table unjudged.
"""

from __future__ import annotations

from collections.abc import Iterable

from .rows import finding_row

Published = tuple[tuple[str, str, float], ...]  # (task, metric, value), as sources.Run holds them


def compare(row: dict, published: Published, task: str, scale: float, tolerance: float) -> dict:
    """Compare each published score of `task` with the row's re-derived one; the row, updated."""
    comparisons = []
    for published_task, metric, value in published:
        if published_task != task:
            continue
        key = metric if "," in metric else f"{metric},none"
        if key not in row["metrics"] and row["status"] not in ("not in results", "no log"):
            row["error"] = row["error"] or (
                f"the manifest publishes {task}/{metric}, but the results file has no "
                f"metric {key} for {task}{_its_metrics(row)}; fix the manifest's column "
                "name (a metric under another filter is <task>/<metric>,<filter>)"
            )
        entry = row["metrics"].setdefault(
            key, {"reported": None, "from_samples": None, "recomputed": None}
        )
        best = entry.get("recomputed")
        best = entry.get("from_samples") if best is None else best
        difference = None if best is None else value - best * scale
        reproduced = difference is not None and within(difference, tolerance, value)
        entry.update(published=value, published_diff=difference, reproduced=reproduced)
        comparisons.append((key, value, difference, reproduced))
    if comparisons:
        key, value, difference, _ = next((c for c in comparisons if not c[3]), comparisons[0])
        row.update(
            published_metric=key,
            published=value,
            published_diff=difference,
            reproduced=all(c[3] for c in comparisons),
        )
        _headline(row, key)
    return row


def _its_metrics(row: dict) -> str:
    """` (it has: exact_match,strict-match, exact_match,flexible-extract)`: what a maintainer can publish instead."""
    names = sorted(row["metrics"])
    if not names:
        return ""
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6:,} more" if len(names) > 6 else "")
    return f" (it has: {shown})"


def unlisted_task_rows(
    run, model: str, tasks: Iterable[str], scale: float, tolerance: float
) -> list[dict]:
    """A row for each published task that `tasks` (the results file's) lacks: not reproduced, and why."""
    rows = []
    for task in sorted({task for task, _, _ in run.published} - set(tasks)):
        row = finding_row(run.run, model, task, "", "not in results", [])
        row["error"] = (
            f"the manifest publishes {task}, but {run.results.name} has no task {task}; "
            "fix the manifest's column name or the results file it names"
        )
        rows.append(compare(row, run.published, task, scale, tolerance))
    return rows


def scale_hint(rows: list[dict], scale: float) -> str | None:
    """A likely wrong --published-scale: percents read as fractions, or fractions as percents. A hint only: the
    comparisons stand as made (a leaderboard may publish a metric that is not a fraction). A score of 0 is one in
    either scale, so it tells nothing; and a leaderboard in percents may publish a few below 1 (a small model's
    MATH), so nine in ten above 1 is enough. Two zeros among 258 percents still get the hint."""
    values = [
        entry["published"]
        for row in rows
        for entry in row["metrics"].values()
        if isinstance(entry.get("published"), (int, float)) and entry["published"] != 0
    ]
    above = sum(1 for value in values if abs(value) > 1)
    if scale == 1 and values and above >= 0.9 * len(values):
        share = "all" if above == len(values) else f"{above:,} of the"
        return (
            f"{share} {len(values):,} published scores other than 0 are above 1, but --published-scale is 1 "
            "(fractions); if the manifest gives percents, run again with --published-scale 100"
        )
    if scale == 100 and values and above == 0:
        return (
            f"all {len(values):,} published scores other than 0 are at most 1, but --published-scale is 100 "
            "(percents); if the manifest gives fractions, run again without --published-scale"
        )
    return None


def within(difference: float, tolerance: float, published: float) -> bool:
    """|difference| <= tolerance, in decimal terms: 40.62 and 40.63 both round 0.40625 (x 100) to two decimals,
    but in binary floating point 40.62 - 40.625 is -0.005000000000002558. A billionth of the published value
    (at least of 1) absorbs that, and nothing a two-decimal rounding could be off by."""
    return abs(difference) <= tolerance + 1e-9 * max(1.0, abs(published))


def _headline(row: dict, key: str) -> None:
    """The row's headline metric is the published one, as the table's docs say."""
    values = row["metrics"][key]
    row.update(
        metric=key,
        reported=values.get("reported"),
        from_samples=values.get("from_samples"),
        recomputed=values.get("recomputed"),
    )
