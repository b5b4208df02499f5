"""Training environments: Briscola as Gymnasium and PettingZoo see it, stepped by the
kernels (``kernels/env_nb.py``).

- ``BriscolaVectorEnv``: ``num_envs`` deals stepped together for one learning seat (or
  team); its opponents and partners are any strategies: jitted ones played inside the
  kernels, batched ones (a network, a frozen copy of the learner) in lock-step with them.
  Gymnasium's vector API, next-step autoreset.
- ``BriscolaEnv``: the same, one deal at a time (Gymnasium's ``Env``; passes its
  ``check_env``); registered as ``briscola/Briscola-v0`` for ``gymnasium.make`` (and
  ``make_vec``, whose entry point is ``BriscolaVectorEnv``).
- ``BriscolaAEC`` and ``BriscolaParallel`` (sim/rl/aec.py): every seat learning, PettingZoo's
  AEC and parallel APIs (they pass its ``api_test`` and ``parallel_api_test``).

An action is a card code (0..39); the legal cards are the observation's ``action_mask``
(in ``info`` for the Gymnasium forms). An illegal card ends the episode with reward
``illegal_reward`` (``info["illegal"]``). The observation is the flat encoding of the
learner's view (``strategies/observation.py``, version ``flat_version``: FLAT_VERSION,
the newest, unless asked); the reward is ``points_weight`` x the points its side took
since its last card / 120, plus, at the end, ``outcome_weight`` x (+1 won, 0 drawn, -1
lost). docs/agents.md has the details.

Gymnasium and PettingZoo are optional (``pip install -e ".[rl]"``).
"""

from __future__ import annotations

from dataclasses import replace

import numba
import numpy as np
from threadpoolctl import ThreadpoolController

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
    env_step_bound_nb,
)
from kernels.lockstep_nb import LANE_STOPPED, LANES_PER_BLOCK, new_lanes_nb
from sim.base.config import ConfigError, IllegalDecisionError, Rules, RunConfig, checked_flat_version
from sim.base.interrupt import StopFlag
from sim.runtime.kernel_thread import bound_call
from sim.runtime.lockstep import decide
from sim.runtime.play import illegal_decision_text, lineup, run_context
from strategies.api import Strategy, parse_spec
from strategies.errors import StrategyError
from strategies.knowledge_nb import pack_size_nb
from strategies.observation import FLAT_VERSION, flat_offsets, flat_size
from strategies.seam import Lineup, outside_mask, seat_tables

ENV_ID = "briscola/Briscola-v0"  # gymnasium.make's name for BriscolaEnv (make_vec's: BriscolaVectorEnv)


