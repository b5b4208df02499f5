"""Training environments: Briscola as Gymnasium and PettingZoo see it, stepped by the
kernels (``kernels/env_nb.py``).

- ``BriscolaVectorEnv``: ``num_envs`` deals stepped together for one learning seat (or
  team); its opponents and partners are any strategies, played inside the kernels.
  Gymnasium's vector API, next-step autoreset.
- ``BriscolaEnv``: the same, one deal at a time (Gymnasium's ``Env``; passes its
  ``check_env``).
- ``BriscolaAEC``: every seat learning, PettingZoo's AEC API (passes its ``api_test``).

An action is a card code (0..39); the legal cards are the observation's ``action_mask``
(in ``info`` for the Gymnasium forms). An illegal card ends the episode with reward
``illegal_reward`` (``info["illegal"]``). The observation is the flat encoding of the
learner's view (``strategies/observation.py``, version FLAT_VERSION); the reward is
``points_weight`` x the points its side took since its last card / 120, plus, at the
end, ``outcome_weight`` x (+1 won, 0 drawn, -1 lost). docs/agents.md has the details.

Gymnasium and PettingZoo are optional (``pip install -e ".[rl]"``).
"""

from __future__ import annotations

from dataclasses import replace

import numba
import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as error:  # the package's optional extra
    raise ImportError("the environments need Gymnasium: pip install -e '.[rl]'") from error

from kernels.enums import MAX_PLAYERS, N_CARDS
from kernels.env_nb import (
    ROTATE,
    SETTING_ILLEGAL,
    SETTING_OUTCOME,
    SETTING_POINTS,
    SETTING_SEAT,
    SETTING_TEAM,
    EnvState,
    env_step_nb,
)
from kernels.lockstep_nb import new_lanes_nb
from sim.config import ConfigError, Rules, RunConfig
from sim.interrupt import StopFlag
from sim.kernel_thread import compiled_for
from sim.play import run_context, seat_specs
from strategies.knowledge_nb import pack_size_nb
from strategies.observation import FLAT_VERSION, flat_offsets, flat_size


