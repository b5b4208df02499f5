"""Plug-ins for the sealed-view test: ``hostile`` scribbles over every field of its view
and of its parameters, then plays the card its twin ``polite`` plays (chosen before the
scribbling), so that any difference elsewhere comes from the scribbling alone."""

from numba import njit

from strategies.toolkit import Strategy, default_bid_nb, default_call_nb

# Every field of the view that ``scribble_nb`` overwrites; tests/test_view.py checks that
# this is all of them.
SCRIBBLED = (
    "seat", "players", "trump_suit", "briscola", "face_up", "face_up_holder", "removed_two", "stock_size", "trick",
    "leader", "n_table", "n_hand", "table", "hand", "partner_hands", "partner_trumps", "points", "played_by",
    "n_played", "history", "trick_winners", "bid", "bidder", "seat_bids", "passed", "max_bid", "caller", "called",
    "target", "partner",
)  # fmt: skip


@njit
def choice_nb(view):
    """The last card of the hand: plain, and different from what greedy or expert play."""
    return view.hand[view.n_hand - 1]


@njit
def scribble_nb(view, params):
    view.seat, view.players, view.trump_suit, view.briscola = 5, 6, 3, 39
    view.face_up, view.face_up_holder = 38, 4
    view.removed_two, view.stock_size, view.trick, view.leader = 1, 40, 19, 5
    view.n_table, view.n_hand = 5, 3
    for k in range(view.table.shape[0]):
        view.table[k] = 39 - k
    for k in range(view.hand.shape[0]):
        view.hand[k] = k
    for seat in range(view.partner_hands.shape[0]):
        for k in range(view.partner_hands.shape[1]):
            view.partner_hands[seat, k] = seat * 3 + k
        view.partner_trumps[seat] = 31
    for seat in range(view.points.shape[0]):
        view.points[seat] = 120
    for card in range(view.played_by.shape[0]):
        view.played_by[card] = card % 6
        view.history[card] = 39 - card
    view.n_played = 40
    view.bid, view.bidder, view.max_bid, view.caller, view.called, view.target, view.partner = 9, 4, 9, 4, 39, 99, 4
    for seat in range(view.seat_bids.shape[0]):
        view.seat_bids[seat] = 9
        view.passed[seat] = 1
    for trick in range(view.trick_winners.shape[0]):
        view.trick_winners[trick] = trick % 6
    for k in range(params.shape[0]):
        params[k] = -1.0


@njit
def hostile_nb(view, params, rng):
    card = choice_nb(view)
    scribble_nb(view, params)
    return card


@njit
def polite_nb(view, params, rng):
    return choice_nb(view)


@njit
def hostile_bid_nb(view, params, rng):
    bid = default_bid_nb(view, params, rng)
    scribble_nb(view, params)
    return bid


@njit
def hostile_call_nb(view, params, rng):
    card = default_call_nb(view, params, rng)
    scribble_nb(view, params)
    return card


HOSTILE = Strategy(
    "hostile", 1, "Scribbles over its view, then plays its last card.", hostile_nb,
    bid=hostile_bid_nb, call=hostile_call_nb,
)  # fmt: skip
POLITE = Strategy(
    "polite", 1, "Plays its last card.", polite_nb, bid=default_bid_nb, call=default_call_nb
)  # fmt: skip
