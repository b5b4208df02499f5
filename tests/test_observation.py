"""The flat observation, read back over many random deals: each card in one place at
most, the mask its hand, finished tricks as many cards per seat, the points those tricks
hold, the stock and the face-up briscola as the table shows them."""

import numpy as np
import pytest

from kernels.enums import CARD_POINTS
from sim.env import BriscolaVectorEnv
from strategies.errors import StrategyError
from strategies.observation import encode_flat, flat_layout


def segments(obs, players):
    at = {name: (start, width) for name, start, width, _ in flat_layout(players)}
    return {name: obs[:, start : start + width] for name, (start, width) in at.items()}


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_observations_agree_with_the_game_they_show(players):
    env = BriscolaVectorEnv(num_envs=64, players=players, opponents="random")
    obs, info = env.reset(seed=players)
    checked = 0
    for _ in range(45):
        live = ~env._state.restart  # a lane whose episode just ended shows the table as it ended
        checked += live.sum()
        seg = segments(obs[live], players)
        hand, table = seg["hand"], seg["table"].reshape(-1, players - 1, 40)
        played = seg["played"].reshape(-1, players, 40)
        where = hand + table.sum(axis=1) + played.sum(axis=1)
        assert (where <= 1).all()  # no card in two places
        assert (info["action_mask"][live] == (hand > 0)).all()
        per_seat = played.sum(axis=2)
        assert (per_seat == per_seat[:, :1]).all()  # finished tricks: a card from every seat
        taken = (played.sum(axis=1) * CARD_POINTS).sum(axis=1)
        assert np.allclose(seg["points"].sum(axis=1) * 120, taken)
        stock = np.rint(seg["stock"][:, 0] * 40)
        assert ((seg["briscola"].sum(axis=1) == 1) == (stock > 0)).all()
        assert (seg["trump"].sum(axis=1) == 1).all()
        obs, _, _, _, info = env.step(info["action_mask"].argmax(axis=1))
    assert checked > 64 * 30


def test_a_network_of_one_table_names_the_table_at_another():
    env = BriscolaVectorEnv(num_envs=2, players=3, opponents="random")
    env.reset(seed=1)
    views = env._lanes.views[:, 1].copy()
    assert encode_flat(views, trained_at=3).shape == (2, 288)
    with pytest.raises(StrategyError, match="plays 2 players only .* not 3: check it with --players 2"):
        encode_flat(views, trained_at=2)
