"""The training environment's step (jitted code only): every lane of a batch moved on by
one decision of its learning seat, opponents and partners played inside the kernels
(``lockstep_nb``), and the learner's next observation, legal mask and reward written.

Each lane plays episodes one after another: episode e of lane i is deal
``i + e * n_lanes`` of the run's seed, so the same seed gives the same episodes however
many threads step them. A lane whose episode ended is started again at the next step
(Gymnasium's next-step autoreset): that step ignores its action and gives reward 0.
"""

from collections import namedtuple

import numpy as np
from numba import njit, prange

from kernels.contexts_nb import PluginData, Plugins, RunContext
from kernels.enums import CHIAMATA_PLAYERS, MAX_PLAYERS, TOTAL_POINTS
from kernels.lockstep_nb import (
    LANE_OVER,
    LANE_STOPPED,
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
        "outside",  # int64 (n, MAX_PLAYERS): each lane's learning seats (OUTSIDE_PLAY)
        "seats",  # int64 (n,): each lane's learning seat this episode
        "episodes",  # int64 (n,): episodes each lane has started
        "restart",  # bool (n,): the lane's episode is over: it starts anew at the next step
        "obs",  # float32 (n, flat size): the learner's observation
        "masks",  # bool (n, 40): its legal cards
        "rewards",  # float64 (n,)
        "terminated",  # bool (n,)
        "outcomes",  # int8 (n,): at an episode's end, +1 won, 0 drawn, -1 lost (or an illegal card)
        "illegal",  # bool (n,): the episode ended on an illegal card
        "offsets",  # int64: the flat encoding's layout (strategies/observation.py)
        "settings",  # float64: SETTING_* below
    ],
)
# settings[...]: the reward's weights, and who learns
SETTING_POINTS, SETTING_OUTCOME, SETTING_ILLEGAL, SETTING_SEAT, SETTING_TEAM = 0, 1, 2, 3, 4
ROTATE = -1  # settings[SETTING_SEAT]: the learning seat moves round the table, an episode at a time


@njit(cache=True, parallel=True)
def env_step_nb(run, lanes, env, actions):
    """One step of every lane (a lane whose ``env.restart`` is set starts its next episode).

    The prange body only calls: Numba (0.68) drops a write into a namedtuple's array made
    in the body itself (a reset flag set there was never seen), so every write is made in
    the functions it calls, or by the caller before."""
    (
        seed_key,
        first_deal,
        deal_step,
        players,
        dealt,
        rules,
        strategy_ids,
        params,
        plugins,
        plugin_data,
        seat_streams,
        stop,
    ) = run
    decide, bid, call, decide_data, bid_data, call_data = plugins
    takes_data, data, data_spans = plugin_data
    n = actions.shape[0]
    n_blocks = (n + 63) // 64
    for block in prange(n_blocks):
        block_run = RunContext(seed_key, first_deal, deal_step, players, dealt, rules, strategy_ids, params,
                               Plugins(decide, bid, call, decide_data, bid_data, call_data),
                               PluginData(takes_data, data, data_spans),
                               seat_streams, stop)  # fmt: skip
        sealed_params = np.empty(params.shape[1], dtype=np.float64)
        for i in range(block * 64, min(n, block * 64 + 64)):
            _step_lane_nb(block_run, lanes, env, i, actions[i], sealed_params)


@njit(cache=True, _nrt=False)
def _step_lane_nb(run, lanes, env, i, action, sealed_params):
    scratch = lane_scratch_nb(lanes, i, sealed_params)
    cursor, result, illegal = lanes.cursor[i], lanes.results[i], lanes.illegal[i]
    outside, seat = env.outside[i], env.seats[i]
    reward = 0.0
    env.terminated[i] = False
    env.illegal[i] = False
    if env.restart[i]:
        env.restart[i] = False
        _next_episode_nb(run, env, i, scratch, cursor, result, illegal, lanes.cursor.shape[0])
        seat = env.seats[i]
    else:
        advance_lane_nb(run, outside, scratch, cursor, result, illegal, action)
        if cursor.phase == LANE_STOPPED:
            env.illegal[i] = True
            _end_episode_nb(env, i, -1)
            reward = env.settings[SETTING_ILLEGAL]
        else:
            side_points = side_points_nb(scratch.work[0].points, seat, scratch.views[0].players)
            reward = env.settings[SETTING_POINTS] * (side_points - cursor.banked) / TOTAL_POINTS
            cursor.banked = side_points
            if cursor.phase == LANE_OVER:
                outcome = outcome_nb(result, seat, scratch.views[0].players)
                reward += env.settings[SETTING_OUTCOME] * outcome
                _end_episode_nb(env, i, outcome)
    env.rewards[i] = reward
    shown = scratch.views[1] if cursor.seat >= 0 else scratch.views[0]
    if cursor.seat < 0:  # the episode is over: the table as it ended, and an empty hand
        shown.seat, shown.n_hand = seat, 0
    encode_flat_nb(shown, env.offsets, env.obs[i])
    card_mask_nb(shown, env.masks[i])


@njit(cache=True, inline="always")
def _next_episode_nb(run, env, i, scratch, cursor, result, illegal, n_lanes):
    """Starts the lane's next episode and plays it to the learner's first card (an
    episode that ends before it, a Briscola Chiamata deal thrown in, is skipped)."""
    players = run.players
    while True:
        episode = env.episodes[i]
        env.episodes[i] = episode + 1
        fixed = np.int64(env.settings[SETTING_SEAT])
        seat = fixed if fixed != ROTATE else (i + episode) % players  # lanes start at every seat
        env.seats[i] = seat
        for other in range(MAX_PLAYERS):
            team = env.settings[SETTING_TEAM] != 0 and other < players and other % 2 == seat % 2
            env.outside[i, other] = OUTSIDE_PLAY if other == seat or team else 0
        start_lane_nb(run, scratch, cursor, result, illegal, i + episode * n_lanes)
        advance_lane_nb(run, env.outside[i], scratch, cursor, result, illegal, -1)
        if cursor.seat >= 0 or run.stop[0] != 0:
            return


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
