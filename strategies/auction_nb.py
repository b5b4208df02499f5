"""Briscola Chiamata's auction for ``expert`` and ``pimc`` (jitted code only).

A hand is valued with each suit as trump by ``suit_value_nb``: its card points, plus 6
and the strength (0-9) of each card of that suit. From that value, a model measured on
40,000 deals of ``expert``'s play (docs/chiamata.md) gives the points the caller's side
takes: with a partner, 0.62 per point of value plus what the called card's face brings
(the Ace most, the Two least), spread 20.4; alone, 0.83 per point less 12, spread 15.
So each bid has a chance to succeed, and the caller an expected gain: 2 (2p - 1) with a
partner, 4 (2p - 1) alone.

``expert`` bids the next level while its best call there (a suit lacking the card of
the bid's face, or one holding it, to play alone) expects at least its ``bid_threshold``
in game points (``bid_at_threshold_nb``); it calls the card of that best call. It does
not count a cappotto or bid_multiplier=on. ``pimc`` and ``ismcts`` bid the same way, each
with a ``bid_threshold`` of its own.
"""

import math

import numpy as np
from numba import njit

from kernels.enums import N_FACES, N_SUITS, PASS
from kernels.inlined_strategies_nb import hand_holds_nb, hand_suit_value_nb
from kernels.rules_nb import bid_face_nb, bid_target_nb
from strategies.expert_nb import BID_THRESHOLD

# The fitted model (docs/chiamata.md): side points = SLOPE * value + FACE_POINTS[face].
SLOPE, SPREAD = 0.62, 20.4
FACE_POINTS = np.array([40.9, 21.7, 35.3, 22.1, 23.0, 23.8, 23.8, 26.0, 27.0, 29.3])  # by the called face
ALONE_SLOPE, ALONE_POINTS, ALONE_SPREAD = 0.83, -12.0, 15.0


@njit(cache=True)
def expert_bid_nb(view, params, rng):
    return bid_at_threshold_nb(view, params[BID_THRESHOLD])


@njit(cache=True)
def bid_at_threshold_nb(view, threshold):
    """The next level if its best call expects at least ``threshold`` game points, else PASS."""
    level = view.bid + 1
    if level > view.max_bid:
        return PASS
    _, gain = best_call_nb(view, level)
    return level if gain >= threshold else PASS


@njit(cache=True)
def expert_call_nb(view, params, rng):
    card, _ = best_call_nb(view, view.bid)
    return card


@njit(cache=True)
def best_call_nb(view, bid):
    """The card to call at ``bid`` and the caller's expected game points with it: of the
    four cards of the bid's face, the one whose suit (as trump) and holder (a partner,
    or the caller alone) give the most."""
    gains = np.empty(N_SUITS, dtype=np.float64)
    call_gains_nb(view.hand, view.n_hand, bid, gains)
    suit = np.argmax(gains)
    return suit * N_FACES + bid_face_nb(bid), gains[suit]


@njit(cache=True)
def call_gains_nb(hand, n, bid, gains):
    """``gains[suit]``: the expected game points of a caller holding ``hand[:n]`` that
    calls the card of ``bid``'s face in ``suit``."""
    face, target = bid_face_nb(bid), bid_target_nb(bid)
    for suit in range(N_SUITS):
        alone = hand_holds_nb(hand, n, suit * N_FACES + face)
        gains[suit] = expected_gain_nb(hand_suit_value_nb(hand, n, suit), face, target, alone)


@njit(cache=True, inline="always")
def expected_gain_nb(value, face, target, alone):
    """The caller's expected game points (cappotto aside) from a hand of ``value``."""
    if alone:
        return contract_gain_nb(_normal_cdf_nb((ALONE_SLOPE * value + ALONE_POINTS - target) / ALONE_SPREAD), True)
    return contract_gain_nb(_normal_cdf_nb((SLOPE * value + FACE_POINTS[face] - target) / SPREAD), False)


@njit(cache=True, inline="always")
def contract_gain_nb(chance, alone):
    """The caller's expected game points (cappotto aside) from its ``chance`` of making
    the contract: 2 won or lost with a partner, 4 alone."""
    return (4.0 if alone else 2.0) * (2.0 * chance - 1.0)


@njit(cache=True, inline="always")
def _normal_cdf_nb(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