class BriscolaVectorEnv(VectorEnv):
    """``num_envs`` deals for one learning seat, stepped together.

    ``opponents``: the strategy every other seat plays (``NAME[:key=value...]``, plug-ins
    from ``strategy_files``); with ``team`` the learner's partners (4 and 6 players) learn
    too, as the same policy. ``seat``: the learning seat, or None to move round the table
    an episode at a time. The same ``seed`` gives the same episodes on any ``threads``.

    >>> env = BriscolaVectorEnv(num_envs=8, players=2, opponents="random")
    >>> obs, info = env.reset(seed=1)
    >>> obs.shape, info["action_mask"].sum(axis=1).tolist()
    ((8, 207), [3, 3, 3, 3, 3, 3, 3, 3])
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "observation": f"flat-v{FLAT_VERSION}"}

    def __init__(
        self,
        num_envs: int = 1024,
        players: int = 2,
        opponents: str = "random",
        seat: int | None = None,
        team: bool = False,
        rules: Rules | None = None,
        strategy_files: tuple[str, ...] = (),
        points_weight: float = 1.0,
        outcome_weight: float = 1.0,
        illegal_reward: float = -1.0,
        threads: int = 1,
        copy: bool = True,
    ):
        if num_envs < 1:
            raise ConfigError(f"num_envs {num_envs} must be at least 1")
        if seat is not None and not 0 <= seat < players:
            raise ConfigError(f"seat {seat} is not a seat at {players} players; valid: 0..{players - 1} or None")
        if team and players not in (4, 6):
            raise ConfigError(f"team=True needs partners: 4 or 6 players, not {players}")
        self.num_envs, self.players, self.copy, self.threads = num_envs, players, copy, threads
        self.steps_per_deal = self.steps_in_deal(players, team)
        self._config = RunConfig(players=players, strategies=(opponents,) * players, deals=1, seed=0,
                                 rules=rules or Rules(), threads=threads, strategy_files=tuple(strategy_files))  # fmt: skip
        if any(spec.strategy.batched for spec in seat_specs(self._config)):
            raise ConfigError(f"opponents {opponents!r} is a batched strategy; the environment plays the other "
                              "seats inside the kernels: valid opponents are jitted strategies (built-in or plug-in)")  # fmt: skip
        size = flat_size(players)
        self.single_observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.single_action_space = spaces.Discrete(N_CARDS)
        self.observation_space = spaces.Box(0.0, 1.0, (num_envs, size), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, N_CARDS))
        settings = np.zeros(5, dtype=np.float64)
        settings[[SETTING_POINTS, SETTING_OUTCOME, SETTING_ILLEGAL]] = points_weight, outcome_weight, illegal_reward
        settings[SETTING_SEAT], settings[SETTING_TEAM] = ROTATE if seat is None else seat, float(team)
        self._lanes = new_lanes_nb(num_envs)
        self._state = EnvState(
            outside=np.zeros((num_envs, MAX_PLAYERS), dtype=np.int64), seats=np.zeros(num_envs, dtype=np.int64),
            episodes=np.zeros(num_envs, dtype=np.int64), restart=np.ones(num_envs, dtype=np.bool_),
            obs=np.zeros((num_envs, size), dtype=np.float32), masks=np.zeros((num_envs, N_CARDS), dtype=np.bool_),
            rewards=np.zeros(num_envs), terminated=np.zeros(num_envs, dtype=np.bool_),
            outcomes=np.zeros(num_envs, dtype=np.int8), illegal=np.zeros(num_envs, dtype=np.bool_),
            offsets=flat_offsets(players), settings=settings,
        )  # fmt: skip
        self._actions = np.zeros(num_envs, dtype=np.int64)  # the step's actions, in the kernel's own type
        self._run = self._step_kernel = None
        self._truncated = np.zeros(num_envs, dtype=np.bool_)

    @staticmethod
    def steps_in_deal(players: int, team: bool = False) -> int:
        """The learner's steps in a deal: its cards (its team's, with ``team``), all played."""
        return pack_size_nb(players) // players * (players // 2 if team else 1)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Every lane starts a new episode; with ``seed``, episode counting starts afresh."""
        if seed is not None or self._run is None:
            seed = 0 if seed is None else int(seed)
            self._run = run_context(replace(self._config, seed=seed), 0, 1, False, StopFlag())
            self._step_kernel = compiled_for(env_step_nb, (self._run, self._lanes, self._state, self._actions))
            self._state.episodes[:] = 0
        self._actions[:] = 0
        self._state.restart[:] = True  # whatever the lanes were doing: mid-deal, over, or just reset
        self._step()
        return self._out(self._state.obs), self._info(False)

    def step(self, actions):
        if self._run is None:
            raise RuntimeError("call reset() before step()")
        self._actions[:] = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        self._step()
        state = self._state
        rewards, terminated = self._out(state.rewards), self._out(state.terminated)
        return self._out(state.obs), rewards, terminated, self._truncated.copy(), self._info(True)

    def _step(self) -> None:
        numba.set_num_threads(min(self.threads, numba.config.NUMBA_NUM_THREADS))
        self._step_kernel(self._run, self._lanes, self._state, self._actions)

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def _info(self, stepped: bool) -> dict:
        state = self._state
        info = {"action_mask": self._out(state.masks), "seat": self._out(state.seats)}
        if stepped and state.terminated.any():
            info["outcome"], info["_outcome"] = state.outcomes.copy(), state.terminated.copy()
            info["illegal"], info["_illegal"] = state.illegal.copy(), state.terminated.copy()
        return info


class BriscolaEnv(gymnasium.Env):
    """One deal at a time for one learning seat: ``BriscolaVectorEnv``'s single form.

    >>> env = BriscolaEnv(players=2, opponents="greedy", seat=0)
    >>> obs, info = env.reset(seed=3)
    >>> card = int(np.flatnonzero(info["action_mask"])[0])
    >>> obs, reward, terminated, truncated, info = env.step(card)
    >>> obs.shape, terminated
    ((207,), False)
    """

    metadata = {"render_modes": [], "observation": f"flat-v{FLAT_VERSION}"}

    def __init__(self, **options):
        self._vector = BriscolaVectorEnv(num_envs=1, **options)
        self.observation_space = self._vector.single_observation_space
        self.action_space = self._vector.single_action_space

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        obs, info = self._vector.reset(seed=seed)
        return obs[0], _first(info)

    def step(self, action):
        obs, rewards, terminated, truncated, info = self._vector.step(np.array([int(action)]))
        return obs[0], float(rewards[0]), bool(terminated[0]), bool(truncated[0]), _first(info)


def _first(info: dict) -> dict:
    return {key: value[0] for key, value in info.items() if not key.startswith("_")}
