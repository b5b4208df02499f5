"""Every seat learning: Briscola as a PettingZoo AEC environment, one deal at a time,
played by the lock-step kernels (``kernels/lockstep_nb.py``) with every seat's cards
decided outside them. At Briscola Chiamata the auction and the call are made by
``auction`` (a strategy's bidding, inside the kernels); the agents play the cards.

Agents are ``player_0`` .. ``player_{P-1}`` (seats). Each observes a dict: ``observation``
(the flat encoding of its view, strategies/observation.py) and ``action_mask`` (its legal
cards, int8). Rewards as in sim/env.py: each agent's side's points since the last step
/ 120 x ``points_weight``, then the outcome x ``outcome_weight``; an illegal card ends the
deal with ``illegal_reward`` for its player.

>>> env = BriscolaAEC(players=2)
>>> env.reset(seed=4)
>>> observation, reward, terminated, truncated, info = env.last()
>>> env.agent_selection, observation["observation"].shape, int(observation["action_mask"].sum())
('player_0', (207,), 3)
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as error:  # the package's optional extra
    raise ImportError("the AEC environment needs PettingZoo: pip install -e '.[rl]'") from error

from kernels.enums import MAX_PLAYERS, N_CARDS, TOTAL_POINTS
from kernels.env_nb import outcome_nb, side_points_nb
from kernels.lockstep_nb import LANE_OVER, LANE_STOPPED, OUTSIDE_PLAY, new_lanes_nb
from sim.config import Rules, RunConfig
from sim.interrupt import StopFlag
from sim.lockstep import lane_kernels
from sim.play import run_context
from strategies.observation import FLAT_VERSION, encode_flat, flat_size, legal_mask

ONE = np.zeros(1, dtype=np.int64)  # the one lane


class BriscolaAEC(AECEnv):
    metadata = {"render_modes": [], "name": f"briscola_flat_v{FLAT_VERSION}", "is_parallelizable": False}

    def __init__(self, players: int = 2, rules: Rules | None = None, auction: str = "greedy",
                 points_weight: float = 1.0, outcome_weight: float = 1.0, illegal_reward: float = -1.0):  # fmt: skip
        super().__init__()
        self.players = players
        self._config = RunConfig(players=players, strategies=(auction,) * players, deals=1, seed=0,
                                 rules=rules or Rules(), threads=1)  # fmt: skip
        self._weights = (points_weight, outcome_weight, illegal_reward)
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        observation = spaces.Dict({"observation": spaces.Box(0.0, 1.0, (flat_size(players),), np.float32),
                                   "action_mask": spaces.Box(0, 1, (N_CARDS,), np.int8)})  # fmt: skip
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(N_CARDS) for agent in self.possible_agents}
        self._outside = np.where(np.arange(MAX_PLAYERS) < players, OUTSIDE_PLAY, 0).astype(np.int64)
        self._lanes = new_lanes_nb(1)
        self._episode, self._run = 0, None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._run is None:
            self._run = run_context(replace(self._config, seed=0 if seed is None else int(seed)), 0, 1, False,
                                    StopFlag())  # fmt: skip
            self._start_lanes, self._advance_lanes = lane_kernels(self._run, self._outside, self._lanes)
            self._episode = 0
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self._observations = {agent: self._blank() for agent in self.agents}
        while True:  # a Briscola Chiamata deal thrown in has no card to play: the next deal
            self._start_lanes(self._run, self._outside, self._lanes, ONE, np.array([self._episode], dtype=np.int64))
            self._episode += 1
            if self._lanes.cursor[0]["seat"] >= 0:
                break
        self._banked = np.zeros(self.players)
        self._show_next()

    def observe(self, agent):
        return self._observations[agent]

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._advance_lanes(self._run, self._outside, self._lanes, ONE, np.array([int(action)], dtype=np.int64))
        phase = int(self._lanes.cursor[0]["phase"])
        points_weight, outcome_weight, illegal_reward = self._weights
        rewards = self._points_rewards(points_weight)
        if phase == LANE_STOPPED:
            rewards = np.zeros(self.players)
            rewards[self.possible_agents.index(agent)] = illegal_reward
        elif phase == LANE_OVER:
            rewards += outcome_weight * self._outcomes()
        self.rewards = {a: float(rewards[k]) for k, a in enumerate(self.possible_agents)}
        if phase >= LANE_OVER:
            self.terminations = {a: True for a in self.agents}
            self.infos = {a: {"illegal": phase == LANE_STOPPED} for a in self.agents}
        else:
            self._show_next()
        self._accumulate_rewards()

    def _show_next(self) -> None:
        lanes = self._lanes
        seat = int(lanes.cursor[0]["seat"])
        views = lanes.views[[0], 1]
        self._observations[self.possible_agents[seat]] = {
            "observation": encode_flat(views)[0],
            "action_mask": legal_mask(views)[0].astype(np.int8),
        }
        self.agent_selection = self.possible_agents[seat]

    def _blank(self) -> dict:
        return {"observation": np.zeros(flat_size(self.players), dtype=np.float32),
                "action_mask": np.zeros(N_CARDS, dtype=np.int8)}  # fmt: skip

    def _points_rewards(self, weight: float) -> np.ndarray:
        points = self._lanes.work[0]["points"]
        now = np.array([side_points_nb(points, seat, self.players) for seat in range(self.players)], dtype=np.float64)
        gained, self._banked = now - self._banked, now
        return weight * gained / TOTAL_POINTS

    def _outcomes(self) -> np.ndarray:
        result = self._lanes.results[0]
        return np.array([outcome_nb(result, seat, self.players) for seat in range(self.players)], dtype=np.float64)
