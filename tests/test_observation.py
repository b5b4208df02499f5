"""The flat observation, read back over many random deals: each card in one place at
most, the mask its hand, finished tricks as many cards per seat, the points those tricks
hold, the stock and the face-up briscola as the table shows them. Version 1 is the
encoding as it always was (written again here, apart from the encoder); version 2 is
version 1 with the face-up card kept the whole deal and its holder added."""

import numpy as np
import pytest

from kernels.enums import CARD_POINTS, CARD_SUIT
from sim.base.config import ConfigError, Rules, RunConfig
from sim.rl.env import BriscolaVectorEnv
from strategies.errors import StrategyError
from strategies.observation import FLAT_VERSION, FLAT_VERSIONS, encode_flat, flat_layout, flat_size, flat_version_of
from tests.helpers import deal_views

TABLES = (2, 3, 4, 5, 6)


def segments(obs, players, version=FLAT_VERSION):
    at = {name: (start, width) for name, start, width, _ in flat_layout(players, version)}
    return {name: obs[:, start : start + width] for name, (start, width) in at.items()}


@pytest.mark.parametrize("version", FLAT_VERSIONS)
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_observations_agree_with_the_game_they_show(players, version):
    env = BriscolaVectorEnv(num_envs=64, players=players, opponents="random", flat_version=version)
    obs, info = env.reset(seed=players)
    checked = drawn = 0
    for _ in range(45):
        live = ~env._state.restart  # a lane whose episode just ended shows the table as it ended
        checked += live.sum()
        seg = segments(obs[live], players, version)
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
        assert (seg["trump"].sum(axis=1) == 1).all()
        if version == 1:
            assert ((seg["briscola"].sum(axis=1) == 1) == (stock > 0)).all()
        else:
            assert (seg["face_up"].sum(axis=1) == 1).all()  # the whole deal
            assert (CARD_SUIT[seg["face_up"].argmax(axis=1)] == seg["trump"].argmax(axis=1)).all()
            assert ((seg["holder"].sum(axis=1) == 1) == (stock == 0)).all() and (seg["holder"].sum(axis=1) <= 1).all()
            drawn += (stock == 0).sum()
        obs, _, _, _, info = env.step(info["action_mask"].argmax(axis=1))
    assert checked > 64 * 30
    assert version == 1 or drawn > 64


def all_views(players):
    rules = Rules(partner_view="last3", signals="trumps") if players in (4, 6) else Rules()
    cfg = RunConfig(players=players, strategies=("greedy",) * players, deals=12, seed=players, rules=rules, threads=1)
    return np.concatenate([view for deal in deal_views(cfg) for view in deal])


def version_1_by_hand(view) -> np.ndarray:
    """Version 1 as docs/agents.md lays it out, written apart from the encoder."""
    players, me = int(view["players"]), int(view["seat"])
    teams, chiamata = players in (4, 6), players == 5

    def relative(seat):
        return (seat - me) % players

    def hot(width, *ones):
        x = np.zeros(width, dtype=np.float32)
        x[[int(k) for k in ones if k >= 0]] = 1.0
        return x

    table = np.zeros((players - 1, 40), dtype=np.float32)
    for k in range(view["n_table"]):
        table[k, view["table"][k]] = 1.0
    played = np.zeros((players, 40), dtype=np.float32)
    for card in view["history"][: view["n_played"] - view["n_table"]]:
        played[relative(view["played_by"][card]), card] = 1.0
    parts = [hot(40, *view["hand"][: view["n_hand"]]), hot(40, view["briscola"]), table.ravel(), played.ravel()]
    if teams:
        parts.append(hot(40, *view["partner_hands"].ravel()))
    if chiamata:
        parts.append(hot(40, view["called"]))
    parts += [hot(4, view["trump_suit"]), [view["points"][(me + r) % players] / 120 for r in range(players)],
              [view["stock_size"] / 40]]  # fmt: skip
    if teams:
        for r in range(2, players, 2):
            bits = int(view["partner_trumps"][(me + r) % players])
            parts.append([float(bits > 0 and bits & honour > 0) for honour in (1, 2, 4, 8, 16)])
    if chiamata:
        seats = [(me + r) % players for r in range(players)]
        parts += [[(view["bid"] + 1) / 69],
                  hot(players, relative(view["bidder"]) if view["bidder"] >= 0 else -1),
                  [view["passed"][seat] for seat in seats],
                  hot(players, relative(view["caller"]) if view["caller"] >= 0 else -1),
                  hot(players, relative(view["partner"]) if view["partner"] >= 0 else -1),
                  [max(0, view["target"]) / 120]]  # fmt: skip
    return np.concatenate([np.asarray(part, dtype=np.float64).astype(np.float32) for part in parts])


