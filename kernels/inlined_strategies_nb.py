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

from kernels.enums import BID_FACES, CARD_POINTS, CARD_STRENGTH, CARD_SUIT, LAST_RANK_BID, N_FACES, N_SUITS, PASS
from kernels.rng_nb import bounded_nb
from kernels.rules_nb import beats_nb, bid_face_nb, trick_points_nb, winning_position_nb


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


# ---------------------------------------------------------------- Briscola Chiamata's auction
# A bid function returns a level above ``view.bid`` (at most ``view.max_bid``) or PASS; a
# call function returns a card of the bid's face (``bid_face_nb(view.bid)``), of any suit.


@njit(cache=True)
def random_bid_nb(view, params, rng):
    """``random``'s bid: the next level up or a pass, each half the time."""
    level = view.bid + 1
    if level > view.max_bid or bounded_nb(rng, 0, 2) == 0:
        return PASS
    return level


@njit(cache=True)
def random_call_nb(view, params, rng):
    """``random``'s call: the card of the bid's face in a suit drawn at random."""
    return bounded_nb(rng, 0, N_SUITS) * N_FACES + bid_face_nb(view.bid)


DEFAULT_BID_BASE = 66  # the default policy bids rank level L with a suit value of 66 + 2L
DEFAULT_BID_STEP = 2


@njit(cache=True)
def default_bid_nb(view, params, rng):
    """The default auction policy (strategies without their own ``bid``): bids the next
    rank while its best suit lacking that rank's card is worth DEFAULT_BID_BASE +
    DEFAULT_BID_STEP * level (``suit_value_nb``); never bids points."""
    level = view.bid + 1
    if level > min(view.max_bid, LAST_RANK_BID):
        return PASS
    suit = best_call_suit_nb(view, BID_FACES[level])
    if suit < 0 or suit_value_nb(view, suit) < DEFAULT_BID_BASE + DEFAULT_BID_STEP * level:
        return PASS
    return level


@njit(cache=True)
def default_call_nb(view, params, rng):
    """The default call: the card of the bid's face in the best suit where the caller
    lacks it (holding all four, its best suit: it plays alone)."""
    face = bid_face_nb(view.bid)
    suit = best_call_suit_nb(view, face)
    if suit < 0:
        suit = best_call_suit_nb(view, -1)
    return suit * N_FACES + face


@njit(cache=True, inline="always")
def suit_value_nb(view, suit):
    """What the view's hand is worth with ``suit`` as trump (``hand_suit_value_nb``)."""
    return hand_suit_value_nb(view.hand, view.n_hand, suit)


@njit(cache=True, inline="always")
def hand_suit_value_nb(hand, n, suit):
    """What ``hand[:n]`` is worth with ``suit`` as trump: its card points, plus 6 and the
    strength (0-9) of each card of that suit."""
    value = 0
    for k in range(n):
        card = hand[k]
        value += CARD_POINTS[card]
        if CARD_SUIT[card] == suit:
            value += 6 + CARD_STRENGTH[card]
    return value


@njit(cache=True)
def best_suit_values_nb(hands, values):
    """Writes into ``values[i]`` what hand ``hands[i]`` (a row of card codes) is worth
    with its best suit as trump (``hand_suit_value_nb``): a hand as dealt, valued before
    the auction as the default policy values it (sim.deal_features at Briscola Chiamata)."""
    for i in range(hands.shape[0]):
        best = 0
        for suit in range(N_SUITS):
            best = max(best, hand_suit_value_nb(hands[i], hands.shape[1], suit))
        values[i] = best


@njit(cache=True, inline="always")
def holds_nb(view, card):
    return hand_holds_nb(view.hand, view.n_hand, card)


@njit(cache=True, inline="always")
def hand_holds_nb(hand, n, card):
    for k in range(n):
        if hand[k] == card:
            return True
    return False


@njit(cache=True, inline="always")
def best_call_suit_nb(view, face):
    """The suit of highest ``suit_value_nb`` whose card of ``face`` is not in the hand
    (any suit for face -1); -1 if there is none."""
    best, best_value = -1, -1
    for suit in range(N_SUITS):
        if face >= 0 and holds_nb(view, suit * N_FACES + face):
            continue
        value = suit_value_nb(view, suit)
        if value > best_value:
            best, best_value = suit, value
    return best
