"""The training environments, checked by Gymnasium's and PettingZoo's own checkers at
every table, and for what those do not check: the same seed gives the same episodes on
any number of threads, rewards add up to the deal's points and outcome, an illegal card
ends the episode, and an opponent's is named."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pettingzoo = pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from sim.aec import BriscolaAEC  # noqa: E402
from sim.config import ConfigError, IllegalDecisionError  # noqa: E402
from sim.env import BriscolaEnv, BriscolaVectorEnv  # noqa: E402
from tests.helpers import REPO  # noqa: E402


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_gymnasiums_checker_passes_the_single_env(players):
    check_env(BriscolaEnv(players=players, opponents="random"), skip_render_check=True)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_pettingzoos_api_test_passes_the_aec_env(players):
    api_test(BriscolaAEC(players=players), num_cycles=200)


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
    plug_in = str(REPO / "examples" / "agents" / "numpy_mlp.py")
    with pytest.raises(Exception, match="'numpy-mlp' is a batched strategy.*valid opponents are jitted"):
        BriscolaVectorEnv(players=2, opponents="numpy-mlp", strategy_files=(plug_in,))


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


@pytest.mark.parametrize("opponents, players, error, message", [
    ("cheat", 2, IllegalDecisionError, r"strategy 'cheat' \(seat 1\) returned card .* not in its hand"),
    ("miscaller", 5, IllegalDecisionError, r"strategy 'miscaller' \(seat \d\) called card .* of the bid's face"),
])  # fmt: skip
def test_an_opponents_fault_is_named_and_the_env_asks_for_a_reset(opponents, players, error, message):
    """An opponent's illegal decision: an error of its own, not the learner's (who was
    given the illegal reward for it)."""
    files = (str(REPO / "tests" / "unfair_strategies.py"),)
    env = BriscolaVectorEnv(num_envs=8, players=players, seat=0, opponents=opponents, strategy_files=files)
    with pytest.raises(error, match=message):
        obs, info = env.reset(seed=1)
        for _ in range(3):
            obs, *_, info = env.step(info["action_mask"].argmax(axis=1))
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step(np.zeros(8, dtype=np.int64))
