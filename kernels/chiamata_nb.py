"""Briscola Chiamata, 5 players (jitted code only): the auction, the call and the score.

The auction: from seat 0, each seat in turn passes (for good) or bids above the last bid
(a level: see BID_FACES in enums.py); it ends once every seat but the last bidder has
passed, or at the highest bid the rules allow; if all five pass, the deal is thrown in.
The last bidder, the caller, then names a card of the bid's face: its suit is trump and
its holder the caller's partner, the caller itself when the card is in its own hand.

Bids and calls are decisions like cards: each seat's strategy makes them from its view
(plug-ins from a sealed copy), with its own random stream, checked by the engine.
"""

from numba import njit

from kernels.dispatch_nb import bid_nb, call_nb, shown_to_nb
from kernels.enums import (
    AUCTION_RANKS,
    BID_MULTIPLIER_ON,
    CARD_FACE,
    CARD_SUIT,
    CHIAMATA_HAND,
    CHIAMATA_PLAYERS,
    LAST_RANK_BID,
    MAX_BID,
    MAX_PLAYERS,
    N_CARDS,
    NO_CARD,
    NO_SEAT,
    PASS,
    PHASE_BID,
    PHASE_CALL,
    RULE_AUCTION,
    RULE_BID_MULTIPLIER,
)
from kernels.inlined_strategies_nb import suit_value_nb
from kernels.rules_nb import bid_face_nb, bid_target_nb, seat_after_nb

AUCTION_DONE, AUCTION_THROWN_IN, AUCTION_STOPPED, AUCTION_ILLEGAL = 0, 1, 2, 3


@njit(cache=True, inline="always")
def open_auction_nb(view, rules, players):
    """The auction's part of a fresh view: nothing bid, nobody passed, no call yet."""
    view.bid, view.bidder = PASS, NO_SEAT
    view.caller, view.called, view.target, view.partner = NO_SEAT, NO_CARD, -1, NO_SEAT
    view.max_bid = -1
    if players == CHIAMATA_PLAYERS:
        view.max_bid = LAST_RANK_BID if rules[RULE_AUCTION] == AUCTION_RANKS else MAX_BID
    for seat in range(MAX_PLAYERS):
        view.seat_bids[seat] = PASS
        view.passed[seat] = 0


AUCTION_GOING = 4  # take_bid_nb: the auction goes on


@njit(cache=True, inline="always")
def run_auction_nb(run, scratch, record, illegal):
    """Asks each seat in turn for a bid until the auction ends; writes every action into
    ``record``. Returns AUCTION_DONE (``views[0].bidder`` is the caller), AUCTION_THROWN_IN,
    AUCTION_STOPPED or AUCTION_ILLEGAL (``illegal`` is written)."""
    view, work = scratch.views[0], scratch.work[0]
    record.n_auction = 0  # an untraced run's record is reused, not cleared, from deal to deal
    seat = next_bidder_nb(view, 0)
    while seat != NO_SEAT:
        if run.stop[0] != 0:
            return AUCTION_STOPPED
        show_hand_nb(view, seat, work)
        bid = _decide_nb(PHASE_BID, seat, run, scratch)
        status = take_bid_nb(view, work, record, illegal, seat, bid)
        if status != AUCTION_GOING:
            return status
        seat = next_bidder_nb(view, seat_after_nb(seat, 1, CHIAMATA_PLAYERS))
    return AUCTION_DONE


@njit(cache=True, inline="always")
def next_bidder_nb(view, seat):
    """The seat to bid next, from ``seat`` on: the first that has not passed; NO_SEAT once
    the auction is over (the last bidder's turn comes round again, or the top bid is made)."""
    for _ in range(CHIAMATA_PLAYERS):
        if seat == view.bidder or view.bid >= view.max_bid:
            return NO_SEAT
        if view.passed[seat] == 0:
            return seat
        seat = seat_after_nb(seat, 1, CHIAMATA_PLAYERS)
    return NO_SEAT


@njit(cache=True, inline="always")
def take_bid_nb(view, work, record, illegal, seat, bid):
    """``seat`` bids ``bid`` (or passes): checked, recorded, shown. Returns AUCTION_GOING,
    AUCTION_THROWN_IN (the fifth pass) or AUCTION_ILLEGAL (``illegal`` is written)."""
    n_actions = record.n_auction
    if bid != PASS and not view.bid < bid <= view.max_bid:
        _report_nb(illegal, n_actions, PHASE_BID, seat, bid, work)
        return AUCTION_ILLEGAL
    record.auction_seats[n_actions] = seat
    record.auction_bids[n_actions] = bid
    record.n_auction = n_actions + 1
    if bid == PASS:
        view.passed[seat] = 1
        passed = 0
        for other in range(CHIAMATA_PLAYERS):
            passed += view.passed[other]
        if passed == CHIAMATA_PLAYERS:
            return AUCTION_THROWN_IN
    else:
        view.bid, view.bidder, view.seat_bids[seat] = bid, seat, bid
    return AUCTION_GOING


@njit(cache=True, inline="always")
def make_call_nb(run, scratch, illegal):
    """The caller names its card: trump, target and partner follow. Returns AUCTION_DONE,
    AUCTION_STOPPED or AUCTION_ILLEGAL (a card not of the bid's face)."""
    view, work = scratch.views[0], scratch.work[0]
    if run.stop[0] != 0:
        return AUCTION_STOPPED
    show_caller_nb(view, work)
    card = _decide_nb(PHASE_CALL, view.caller, run, scratch)
    return take_call_nb(view, work, illegal, card)


