"""The training environments' steps (jitted code only): lanes of deals moved on by the
learners' decisions, every other seat played inside the kernels (``lockstep_nb``) or, for
a batched strategy, left waiting for its decision taken outside, and the learner's next
observation, legal mask and reward written.

Each lane of the vector environment plays episodes one after another: episode e of lane
i is deal ``i + e * n_lanes`` of the run's seed, so the same seed gives the same episodes
however many threads step them. A lane whose episode ended is started again at the next
step (Gymnasium's next-step autoreset): that step ignores its action and gives reward 0.

Called through its bound form (``env_step_bound_nb``, kernels/bound_nb.py): the run
context is unboxed once per environment, not at every step. The AEC environment steps
one deal, every seat deciding outside (``kernels/deal_nb.py``).
"""

from collections import namedtuple

import numpy as np
from numba import njit, prange

from kernels.bound_nb import bind_nb
from kernels.enums import CHIAMATA_PLAYERS, MAX_PLAYERS, PHASE_PLAY, TOTAL_POINTS
from kernels.lockstep_nb import (
    LANE_OVER,
    LANE_PLAY,
    LANE_STOPPED,
    LANES_PER_BLOCK,
    NO_ACTION,
    OUTSIDE_PLAY,
    advance_lane_nb,
    lane_scratch_nb,
    start_lane_nb,
)
from kernels.observe_nb import card_mask_nb, encode_flat_nb
from kernels.rules_nb import n_sides_nb

EnvState = namedtuple(
    "EnvState",
    [
        "outside",  # int64 (n, MAX_PLAYERS): each lane's decisions taken outside (OUTSIDE_*): its learners' cards, the batched seats'
        "learns",  # bool (n, MAX_PLAYERS): each lane's learning seats this episode
        "seats",  # int64 (n,): each lane's learning seat this episode
        "episodes",  # int64 (n,): episodes each lane has started
        "restart",  # bool (n,): the lane starts its next episode at its next step, and stays so until the learner is to play
        "waiting",  # bool (n,): the lane waits on a batched seat's decision
        "obs",  # float32 (n, flat size): the learner's observation
        "masks",  # bool (n, 40): its legal cards
        "rewards",  # float64 (n,)
        "terminated",  # bool (n,)
        "outcomes",  # int8 (n,): at an episode's end, +1 won, 0 drawn, -1 lost (or an illegal card)
        "illegal",  # bool (n,): the episode ended on the learner's illegal card
        "fouled",  # int8 (1,): set once a lane stopped on an illegal decision of a seat not learning
        "batched",  # int64 (MAX_PLAYERS,): the OUTSIDE_* bits of the seats a batched strategy plays
        "offsets",  # int64: the flat encoding's layout (strategies/observation.py)
        "settings",  # float64: SETTING_* below
    ],
)
# settings[...]: the reward's weights, and who learns
SETTING_POINTS, SETTING_OUTCOME, SETTING_ILLEGAL, SETTING_SEAT, SETTING_TEAM = 0, 1, 2, 3, 4
ROTATE = -1  # settings[SETTING_SEAT]: the learning seat moves round the table, an episode at a time


@njit(cache=True)
def env_step_bound_nb(bound, which, actions):
    """``env_step_nb`` with (run, lanes, env) bound once. A block of lanes or fewer (the
    single environment) is stepped on this thread: a parallel loop takes 2 us to start."""
    run, lanes, env = bound.arguments
    if which.shape[0] > LANES_PER_BLOCK:
        env_step_nb(run, lanes, env, which, actions)
    else:
        _step_lanes_nb(run, lanes, env, which, actions, np.int64(0), which.shape[0], np.empty(run.params.shape[1]))


@njit(cache=True, parallel=True)
def env_step_nb(run, lanes, env, which, actions):
    """Moves lane ``which[j]`` on by decision ``actions[j]``: the learner's card (a lane
    whose ``env.restart`` is set ignores it and starts its next episode), or for a lane
    ``env.waiting`` the batched seat's decision it awaits. The lane then plays on to the
    learner's next card (reward, observation and mask written), to the episode's end, or
    to a batched seat's decision (``env.waiting`` set: the caller asks for it).

    The prange body only calls: Numba (0.68) drops a write into a namedtuple's array made
    in the body itself (a reset flag set there was never seen), so every write is made in
    the functions it calls, or by the caller before. The run goes into the loop boxed, as
    in ``simulate_nb``."""
    held = bind_nb(run)
    n = which.shape[0]
    n_blocks = (n + LANES_PER_BLOCK - 1) // LANES_PER_BLOCK
    for block in prange(n_blocks):
        block_run = held.arguments
        start = block * LANES_PER_BLOCK
        end = min(n, start + LANES_PER_BLOCK)
        sealed_params = np.empty(block_run.params.shape[1], dtype=np.float64)
        _step_lanes_nb(block_run, lanes, env, which, actions, start, end, sealed_params)


@njit(cache=True, _nrt=False)
def _step_lanes_nb(run, lanes, env, which, actions, start, end, sealed_params):
    for j in range(start, end):
        _step_lane_nb(run, lanes, env, which[j], actions[j], sealed_params)


