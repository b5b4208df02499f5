"""Every seat learning: Briscola as a PettingZoo environment, one deal at a time: a
``Deal`` (sim/runtime/deal.py) with every seat's cards driven from outside, each step one
compiled call. At Briscola Chiamata the auction and the call are made by ``auction`` (a
jitted strategy's bidding, inside the kernels); the agents play the cards.

- ``BriscolaAEC``: PettingZoo's AEC API, one card a step, by the agent to play.
- ``BriscolaParallel``: its parallel API, turn by turn: every step takes a dict of
  actions, plays the card of the agent to play and ignores the others'. Only that agent's
  ``action_mask`` holds legal cards; every other agent's is all zero and its observation
  what it saw at its last turn. Briscola cannot be played as a cycle of simultaneous
  moves (each seat sees the cards played before its own, and the leader changes with
  each trick), so ``BriscolaAEC`` is not ``is_parallelizable``: PettingZoo's
  ``aec_to_parallel`` would play a different game.

Agents are ``player_0`` .. ``player_{P-1}`` (seats). Each observes a dict: ``observation``
(the flat encoding of its view, strategies/observation.py, version ``flat_version``:
FLAT_VERSION unless asked) and ``action_mask`` (its legal cards, int8). Rewards as in
sim/rl/env.py: each agent's side's points since the last step / 120 x ``points_weight``,
then the outcome x ``outcome_weight``; an illegal card ends the deal with
``illegal_reward`` for its player.

>>> env = BriscolaAEC(players=2)
>>> env.reset(seed=4)
>>> observation, reward, terminated, truncated, info = env.last()
>>> env.agent_selection, observation["observation"].shape, int(observation["action_mask"].sum())
('player_0', (209,), 3)
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ImportError as error:  # the package's optional extra
    raise ImportError("the AEC environment needs PettingZoo: pip install -e '.[rl]'") from error

from kernels.enums import N_CARDS, TOTAL_POINTS
from sim.base.config import ConfigError, Rules, RunConfig, checked_flat_version
from sim.runtime.deal import Deal, IllegalMoveError
from sim.runtime.play import lineup
from strategies.observation import FLAT_VERSION, flat_size


def env_name(flat_version: int) -> str:
    """The environment's name (``metadata["name"]``): its observation's version in it."""
    return f"briscola_flat_v{flat_version}"


NAME = env_name(FLAT_VERSION)


class BriscolaAEC(AECEnv):
    metadata = {"render_modes": [], "name": NAME, "is_parallelizable": False}

    def __init__(self, players: int = 2, rules: Rules | None = None, auction: str = "greedy",
                 points_weight: float = 1.0, outcome_weight: float = 1.0, illegal_reward: float = -1.0,
                 strategy_files: tuple[str, ...] = (), flat_version: int = FLAT_VERSION):  # fmt: skip
        super().__init__()
        self.metadata = {**self.metadata, "name": env_name(checked_flat_version(flat_version))}
        self.players = players
        self._config = RunConfig(players=players, strategies=(auction,) * players, deals=1, seed=0,
                                 rules=rules or Rules(), threads=1, strategy_files=tuple(strategy_files))  # fmt: skip
        if lineup(self._config).batched:
            raise ConfigError(f"auction {auction!r} is a batched strategy; the auction is played inside the kernels: "
                              "valid auctions are jitted strategies (built-in or plug-in)")  # fmt: skip
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._size = flat_size(players, flat_version)
        observation = spaces.Dict({"observation": spaces.Box(0.0, 1.0, (self._size,), np.float32),
                                   "action_mask": spaces.Box(0, 1, (N_CARDS,), np.int8)})  # fmt: skip
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(N_CARDS) for agent in self.possible_agents}
        self._flat_version = flat_version
        self._weights = (float(points_weight), float(outcome_weight), float(illegal_reward))
        self._deal: Deal | None = None
        self._episodes = 0  # deals started: deal e is deal e of the seed
        self._banked = [0] * players  # each seat's side points already rewarded

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._deal is None:
            config = replace(self._config, seed=0 if seed is None else int(seed))
            self._deal = Deal.new(config, 0, outside=range(self.players), flat_version=self._flat_version)
            self._episodes = 1
        else:
            self._next_deal()
        while self._deal.done:  # a Briscola Chiamata deal thrown in has no card to play: the next deal
            self._next_deal()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._observations = {agent: self._blank() for agent in self.agents}
        self._banked = [0] * self.players
        self._show()

    def _next_deal(self) -> None:
        self._deal.start(self._episodes)
        self._episodes += 1

    def observe(self, agent):
        return self._observations[agent]

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        deal, (points_weight, outcome_weight, illegal_reward) = self._deal, self._weights
        try:
            deal.play(action)
        except IllegalMoveError:  # the deal ends: its player gets the illegal reward, the others nothing
            self.rewards = dict.fromkeys(self.possible_agents, 0.0)
            self.rewards[agent] = illegal_reward
            self._end(illegal=True)
            return
        points, over = deal.points, deal.done
        rewards = [points_weight * (now - before) / TOTAL_POINTS for now, before in zip(points, self._banked)]
        self._banked = points
        if over:
            rewards = [reward + outcome_weight * outcome for reward, outcome in zip(rewards, deal.outcomes)]
        self.rewards = dict(zip(self.possible_agents, rewards))
        if over:
            self._end(illegal=False)
            return
        self._show()
        self._accumulate_rewards()

    def _end(self, illegal: bool) -> None:
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {agent: {"illegal": illegal} for agent in self.agents}
        self._accumulate_rewards()

    def _show(self) -> None:
        """The seat to play now: its observation and legal cards, written by the step."""
        deal = self._deal
        agent = self.agent_selection = self.possible_agents[deal.to_move]
        self._observations[agent] = {"observation": deal.observation(), "action_mask": deal.action_mask()}

    def _blank(self) -> dict:
        return {"observation": np.zeros(self._size, dtype=np.float32),
                "action_mask": np.zeros(N_CARDS, dtype=np.int8)}  # fmt: skip


NOT_YOUR_TURN = np.zeros(N_CARDS, dtype=np.int8)  # the action mask of an agent not to play
NOT_YOUR_TURN.flags.writeable = False


class BriscolaParallel(ParallelEnv):
    """Every seat learning, PettingZoo's parallel API, turn by turn (see the module's
    docstring); ``BriscolaAEC``'s options. ``infos[agent]["active_agent"]`` names the
    agent to play.

    >>> env = BriscolaParallel(players=2)
    >>> observations, infos = env.reset(seed=4)
    >>> to_play = infos["player_0"]["active_agent"]
    >>> [int(observations[agent]["action_mask"].sum()) for agent in env.agents], to_play
    ([3, 0], 'player_0')
    """

    metadata = {"render_modes": [], "name": NAME}

    def __init__(self, *args, **options):
        self._aec = BriscolaAEC(*args, **options)  # the same options, in the same order
        self.metadata = {**self.metadata, "name": self._aec.metadata["name"]}
        self.possible_agents = self._aec.possible_agents
        self.agents = []

    def observation_space(self, agent):
        return self._aec.observation_space(agent)

    def action_space(self, agent):
        return self._aec.action_space(agent)

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._aec.reset(seed=seed, options=options)
        self.agents = list(self._aec.agents)
        return self._observations(), self._infos()

    def step(self, actions: dict):
        aec = self._aec
        agent = aec.agent_selection
        if agent not in actions:
            raise ValueError(f"actions hold no card for {agent}, the agent to play (infos[...]['active_agent'])")
        aec.step(actions[agent])
        rewards, terminations, truncations = dict(aec.rewards), dict(aec.terminations), dict(aec.truncations)
        observations, infos = self._observations(), self._infos()
        if any(terminations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict:
        aec = self._aec
        to_play = None if any(aec.terminations.values()) else aec.agent_selection
        return {agent: aec.observe(agent) if agent == to_play
                else {"observation": aec.observe(agent)["observation"], "action_mask": NOT_YOUR_TURN}
                for agent in aec.agents}  # fmt: skip

    def _infos(self) -> dict:
        aec = self._aec
        if any(aec.terminations.values()):
            return {agent: dict(info) for agent, info in aec.infos.items()}
        return {agent: {**info, "active_agent": aec.agent_selection} for agent, info in aec.infos.items()}
