"""Lock-step play (jitted code only): many deals held in the middle of play, each one
advanced by the kernels until its next decision belongs to a seat decided outside them
(a batched Python strategy, or a learner in the environment), then resumed with that
decision.

Each deal in flight has a *lane*: its own engine view, work arrays, deal, record and
random streams (``Lanes``), and a cursor (LANE_DTYPE) saying what it waits for. The
trick, the seat to play and the auction's turn are read off the view itself, so a lane
holds no state the engine does not: it plays through the engine's own steps
(``begin_trick_nb``, ``play_card_nb``, ``end_trick_nb``, ``take_bid_nb``, ...) and a
deal played here ends exactly as ``play_deal_nb`` would end it.

A decision made outside gets the seat's sealed view (``views[lane, 1]``: what it writes
there nobody sees) and a random key, the next 64 bits of the seat's own stream: keyed by
(seed, deal, seat stream, decision), so it does not depend on which deals share a batch,
on threads or on workers.
"""

from collections import namedtuple

import numpy as np
from numba import njit, prange

from kernels.bound_nb import bind_nb
from kernels.chiamata_nb import (
    AUCTION_DONE,
    AUCTION_GOING,
    AUCTION_THROWN_IN,
    next_bidder_nb,
    score_chiamata_nb,
    score_thrown_in_nb,
    show_caller_nb,
    show_hand_nb,
    take_bid_nb,
    take_call_nb,
)
from kernels.contexts_nb import BlockScratch
from kernels.dispatch_nb import bid_nb, call_nb, choose_card_nb, seal_view_nb, shown_to_nb
from kernels.engine_nb import (
    begin_trick_nb,
    clear_record_nb,
    end_trick_nb,
    play_card_nb,
    report_illegal_nb,
    score_nb,
    show_turn_nb,
    start_view_nb,
    trick_shows_nb,
)
from kernels.enums import (
    CHIAMATA_PLAYERS,
    DEAL_DTYPE,
    FIRST_LEAD_CALLER,
    ILLEGAL_DTYPE,
    MAX_PLAYERS,
    N_STREAMS,
    NO_SEAT,
    PLAY_DTYPE,
    RESULT_DTYPE,
    RULE_FIRST_LEAD,
    VIEW_DTYPE,
    WORK_DTYPE,
    record_dtype,
)
from kernels.rng_nb import next_u64_nb, start_streams_nb
from kernels.rules_nb import deal_nb, seat_after_nb

# What a lane waits for, and the bit of each decision in a seat's ``outside`` mask.
LANE_PLAY, LANE_BID, LANE_CALL, LANE_OVER, LANE_STOPPED = 0, 1, 2, 3, 4
OUTSIDE_PLAY, OUTSIDE_BID, OUTSIDE_CALL = 1, 2, 4

LANE_DTYPE = record_dtype(
    [
        ("deal", np.int64),  # the deal index the lane plays
        ("phase", np.int8),  # LANE_*: the decision it is at, or over (LANE_STOPPED: illegal)
        ("seat", np.int8),  # the seat whose decision is awaited from outside, else -1
        ("turn", np.int8),  # the auction: the seat to bid next
        ("key", np.uint64),  # the awaited decision's random key
        ("banked", np.int16),  # the environment: the learning side's points already rewarded
    ]
)

Lanes = namedtuple(
    "Lanes",
    [
        "views",  # VIEW_DTYPE (n, 2): the engine's view, and the sealed copy shown outside
        "work",  # WORK_DTYPE (n,)
        "deals",  # DEAL_DTYPE (n,)
        "records",  # PLAY_DTYPE (n,): every move
        "states",  # uint64 (n, N_STREAMS): the random streams
        "cursor",  # LANE_DTYPE (n,)
        "results",  # RESULT_DTYPE (n,): ``deal`` is written once the deal is over
        "illegal",  # ILLEGAL_DTYPE (n,): the first illegal decision, if any
    ],
)


# The action of a lane just started (none awaited). An int64, not a literal -1: a
# literal argument would compile a second copy of advance_lane_nb (14 s cold).
NO_ACTION = np.int64(-1)


@njit(cache=True)
def new_lanes_nb(n):
    lanes = Lanes(
        np.empty((n, 2), dtype=VIEW_DTYPE),
        np.empty(n, dtype=WORK_DTYPE),
        np.empty(n, dtype=DEAL_DTYPE),
        np.empty(n, dtype=PLAY_DTYPE),
        np.empty((n, N_STREAMS), dtype=np.uint64),
        np.empty(n, dtype=LANE_DTYPE),
        np.empty(n, dtype=RESULT_DTYPE),
        np.empty(n, dtype=ILLEGAL_DTYPE),
    )
    for i in range(n):
        lanes.cursor[i].phase = LANE_OVER
    return lanes


