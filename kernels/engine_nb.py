"""The engine (jitted code only): plays deals with a strategy per seat, many at a time,
on every core.

One deal's life: ``deal_nb`` shuffles and deals it into a DEAL_DTYPE record, then
``play_deal_nb`` plays it trick by trick, asking each seat's strategy for a card through
``choose_card_nb``, and writes a RESULT_DTYPE row. Strategies see the deal only through a
VIEW_DTYPE record holding what their player may see.
"""

import numpy as np
from numba import njit, prange

from kernels.enums import (
    CARD_SUIT,
    DEAL_DTYPE,
    HAND_SIZE,
    MAX_PLAYERS,
    N_STREAMS,
    NO_CARD,
    PARTNER_VIEW_LAST3,
    PLAY_DTYPE,
    RULE_PARTNER_VIEW,
    VIEW_DTYPE,
)
from kernels.rng_nb import seed_key_nb, start_streams_nb
from kernels.rules_nb import (
    deal_nb,
    n_sides_nb,
    trick_points_nb,
    winner_side_nb,
    winning_position_nb,
)
from strategies.dispatch_nb import choose_card_nb

DEALS_PER_BLOCK = 256  # deals one thread plays with one set of work arrays


@njit(cache=True)
def start_view_nb(view, deal, hands, n_hand):
    """Puts a freshly dealt deal on the table: live hands and the public part of the view."""
    players = deal.players
    for seat in range(MAX_PLAYERS):
        n_hand[seat] = HAND_SIZE if seat < players else 0
        view.points[seat] = 0
        for k in range(HAND_SIZE):
            hands[seat, k] = deal.hands[seat, k]
            view.partner_hands[seat, k] = NO_CARD
    view.players = players
    view.trump_suit = CARD_SUIT[deal.briscola]
    view.briscola = deal.briscola
    view.removed_two = deal.removed[0] if players == 3 else NO_CARD
    view.stock_size = deal.n_stock
    view.trick = 0
    view.leader = 0
    view.n_table = 0
    view.table[:] = NO_CARD
    view.played_by[:] = NO_CARD


@njit(cache=True, inline="always")
def show_seat_nb(view, seat, hands, n_hand, partners_visible):
    """Fills in the private part of the view for ``seat``."""
    view.seat = seat
    view.n_hand = n_hand[seat]
    for k in range(HAND_SIZE):
        view.hand[k] = hands[seat, k]
    if partners_visible:
        for other in range(view.players):
            shown = other != seat and other % 2 == seat % 2
            for k in range(HAND_SIZE):
                view.partner_hands[other, k] = hands[other, k] if shown else NO_CARD


@njit(cache=True, inline="always")
def take_from_hand_nb(hands, n_hand, seat, card):
    """Removes ``card`` from the seat's hand (later cards move up); False if not there."""
    n = n_hand[seat]
    for slot in range(n):
        if hands[seat, slot] == card:
            for k in range(slot, n - 1):
                hands[seat, k] = hands[seat, k + 1]
            hands[seat, n - 1] = NO_CARD
            n_hand[seat] = n - 1
            return True
    return False


@njit(cache=True)
def play_deal_nb(deal, strategy_ids, params, rules, states, work_view, hands, n_hand, result, record, illegal):
    """Plays one dealt deal to the end and writes how it ended into ``result``.

    ``record`` (PLAY_DTYPE) receives every card and trick winner. A decision that is not
    a card in hand stops the deal and is written into ``illegal``; returns False then.
    """
    view = work_view[0]
    start_view_nb(view, deal, hands, n_hand)
    players = deal.players
    trump = view.trump_suit
    team_game = players >= 4
    partner_view = rules[RULE_PARTNER_VIEW] == PARTNER_VIEW_LAST3
    n_tricks = (HAND_SIZE * players + deal.n_stock) // players
    drawn = 0
    leader = 0
    for trick in range(n_tricks):
        view.trick = trick
        view.leader = leader
        partners_visible = team_game and partner_view and view.stock_size == 0
        for k in range(players):
            seat = leader + k
            if seat >= players:
                seat -= players
            show_seat_nb(view, seat, hands, n_hand, partners_visible)
            card = choose_card_nb(strategy_ids[seat], view, params[seat], states, 1 + seat)
            if not take_from_hand_nb(hands, n_hand, seat, card):
                _report_illegal_nb(illegal, trick * players + k, seat, card, view.hand)
                return False
            view.table[k] = card
            view.n_table = k + 1
            view.played_by[card] = seat
            record.plays[trick * players + k] = card
        winner = leader + winning_position_nb(view.table, players, trump)
        if winner >= players:
            winner -= players
        view.points[winner] += trick_points_nb(view.table, players)
        record.trick_winners[trick] = winner
        view.table[:] = NO_CARD
        view.n_table = 0
        if drawn < deal.n_stock:
            for k in range(players):  # the winner draws first, then the others in order
                seat = winner + k
                if seat >= players:
                    seat -= players
                hands[seat, n_hand[seat]] = deal.stock[drawn]
                n_hand[seat] += 1
                drawn += 1
            view.stock_size = deal.n_stock - drawn
            if view.stock_size == 0:
                view.briscola = NO_CARD
        leader = winner
    _score_nb(view, players, result)
    return True


