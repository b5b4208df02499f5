"""The training environments, checked by Gymnasium's and PettingZoo's own checkers at
every table, and for what those do not check: the same seed gives the same episodes on
any number of threads, rewards add up to the deal's points and outcome, an illegal card
ends the episode, and batched opponents play in lock-step the deals their jitted twins
play."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pettingzoo = pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from numba.core.errors import NumbaExperimentalFeatureWarning  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test  # noqa: E402

from sim.base.config import ConfigError, IllegalDecisionError  # noqa: E402
from sim.rl.aec import BriscolaAEC, BriscolaParallel  # noqa: E402
from sim.rl.env import ENV_ID, BriscolaEnv, BriscolaVectorEnv  # noqa: E402
from strategies.api import Strategy  # noqa: E402
from strategies.errors import StrategyError  # noqa: E402
from strategies.observation import encode_flat  # noqa: E402
from tests.batched_strategies import BRANDOM  # noqa: E402
from tests.helpers import REPO  # noqa: E402

BATCHED = str(REPO / "tests" / "batched_strategies.py")
NUMPY_MLP = str(REPO / "examples" / "agents" / "numpy_mlp.py")


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_gymnasiums_checker_passes_the_single_env(players):
    check_env(BriscolaEnv(players=players, opponents="random"), skip_render_check=True)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_pettingzoos_api_test_passes_the_aec_env(players):
    api_test(BriscolaAEC(players=players), num_cycles=200)


def test_gymnasium_makes_the_registered_env_and_its_checker_does_not_warn():
    env = gymnasium.make(ENV_ID, players=4, opponents="greedy")
    assert isinstance(env.unwrapped, BriscolaEnv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught if w.category is not NumbaExperimentalFeatureWarning] == []
    vector = gymnasium.make_vec(ENV_ID, num_envs=8, vectorization_mode="vector_entry_point", opponents="greedy")
    assert isinstance(vector, BriscolaVectorEnv) and vector.num_envs == 8


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_pettingzoos_parallel_api_test_passes_the_parallel_env(players):
    parallel_api_test(BriscolaParallel(players=players), num_cycles=200)


def test_the_parallel_env_plays_the_aec_envs_deal_turn_by_turn():
    """One agent plays at each step, the one the AEC env would select; the others' cards
    are ignored and their masks are empty; the rewards are the AEC env's."""
    aec, parallel = BriscolaAEC(players=4), BriscolaParallel(players=4)
    aec.reset(seed=2)
    observations, infos = parallel.reset(seed=2)
    while parallel.agents:
        to_play = infos["player_0"]["active_agent"]
        assert to_play == aec.agent_selection
        assert [agent for agent, seen in observations.items() if seen["action_mask"].any()] == [to_play]
        assert np.array_equal(observations[to_play]["observation"], aec.observe(to_play)["observation"])
        card = int(observations[to_play]["action_mask"].argmax())
        aec.step(card)
        observations, rewards, terminations, _, infos = parallel.step(dict.fromkeys(parallel.agents, card))
        assert rewards == aec.rewards
    assert all(terminations.values()) and not any(infos[a]["illegal"] for a in infos)


def rollout(env, steps, seed=7):
    obs, info = env.reset(seed=seed)
    picks = np.random.default_rng(0)
    seen = [obs.copy()]
    rewards = []
    for _ in range(steps):
        mask = info["action_mask"]
        actions = (picks.random(mask.shape) * mask).argmax(axis=1)
        obs, reward, terminated, truncated, info = env.step(actions)
        seen.append(obs.copy())
        rewards.append(reward.copy())
    return np.array(seen), np.array(rewards)


@pytest.mark.parametrize("players, opponents", [(2, "random"), (4, "expert"), (5, "greedy")])
def test_the_same_seed_gives_the_same_episodes_on_any_threads(players, opponents):
    one = rollout(BriscolaVectorEnv(num_envs=64, players=players, opponents=opponents, threads=1), 45)
    two = rollout(BriscolaVectorEnv(num_envs=64, players=players, opponents=opponents, threads=2), 45)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    other = rollout(BriscolaVectorEnv(num_envs=64, players=players, opponents=opponents), 45, seed=8)
    assert not np.array_equal(one[0], other[0])


