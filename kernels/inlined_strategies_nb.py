"""Decision functions of the built-in strategies (jitted code only).

Every decision function has the same signature::

    choose_nb(view, params, rng) -> card

``view`` is the VIEW_DTYPE record of the seat to play (all it may see), ``params`` the
strategy's float64 parameters, and ``rng`` its own random stream, keyed by (seed, deal,
seat): a one-element uint64 array (plug-ins draw from it with ``rng_below_nb`` and
``rng_uniform_nb``, in ``strategies.toolkit``). It returns the code of a card in ``view.hand``. These two are part of the
engine: they read the engine's own view (plug-ins get a sealed copy), so they never
write to it.
"""

from numba import njit

from kernels.enums import CARD_STRENGTH, CARD_SUIT
from kernels.rng_nb import bounded_nb
from kernels.rules_nb import beats_nb, trick_points_nb, winning_position_nb


@njit(cache=True, inline="always")
def random_nb(view, params, rng):
    """Any card of the hand, uniformly."""
    n = view.n_hand
    if n == 1:
        return view.hand[0]
    return view.hand[bounded_nb(rng, 0, n)]


@njit(cache=True, inline="always")
def greedy_lead_key_nb(card, trump_suit):
    """Greedy's lead order: non-trumps first, then weakest, then lowest suit."""
    return (CARD_SUIT[card] == trump_suit) * 64 + CARD_STRENGTH[card] * 4 + CARD_SUIT[card]


@njit(cache=True, inline="always")
def greedy_follow_key_nb(card, best, trump_suit, loaded):
    """Greedy's follow order: a non-trump card that takes the trick; else, when the table
    holds 10+ points, a card (a trump) that takes it; else a throw-away. Within each
    class the cheapest card: weakest, then non-trump, then lowest suit."""
    is_trump = CARD_SUIT[card] == trump_suit
    wins = beats_nb(card, best, trump_suit)
    # Class 0, 1 or 2 by arithmetic rather than branches: which class a card falls in
    # follows the random cards on the table, so branches would often be mispredicted.
    cls = 2 - 2 * (wins & (not is_trump)) - (wins & is_trump & loaded)
    return cls * 80 + CARD_STRENGTH[card] * 8 + is_trump * 4 + CARD_SUIT[card]


@njit(cache=True, inline="always")
def greedy_nb(view, params, rng):
    """The C yardstick's heuristic, extended to any table: lead the cheapest non-trump;
    follow with the cheapest card that takes the trick without a trump, or with a trump
    when the table holds 10+ points, else throw the cheapest card. Every card has its
    own key, so the choice never depends on the order of the hand."""
    trump = view.trump_suit
    if view.n_table == 0:
        choice = view.hand[0]
        best_key = greedy_lead_key_nb(choice, trump)
        for k in range(1, view.n_hand):
            key = greedy_lead_key_nb(view.hand[k], trump)
            if key < best_key:
                choice, best_key = view.hand[k], key
        return choice
    best = view.table[winning_position_nb(view.table, view.n_table, trump)]
    loaded = trick_points_nb(view.table, view.n_table) >= 10
    choice = view.hand[0]
    best_key = greedy_follow_key_nb(choice, best, trump, loaded)
    for k in range(1, view.n_hand):
        key = greedy_follow_key_nb(view.hand[k], best, trump, loaded)
        if key < best_key:
            choice, best_key = view.hand[k], key
    return choice
