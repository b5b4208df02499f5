"""Strategies that play with data (strategies/api.py's ``data``), for the tests: ``ranked``
plays the card of its hand the data ranks highest, ``ranked-lowest`` is ``ranked`` with
data that ranks the lowest card code highest (``lowest-code`` plays that card by code
alone), ``scribbler`` tries to write into its data."""

import numpy as np
from numba import njit

from strategies.api import Strategy


@njit
def ranked_nb(view, params, rng, data):
    best, best_rank = 0, -1.0
    for k in range(view.n_hand):
        if data[view.hand[k]] > best_rank:
            best, best_rank = k, data[view.hand[k]]
    return view.hand[best]


@njit
def lowest_code_nb(view, params, rng):
    best = view.hand[0]
    for k in range(view.n_hand):
        best = min(best, view.hand[k])
    return best


@njit
def scribble_nb(view, params, rng, data):
    data[0] = 1.0
    return view.hand[0]


RANKED = Strategy("ranked", 1, "Plays the card its data ranks highest.", ranked_nb,
                  data=lambda players: np.arange(40, dtype=np.float32) * players)  # fmt: skip
RANKED_LOWEST = Strategy("ranked-lowest", 1, "ranked, with the lowest code ranked highest.", ranked_nb,
                         data=lambda players: np.arange(40, 0, -1, dtype=np.float32))  # fmt: skip
LOWEST_CODE = Strategy("lowest-code", 1, "Plays its card of the lowest code.", lowest_code_nb)
SCRIBBLER = Strategy("scribbler", 1, "Writes into its data.", scribble_nb, data=lambda players: np.zeros(40))