@pytest.mark.parametrize("players", [2, 4, 5])
def test_reset_starts_new_episodes_whatever_the_lanes_were_doing(players):
    """Reset twice, mid-deal, or after an episode ended: every lane starts afresh, and a
    seed gives the same first observations whatever came before."""
    env = BriscolaVectorEnv(num_envs=16, players=players, opponents="random")
    first, info = env.reset(seed=1)
    dealt = info["action_mask"].sum(axis=1)
    assert (dealt > 0).all()
    for before in ("nothing", "mid-deal", "illegal"):
        if before == "mid-deal":
            env.step(info["action_mask"].argmax(axis=1))
        elif before == "illegal":
            env.step((~info["action_mask"]).argmax(axis=1))
        obs, info = env.reset(seed=1)
        assert np.array_equal(obs, first), before
        assert np.array_equal(info["action_mask"].sum(axis=1), dealt), before
        obs, reward, terminated, _, info = env.step(info["action_mask"].argmax(axis=1))
        assert not terminated.any() and not info.get("illegal", np.zeros(1, bool)).any(), before


def test_the_single_env_resets_to_the_same_hand_from_a_seed():
    env = BriscolaEnv(players=2, opponents="greedy", seat=0)
    first, info = env.reset(seed=3)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    again, info = env.reset(seed=3)
    assert np.array_equal(first, again) and info["action_mask"].sum() == 3


def test_rewards_add_up_to_the_sides_points_and_the_outcome():
    env = BriscolaVectorEnv(num_envs=256, players=2, opponents="greedy", seat=1)
    obs, info = env.reset(seed=3)
    total = np.zeros(256)
    for _ in range(20):
        obs, reward, terminated, _, info = env.step(info["action_mask"].argmax(axis=1))
        total += reward
    assert terminated.all()
    outcome = info["outcome"].astype(float)
    points = (total - outcome) * 120
    assert np.allclose(points, np.round(points)) and (points >= 0).all() and (points <= 120).all()
    assert np.array_equal(np.sign(points - 60), outcome)  # more than 60 wins, 60 draws


def test_a_team_learns_together_and_the_seat_can_rotate():
    env = BriscolaVectorEnv(num_envs=32, players=4, opponents="random", team=True)
    obs, info = env.reset(seed=1)
    seats = set()
    for _ in range(30):  # 10 decisions per seat a deal: a team's lane waits on both partners
        seats |= set(info["seat"].tolist())
        obs, reward, terminated, _, info = env.step(info["action_mask"].argmax(axis=1))
    assert seats <= {0, 1, 2, 3} and len(seats) >= 2


def test_an_illegal_card_ends_the_episode_and_the_next_step_starts_another():
    env = BriscolaVectorEnv(num_envs=8, players=2, opponents="random", illegal_reward=-5.0)
    obs, info = env.reset(seed=2)
    wrong = (~info["action_mask"]).argmax(axis=1)
    obs, reward, terminated, _, info = env.step(wrong)
    assert terminated.all() and (reward == -5.0).all() and info["illegal"].all()
    obs, reward, terminated, _, info = env.step(wrong)  # ignored: the autoreset step
    assert not terminated.any() and (reward == 0).all() and (info["action_mask"].sum(axis=1) == 3).all()


def test_bad_options_are_named():
    with pytest.raises(ConfigError, match="team=True needs partners"):
        BriscolaVectorEnv(players=2, team=True)
    with pytest.raises(ConfigError, match="seat 3 is not a seat at 2 players"):
        BriscolaVectorEnv(players=2, seat=3)
    with pytest.raises(ConfigError, match="opponents 7: valid: a strategy's name .* or a Strategy"):
        BriscolaVectorEnv(players=2, opponents=7)
    with pytest.raises(ConfigError, match="auction 'bbidder' is a batched strategy.*valid auctions are jitted"):
        BriscolaAEC(players=5, auction="bbidder", strategy_files=(BATCHED,))


def test_a_block_of_lanes_stepped_on_the_calling_thread_plays_as_the_parallel_loop():
    """64 lanes or fewer are stepped without the parallel loop: their first episodes
    (deal i in lane i, whatever the lanes) are those of the first 64 of 65 lanes."""
    seen = []
    for lanes in (64, 65):
        env = BriscolaVectorEnv(num_envs=lanes, players=2, opponents="expert", threads=2)
        obs, info = env.reset(seed=7)
        steps = [obs[:64]]
        for _ in range(15):  # the first episodes last 20 steps
            obs, *_, info = env.step(info["action_mask"].argmax(axis=1))
            steps.append(obs[:64])
        seen.append(np.array(steps))
    assert np.array_equal(seen[0], seen[1])


@pytest.mark.parametrize("players, team", [(2, False), (3, False), (4, False), (4, True), (5, False), (6, True)])
def test_a_batched_opponent_plays_in_lock_step_the_episodes_its_jitted_twin_plays(players, team):
    """``brandom`` draws its card from the key the kernels give it as ``random`` (at 5
    players ``jrandom``, with the same default auction) draws from its stream: the
    learner must see the same episodes, on any threads."""
    twin = "jrandom" if players == 5 else "random"
    options = {"num_envs": 80, "players": players, "team": team, "strategy_files": (BATCHED,)}
    jitted = rollout(BriscolaVectorEnv(opponents=twin, **options), 40)
    for threads in (1, 2):
        batched = rollout(BriscolaVectorEnv(opponents="brandom", threads=threads, **options), 40)
        assert np.array_equal(batched[0], jitted[0]) and np.array_equal(batched[1], jitted[1])


