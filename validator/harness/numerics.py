"""numpy and scipy, as far as the DROP scorer uses them: the harness's numbers without the dependency.

The harness averages span F1s with np.mean (pairwise summation), rounds with
np.round(x, 2) and aligns spans with scipy's linear_sum_assignment; each is
written here so the scores match to the last bit: lm_eval/tasks/drop/utils.py
(harness commit b281b09 to 0.4.13) calls these three, with numpy 1.x and 2.x and scipy
1.x giving the same values. Pure.
"""

from __future__ import annotations


def numpy_mean(values: list[float]) -> float:
    """np.mean: numpy's pairwise sum (8 accumulators up to 128 items, halves above), then one division."""
    return _pairwise_sum(values, 0, len(values)) / len(values)


def _pairwise_sum(values: list[float], start: int, count: int) -> float:
    if count < 8:
        total = -0.0
        for i in range(start, start + count):
            total += values[i]
        return total
    if count <= 128:
        partial = values[start : start + 8]
        end = start + count - count % 8
        for i in range(start + 8, end, 8):
            for j in range(8):
                partial[j] += values[i + j]
        total = (
            (partial[0] + partial[1])
            + (partial[2] + partial[3])
            + ((partial[4] + partial[5]) + (partial[6] + partial[7]))
        )
        for i in range(end, start + count):
            total += values[i]
        return total
    half = count // 2
    half -= half % 8
    return _pairwise_sum(values, start, half) + _pairwise_sum(values, start + half, count - half)


def numpy_round_2(value: float) -> float:
    """round(np.float64, 2): multiply by 100, round half to even, divide; not Python's decimal-exact round()."""
    return round(value * 100.0) / 100.0


def max_weight_assignment(scores: list[list[float]]) -> list[tuple[int, int]]:
    """(row, column) pairs of a one-to-one assignment with the largest total, as linear_sum_assignment(-scores).

    Hungarian algorithm with potentials, O(rows^2 * columns) for rows <= columns.
    """
    rows = len(scores)
    columns = len(scores[0]) if rows else 0
    if rows == 0 or columns == 0:
        return []
    if (
        columns == 1 or rows == 1
    ):  # one prediction (every process_results call) or one gold span: the best pair
        best = max(
            ((r, c) for r in range(rows) for c in range(columns)),
            key=lambda rc: scores[rc[0]][rc[1]],
        )
        return [best]
    if rows > columns:
        transposed = [[scores[r][c] for r in range(rows)] for c in range(columns)]
        return [(r, c) for c, r in max_weight_assignment(transposed)]
    cost = [[-value for value in row] for row in scores]
    infinity = float("inf")
    u, v = [0.0] * (rows + 1), [0.0] * (columns + 1)
    owner, way = (
        [0] * (columns + 1),
        [0] * (columns + 1),
    )  # owner[c]: row (1-based) holding column c
    for row in range(1, rows + 1):
        owner[0], free_column = row, 0
        smallest = [infinity] * (columns + 1)
        used = [False] * (columns + 1)
        while owner[free_column]:
            used[free_column] = True
            current, delta, next_column = owner[free_column], infinity, 0
            for c in range(1, columns + 1):
                if not used[c]:
                    reduced = cost[current - 1][c - 1] - u[current] - v[c]
                    if reduced < smallest[c]:
                        smallest[c], way[c] = reduced, free_column
                    if smallest[c] < delta:
                        delta, next_column = smallest[c], c
            for c in range(columns + 1):
                if used[c]:
                    u[owner[c]] += delta
                    v[c] -= delta
                else:
                    smallest[c] -= delta
            free_column = next_column
        while free_column:
            previous = way[free_column]
            owner[free_column] = owner[previous]
            free_column = previous
    return sorted((owner[c] - 1, c - 1) for c in range(1, columns + 1) if owner[c])