@njit(cache=True, inline="always")
def lane_scratch_nb(lanes, i, sealed_params):
    """Lane ``i``'s arrays as the engine's steps take them (a BlockScratch of one deal)."""
    return BlockScratch(lanes.states[i], lanes.views[i], sealed_params, lanes.work[i : i + 1],
                        lanes.deals[i : i + 1], lanes.records[i : i + 1])  # fmt: skip


@njit(cache=True, _nrt=False)
def start_lane_nb(run, scratch, cursor, result, illegal, deal_index):
    """Deals deal ``deal_index`` into the lane (``run.dealt``: it is already there) and
    puts it on the table, at its first decision. Called, not inlined: it runs once per
    deal, and inlined it cost the environment's kernel 19 s of its cold compile."""
    deal, record, view, work = scratch.deal[0], scratch.record[0], scratch.views[0], scratch.work[0]
    n_seats = run.players if run.players > 0 else MAX_PLAYERS
    start_streams_nb(scratch.states, run.seed_key, deal_index, run.seat_streams, n_seats)
    if not run.dealt:
        deal_nb(run.players, run.rules, scratch.states, deal)
    clear_record_nb(record)
    result.deal = -1
    result.briscola = deal.briscola
    illegal.play = -1
    start_view_nb(view, deal, work, run.rules)
    cursor.deal = deal_index
    cursor.seat = NO_SEAT
    cursor.banked = 0
    if deal.players == CHIAMATA_PLAYERS:
        cursor.phase = LANE_BID
        cursor.turn = next_bidder_nb(view, 0)
    else:
        _start_tricks_nb(deal, view, work, cursor, 0)


@njit(cache=True, inline="always")
def _start_tricks_nb(deal, view, work, cursor, leader):
    cursor.phase = LANE_PLAY
    begin_trick_nb(deal, view, work, 0, leader)


@njit(cache=True, _nrt=False)
def advance_lane_nb(run, outside, scratch, cursor, result, illegal, action):
    """Plays the lane on: first the decision it awaits (``action``), then every decision
    the kernels make themselves, until a seat decided outside is to decide (its view
    sealed, its key drawn), the deal is over (``result`` written) or a stop is asked.
    ``outside[seat]``: the OUTSIDE_* bits of the decisions taken outside the kernels."""
    if cursor.seat != NO_SEAT:
        seat = cursor.seat
        cursor.seat = NO_SEAT
        _take_nb(run, scratch, cursor, result, illegal, seat, action)
    while cursor.phase < LANE_OVER:
        if run.stop[0] != 0:
            return
        seat = _show_decider_nb(run, scratch, cursor)
        if outside[seat] & (1 << cursor.phase):
            seal_view_nb(scratch.views)
            cursor.key = next_u64_nb(scratch.states, 1 + seat)
            cursor.seat = seat
            return
        strategy, shown, shown_params, rng = shown_to_nb(run, scratch, seat)
        if cursor.phase == LANE_PLAY:
            decision = choose_card_nb(strategy, shown, shown_params, rng, run)
        elif cursor.phase == LANE_BID:
            decision = bid_nb(strategy, shown, shown_params, rng, run)
        else:
            decision = call_nb(strategy, shown, shown_params, rng, run)
        _take_nb(run, scratch, cursor, result, illegal, seat, decision)


@njit(cache=True, inline="always")
def _show_decider_nb(run, scratch, cursor):
    """The seat to decide now, shown its view."""
    view, work, deal = scratch.views[0], scratch.work[0], scratch.deal[0]
    if cursor.phase == LANE_PLAY:
        seat = seat_after_nb(view.leader, view.n_table, view.players)
        partners_visible, signalled = trick_shows_nb(deal, run.rules, view.trick)
        show_turn_nb(view, work, seat, partners_visible, signalled)
        return seat
    if cursor.phase == LANE_BID:
        show_hand_nb(view, cursor.turn, work)
        return cursor.turn
    show_hand_nb(view, view.caller, work)
    return view.caller