@njit(cache=True, inline="always")
def show_caller_nb(view, work):
    """The auction's winner becomes the caller, and is shown its hand to call from."""
    view.caller = view.bidder
    show_hand_nb(view, view.caller, work)


@njit(cache=True, inline="always")
def take_call_nb(view, work, illegal, card):
    """The caller calls ``card``: checked; trump, target and partner follow. Returns
    AUCTION_DONE or AUCTION_ILLEGAL."""
    if not (0 <= card < N_CARDS and CARD_FACE[card] == bid_face_nb(view.bid)):
        _report_nb(illegal, 0, PHASE_CALL, view.caller, card, work)
        return AUCTION_ILLEGAL
    view.called = card
    view.trump_suit = CARD_SUIT[card]
    view.target = bid_target_nb(view.bid)
    work.partner = _holder_nb(work, card)
    work.revealed = False
    work.caller_strength = suit_value_nb(view, view.trump_suit)  # the view shows the caller's hand
    return AUCTION_DONE


@njit(cache=True, inline="always")
def _decide_nb(phase, seat, run, scratch):
    """``seat``'s bid or call (``phase``), from a sealed view for a plug-in."""
    strategy, view, seat_params, rng = shown_to_nb(run, scratch, seat)
    if phase == PHASE_BID:
        return bid_nb(strategy, view, seat_params, rng, run)
    return call_nb(strategy, view, seat_params, rng, run)


@njit(cache=True, inline="always")
def show_hand_nb(view, seat, work):
    """The private part of the view for ``seat``: its hand, and its partner if it knows."""
    view.seat = seat
    view.n_hand = work.n_hand[seat]
    for k in range(view.hand.shape[0]):
        view.hand[k] = work.hands[seat, k]
    show_partner_nb(view, seat, work)


@njit(cache=True, inline="always")
def show_partner_nb(view, seat, work):
    """The partner, once the called card is out, or to the partner itself (the caller
    playing alone is its own partner)."""
    known = work.partner >= 0 and (work.revealed or seat == work.partner)
    view.partner = work.partner if known else NO_SEAT


@njit(cache=True, inline="always")
def _holder_nb(work, card):
    for seat in range(CHIAMATA_PLAYERS):
        for k in range(work.n_hand[seat]):
            if work.hands[seat, k] == card:
                return seat
    return NO_SEAT


@njit(cache=True, inline="always")
def _report_nb(illegal, index, phase, seat, value, work):
    illegal.play = index
    illegal.phase = phase
    illegal.seat = seat
    illegal.card = value
    for k in range(illegal.hand.shape[0]):
        illegal.hand[k] = work.hands[seat, k]


@njit(cache=True, inline="always")
def score_chiamata_nb(view, work, rules, result):
    """The deal's result: side 0 the caller's (caller and partner), side 1 the defenders';
    game points +2 caller, +1 partner, -1 each defender when the caller's side takes its
    target (the reverse when not; alone, the caller takes 4 against 4 times -1), doubled
    for a cappotto, multiplied by the bid under bid_multiplier=on."""
    caller, partner = view.caller, work.partner
    side_points = work.points[caller] + (work.points[partner] if partner != caller else 0)
    tricks = 0
    for trick in range(CHIAMATA_HAND):  # a trick per card of a hand
        winner = view.trick_winners[trick]
        tricks += winner == caller or winner == partner
    made = side_points >= view.target
    cappotto = tricks == 0 or tricks == CHIAMATA_HAND
    unit = (1 if made else -1) * (2 if cappotto else 1) * bid_multiplier_nb(rules, view.target)
    for seat in range(MAX_PLAYERS):
        result.seat_points[seat] = work.points[seat] if seat < CHIAMATA_PLAYERS else -1
        result.game_points[seat] = -unit if seat < CHIAMATA_PLAYERS else 0
    if partner == caller:
        result.game_points[caller] = 4 * unit
    else:
        result.game_points[caller] = 2 * unit
        result.game_points[partner] = unit
    result.side_points[0] = side_points
    result.side_points[1] = 120 - side_points
    result.side_points[2] = -1
    result.winner_side = 0 if made else 1
    result.bid, result.caller, result.called, result.partner = view.bid, caller, view.called, partner
    result.target, result.made, result.cappotto = view.target, made, cappotto
    result.caller_strength = work.caller_strength


@njit(cache=True, inline="always")
def score_thrown_in_nb(result):
    """Everyone passed: nobody plays, nobody scores; caller, bid and made read -1."""
    for seat in range(MAX_PLAYERS):
        result.seat_points[seat] = 0 if seat < CHIAMATA_PLAYERS else -1
        result.game_points[seat] = 0
    for side in range(3):
        result.side_points[side] = -1
    result.winner_side = -1
    result.bid, result.caller, result.called, result.partner = PASS, NO_SEAT, NO_CARD, NO_SEAT
    result.target, result.made, result.cappotto = -1, -1, 0
    result.caller_strength = -1


@njit(cache=True, inline="always")
def bid_multiplier_nb(rules, target):
    """bid_multiplier=on: a target of 71+, 81+, 91+, 101+ multiplies by 2, 3, 4, 5."""
    if rules[RULE_BID_MULTIPLIER] != BID_MULTIPLIER_ON or target < 71:
        return 1
    return min(5, (target - 61) // 10 + 1)
