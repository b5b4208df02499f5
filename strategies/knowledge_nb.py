"""What a player can work out from its view (jitted code only): which cards are still
unseen, and where the search of the last tricks applies. Shared by ``expert`` and
``pimc``."""

import numpy as np
from numba import njit

from kernels.enums import (
    CARD_FACE,
    CARD_SUIT,
    CHIAMATA_PLAYERS,
    FACE_HONOUR_BIT,
    FACE_TWO,
    MAX_HAND,
    N_CARDS,
    N_FACES,
    N_SUITS,
)
from kernels.inlined_strategies_nb import hand_holds_nb
from kernels.rules_nb import hand_size_nb
from strategies.endgame_nb import card_values_nb, new_hands_nb

UNSEEN, MINE, PLAYED, VISIBLE, OUT = 0, 1, 2, 3, 4  # where a card is, as far as a seat knows
SIGNALLED = 5  # in a partner's hand, as its trump signal shows (signals=trumps)


@njit(cache=True)
def card_places_nb(view, places):
    """``places[c]`` for every card: UNSEEN (in another hand or in the stock, face
    down), MINE, PLAYED, VISIBLE (the face-up briscola, a partner's shown card) or OUT
    (a two taken out of the pack). Returns the number of unseen cards."""
    for card in range(N_CARDS):
        places[card] = PLAYED if view.played_by[card] >= 0 else UNSEEN
    for k in range(view.n_hand):
        places[view.hand[k]] = MINE
    if view.briscola >= 0:
        places[view.briscola] = VISIBLE
    for seat in range(view.players):
        for k in range(view.partner_hands.shape[1]):
            if view.partner_hands[seat, k] >= 0:
                places[view.partner_hands[seat, k]] = VISIBLE
    if view.players == 3 and view.removed_two >= 0:
        places[view.removed_two] = OUT
    if view.players == 6:
        for suit in range(N_SUITS):
            places[suit * N_FACES + FACE_TWO] = OUT
    unseen = 0
    for card in range(N_CARDS):
        unseen += places[card] == UNSEEN
    return unseen


@njit(cache=True)
def mark_signalled_nb(view, places):
    """Under signals=trumps: marks SIGNALLED the unseen trump honours a partner's signal
    shows in its hand; returns how many. (The other unseen trump honours are then known
    to be in no signalling partner's hand: ``is_trump_honour_nb``.)"""
    marked = 0
    for card in range(N_CARDS):
        if places[card] == UNSEEN and signalled_by_nb(view, card) >= 0:
            places[card] = SIGNALLED
            marked += 1
    return marked


@njit(cache=True, inline="always")
def signalled_by_nb(view, card):
    """The partner whose trump signal shows ``card`` in its hand, or -1."""
    if not is_trump_honour_nb(card, view.trump_suit):
        return -1
    for seat in range(view.players):
        signal = view.partner_trumps[seat]
        if signal >= 0 and signal & FACE_HONOUR_BIT[CARD_FACE[card]]:
            return seat
    return -1


@njit(cache=True, inline="always")
def is_trump_honour_nb(card, trump_suit):
    return CARD_SUIT[card] == trump_suit and FACE_HONOUR_BIT[CARD_FACE[card]] > 0


@njit(cache=True, inline="always")
def same_side_nb(view, seat, other):
    """Whether ``other`` is known to play on ``seat``'s side (a seat is on its own): with
    4 and 6 players its partners; at Briscola Chiamata the caller and its partner, once
    the view shows the partner (to the partner itself, to a caller playing alone, to all
    once the called card is out); before, nobody is known to share a side."""
    if seat == other:
        return True
    if view.players == 4 or view.players == 6:
        return seat % 2 == other % 2
    if view.players == CHIAMATA_PLAYERS and view.partner >= 0:
        return (seat == view.caller or seat == view.partner) == (other == view.caller or other == view.partner)
    return False


@njit(cache=True, inline="always")
def holder_nb(hands, n_hand, players, card):
    """The seat whose hand (``hands[seat, :n_hand[seat]]``) holds ``card``; -1 if none."""
    for seat in range(players):
        if hand_holds_nb(hands[seat], n_hand[seat], card):
            return seat
    return -1