@njit(cache=True)
def _report_illegal_nb(illegal, play, seat, card, hand):
    illegal.play = play
    illegal.seat = seat
    illegal.card = card
    for k in range(HAND_SIZE):
        illegal.hand[k] = hand[k]


@njit(cache=True)
def _score_nb(view, players, result):
    n_sides = n_sides_nb(players)
    result.side_points[:] = -1
    result.seat_points[:] = -1
    for side in range(n_sides):
        result.side_points[side] = 0
    for seat in range(players):
        result.seat_points[seat] = view.points[seat]
        result.side_points[seat % n_sides] += view.points[seat]
    result.winner_side = winner_side_nb(result.side_points, n_sides)


@njit(cache=True)
def _clear_record_nb(record):
    record.plays[:] = NO_CARD
    record.trick_winners[:] = NO_CARD


@njit(cache=True, parallel=True)
def simulate_nb(seed, first_deal, players, rules, strategy_ids, params, results, illegal, deals, records):
    """Deals and plays deals ``first_deal .. first_deal + len(results) - 1``.

    ``deals`` and ``records`` are either empty or as long as ``results``: then they
    receive every deal's cards and moves (a trace). ``illegal[i].play`` stays -1 unless
    deal i met an illegal decision. Every deal's randomness comes from (seed, deal
    index) alone, so the results do not depend on the number of threads.
    """
    n_deals = results.shape[0]
    traced = deals.shape[0] > 0
    seed_key = seed_key_nb(seed)
    n_blocks = (n_deals + DEALS_PER_BLOCK - 1) // DEALS_PER_BLOCK
    for block in prange(n_blocks):
        states = np.empty(N_STREAMS, dtype=np.uint64)
        view = np.empty(1, dtype=VIEW_DTYPE)
        hands = np.empty((MAX_PLAYERS, HAND_SIZE), dtype=np.int8)
        n_hand = np.empty(MAX_PLAYERS, dtype=np.int8)
        scratch_deal = np.empty(1, dtype=DEAL_DTYPE)
        scratch_record = np.empty(1, dtype=PLAY_DTYPE)
        stop = min(n_deals, (block + 1) * DEALS_PER_BLOCK)
        for i in range(block * DEALS_PER_BLOCK, stop):
            deal = deals[i] if traced else scratch_deal[0]
            record = records[i] if traced else scratch_record[0]
            if traced:
                _clear_record_nb(record)
            start_streams_nb(states, seed_key, first_deal + i)
            deal_nb(players, rules, states, deal)
            results[i].deal = first_deal + i
            results[i].briscola = deal.briscola
            illegal[i].play = -1
            play_deal_nb(deal, strategy_ids, params, rules, states, view, hands, n_hand, results[i], record, illegal[i])


@njit(cache=True, parallel=True)
def replay_nb(seed, first_deal, rules, strategy_ids, params, deals, results, illegal, records):
    """Plays the given ``deals`` (DEAL_DTYPE) instead of dealing them, and records every
    move into ``records``. Deal i gets the strategies' random streams of deal index
    ``first_deal + i``. Used to audit deals and to play the same cards twice.
    """
    n_deals = results.shape[0]
    seed_key = seed_key_nb(seed)
    n_blocks = (n_deals + DEALS_PER_BLOCK - 1) // DEALS_PER_BLOCK
    for block in prange(n_blocks):
        states = np.empty(N_STREAMS, dtype=np.uint64)
        view = np.empty(1, dtype=VIEW_DTYPE)
        hands = np.empty((MAX_PLAYERS, HAND_SIZE), dtype=np.int8)
        n_hand = np.empty(MAX_PLAYERS, dtype=np.int8)
        stop = min(n_deals, (block + 1) * DEALS_PER_BLOCK)
        for i in range(block * DEALS_PER_BLOCK, stop):
            _clear_record_nb(records[i])
            start_streams_nb(states, seed_key, first_deal + i)
            results[i].deal = first_deal + i
            results[i].briscola = deals[i].briscola
            illegal[i].play = -1
            play_deal_nb(deals[i], strategy_ids, params, rules, states, view, hands, n_hand, results[i], records[i], illegal[i])

