"""``expert``: a card-counting heuristic (jitted code only).

It knows which cards are still unseen, and so which trumps, Aces and Threes are out.
Leading, it plays lisci (plain cards worth nothing) and keeps loads and trumps (at 3, 4
and 6 players, trumps above all). Following, it takes loaded tricks as cheaply as it
can, takes a trick with the plain card that beats the table and scores most, does not
trump tricks worth little, and loads points ("carichi") onto a trick its partner is sure
to win. With 2 players it searches the end exactly: from the last draw (weighing who
gets the face-up briscola) and once the stock is empty. Under signals=trumps (unless
``signals`` is off) it knows which trump honours its partners hold, and fears none of
them; with ``partner_view`` off it ignores partners' hands shown by partner_view=last3
(to measure what seeing them is worth).
"""

import numpy as np
from numba import njit

from kernels.enums import CARD_POINTS, CARD_STRENGTH, CARD_SUIT, CHIAMATA_PLAYERS, MAX_HAND, N_CARDS
from kernels.rules_nb import beats_nb, trick_points_nb, winning_position_nb
from strategies.knowledge_nb import (
    UNSEEN,
    card_places_nb,
    exact_2p_values_nb,
    last_draw_2p_values_nb,
    mark_signalled_nb,
    same_side_nb,
)

LOAD = 10  # points of an Ace or a Three
TRUMP_WORTHY = 3  # table points for which a plain trump is spent (a Knight or more)
# Parameter slots: use partners' trump signals, and their shown hands; the game points a
# Briscola Chiamata call must expect to be bid (strategies/auction_nb.py).
SIGNALS, PARTNER_VIEW, BID_THRESHOLD = 0, 1, 2


@njit(cache=True)
def expert_nb(view, params, rng):
    if params[PARTNER_VIEW] == 0.0:
        forget_partner_hands_nb(view)
    return expert_play_nb(view, params[SIGNALS] != 0.0)


@njit(cache=True, inline="always")
def forget_partner_hands_nb(view):
    """Plays as if partner_view=none: wipes the partners' hands from this decision's own
    copy of the view (nobody else sees it)."""
    for seat in range(view.partner_hands.shape[0]):
        for k in range(view.partner_hands.shape[1]):
            view.partner_hands[seat, k] = -1


@njit(cache=True)
def expert_play_nb(view, use_signals):
    """expert's card; ``use_signals``: read partners' trump signals where shown."""
    places = np.empty(N_CARDS, dtype=np.int64)
    card_places_nb(view, places)
    if use_signals:
        mark_signalled_nb(view, places)
    if view.players == 2 and view.stock_size <= 2:
        values = np.empty(MAX_HAND, dtype=np.float64)
        if view.stock_size == 0:
            exact_2p_values_nb(view, places, values)
            return _best_valued_nb(view, values)
        if last_draw_2p_values_nb(view, places, values):
            return _best_valued_nb(view, values)
    if view.n_table == 0:
        return _lead_nb(view, places)
    return _follow_nb(view, places)


@njit(cache=True, inline="always")
def _best_valued_nb(view, values):
    """The card of highest value; among equals the cheapest (it keeps the better cards)."""
    best, best_value, best_cost = 0, -1.0, 1 << 30
    for k in range(view.n_hand):
        cost = throw_cost_nb(view.hand[k], view.trump_suit)
        if values[k] > best_value + 1e-9 or (abs(values[k] - best_value) <= 1e-9 and cost < best_cost):
            best, best_value, best_cost = k, values[k], cost
    return view.hand[best]


@njit(cache=True, inline="always")
def throw_cost_nb(card, trump):
    """What giving ``card`` away costs: its points, and a trump costs more than a Jack."""
    is_trump = CARD_SUIT[card] == trump
    return (CARD_POINTS[card] * 100 + is_trump * 250 + CARD_STRENGTH[card] * 4 + CARD_SUIT[card]) * 4


