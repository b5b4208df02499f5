"""A decision that is not a card in hand is caught and reported, never corrected."""

import numpy as np
import pytest

import sim.engine
from sim.config import RunConfig
from sim.engine import IllegalDecisionError, play_batch

NO_SUCH_STRATEGY = 99  # the dispatch answers -1, which no hand holds


def test_an_illegal_card_stops_the_run_with_strategy_seat_card_hand_and_deal(monkeypatch):
    config = RunConfig(players=2, strategies=("random", "greedy"), deals=5, seed=4, threads=1)
    real_ids = sim.engine.strategy_ids

    def broken_seat_1(config):
        ids = real_ids(config)
        ids[1] = NO_SUCH_STRATEGY
        return ids

    monkeypatch.setattr(sim.engine, "strategy_ids", broken_seat_1)
    with pytest.raises(IllegalDecisionError) as caught:
        play_batch(config, first_deal=3, n_deals=5)
    message = str(caught.value)
    assert "strategy 'greedy' (seat 1)" in message
    assert "returned card -1 (not a card code)" in message
    assert "at play 1 of deal 3" in message  # seat 1 plays second in the first deal of the batch
    hand = message.split("not in its hand [")[1].split("]")[0]
    assert len(hand.split(", ")) == 3


def test_legal_runs_raise_nothing_and_play_to_the_end():
    config = RunConfig(players=6, strategies=("random", "greedy") * 3, deals=2000, seed=4, threads=2)
    batch = play_batch(config, 0, 2000)
    assert np.all(batch.results["side_points"][:, :2].sum(axis=1) == 120)