def test_a_strategy_object_plays_as_the_opponent_the_file_names():
    """A training loop's own strategy (here the file's ``brandom`` object itself; a
    frozen copy of the learner alike), given as the object."""
    named = rollout(BriscolaVectorEnv(num_envs=32, players=3, opponents="brandom", strategy_files=(BATCHED,)), 30)
    given = rollout(BriscolaVectorEnv(num_envs=32, players=3, opponents=BRANDOM), 30)
    assert np.array_equal(named[0], given[0]) and np.array_equal(named[1], given[1])


def test_a_batched_plug_in_and_a_frozen_copy_of_a_learner_are_opponents_on_any_threads():
    """numpy_mlp (a batched numpy network, examples/agents/) as the opponent: the same seed,
    the same episodes on any threads; and a learner's copy frozen in process, here a
    network of the same weights, plays the same episodes."""
    weights = dict(np.load(REPO / "examples" / "agents" / "numpy_mlp.npz"))

    def frozen(views, legal, params, keys):
        hidden = np.maximum(encode_flat(views, version=1) @ weights["w1"] + weights["b1"], 0.0)  # as numpy_mlp reads
        return np.where(legal, hidden @ weights["w2"] + weights["b2"], -np.inf).argmax(axis=1)

    options = {"num_envs": 64, "players": 2, "opponents": "numpy-mlp", "strategy_files": (NUMPY_MLP,)}
    one = rollout(BriscolaVectorEnv(**options), 40)
    two = rollout(BriscolaVectorEnv(**options, threads=2), 40)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    copy = Strategy("frozen", 1, "the learner's network, frozen", choose=frozen, batched=True)
    assert np.array_equal(rollout(BriscolaVectorEnv(num_envs=64, players=2, opponents=copy), 40)[0], one[0])
    assert not np.array_equal(rollout(BriscolaVectorEnv(num_envs=64, players=2, opponents="random"), 40)[0], one[0])


def test_bids_and_calls_of_a_batched_strategy_at_briscola_chiamata():
    """At 5 players the learner plays the cards, ``bbidder`` every bid and call (the
    learner's seat's too) and the other seats' cards."""
    env = BriscolaVectorEnv(num_envs=40, players=5, opponents="bbidder", strategy_files=(BATCHED,))
    obs, info = env.reset(seed=3)
    ended = 0
    for _ in range(30):
        obs, reward, terminated, _, info = env.step(info["action_mask"].argmax(axis=1))
        ended += int(terminated.sum())
        assert not info.get("illegal", np.zeros(1, bool)).any()
    assert ended >= 40 and (info["action_mask"].sum(axis=1) > 0).all()


@pytest.mark.parametrize("opponents, players, error, message", [
    ("not-in-hand", 2, IllegalDecisionError, r"strategy 'not-in-hand' \(seat 1\) returned card .* not in its hand"),
    ("raising", 2, StrategyError, "strategy 'raising' raised ValueError deciding a play: the model is not loaded "
                                  r"\(an opponent or partner of the learner, at seats 1\)"),
    ("cheat", 2, IllegalDecisionError, r"strategy 'cheat' \(seat 1\) returned card .* not in its hand"),
    ("miscaller", 5, IllegalDecisionError, r"strategy 'miscaller' \(seat \d\) called card .* of the bid's face"),
])  # fmt: skip
def test_an_opponents_fault_is_named_and_the_env_asks_for_a_reset(opponents, players, error, message):
    """A batched or jitted opponent's illegal decision (an error of its own, not the
    learner's: no illegal reward for the learner), or its exception."""
    files = (BATCHED, str(REPO / "tests" / "unfair_strategies.py"))
    env = BriscolaVectorEnv(num_envs=8, players=players, seat=0, opponents=opponents, strategy_files=files)
    with pytest.raises(error, match=message):
        obs, info = env.reset(seed=1)
        for _ in range(3):
            obs, *_, info = env.step(info["action_mask"].argmax(axis=1))
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step(np.zeros(8, dtype=np.int64))


def test_the_parallel_env_takes_the_aec_envs_options_as_it_does():
    """``BriscolaParallel(3)`` was refused (keywords only), where ``BriscolaAEC(3)`` plays."""
    env = BriscolaParallel(3, None, "expert")
    assert env.possible_agents == BriscolaAEC(3).possible_agents == ["player_0", "player_1", "player_2"]