@pytest.mark.parametrize("players", TABLES)
def test_version_1_is_the_encoding_as_it_always_was(players):
    """What the shipped networks read: bit for bit, the layout docs/agents.md gives."""
    views = all_views(players)
    obs = encode_flat(views, version=1)
    assert obs.shape == (len(views), flat_size(players, 1)) == (len(views), (207, 288, 414, 512, 581)[players - 2])
    by_hand = np.stack([version_1_by_hand(view) for view in views])
    assert obs.tobytes() == by_hand.tobytes()


@pytest.mark.parametrize("players", TABLES)
def test_version_2_keeps_the_face_up_card_and_shows_its_holder(players):
    """Version 2: version 1's segments but ``briscola``, the same values; ``face_up`` the
    card the whole deal, ``holder`` who took it by relative seat (not at 5 players)."""
    views = all_views(players)
    old, new = segments(encode_flat(views, version=1), players, 1), segments(encode_flat(views), players, 2)
    assert set(old) - set(new) == {"briscola"}
    assert set(new) - set(old) == (set() if players == 5 else {"face_up", "holder"})
    for name in set(old) & set(new):
        assert np.array_equal(old[name], new[name]), name
    if players == 5:
        return
    assert (new["face_up"].argmax(axis=1) == views["face_up"]).all() and (new["face_up"].sum(axis=1) == 1).all()
    taken = views["face_up_holder"] >= 0
    relative = (views["face_up_holder"] - views["seat"]) % players
    assert (new["holder"][taken].argmax(axis=1) == relative[taken]).all()
    assert (new["holder"].sum(axis=1) == taken).all() and taken.any() and (~taken).any()
    assert (views["stock_size"][taken] == 0).all() and (views["stock_size"][~taken] > 0).all()


def test_each_version_has_a_width_of_its_own_at_every_table():
    for players in TABLES:
        widths = [flat_size(players, version) for version in FLAT_VERSIONS]
        assert len(set(widths)) == len(widths)
        assert [flat_version_of(width, players) for width in widths] == list(FLAT_VERSIONS)
    assert [flat_size(p) for p in TABLES] == [209, 291, 418, 472, 587]


def test_a_version_the_encoder_does_not_write_is_named():
    views = all_views(2)[:3]
    with pytest.raises(ValueError, match="flat encoding version 3: valid: 1, 2"):
        encode_flat(views, version=3)
    with pytest.raises(ConfigError, match="flat_version: flat encoding version 0: valid: 1, 2"):
        BriscolaVectorEnv(num_envs=2, players=2, flat_version=0)


def test_the_environments_say_which_version_they_observe():
    from sim.rl.aec import BriscolaAEC

    for version in FLAT_VERSIONS:
        env = BriscolaVectorEnv(num_envs=2, players=3, flat_version=version)
        obs, _ = env.reset(seed=1)
        assert obs.shape == (2, flat_size(3, version)) and env.metadata["observation"] == f"flat-v{version}"
        aec = BriscolaAEC(players=3, flat_version=version)
        assert aec.metadata["name"] == f"briscola_flat_v{version}"
        assert aec.observation_space("player_0")["observation"].shape == (flat_size(3, version),)
    assert BriscolaVectorEnv.metadata["observation"] == f"flat-v{FLAT_VERSION}"  # the class's: the default


def test_a_network_of_one_table_names_the_table_at_another():
    env = BriscolaVectorEnv(num_envs=2, players=3, opponents="random")
    env.reset(seed=1)
    views = env._lanes.views[:, 1].copy()
    assert encode_flat(views, trained_at=3).shape == (2, 291)
    assert encode_flat(views, trained_at=3, version=1).shape == (2, 288)
    with pytest.raises(StrategyError, match="plays 2 players only .* not 3: check it with --players 2"):
        encode_flat(views, trained_at=2)