@njit(cache=True, inline="always")
def called_card_at_nb(view):
    """At Briscola Chiamata, where the called card lies in the history: until that play
    only its holder knows who the caller's partner is (``same_side_nb``); ``n_played``
    while it is still in a hand, and -1 at the other tables (where nothing is hidden)."""
    if view.players != CHIAMATA_PLAYERS or view.called < 0:
        return -1
    if view.played_by[view.called] < 0:
        return view.n_played
    for k in range(view.n_played):
        if view.history[k] == view.called:
            return k
    return -1


@njit(cache=True, inline="always")
def sides_known_nb(hidden, hand, n, called, sides, alone):
    """The sides a seat holding ``hand[:n]`` plays by: the deal's (``sides``) once the
    called card is out (``hidden`` off) or to its holder, who knows it is the partner;
    else each seat on its own (``alone``), as ``same_side_nb`` has it."""
    return alone if hidden and not hand_holds_nb(hand, n, called) else sides


@njit(cache=True)
def pack_size_nb(players):
    """Cards in play: 40, less the twos taken out with 3 (one) and 6 players (four)."""
    return N_CARDS - (1 if players == 3 else 0) - (N_SUITS if players == 6 else 0)


@njit(cache=True)
def first_stock_nb(players):
    """Cards left to draw once the hands are dealt, the face-up briscola included."""
    return pack_size_nb(players) - hand_size_nb(players) * players


@njit(cache=True)
def hand_sizes_nb(view, sizes):
    """``sizes[seat]``: cards each seat holds now: 3 dealt (8 at Briscola Chiamata), plus
    one per draw (every seat draws alike), less those it played."""
    draws = (first_stock_nb(view.players) - view.stock_size) // view.players
    for seat in range(view.players):
        sizes[seat] = hand_size_nb(view.players) + draws
    for card in range(N_CARDS):
        if view.played_by[card] >= 0:
            sizes[view.played_by[card]] -= 1


@njit(cache=True)
def exact_2p_values_nb(view, places, values):
    """2 players, stock empty: every card's place is known. Fills ``values[k]`` with the
    points this seat takes from now on playing its k-th card, then best play by both."""
    hands, n_hand = _known_2p_hands_nb(view, places, NO_HIDDEN)
    stock = np.empty(0, dtype=np.int64)
    card_values_nb(
        hands,
        n_hand,
        view.table,
        view.n_table,
        view.leader,
        view.players,
        view.trump_suit,
        stock,
        stock.shape[0],
        view.seat,
        values,
    )


@njit(cache=True)
def last_draw_2p_values_nb(view, places, values):
    """2 players, one face-down card and the briscola left to draw: each unseen card may
    be the face-down one, equally likely; ``values[k]`` averages the exact values (so
    the search plans who will draw the briscola)."""
    for k in range(view.n_hand):
        values[k] = 0.0
    one = np.empty(MAX_HAND, dtype=np.float64)
    stock = np.empty(2, dtype=np.int64)
    stock[1] = view.briscola
    cases = 0
    for hidden in range(N_CARDS):
        if places[hidden] != UNSEEN:
            continue
        cases += 1
        stock[0] = hidden
        hands, n_hand = _known_2p_hands_nb(view, places, hidden)
        card_values_nb(
            hands,
            n_hand,
            view.table,
            view.n_table,
            view.leader,
            view.players,
            view.trump_suit,
            stock,
            stock.shape[0],
            view.seat,
            one,
        )
        for k in range(view.n_hand):
            values[k] += one[k]
    for k in range(view.n_hand):
        values[k] /= max(cases, 1)
    return cases > 0


NO_HIDDEN = -1  # every unseen card is in the other hand


@njit(cache=True, inline="always")
def _known_2p_hands_nb(view, places, hidden):
    """Both hands of a 2-player deal once the places of the cards are known: this seat's
    from its view, the other's every unseen card but ``hidden`` (the face-down one)."""
    hands, n_hand = new_hands_nb()
    me, other = view.seat, 1 - view.seat
    for k in range(view.n_hand):
        hands[me, k] = view.hand[k]
    n_hand[me] = view.n_hand
    for card in range(N_CARDS):
        if places[card] == UNSEEN and card != hidden:
            hands[other, n_hand[other]] = card
            n_hand[other] += 1
    return hands, n_hand
