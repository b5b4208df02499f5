"""One deal stepped decision by decision (jitted code only): the kernels of ``sim/runtime/deal.py``.

The deal is held in a lane of ``lockstep_nb`` (the engine's own steps, so it ends as the
engine would end it). ``DealState.outside`` says which decisions are taken outside (a
person, a Python agent, a learner, a batched strategy); every other seat is played here
by its strategy. Each call moves the deal on to the next decision taken outside, or to its
end, and writes what the caller reads next: the status, every seat's side points and, at
the end, its outcome, and the awaited seat's observation and legal cards.

The caller boxes (run, lanes, state) once (kernels/bound_nb.py) and calls ``deal_bound_nb``:
one cheap call a step, whatever the run context holds.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.chiamata_nb import show_hand_nb
from kernels.engine_nb import show_turn_nb, trick_shows_nb
from kernels.env_nb import outcome_nb, side_points_nb
from kernels.lockstep_nb import LANE_OVER, LANE_PLAY, advance_lane_nb, lane_scratch_nb, start_lane_nb
from kernels.observe_nb import card_mask_nb, encode_flat_nb

DealState = namedtuple(
    "DealState",
    [
        "outside",  # int64 (MAX_PLAYERS,): per seat, the OUTSIDE_* bits of its decisions taken outside
        "status",  # int64 (3,): the lane's phase (LANE_*), the seat awaited outside (-1: none), the deal index
        "points",  # int64 (MAX_PLAYERS,): each seat's side's points so far (at 5 players its own)
        "outcomes",  # int64 (MAX_PLAYERS,): once the deal is over, each seat's side's +1 won, 0 drawn, -1 lost
        "obs",  # float32 (flat size): the flat encoding of the awaited seat's view
        "mask",  # int8 (N_CARDS,): its legal cards, at a card to play (else all 0)
        "shown",  # VIEW_DTYPE (1,): a seat's view, written by DEAL_SHOW (not "view": Numba reads that as a method)
        "sealed_params",  # float64 (MAX_PARAMS,): the deciding seat's parameters, copied for a plug-in
        "offsets",  # int64: the flat encoding's layout (strategies/observation.py)
    ],
)
STATUS_PHASE, STATUS_SEAT, STATUS_DEAL = 0, 1, 2
DEAL_START, DEAL_PLAY, DEAL_SHOW = 0, 1, 2  # what ``deal_bound_nb`` does with its value


@njit(cache=True)
def deal_bound_nb(bound, what, value):
    """With (run, lanes, state) bound once: DEAL_START starts deal ``value`` of the run's
    seed (with ``run.dealt``, the deal already in ``lanes.deals[0]``); DEAL_PLAY takes the
    awaited decision ``value``; DEAL_SHOW writes seat ``value``'s view into ``state.shown``."""
    run, lanes, state = bound.arguments
    scratch = lane_scratch_nb(lanes, 0, state.sealed_params)
    cursor, result, illegal = lanes.cursor[0], lanes.results[0], lanes.illegal[0]
    if what == DEAL_SHOW:
        _show_seat_nb(run, scratch, cursor, state.shown, value)
        return
    if what == DEAL_START:
        start_lane_nb(run, scratch, cursor, result, illegal, value)
        value = -1
    advance_lane_nb(run, state.outside, scratch, cursor, result, illegal, value)
    _publish_nb(scratch, cursor, result, state)


@njit(cache=True, inline="always")
def _publish_nb(scratch, cursor, result, state):
    """What the caller reads after a step."""
    seat, players = cursor.seat, scratch.views[0].players
    state.status[STATUS_PHASE], state.status[STATUS_SEAT], state.status[STATUS_DEAL] = cursor.phase, seat, cursor.deal
    for other in range(players):
        state.points[other] = side_points_nb(scratch.work[0].points, other, players)
        state.outcomes[other] = outcome_nb(result, other, players) if cursor.phase == LANE_OVER else 0
    if seat >= 0:
        shown = scratch.views[1]  # the awaited seat's sealed view
        encode_flat_nb(shown, state.offsets, state.obs)
        if cursor.phase == LANE_PLAY:
            card_mask_nb(shown, state.mask)
        else:
            state.mask[:] = 0


@njit(cache=True, inline="always")
def _show_seat_nb(run, scratch, cursor, shown, seat):
    """``seat``'s view now into ``shown[0]``, as it would see it were its decision awaited:
    the engine's view copied (as bytes, as ``seal_view_nb`` copies it), then the seat's own
    private part written over the last decider's (at a trick as ``show_turn_nb`` shows it,
    at the auction its hand)."""
    raw, into = scratch.views.view(np.uint8), shown.view(np.uint8)
    for k in range(into.shape[0]):
        into[k] = raw[k]  # views[0] is the first half
    out, work = shown[0], scratch.work[0]
    if cursor.phase == LANE_PLAY or cursor.phase >= LANE_OVER:
        partners_visible, signalled = trick_shows_nb(scratch.deal[0], run.rules, out.trick)
        show_turn_nb(out, work, seat, partners_visible, signalled)
    else:
        show_hand_nb(out, seat, work)
