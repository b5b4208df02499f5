"""A batch's results counted in one pass (jitted code only): what ``simulate`` tallies per
side, over the deals the batch finished.

Done here rather than with numpy's passes over the result records' fields, which cost the
fastest runs a twentieth of their time.
"""

import numpy as np
from numba import njit

from kernels.enums import CHIAMATA_PLAYERS

TALLY_WINS, TALLY_DRAWS, TALLY_LOSSES, TALLY_POINTS = 0, 1, 2, 3  # columns of a tally row


@njit(cache=True, nogil=True)
def tally_results_nb(results, n_sides, not_played):
    """Counts the finished prefix of ``results`` (RESULT_DTYPE): it ends at the first
    deal whose index is ``not_played``. Returns the prefix's length and an int64 array
    with a row per side: wins, draws, losses and points. A drawn deal is drawn by the
    sides that share its highest total, and lost by the others. At Briscola Chiamata
    (``n_sides`` 5) each seat is a side of its own, counted on its game points: won when
    positive, drawn when nil (a deal thrown in), lost when negative.

    >>> from kernels.enums import RESULT_DTYPE
    >>> results = np.zeros(3, dtype=RESULT_DTYPE)
    >>> results["side_points"][:, :2] = [[70, 50], [60, 60], [0, 0]]
    >>> results["winner_side"] = [0, -1, -1]
    >>> results["deal"] = [0, 1, -1]
    >>> completed, counts = tally_results_nb.py_func(results, 2, -1)
    >>> completed, counts.tolist()
    (2, [[1, 1, 0, 130], [0, 1, 1, 110]])
    """
    counts = np.zeros((n_sides, 4), dtype=np.int64)
    completed = results.shape[0]
    for i in range(results.shape[0]):
        result = results[i]
        if result.deal == not_played:
            completed = i
            break
        if n_sides == CHIAMATA_PLAYERS:
            _count_game_points_nb(result.game_points, counts)
            continue
        for side in range(n_sides):
            counts[side, TALLY_POINTS] += result.side_points[side]
        if result.winner_side >= 0:
            counts[result.winner_side, TALLY_WINS] += 1
        else:  # a few percent of deals: only these need the highest total
            _count_draw_nb(result.side_points, n_sides, counts)
    for side in range(n_sides):
        counts[side, TALLY_LOSSES] = completed - counts[side, TALLY_WINS] - counts[side, TALLY_DRAWS]
    return completed, counts


@njit(cache=True, inline="always")
def _count_game_points_nb(game_points, counts):
    for seat in range(CHIAMATA_PLAYERS):
        points = game_points[seat]
        counts[seat, TALLY_POINTS] += points
        counts[seat, TALLY_WINS] += points > 0
        counts[seat, TALLY_DRAWS] += points == 0


@njit(cache=True, inline="always")
def _count_draw_nb(side_points, n_sides, counts):
    top = side_points[0]
    for side in range(1, n_sides):
        top = max(top, side_points[side])
    for side in range(n_sides):
        if side_points[side] == top:
            counts[side, TALLY_DRAWS] += 1
