"""Exact search of the last tricks (jitted code only), when every remaining card's place
is known, between two sides: ``sides[seat]`` is 0 or 1 (seat % 2 at 2, 4 and 6 players;
at Briscola Chiamata the caller's side and the defenders'; at 3 players one seat
against the other two together, a "paranoid" search).

The state of a search is plain arrays: ``hands[seat, :n_hand[seat]]``, the cards played
so far in ``plays[:ply]`` (the current trick starts at ``trick_start``), and cards still
to draw ``stock[drawn:n_stock]`` in drawing order. Values are the points that side
``max_side`` takes from the cards not yet won (the table and every hand): in a zero-sum
deal, the most points is also the best result (win, draw, loss).
"""

import numpy as np
from numba import njit

from kernels.enums import CARD_POINTS, MAX_HAND, MAX_PLAYERS, N_CARDS
from kernels.rules_nb import winning_position_nb

NO_BOUND = 1000  # above any number of points
SEAT_SIDES = np.arange(MAX_PLAYERS) % 2  # the sides of 2, 4 and 6 players
ENTER, NEXT, RETURN = 0, 1, 2  # steps of the search loop


# 14 arguments: a position as the playouts, expert and the tests hold it (its own state: the stack).
@njit(cache=True)
def search_nb(
    hands, n_hand, plays, ply, trick_start, leader, players, trump, stock, drawn, n_stock, sides, max_side, stack
):  # fmt: skip
    """Points ``max_side`` takes from here with best play by both sides: alpha-beta,
    depth first, with an explicit ``stack`` from ``new_stack_nb`` (Numba's cache cannot
    reload a recursive function). ``hands`` and ``n_hand`` are restored before it returns."""
    starts, leaders, draws, gained, seats = stack[0], stack[1], stack[2], stack[3], stack[4]
    tried, best, alpha, beta, drew = stack[5], stack[6], stack[7], stack[8], stack[9]
    root = ply
    starts[ply], leaders[ply], draws[ply], gained[ply] = trick_start, leader, drawn, 0
    alpha[ply], beta[ply], drew[ply] = -NO_BOUND, NO_BOUND, 0
    value = 0
    state = ENTER
    while True:
        if state == ENTER:
            state = NEXT
            if ply - starts[ply] == players:  # a full trick: score it, draw, the winner leads
                winner = (leaders[ply] + winning_position_nb(plays[starts[ply] : ply], players, trump)) % players
                if sides[winner] == max_side:
                    for k in range(starts[ply], ply):
                        gained[ply] += CARD_POINTS[plays[k]]
                if draws[ply] < n_stock:
                    for k in range(players):  # the winner first, then in playing order
                        seat = (winner + k) % players
                        hands[seat, n_hand[seat]] = stock[draws[ply] + k]
                        n_hand[seat] += 1
                    draws[ply] += players
                    drew[ply] = 1
                elif n_hand[winner] == 0:  # that was the last trick
                    value = gained[ply]
                    state = RETURN
                elif n_hand[winner] == 1:  # one card each: the last trick plays itself
                    value = gained[ply] + _last_trick_nb(hands, plays, ply, winner, players, trump, sides, max_side)
                    state = RETURN
                starts[ply], leaders[ply] = ply, winner
            if state == NEXT:
                seats[ply] = (leaders[ply] + ply - starts[ply]) % players
                tried[ply] = 0
                best[ply] = -NO_BOUND if sides[seats[ply]] == max_side else NO_BOUND
        elif state == NEXT:  # the next card of the seat at this ply, unless pruned
            seat = seats[ply]
            n = n_hand[seat]
            if tried[ply] < n and alpha[ply] < beta[ply]:
                k = tried[ply]
                plays[ply] = hands[seat, k]
                hands[seat, k] = hands[seat, n - 1]  # the last card fills the slot
                n_hand[seat] = n - 1
                child = ply + 1
                starts[child], leaders[child], draws[child], gained[child] = (
                    starts[ply],
                    leaders[ply],
                    draws[ply],
                    gained[ply],
                )
                alpha[child], beta[child], drew[child] = alpha[ply], beta[ply], 0
                ply = child
                state = ENTER
            else:
                value = best[ply]
                state = RETURN
        else:  # RETURN: ``value`` is the value of the node at ``ply``
            if drew[ply]:
                for k in range(players):
                    n_hand[k] -= 1
            if ply == root:
                return value
            ply -= 1
            seat = seats[ply]
            k = tried[ply]
            n = n_hand[seat] + 1
            hands[seat, n - 1] = hands[seat, k]  # back as it was: the card in its slot
            hands[seat, k] = plays[ply]
            n_hand[seat] = n
            if sides[seat] == max_side:
                best[ply] = max(best[ply], value)
                alpha[ply] = max(alpha[ply], best[ply])
            else:
                best[ply] = min(best[ply], value)
                beta[ply] = min(beta[ply], best[ply])
            tried[ply] = k + 1
            state = NEXT


@njit(cache=True, inline="always")
def _last_trick_nb(hands, plays, ply, leader, players, trump, sides, max_side):
    """The points ``max_side`` takes from the last trick, every hand holding one card
    (``plays[ply:]`` is scratch space)."""
    points = 0
    for k in range(players):
        card = hands[(leader + k) % players, 0]
        plays[ply + k] = card
        points += CARD_POINTS[card]
    winner = (leader + winning_position_nb(plays[ply : ply + players], players, trump)) % players
    return points if sides[winner] == max_side else 0


@njit(cache=True)
def new_stack_nb():
    """Work space of ``search_nb``: ten values per ply."""
    return np.zeros((10, N_CARDS + MAX_PLAYERS + 1), dtype=np.int64)


# 11 arguments: a position as the playouts hold it, and the seat whose cards it values.
@njit(cache=True)
def card_values_nb(hands, n_hand, table, n_table, leader, players, trump, stock, n_stock, seat, values):
    """``values[k]``: the points the side of ``seat`` (seat % 2) takes from here on if it
    plays its k-th card now and both sides play perfectly after (the table's points
    included)."""
    plays = np.empty(N_CARDS + MAX_PLAYERS, dtype=np.int64)
    stack = new_stack_nb()
    for k in range(n_table):
        plays[k] = table[k]
    n = n_hand[seat]
    max_side = seat % 2
    for k in range(n):
        card = hands[seat, k]
        hands[seat, k] = hands[seat, n - 1]
        n_hand[seat] = n - 1
        plays[n_table] = card
        values[k] = search_nb(
            hands, n_hand, plays, n_table + 1, 0, leader, players, trump, stock, 0, n_stock, SEAT_SIDES, max_side, stack
        )
        hands[seat, n - 1] = hands[seat, k]
        hands[seat, k] = card
        n_hand[seat] = n


@njit(cache=True)
def new_hands_nb():
    """Work arrays for a search: hands (one row per seat, room to draw) and their sizes."""
    return np.full((MAX_PLAYERS, MAX_HAND + 1), -1, dtype=np.int64), np.zeros(MAX_PLAYERS, dtype=np.int64)
