"""Dispatch from a seat's strategy to its decision function (jitted code only).

The engine calls ``choose_card_nb`` and never names a strategy. Two paths:

- ``random`` and ``greedy``, the speed references, by integer id: inlined into the
  engine, so their calls cost nothing beyond their own work.
- every other strategy, built-in or plug-in, through ``plugins``: a tuple of
  ``MAX_PLAYERS`` function pointers of the one decision signature (strategies/api.py),
  unused slots holding ``no_decision_nb``. The engine is compiled once for that tuple
  type and stays in Numba's disk cache whatever strategies a run brings; a call through
  a pointer costs a few nanoseconds and cannot be inlined.
"""

from numba import njit

from kernels.enums import NO_CARD
from kernels.inlined_strategies_nb import greedy_nb, random_nb

RANDOM_ID = 0
GREEDY_ID = 1
FIRST_PLUGIN_ID = 2  # strategy id of plugins[0]; plugins[k] has id FIRST_PLUGIN_ID + k


@njit(cache=True, inline="always")
def choose_card_nb(strategy_id, view, params, rng, plugins):
    if strategy_id == RANDOM_ID:
        return random_nb(view, params, rng)
    if strategy_id == GREEDY_ID:
        return greedy_nb(view, params, rng)
    return plugins[strategy_id - FIRST_PLUGIN_ID](view, params, rng)


@njit(cache=True)
def no_decision_nb(view, params, rng):
    """Fills the plug-in slots a run does not use; never called for a seat."""
    return NO_CARD