@njit(cache=True, inline="always")
def _step_lane_nb(run, lanes, env, i, action, sealed_params):
    scratch = lane_scratch_nb(lanes, i, sealed_params)
    cursor, result, illegal = lanes.cursor[i], lanes.results[i], lanes.illegal[i]
    if env.waiting[i]:
        advance_lane_nb(run, env.outside[i], scratch, cursor, result, illegal, action)
    else:
        env.terminated[i] = False
        env.illegal[i] = False
        if env.restart[i]:
            _next_episode_nb(run, env, i, scratch, cursor, result, illegal, lanes.cursor.shape[0])
        else:
            advance_lane_nb(run, env.outside[i], scratch, cursor, result, illegal, action)
    while True:
        if cursor.seat >= 0 and not (cursor.phase == LANE_PLAY and env.learns[i, cursor.seat]):
            env.waiting[i] = True
            return
        if not (env.restart[i] and cursor.phase == LANE_OVER):
            break
        # over before the learner's first card (a Briscola Chiamata deal thrown in): the next
        _next_episode_nb(run, env, i, scratch, cursor, result, illegal, lanes.cursor.shape[0])
    env.waiting[i] = False
    _show_learner_nb(env, i, scratch, cursor, result, illegal)


@njit(cache=True, inline="always")
def _next_episode_nb(run, env, i, scratch, cursor, result, illegal, n_lanes):
    """Starts the lane's next episode, its learners chosen, and plays it to the first
    decision taken outside."""
    players = run.players
    episode = env.episodes[i]
    env.episodes[i] = episode + 1
    fixed = np.int64(env.settings[SETTING_SEAT])
    seat = fixed if fixed != ROTATE else (i + episode) % players  # lanes start at every seat
    env.seats[i] = seat
    for other in range(MAX_PLAYERS):
        learns = other == seat or (env.settings[SETTING_TEAM] != 0 and other < players and other % 2 == seat % 2)
        env.learns[i, other] = learns
        env.outside[i, other] = (OUTSIDE_PLAY if learns else 0) | env.batched[other]
    start_lane_nb(run, scratch, cursor, result, illegal, i + episode * n_lanes)
    advance_lane_nb(run, env.outside[i], scratch, cursor, result, illegal, NO_ACTION)


@njit(cache=True, inline="always")
def _show_learner_nb(env, i, scratch, cursor, result, illegal):
    """The step's reward, and what the learner sees: its view and legal cards (once the
    episode is over, the table as it ended and an empty hand)."""
    seat, players = env.seats[i], scratch.views[0].players
    reward = 0.0
    stopped = cursor.phase == LANE_STOPPED
    if stopped and not (illegal.phase == PHASE_PLAY and env.learns[i, illegal.seat]):
        env.fouled[0] = 1  # another seat's illegal decision: the caller names it
        _end_episode_nb(env, i, 0)
    elif env.restart[i]:
        env.restart[i] = False
    elif stopped:
        env.illegal[i] = True
        _end_episode_nb(env, i, -1)
        reward = env.settings[SETTING_ILLEGAL]
    else:
        side_points = side_points_nb(scratch.work[0].points, seat, players)
        reward = env.settings[SETTING_POINTS] * (side_points - cursor.banked) / TOTAL_POINTS
        cursor.banked = side_points
        if cursor.phase == LANE_OVER:
            outcome = outcome_nb(result, seat, players)
            reward += env.settings[SETTING_OUTCOME] * outcome
            _end_episode_nb(env, i, outcome)
    env.rewards[i] = reward
    shown = scratch.views[1] if cursor.seat >= 0 else scratch.views[0]
    if cursor.seat < 0:
        shown.seat, shown.n_hand = seat, 0
    encode_flat_nb(shown, env.offsets, env.obs[i])
    card_mask_nb(shown, env.masks[i])


@njit(cache=True, inline="always")
def _end_episode_nb(env, i, outcome):
    env.terminated[i] = True
    env.restart[i] = True
    env.outcomes[i] = outcome


@njit(cache=True, inline="always")
def side_points_nb(points, seat, players):
    """The points of the learner's side: its team at 4 and 6 players, its own otherwise
    (at Briscola Chiamata the sides are hidden until the call is out)."""
    if players == CHIAMATA_PLAYERS:
        return points[seat]
    n_sides = n_sides_nb(players)
    total = 0
    for other in range(players):
        total += points[other] if other % n_sides == seat % n_sides else 0
    return total


@njit(cache=True, inline="always")
def outcome_nb(result, seat, players):
    """+1, 0 or -1: the learner's side won, drew or lost the deal (at Briscola Chiamata,
    by the sign of its game points)."""
    if players == CHIAMATA_PLAYERS:
        points = result.game_points[seat]
        return 1 if points > 0 else (-1 if points < 0 else 0)
    if result.winner_side < 0:
        return 0
    return 1 if result.winner_side == seat % n_sides_nb(players) else -1