@njit(cache=True, inline="always")
def _take_nb(run, scratch, cursor, result, illegal, seat, decision):
    """``seat``'s decision, checked and played; the lane moves on to the next decision."""
    view, work, deal, record = scratch.views[0], scratch.work[0], scratch.deal[0], scratch.record[0]
    players = view.players
    if cursor.phase == LANE_PLAY:
        play = view.trick * players + view.n_table
        if not play_card_nb(view, work, record, play, seat, decision):
            report_illegal_nb(illegal, play, seat, decision, work.hands[seat])
            cursor.phase = LANE_STOPPED
            return
        if view.n_table < players:
            return
        trick, leader = view.trick, view.leader
        winner = end_trick_nb(view, work, record, trick, leader)
        if trick + 1 < (deal.hand_size * players + deal.n_stock) // players:
            begin_trick_nb(deal, view, work, trick + 1, winner)
            return
        if players == CHIAMATA_PLAYERS:
            score_chiamata_nb(view, work, run.rules, result)
        else:
            score_nb(work.points, players, result)
        _finish_nb(cursor, result)
    elif cursor.phase == LANE_BID:
        status = take_bid_nb(view, work, record, illegal, seat, decision)
        if status == AUCTION_GOING:
            cursor.turn = next_bidder_nb(view, seat_after_nb(seat, 1, CHIAMATA_PLAYERS))
            if cursor.turn == NO_SEAT:
                cursor.phase = LANE_CALL
                show_caller_nb(view, work)
        elif status == AUCTION_THROWN_IN:
            score_thrown_in_nb(result)
            _finish_nb(cursor, result)
        else:
            cursor.phase = LANE_STOPPED
    else:
        if take_call_nb(view, work, illegal, decision) != AUCTION_DONE:
            cursor.phase = LANE_STOPPED
            return
        leader = view.caller if run.rules[RULE_FIRST_LEAD] == FIRST_LEAD_CALLER else 0
        _start_tricks_nb(deal, view, work, cursor, leader)


@njit(cache=True, inline="always")
def _finish_nb(cursor, result):
    cursor.phase = LANE_OVER
    result.deal = cursor.deal


LANES_PER_BLOCK = 64  # lanes one thread advances in a row


@njit(cache=True, parallel=True)
def start_lanes_nb(run, outside, lanes, which, deal_indices):
    """Starts deal ``deal_indices[j]`` in lane ``which[j]``, and plays it to its first
    decision taken outside (or its end)."""
    _over_blocks_nb(run, outside, lanes, which, deal_indices, True)


@njit(cache=True, parallel=True)
def advance_lanes_nb(run, outside, lanes, which, actions):
    """Resumes lane ``which[j]`` with the decision ``actions[j]`` it awaited, and plays it
    to its next decision taken outside (or its end)."""
    _over_blocks_nb(run, outside, lanes, which, actions, False)


@njit(cache=True, inline="always")
def _over_blocks_nb(run, outside, lanes, which, values, starting):
    """Spreads the lanes over the threads in blocks. The context goes into the loop boxed,
    as in ``simulate_nb``; the lanes' records are only taken inside ``_block_nb``: a
    record made in a parallel loop's body is passed on by value."""
    held = bind_nb(run)
    n_blocks = (which.shape[0] + LANES_PER_BLOCK - 1) // LANES_PER_BLOCK
    for block in prange(n_blocks):
        block_run = held.arguments
        start = block * LANES_PER_BLOCK
        end = min(which.shape[0], start + LANES_PER_BLOCK)
        sealed_params = np.empty(block_run.params.shape[1], dtype=np.float64)
        if starting:
            _start_block_nb(block_run, outside, lanes, which, values, start, end, sealed_params)
        else:
            _advance_block_nb(block_run, outside, lanes, which, values, start, end, sealed_params)


@njit(cache=True, _nrt=False)
def _start_block_nb(run, outside, lanes, which, deal_indices, start, end, sealed_params):
    for j in range(start, end):
        i = which[j]
        scratch = lane_scratch_nb(lanes, i, sealed_params)
        cursor, result, illegal = lanes.cursor[i], lanes.results[i], lanes.illegal[i]
        start_lane_nb(run, scratch, cursor, result, illegal, deal_indices[j])
        advance_lane_nb(run, outside, scratch, cursor, result, illegal, NO_ACTION)


@njit(cache=True, _nrt=False)
def _advance_block_nb(run, outside, lanes, which, actions, start, end, sealed_params):
    for j in range(start, end):
        i = which[j]
        scratch = lane_scratch_nb(lanes, i, sealed_params)
        advance_lane_nb(run, outside, scratch, lanes.cursor[i], lanes.results[i], lanes.illegal[i], actions[j])
