"""The named records the kernels pass around (jitted code only), as vectorbt passes its
``SimulationContext``: what a run reads, and what a block of deals writes as it plays.

- ``Plugins``: the compiled decision functions of the run's plug-in strategies, by what
  they decide: ``decide[k]`` (a card), ``bid[k]`` and ``call[k]`` (Briscola Chiamata) of
  the strategy in plug-in slot k (strategy id ``FIRST_PLUGIN_ID + k``). Each a tuple of
  MAX_PLAYERS functions of the one decision signature; unused slots hold
  ``no_decision_nb``. A strategy that plays with data (a network's weights) has its
  functions in ``decide_data``, ``bid_data`` and ``call_data`` instead, of the same
  signature plus the data. Built by ``sim/play.py``, read by ``dispatch_nb``: the parts
  have names, so no offset is shared between the two.
- ``PluginData``: the plug-ins' data, as arrays: ``data``, one read-only float32 vector
  holding every slot's data, slot k's at ``data[spans[k, 0]:spans[k, 1]]``, and
  ``takes_data[what, k]`` (what: 0 card, 1 bid, 2 call), whether slot k's function for
  that decision is in the ``*_data`` tuples. Passed as arrays, new weights never
  recompile anything; read-only, a strategy cannot change what another seat plays with.
- ``RunContext``: a run's read-only inputs (the seed's key, which deals, the table and
  rules, each seat's strategy, parameters and stream, the plug-ins, the stop flag).
  ``stop`` is read-only here; another thread sets it.
- ``BlockScratch``: the work arrays of one block of deals on one thread, made once per
  block (``new_block_scratch_nb``).

Numba types a namedtuple by its fields, so the engine compiles once for these types and
stays in the disk cache whatever strategies a run brings. A parallel loop cannot take a
namedtuple holding a tuple of functions (Numba's parfors pass a tuple's items as
separate arguments, one level deep): ``simulate_nb`` unpacks the context before its
loop and builds it again inside, at no cost.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.enums import DEAL_DTYPE, N_STREAMS, PLAY_DTYPE, VIEW_DTYPE, WORK_DTYPE

Plugins = namedtuple("Plugins", ["decide", "bid", "call", "decide_data", "bid_data", "call_data"])
PluginData = namedtuple("PluginData", ["takes_data", "data", "spans"])

RunContext = namedtuple(
    "RunContext",
    [
        "seed_key",  # uint64: seed_key_nb of the run's seed
        "first_deal",  # deal indices first_deal + i * deal_step
        "deal_step",
        "players",  # 0 for replayed deals (any table)
        "dealt",  # True: the deals are given (replay), else dealt here
        "rules",  # int64 codes, RULE_* of enums.py
        "strategy_ids",  # per seat: RANDOM_ID, GREEDY_ID or a plug-in's id
        "params",  # float64 (MAX_PLAYERS, MAX_PARAMS): each seat's parameters
        "plugins",  # Plugins
        "plugin_data",  # PluginData
        "seat_streams",  # per seat: the stream its strategy draws from
        "stop",  # int8[1]: set (by another thread) to stop before the next decision
    ],
)

BlockScratch = namedtuple(
    "BlockScratch",
    [
        "states",  # uint64[N_STREAMS]: the dealer's stream, then each seat's
        "views",  # VIEW_DTYPE[2]: the engine's view, and each plug-in decision's sealed copy
        "sealed_params",  # float64: the deciding seat's parameters, copied for a plug-in
        "work",  # WORK_DTYPE[1]: the engine's own hands, table and points
        "deal",  # DEAL_DTYPE[1]: the deal, when the run keeps no trace
        "record",  # PLAY_DTYPE[1]: its moves, when the run keeps no trace
    ],
)


@njit(cache=True)
def new_block_scratch_nb(n_params):
    return BlockScratch(
        np.empty(N_STREAMS, dtype=np.uint64),
        np.empty(2, dtype=VIEW_DTYPE),
        np.empty(n_params, dtype=np.float64),
        np.empty(1, dtype=WORK_DTYPE),
        np.empty(1, dtype=DEAL_DTYPE),
        np.empty(1, dtype=PLAY_DTYPE),
    )
