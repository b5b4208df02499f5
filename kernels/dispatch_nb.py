"""Dispatch from a seat's strategy to its decision function (jitted code only).

The engine calls ``choose_card_nb`` and never names a strategy. Two paths:

- ``random`` and ``greedy``, the speed references, by integer id: inlined into the
  engine, so their calls cost nothing beyond their own work.
- every other strategy, built-in or plug-in, through ``plugins``: a ``Plugins``
  namedtuple (kernels/contexts_nb.py) of function pointers of the one decision signature
  (strategies/api.py): each strategy's card decision (``decide``), and its Briscola
  Chiamata ``bid`` and ``call`` (the default policy's where a strategy has none); unused
  slots hold ``no_decision_nb``. A strategy that plays with data (a network's weights)
  is called with its part of the run's read-only data as a fourth argument. The engine is compiled once for that
  type and stays in Numba's disk cache whatever strategies a run brings; a call through
  a pointer costs a few nanoseconds and cannot be inlined.
"""

import numpy as np
from numba import njit

from kernels.enums import NO_CARD
from kernels.inlined_strategies_nb import (
    default_bid_nb,
    default_call_nb,
    greedy_nb,
    random_bid_nb,
    random_call_nb,
    random_nb,
)

RANDOM_ID = 0
GREEDY_ID = 1
FIRST_PLUGIN_ID = 2  # strategy id of plug-in slot 0; slot k has id FIRST_PLUGIN_ID + k


PLAY_DECISION, BID_DECISION, CALL_DECISION = 0, 1, 2  # rows of PluginData.takes_data


@njit(cache=True, inline="always")
def slot_data_nb(plugin_data, slot):
    """Plug-in slot ``slot``'s data: its read-only part of ``plugin_data.data``."""
    return plugin_data.data[plugin_data.spans[slot, 0] : plugin_data.spans[slot, 1]]


@njit(cache=True, inline="always")
def choose_card_nb(strategy_id, view, params, rng, run):
    if strategy_id == RANDOM_ID:
        return random_nb(view, params, rng)
    if strategy_id == GREEDY_ID:
        return greedy_nb(view, params, rng)
    slot = strategy_id - FIRST_PLUGIN_ID
    if run.plugin_data.takes_data[PLAY_DECISION, slot]:
        return run.plugins.decide_data[slot](view, params, rng, slot_data_nb(run.plugin_data, slot))
    return run.plugins.decide[slot](view, params, rng)


@njit(cache=True, inline="always")
def bid_nb(strategy_id, view, params, rng, run):
    """A Briscola Chiamata bid: ``random`` bids at random, ``greedy`` by the default policy."""
    if strategy_id == RANDOM_ID:
        return random_bid_nb(view, params, rng)
    if strategy_id == GREEDY_ID:
        return default_bid_nb(view, params, rng)
    slot = strategy_id - FIRST_PLUGIN_ID
    if run.plugin_data.takes_data[BID_DECISION, slot]:
        return run.plugins.bid_data[slot](view, params, rng, slot_data_nb(run.plugin_data, slot))
    return run.plugins.bid[slot](view, params, rng)


@njit(cache=True, inline="always")
def call_nb(strategy_id, view, params, rng, run):
    """The caller's call: as ``bid_nb``."""
    if strategy_id == RANDOM_ID:
        return random_call_nb(view, params, rng)
    if strategy_id == GREEDY_ID:
        return default_call_nb(view, params, rng)
    slot = strategy_id - FIRST_PLUGIN_ID
    if run.plugin_data.takes_data[CALL_DECISION, slot]:
        return run.plugins.call_data[slot](view, params, rng, slot_data_nb(run.plugin_data, slot))
    return run.plugins.call[slot](view, params, rng)


@njit(cache=True, inline="always")
def seal_nb(views, params, sealed_params):
    """Copies the engine's view (``views[0]``) into ``views[1]``, and the parameters into
    ``sealed_params``, for one decision of a plug-in: whatever it writes into them, the
    engine and the other seats never see. (The inlined strategies, part of the engine,
    read the engine's own view.)"""
    seal_view_nb(views)
    for k in range(params.shape[0]):
        sealed_params[k] = params[k]


@njit(cache=True, inline="always")
def seal_view_nb(views):
    """The engine's view (``views[0]``) copied into ``views[1]`` as bytes: one short vector copy."""
    raw = views.view(np.uint8)
    size = raw.shape[0] // 2
    for k in range(size):
        raw[size + k] = raw[k]


@njit(cache=True)
def no_decision_nb(view, params, rng):
    """Fills the plug-in slots a run does not use; never called for a seat."""
    return NO_CARD


@njit(cache=True)
def no_data_decision_nb(view, params, rng, data):
    """``no_decision_nb`` for the slots of strategies that play with data."""
    return NO_CARD


@njit(cache=True, inline="always")
def shown_to_nb(run, scratch, seat):
    """What ``seat``'s strategy decides from: its id, the engine's view and the seat's
    parameters (sealed copies of both for a plug-in, which may write into them) and its
    random stream."""
    strategy = run.strategy_ids[seat]
    views = scratch.views
    rng = scratch.states[1 + seat : 2 + seat]
    if strategy >= FIRST_PLUGIN_ID:
        seal_nb(views, run.params[seat], scratch.sealed_params)
        return strategy, views[1], scratch.sealed_params, rng
    return strategy, views[0], run.params[seat], rng