@njit(cache=True)
def _lead_nb(view, places):
    """Leads the card that risks least: a liscio of a suit whose loads are gone or held,
    then the weakest plain card, then small trumps, plain loads last (with 2 players;
    at bigger tables plain loads before any trump)."""
    trump = view.trump_suit
    best, best_key = view.hand[0], 1 << 30
    for k in range(view.n_hand):
        card = view.hand[k]
        key = lead_key_nb(card, trump) if view.players in (2, CHIAMATA_PLAYERS) else table_lead_key_nb(card, trump)
        if (
            CARD_SUIT[card] != trump
            and CARD_POINTS[card] == 0
            and not _unseen_loads_in_suit_nb(places, CARD_SUIT[card])
        ):
            key -= 8  # nobody can load on it in its own suit
        if key < best_key:
            best, best_key = card, key
    return best


@njit(cache=True, inline="always")
def _unseen_loads_in_suit_nb(places, suit):
    return places[suit * 10] == UNSEEN or places[suit * 10 + 2] == UNSEEN


@njit(cache=True)
def _follow_nb(view, places):
    trump = view.trump_suit
    position = winning_position_nb(view.table, view.n_table, trump)
    winning_card = view.table[position]
    winning_seat = (view.leader + position) % view.players
    last = view.n_table == view.players - 1
    table_points = trick_points_nb(view.table, view.n_table)
    partner_wins = same_side_nb(view, view.seat, winning_seat)
    if partner_wins and (last or _safe_nb(winning_card, trump, places)):
        return _load_nb(view)
    best, best_key = view.hand[0], -(1 << 30)
    for k in range(view.n_hand):
        key = follow_key_nb(view.hand[k], winning_card, trump, table_points, partner_wins)
        if key > best_key:
            best, best_key = view.hand[k], key
    return best


@njit(cache=True, inline="always")
def lead_key_nb(card, trump):
    """Leading, the lowest key goes first: the cheapest card to lose, a plain load last
    (it is a gift to any trump)."""
    plain_load = CARD_SUIT[card] != trump and CARD_POINTS[card] >= LOAD
    return throw_cost_nb(card, trump) + 2000 * plain_load


@njit(cache=True, inline="always")
def table_lead_key_nb(card, trump):
    """Leading at 3, 4 and 6 players, the lowest key goes first: the cheapest card to
    lose, every plain card before any trump (measured: against ``greedy`` at these
    tables this beats keeping plain loads for last, as with 2 players; Briscola
    Chiamata keeps its own lead, which its auction model was fitted on)."""
    return throw_cost_nb(card, trump) + 2000 * (CARD_SUIT[card] == trump)


@njit(cache=True, inline="always")
def follow_key_nb(card, winning_card, trump, table_points, partner_wins):
    """Following, the highest key goes first: a plain card that takes the trick, the one
    scoring most; then a trump, for a trick worth 10+ (3+ with a trump worth nothing);
    else the cheapest card to throw. A partner's winning card is never overtaken."""
    key = -throw_cost_nb(card, trump)
    if not partner_wins and beats_nb(card, winning_card, trump):
        if CARD_SUIT[card] != trump:
            key = 100000 + (table_points + CARD_POINTS[card]) * 100 - CARD_STRENGTH[card]
        elif table_points >= LOAD or (table_points >= TRUMP_WORTHY and CARD_POINTS[card] == 0):
            key = 50000 + table_points * 100 - throw_cost_nb(card, trump) // 8
    return key


@njit(cache=True, inline="always")
def load_key_nb(card, trump):
    """Loading a trick the partner takes, the highest key goes first: most points, plain
    cards before trumps."""
    return CARD_POINTS[card] * 16 - (CARD_SUIT[card] == trump) * 1000 - CARD_STRENGTH[card]


@njit(cache=True, inline="always")
def _safe_nb(card, trump, places):
    """No unseen card can beat ``card`` once played: no higher card of its suit and, for
    a plain card, no trump is unseen."""
    suit = CARD_SUIT[card]
    for other in range(N_CARDS):
        if places[other] != UNSEEN:
            continue
        if CARD_SUIT[other] == suit and CARD_STRENGTH[other] > CARD_STRENGTH[card]:
            return False
        if suit != trump and CARD_SUIT[other] == trump:
            return False
    return True


@njit(cache=True)
def _load_nb(view):
    """The partner takes this trick for sure: give it the most points, plain cards first."""
    trump = view.trump_suit
    best, best_key = view.hand[0], -(1 << 30)
    for k in range(view.n_hand):
        card = view.hand[k]
        key = load_key_nb(card, trump)
        if key > best_key:
            best, best_key = card, key
    return best
