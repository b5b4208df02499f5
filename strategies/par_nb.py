"""The par of a position late in a deal: what each card gives its side with every hand
face up and best play after (jitted code only).

Bridge calls it the double-dummy result. Every seat sees every hand and the stock's
order; ``endgame_nb.search_nb`` searches every card left, the stock's draws included,
for the mover's side against the others (at 3 players the mover against the two others
together, the "paranoid" search the playouts use). ``sim.analyse`` asks it once few
enough cards are left for the search to be quick (sim/present/par.py, ``EXACT_CARDS``);
a whole 2-player deal is solved by ``solve_nb``.

A position is a ``POSITION_DTYPE`` record: every hand, the trick on the table, who led
it, the stock in drawing order (``stock[drawn:n_stock]`` still to draw), the points each
seat has taken.
"""

import numpy as np
from numba import njit

from kernels.enums import MAX_HAND, MAX_PLAYERS, MAX_TABLE, N_CARDS
from kernels.rules_nb import take_nb
from strategies.endgame_nb import search_nb
from strategies.playout_nb import end_trick_nb

POSITION_DTYPE = np.dtype(
    [
        ("players", np.int64),
        ("trump", np.int64),
        ("hands", np.int64, (MAX_PLAYERS, MAX_HAND + 1)),  # room to draw
        ("n_hand", np.int64, MAX_PLAYERS),
        ("plays", np.int64, N_CARDS + MAX_TABLE),  # the trick on the table, then the search's scratch
        ("n_table", np.int64),
        ("leader", np.int64),  # of the trick on the table
        ("stock", np.int64, N_CARDS),
        ("drawn", np.int64),
        ("n_stock", np.int64),
        ("points", np.int64, MAX_PLAYERS),
    ]
)
TWO_SIDES = np.arange(MAX_PLAYERS) % 2


@njit(cache=True)
def new_positions_nb(n):
    return np.zeros(n, dtype=POSITION_DTYPE)


@njit(cache=True)
def mover_nb(position):
    return (position.leader + position.n_table) % position.players


@njit(cache=True)
def face_up_values_nb(position, values, scratch, stack):
    """``values[k]``: the points the mover's side (at 3 players, the mover) ends the deal
    with if it plays its k-th card now, every hand face up and best play after.
    ``scratch``: a one-position array to play on; ``stack``: ``new_stack_nb()``."""
    seat = mover_nb(position)
    for k in range(position.n_hand[seat]):
        scratch[0] = position
        p = scratch[0]
        play_nb(p, k)
        sides = _search_sides_nb(p.players, seat)
        values[k] = _side_points_nb(p, sides, seat) + search_nb(
            p.hands, p.n_hand, p.plays, p.n_table, 0, p.leader, p.players, p.trump, p.stock, p.drawn, p.n_stock,
            sides, sides[seat], stack,
        )  # fmt: skip


@njit(cache=True)
def play_nb(position, k):
    """The mover plays its k-th card; a full trick is scored and the stock drawn."""
    p = position
    p.plays[p.n_table] = take_nb(p.hands, p.n_hand, mover_nb(p), k)
    p.n_table += 1
    if p.n_table == p.players:
        p.leader, p.drawn = end_trick_nb(
            p.plays, p.players, p.trump, p.leader, p.points, p.hands, p.n_hand, p.stock, p.drawn, p.n_stock
        )
        p.n_table = 0


@njit(cache=True)
def _side_points_nb(position, sides, seat):
    total = 0
    for other in range(position.players):
        if sides[other] == sides[seat]:
            total += position.points[other]
    return total


@njit(cache=True)
def _search_sides_nb(players, seat):
    """Sides for the search: seat % 2 with two sides; at 3 players ``seat`` against the rest."""
    if players != 3:
        return TWO_SIDES
    sides = np.ones(MAX_PLAYERS, dtype=np.int64)
    sides[seat] = 0
    return sides
