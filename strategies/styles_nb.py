"""Simple named styles people recognise (jitted code only): ``highest``, ``lowest`` and
``hoarder``. Each card gets a key and the best key is played, so no choice ever depends
on the order of the hand."""

from numba import njit

from kernels.enums import CARD_POINTS, CARD_STRENGTH, CARD_SUIT
from kernels.rules_nb import beats_nb, winning_position_nb

LOAD_POINTS = 10  # Aces and Threes: the "carichi"
NO_WINNER = -1  # no card on the table yet: leading


@njit(cache=True, inline="always")
def cheapness_nb(card, trump_suit):
    """Lower is cheaper to give away: points, then strength, then trumps last, then suit."""
    return CARD_POINTS[card] * 256 + CARD_STRENGTH[card] * 16 + (CARD_SUIT[card] == trump_suit) * 4 + CARD_SUIT[card]


@njit(cache=True)
def highest_nb(view, params, rng):
    """Always the card worth the most points (the strongest among equals)."""
    best_card, best_key = view.hand[0], -1
    for k in range(view.n_hand):
        key = cheapness_nb(view.hand[k], view.trump_suit)
        if key > best_key:
            best_card, best_key = view.hand[k], key
    return best_card


@njit(cache=True)
def lowest_nb(view, params, rng):
    """Always the cheapest card: fewest points, then weakest."""
    best_card, best_key = view.hand[0], 1 << 30
    for k in range(view.n_hand):
        key = cheapness_nb(view.hand[k], view.trump_suit)
        if key < best_key:
            best_card, best_key = view.hand[k], key
    return best_card


@njit(cache=True)
def hoarder_nb(view, params, rng):
    """Saves trumps and loads (Aces and Threes) while the stock lasts: wins tricks only
    with plain cards and throws the cheapest plain card. Once the stock is empty, plays
    its treasure: the card worth most that takes the trick, or leads its strongest."""
    trump = view.trump_suit
    winning = NO_WINNER if view.n_table == 0 else view.table[winning_position_nb(view.table, view.n_table, trump)]
    endgame = view.stock_size == 0
    best_card, best_key = view.hand[0], -(1 << 30)
    for k in range(view.n_hand):
        card = view.hand[k]
        treasure = CARD_SUIT[card] == trump or CARD_POINTS[card] >= LOAD_POINTS
        wins = winning == NO_WINNER or beats_nb(card, winning, trump)
        cheap = cheapness_nb(card, trump)
        if endgame:
            key = wins * 4096 + (cheap if wins else -cheap)
        else:
            key = (not treasure) * 8192 + (wins and winning != NO_WINNER) * 4096 - cheap
        if key > best_key:
            best_card, best_key = card, key
    return best_card
