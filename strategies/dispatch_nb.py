"""Integer-id dispatch from a seat's strategy to its decision function (jitted code only).

The engine calls ``choose_card_nb`` and never names a strategy, so adding one touches
this table and the registry, not the kernels. Dispatch on an integer id keeps the whole
engine in Numba's on-disk cache and lets LLVM inline the decision functions.
"""

from numba import njit

from kernels.enums import NO_CARD
from strategies.builtin_nb import greedy_nb, random_nb

RANDOM_ID = 0
GREEDY_ID = 1


@njit(cache=True, inline="always")
def choose_card_nb(strategy_id, view, params, rng):
    if strategy_id == RANDOM_ID:
        return random_nb(view, params, rng)
    if strategy_id == GREEDY_ID:
        return greedy_nb(view, params, rng)
    return NO_CARD
