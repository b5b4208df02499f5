"""Trains a small network from scratch in the vector environment, with numpy alone, and
saves it where the batched plug-in ``examples/agents/numpy_mlp.py`` loads it.

    .venv/bin/python examples/train_policy.py            # 10 minutes
    .venv/bin/briscola compare numpy-mlp random --players 2 --deals 20000 --seed 99 \
        --strategy-file examples/agents/numpy_mlp.py

The network: the flat observation -> 128 ReLU units -> a value per card (what playing it
is worth: the points its side takes from now on, discounted, and the outcome); it plays
the legal card of highest value. Learning: Q-learning, online, on 2,048 deals stepped
together against ``random``: each step, every lane's value of the card played moves
towards its reward plus the discounted best value of the next position (Adam), while
one card in ten is played at random to explore. The learner's seat moves round the
table an episode at a time.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from sim.env import BriscolaVectorEnv

HERE = Path(__file__).resolve().parent
HIDDEN = 128
GAMMA = 0.7  # how much the points of later tricks count
EXPLORE = 0.1  # the share of cards played at random (decaying it, 0.2 to 0.02, ended weaker: 0.837)


def new_network(size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "w1": rng.normal(0, np.sqrt(2 / size), (size, HIDDEN)).astype(np.float32),
        "b1": np.zeros(HIDDEN, dtype=np.float32),
        "w2": rng.normal(0, 0.01, (HIDDEN, 40)).astype(np.float32),
        "b2": np.zeros(40, dtype=np.float32),
    }


def values(network, obs):
    hidden = np.maximum(obs @ network["w1"] + network["b1"], 0.0)
    return hidden, hidden @ network["w2"] + network["b2"]


class Adam:
    def __init__(self, network, rate):
        self.rate, self.t = rate, 0
        self.m = {k: np.zeros_like(v) for k, v in network.items()}
        self.v = {k: np.zeros_like(v) for k, v in network.items()}

    def step(self, network, grads):
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            m, v = self.m[k] / (1 - 0.9**self.t), self.v[k] / (1 - 0.999**self.t)
            network[k] -= self.rate * m / (np.sqrt(v) + 1e-8)


def gradients(network, obs, hidden, errors, actions) -> dict[str, np.ndarray]:
    """Of half the mean squared error of the values of the cards played."""
    n = len(actions)
    d_values = np.zeros((n, 40), dtype=np.float32)
    d_values[np.arange(n), actions] = errors / n
    d_hidden = (d_values @ network["w2"].T) * (hidden > 0)
    return {"w2": hidden.T @ d_values, "b2": d_values.sum(axis=0), "w1": obs.T @ d_hidden, "b1": d_hidden.sum(axis=0)}


def train(minutes: float, envs: int, seed: int, out: Path, quiet: bool = False) -> float:
    """Trains for ``minutes`` of wall time and saves the network into ``out``; returns
    the share of the last deals it won (exploring)."""
    rng = np.random.default_rng(seed)
    env = BriscolaVectorEnv(num_envs=envs, players=2, opponents="random", copy=False)
    network = new_network(env.single_observation_space.shape[0], rng)
    adam = Adam(network, 1e-3)
    obs, info = env.reset(seed=seed)
    started, steps, won = time.monotonic(), 0, []
    while time.monotonic() - started < minutes * 60:
        mask, seen = info["action_mask"].copy(), obs.copy()
        hidden, now = values(network, seen)
        best = np.where(mask, now, -np.inf).argmax(axis=1)
        at_random = (rng.random(mask.shape) * mask).argmax(axis=1)
        actions = np.where(rng.random(envs) < EXPLORE, at_random, best)
        obs, rewards, terminated, _, info = env.step(actions)
        _, later = values(network, obs)
        best_later = np.where(info["action_mask"], later, -np.inf).max(axis=1)
        targets = rewards + GAMMA * np.where(terminated, 0.0, best_later)
        adam.step(network, gradients(network, seen, hidden, now[np.arange(envs), actions] - targets, actions))
        if terminated.all():  # 2 players: every lane ends its deal at the same step
            won.append(info["outcome"] > 0)
            obs, *_, info = env.step(actions)  # the next-step autoreset: a new deal in every lane
        steps += 1
        if not quiet and steps % 1000 == 0:
            print(f"{time.monotonic() - started:5.0f} s  {steps * envs:>11,} decisions  won {np.mean(won[-10:]):.3f}")
    np.savez(out, **network)
    return float(np.mean(won[-10:])) if won else 0.0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--envs", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "agents" / "numpy_mlp.npz")
    args = parser.parse_args()
    train(args.minutes, args.envs, args.seed, args.out)
    print(f"saved {args.out}")