class BriscolaVectorEnv(VectorEnv):
    """``num_envs`` deals for one learning seat, stepped together.

    ``opponents``: the strategy every other seat plays: a name (``NAME[:key=value...]``,
    plug-ins from ``strategy_files``) or a ``Strategy`` object (a training loop's own, such
    as a frozen copy of the learner; its parameters at their defaults). A batched one is
    played in lock-step: at each step the kernels play every lane on until it waits on the
    learner or on a batched seat, the batched strategy is called once for all the lanes
    waiting on it, and the kernels go on. With ``team`` the learner's partners (4 and 6
    players) learn too, as the same policy. ``seat``: the learning seat, or None to move
    round the table an episode at a time. ``flat_version``: the observation's version of
    the flat encoding (1 for a network trained on it). The same ``seed`` gives the same
    episodes on any ``threads``.

    >>> env = BriscolaVectorEnv(num_envs=8, players=2, opponents="random")
    >>> obs, info = env.reset(seed=1)
    >>> obs.shape, info["action_mask"].sum(axis=1).tolist(), env.metadata["observation"]
    ((8, 209), [3, 3, 3, 3, 3, 3, 3, 3], 'flat-v2')
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "observation": f"flat-v{FLAT_VERSION}"}

    def __init__(
        self,
        num_envs: int = 1024,
        players: int = 2,
        opponents: str | Strategy = "random",
        seat: int | None = None,
        team: bool = False,
        rules: Rules | None = None,
        strategy_files: tuple[str, ...] = (),
        points_weight: float = 1.0,
        outcome_weight: float = 1.0,
        illegal_reward: float = -1.0,
        threads: int = 1,
        copy: bool = True,
        flat_version: int = FLAT_VERSION,
    ):
        if num_envs < 1:
            raise ConfigError(f"num_envs {num_envs} must be at least 1")
        if seat is not None and not 0 <= seat < players:
            raise ConfigError(f"seat {seat} is not a seat at {players} players; valid: 0..{players - 1} or None")
        if team and players not in (4, 6):
            raise ConfigError(f"team=True needs partners: 4 or 6 players, not {players}")
        if not isinstance(opponents, str | Strategy):
            raise ConfigError(f"opponents {opponents!r}: valid: a strategy's name (NAME[:key=value...]) or a Strategy")
        self.metadata = {**self.metadata, "observation": f"flat-v{checked_flat_version(flat_version)}"}
        self.num_envs, self.players, self.copy, self.threads = num_envs, players, copy, threads
        self.steps_per_deal = self.steps_in_deal(players, team)
        label = opponents.name if isinstance(opponents, Strategy) else opponents
        self._config = RunConfig(players=players, strategies=(label,) * players, deals=1, seed=0,
                                 rules=rules or Rules(), threads=threads, strategy_files=tuple(strategy_files))  # fmt: skip
        self._seats = _opponents_lineup(opponents, self._config)
        self._batched = self._seats.batched  # the seats decided outside the kernels, in lock-step
        self._blas = ThreadpoolController() if self._batched else None  # made once: 20 us a step, not 350
        size = flat_size(players, flat_version)
        self.single_observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.single_action_space = spaces.Discrete(N_CARDS)
        self.observation_space = spaces.Box(0.0, 1.0, (num_envs, size), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, N_CARDS))
        settings = np.zeros(5, dtype=np.float64)
        settings[[SETTING_POINTS, SETTING_OUTCOME, SETTING_ILLEGAL]] = points_weight, outcome_weight, illegal_reward
        settings[SETTING_SEAT], settings[SETTING_TEAM] = ROTATE if seat is None else seat, float(team)
        self._lanes = new_lanes_nb(num_envs)
        self._state = EnvState(
            outside=np.zeros((num_envs, MAX_PLAYERS), dtype=np.int64),
            learns=np.zeros((num_envs, MAX_PLAYERS), dtype=np.bool_), seats=np.zeros(num_envs, dtype=np.int64),
            episodes=np.zeros(num_envs, dtype=np.int64), restart=np.ones(num_envs, dtype=np.bool_),
            waiting=np.zeros(num_envs, dtype=np.bool_),
            obs=np.zeros((num_envs, size), dtype=np.float32), masks=np.zeros((num_envs, N_CARDS), dtype=np.bool_),
            rewards=np.zeros(num_envs), terminated=np.zeros(num_envs, dtype=np.bool_),
            outcomes=np.zeros(num_envs, dtype=np.int8), illegal=np.zeros(num_envs, dtype=np.bool_),
            fouled=np.zeros(1, dtype=np.int8), batched=outside_mask(self._batched),
            offsets=flat_offsets(players, flat_version), settings=settings,
        )  # fmt: skip
        self._every = np.arange(num_envs, dtype=np.int64)
        self._actions = np.zeros(num_envs, dtype=np.int64)  # the step's actions, in the kernel's own type
        self._run = self._step_lanes = None
        self._needs_reset = True  # before the first reset, and after a step that failed midway
        self._truncated = np.zeros(num_envs, dtype=np.bool_)

    @staticmethod
    def steps_in_deal(players: int, team: bool = False) -> int:
        """The learner's steps in a deal: its cards (its team's, with ``team``), all played."""
        return pack_size_nb(players) // players * (players // 2 if team else 1)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Every lane starts a new episode; with ``seed``, episode counting starts afresh."""
        state = self._state
        if seed is not None or self._run is None:
            seed = 0 if seed is None else int(seed)
            self._run = run_context(replace(self._config, seed=seed), 0, 1, False, StopFlag(), self._seats)
            self._step_lanes = bound_call(
                env_step_bound_nb, (self._run, self._lanes, state), (self._every, self._actions)
            )
            state.episodes[:] = 0
        self._actions[:] = 0
        state.restart[:] = True  # whatever the lanes were doing: mid-deal, over, or just reset
        state.waiting[:], state.fouled[:] = False, 0  # what a failed step left
        self._needs_reset = False
        self._play()
        return self._out(state.obs), self._info(False)

    def step(self, actions):
        self._actions[:] = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        self._play()
        state = self._state
        rewards, terminated = self._out(state.rewards), self._out(state.terminated)
        return self._out(state.obs), rewards, terminated, self._truncated.copy(), self._info(True)

    def _play(self) -> None:
        """Every lane moved on by its action in ``_actions``, to the learner's next card or
        its episode's end, every other seat played."""
        if self._needs_reset:
            raise RuntimeError("call reset() before step() (and after a step that raised)")
        self._needs_reset = True  # until the step is whole: a batched strategy may raise midway
        if self.num_envs > LANES_PER_BLOCK:  # fewer are stepped on this thread
            numba.set_num_threads(min(self.threads, numba.config.NUMBA_NUM_THREADS))
        self._step_lanes(self._every, self._actions)
        if self._batched:
            with self._blas.limit(
                limits=1, user_api="blas"
            ):  # as in sim/runtime/lockstep.py: a BLAS pool beside the kernels
                self._play_batched_seats()
        if self._state.fouled[0]:
            raise self._foul()
        self._needs_reset = False

    def _play_batched_seats(self) -> None:
        """Lock-step: each batched strategy decides for all the lanes waiting on it at once
        (sim/runtime/lockstep.py), and those lanes play on, until none waits."""
        while True:
            waiting = np.flatnonzero(self._state.waiting)
            if waiting.size == 0:
                return
            try:
                decided = decide(self._batched, self._lanes, waiting)
            except StrategyError as error:  # named as the kernels name an opponent's illegal decision
                seats = ", ".join(map(str, np.unique(self._lanes.cursor["seat"][waiting])))  # those it was asked for
                raise StrategyError(f"{error} (an opponent or partner of the learner, at seats {seats})") from None
            self._step_lanes(waiting, decided)

    def _foul(self) -> IllegalDecisionError:
        """The first illegal decision of a seat not learning (its lane stopped)."""
        lanes = self._lanes
        lane = np.flatnonzero((lanes.cursor["phase"] == LANE_STOPPED) & ~self._state.illegal)[0]
        text = illegal_decision_text(self._config, lanes.illegal[lane], int(lanes.cursor[lane]["deal"]))
        return IllegalDecisionError(f"{text} (an opponent or partner of the learner)")

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def _info(self, stepped: bool) -> dict:
        state = self._state
        info = {"action_mask": self._out(state.masks), "seat": self._out(state.seats)}
        if stepped and state.terminated.any():
            info["outcome"], info["_outcome"] = state.outcomes.copy(), state.terminated.copy()
            info["illegal"], info["_illegal"] = state.illegal.copy(), state.terminated.copy()
        return info


