"""The fast path (kernels/duel_nb.py) against the general path of the engine.

Untraced 2-player deals between ``random`` and ``greedy`` are played in registers by the
fast path; traced ones by the general path, the one the reference engine audits
(tests/test_reference_replay.py). Both must end every deal identically.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.duel_nb import is_duel_nb
from sim.base.config import Rules, RunConfig
from sim.runtime.play import lineup, play_batch

PAIRS = [("random", "random"), ("greedy", "random"), ("random", "greedy"), ("greedy", "greedy")]


def takes_fast_path(config: RunConfig, traced: bool) -> bool:
    ids = lineup(config).strategy_ids
    return is_duel_nb.py_func(config.players, ids, traced)


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
@pytest.mark.parametrize("redeal", ["off", "ace-three"])
def test_fast_path_ends_every_deal_as_the_general_path(pair, redeal):
    config = RunConfig(players=2, strategies=pair, deals=20_000, seed=11, rules=Rules(trump_redeal=redeal))
    assert takes_fast_path(config, traced=False) and not takes_fast_path(config, traced=True)
    fast = play_batch(config, 0, 20_000).results
    general = play_batch(config, 0, 20_000, trace=True).results
    assert fast.tobytes() == general.tobytes()
    assert len(np.unique(fast["seat_points"][:, 0])) > 50  # real deals, not a constant


@settings(max_examples=15, deadline=None)
@given(pair=st.sampled_from(PAIRS), seed=st.integers(0, 2**63 - 1), first_deal=st.integers(0, 2**50))
def test_fast_path_for_any_seed(pair, seed, first_deal):
    config = RunConfig(players=2, strategies=pair, deals=500, seed=seed)
    fast = play_batch(config, first_deal, 500).results
    assert fast.tobytes() == play_batch(config, first_deal, 500, trace=True).results.tobytes()


def test_other_strategies_and_tables_take_the_general_path():
    for players, strategies in [
        (2, ("expert", "random")),
        (2, ("random", "highest")),
        (4, ("random",) * 4),
        (3, ("greedy",) * 3),
    ]:
        config = RunConfig(players=players, strategies=strategies, deals=10, seed=1)
        assert not takes_fast_path(config, traced=False), (players, strategies)
