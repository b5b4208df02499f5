"""The fast path of the engine (jitted code only): 2-player deals between the built-in
speed references, ``random`` and ``greedy``, played in registers.

The general path (``engine_nb.play_deal_nb``) keeps a full view record up to date for
any strategy, plug-ins included; ``random`` and ``greedy`` read only their hand and the
lead, so for them a deal can live in a few integers, as in the C yardstick:

- a hand is packed into one uint64, 8 bits per slot, in the order of the hand's list
  (the played card leaves, later cards move down, the drawn card goes last);
- the state is kept by position, leader then follower: when the follower takes the
  trick, hands and random streams swap places by masks rather than branches, since who
  wins a random trick is a coin flip that a branch would mispredict;
- each stream's next 64 bits are drawn as soon as its previous draw is used, before the
  trick's winner (and so who uses them next) is known: the draw is off the chain of
  work that waits for the trick's outcome.

Every decision draws from the seat's own stream exactly as ``random_nb`` does, so a
deal ends exactly as on the general path: the tests check it deal by deal.
"""

import numpy as np
from numba import njit

from kernels.dispatch_nb import FIRST_PLUGIN_ID
from kernels.enums import CARD_POINTS, CARD_SUIT, HAND_SIZE, N_CARDS
from kernels.inlined_strategies_nb import greedy_follow_key_nb, greedy_lead_key_nb
from kernels.rng_nb import bounded_local_nb, next_local_nb
from kernels.rules_nb import beats_nb

TRICKS = N_CARDS // 2
DRAW_TRICKS = TRICKS - HAND_SIZE  # tricks after which both players draw
BYTE = np.uint64(0xFF)
ONE = np.uint64(1)
ZERO = np.uint64(0)
NO_SLOT = 1 << 20  # above every greedy key


@njit(cache=True)
def is_duel_nb(players, strategy_ids, traced):
    """Whether deals take the fast path: 2 players, both built-in speed references, no
    move-by-move record wanted (traced deals take the general path, which records)."""
    return players == 2 and not traced and strategy_ids[0] < FIRST_PLUGIN_ID and strategy_ids[1] < FIRST_PLUGIN_ID


@njit(cache=True)
def play_duel_nb(deal, counter0, counter1, random0, random1):
    """Plays a dealt 2-player deal; returns the points taken by seat 0.

    ``counter0``/``counter1``: the seats' random streams at the start of the deal;
    ``random0``/``random1``: whether the seat plays ``random`` (else ``greedy``).
    """
    trump = CARD_SUIT[deal.briscola]
    # The state, by position: hands, stream counters, the streams' next bits, the leader,
    # seat 0's points.
    state = (_pack_nb(deal.hands[0]), _pack_nb(deal.hands[1]), counter0, counter1, _next_bits_nb(counter0),
             _next_bits_nb(counter1), np.int64(0), np.int64(0))  # fmt: skip
    for trick in range(TRICKS):
        lead_hand, follow_hand, counter_l, counter_f, bits_l, bits_f, leader, points0 = _trick_nb(
            state, min(HAND_SIZE, TRICKS - trick), trump, random0, random1
        )
        if trick < DRAW_TRICKS:  # the winner, now leading, draws first
            lead_hand |= np.uint64(deal.stock[2 * trick]) << np.uint64(16)
            follow_hand |= np.uint64(deal.stock[2 * trick + 1]) << np.uint64(16)
        state = (lead_hand, follow_hand, counter_l, counter_f, bits_l, bits_f, leader, points0)
    return state[7]


@njit(cache=True)
def _trick_nb(state, n, trump, random0, random1):
    """One trick with ``n`` cards in each hand; returns the state after it."""
    lead_hand, follow_hand, counter_l, counter_f, bits_l, bits_f, leader, points0 = state
    lead_random = random1 if leader else random0
    follow_random = random0 if leader else random1
    slot, counter, bits = _random_slot_nb(n, counter_l, bits_l)
    if lead_random:
        counter_l, bits_l = counter, bits
    else:
        slot = _greedy_slot_nb(lead_hand, n, trump, -1)
    lead = _card_nb(lead_hand, slot)
    lead_hand = _remove_nb(lead_hand, slot)
    slot, counter, bits = _random_slot_nb(n, counter_f, bits_f)
    if follow_random:
        counter_f, bits_f = counter, bits
    else:
        slot = _greedy_slot_nb(follow_hand, n, trump, lead)
    follow = _card_nb(follow_hand, slot)
    follow_hand = _remove_nb(follow_hand, slot)
    follower_won = beats_nb(follow, lead, trump)
    winner = leader ^ np.int64(follower_won)
    points0 += (CARD_POINTS[lead] + CARD_POINTS[follow]) * (winner == 0)
    swap = ZERO - np.uint64(follower_won)  # all ones when the follower leads next
    hands = (lead_hand ^ follow_hand) & swap
    counters = (counter_l ^ counter_f) & swap
    next_bits = (bits_l ^ bits_f) & swap
    return (lead_hand ^ hands, follow_hand ^ hands, counter_l ^ counters, counter_f ^ counters, bits_l ^ next_bits,
            bits_f ^ next_bits, winner, points0)  # fmt: skip


@njit(cache=True)
def _random_slot_nb(n, counter, bits):
    """``random_nb``'s pick from a hand of ``n`` cards, for a stream at ``counter`` whose
    next bits are ``bits``: (slot, the stream's new counter, its next bits)."""
    if n == 1:
        return ZERO, counter, bits  # no choice: no draw
    _, counter = next_local_nb(counter)  # the draw of ``bits``, made ahead
    slot, counter = bounded_local_nb(bits >> np.uint64(32), n, counter)
    return slot, counter, _next_bits_nb(counter)


@njit(cache=True)
def _next_bits_nb(counter):
    return next_local_nb(counter)[0]


@njit(cache=True)
def _greedy_slot_nb(hand, n, trump, lead):
    """``greedy_nb``'s pick: the slot of the card with the smallest key, to lead when
    ``lead`` is -1, else to follow it. Keys are unique per card: no ties. All three
    slots are scored, those beyond the ``n`` cards out of reach: a loop of fixed length
    is unrolled."""
    best = NO_SLOT
    for k in range(HAND_SIZE):
        key = _greedy_key_nb(_card_nb(hand, np.uint64(k)), trump, lead) * 4 + k
        best = min(best, key + NO_SLOT * (k >= n))
    return np.uint64(best & 3)


@njit(cache=True)
def _greedy_key_nb(card, trump, lead):
    if lead < 0:
        return greedy_lead_key_nb(card, trump)
    return greedy_follow_key_nb(card, lead, trump, CARD_POINTS[lead] >= 10)


@njit(cache=True)
def _pack_nb(cards):
    return np.uint64(cards[0]) | np.uint64(cards[1]) << np.uint64(8) | np.uint64(cards[2]) << np.uint64(16)


@njit(cache=True)
def _card_nb(hand, slot):
    return (hand >> (slot * np.uint64(8))) & BYTE


@njit(cache=True)
def _remove_nb(hand, slot):
    """The hand without the card in ``slot``; later cards move down one slot."""
    below = (ONE << (slot * np.uint64(8))) - ONE
    return (hand & below) | ((hand >> np.uint64(8)) & ~below)