def _opponents_lineup(opponents: str | Strategy, config: RunConfig) -> Lineup:
    """The seats' strategies: every seat plays ``opponents`` (the learner's own seats are
    decided outside)."""
    if isinstance(opponents, Strategy):
        spec = parse_spec(opponents.name, {opponents.name: opponents})
        return seat_tables((spec,) * config.players, config.players)
    return lineup(config)


class BriscolaEnv(gymnasium.Env):
    """One deal at a time for one learning seat: ``BriscolaVectorEnv``'s single form,
    stepped without its vector bookkeeping.

    >>> env = BriscolaEnv(players=2, opponents="greedy", seat=0)
    >>> obs, info = env.reset(seed=3)
    >>> card = int(np.flatnonzero(info["action_mask"])[0])
    >>> obs, reward, terminated, truncated, info = env.step(card)
    >>> obs.shape, terminated
    ((209,), False)
    """

    metadata = {"render_modes": [], "observation": f"flat-v{FLAT_VERSION}"}

    def __init__(self, **options):
        self._vector = BriscolaVectorEnv(num_envs=1, **options)
        self.metadata = {**self.metadata, "observation": self._vector.metadata["observation"]}
        self.observation_space = self._vector.single_observation_space
        self.action_space = self._vector.single_action_space

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._vector.reset(seed=seed)
        return self._state.obs[0].copy(), self._info()

    def step(self, action):
        self._vector._actions[0] = int(action)
        self._vector._play()
        state = self._state
        terminated = bool(state.terminated[0])
        return state.obs[0].copy(), float(state.rewards[0]), terminated, False, self._info(terminated)

    @property
    def _state(self) -> EnvState:
        return self._vector._state

    def _info(self, ended: bool = False) -> dict:
        state = self._state
        info = {"action_mask": state.masks[0].copy(), "seat": int(state.seats[0])}
        if ended:
            info["outcome"], info["illegal"] = int(state.outcomes[0]), bool(state.illegal[0])
        return info


if ENV_ID not in gymnasium.registry:  # registered once, however often the module is imported
    gymnasium.register(ENV_ID, entry_point="sim.rl.env:BriscolaEnv", vector_entry_point="sim.rl.env:BriscolaVectorEnv")
