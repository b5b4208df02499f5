"""Briscola Chiamata's auction for ``expert`` and ``pimc`` (jitted code only).

A hand is valued with each suit as trump by ``suit_value_nb``: its card points, plus 6
and the strength (0-9) of each card of that suit. For a bid, the hand's value is that of
its best suit for the card the bid would call: a suit lacking that card (a partner holds
it), or, to play alone, a suit where the hand holds it.

``expert`` bids the next level while that value clears a bar that rises with the bid
(RANK_BAR + RANK_STEP per rank, then POINTS_BAR + POINTS_STEP per point above 61). It
plays alone when its own card clears the bar by ALONE_MARGIN more than a partner's
would; else it calls the card of the bid's face in its best suit lacking it. The bars
were set by measuring how often callers took their targets against their hands' values
(docs/chiamata.md).
"""

from numba import njit

from kernels.enums import LAST_RANK_BID, N_FACES, N_SUITS, PASS
from kernels.inlined_strategies_nb import holds_nb, suit_value_nb
from kernels.rules_nb import bid_face_nb

RANK_BAR, RANK_STEP = 70, 1  # a rank bid at level L needs a value of RANK_BAR + RANK_STEP * L
POINTS_BAR, POINTS_STEP = 80, 1  # a points bid of T points needs POINTS_BAR + POINTS_STEP * (T - 61)
ALONE_MARGIN = 25  # playing alone needs this much more value than the bar


@njit(cache=True)
def expert_bid_nb(view, params, rng):
    level = view.bid + 1
    if level > view.max_bid:
        return PASS
    face = bid_face_nb(level)
    bar = bid_bar_nb(level)
    with_partner = best_value_nb(view, face, False) >= bar
    alone = best_value_nb(view, face, True) >= bar + ALONE_MARGIN
    return level if with_partner or alone else PASS


@njit(cache=True)
def expert_call_nb(view, params, rng):
    face = bid_face_nb(view.bid)
    bar = bid_bar_nb(view.bid)
    partner_suit, alone_suit = best_suit_nb(view, face, False), best_suit_nb(view, face, True)
    if partner_suit < 0:
        return alone_suit * N_FACES + face
    if (
        alone_suit >= 0
        and suit_value_nb(view, alone_suit) >= max(bar, suit_value_nb(view, partner_suit)) + ALONE_MARGIN
    ):
        return alone_suit * N_FACES + face
    return partner_suit * N_FACES + face


@njit(cache=True, inline="always")
def bid_bar_nb(level):
    """The hand value a bid needs."""
    if level <= LAST_RANK_BID:
        return RANK_BAR + RANK_STEP * level
    return POINTS_BAR + POINTS_STEP * (level - LAST_RANK_BID)


@njit(cache=True, inline="always")
def best_suit_nb(view, face, held):
    """The suit of highest value whose card of ``face`` is (``held``) or is not in the
    hand; -1 if there is none."""
    best, best_value = -1, -1
    for suit in range(N_SUITS):
        if holds_nb(view, suit * N_FACES + face) != held:
            continue
        value = suit_value_nb(view, suit)
        if value > best_value:
            best, best_value = suit, value
    return best


@njit(cache=True, inline="always")
def best_value_nb(view, face, held):
    suit = best_suit_nb(view, face, held)
    return suit_value_nb(view, suit) if suit >= 0 else -1
