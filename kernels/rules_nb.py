"""The rules of Briscola for 2, 3, 4, 5 and 6 players (jitted code only): dealing, who
wins a trick, who wins the deal. Briscola Chiamata's auction and scoring (5 players) are
in ``chiamata_nb.py``."""

import numpy as np
from numba import njit

from kernels.enums import (
    BID_FACES,
    CARD_POINTS,
    CARD_STRENGTH,
    CARD_SUIT,
    CHIAMATA_HAND,
    CHIAMATA_PLAYERS,
    FACE_ACE,
    FACE_THREE,
    FACE_TWO,
    HAND_SIZE,
    LAST_RANK_BID,
    MAX_HAND,
    MAX_PLAYERS,
    N_CARDS,
    N_FACES,
    N_SUITS,
    NO_CARD,
    POINTS_BID_OFFSET,
    REMOVED_TWO_RANDOM,
    RULE_REMOVED_TWO,
    RULE_TRUMP_REDEAL,
    STREAM_DEAL,
    TRUMP_REDEAL_ACE_THREE,
    WINNING_POINTS,
)
from kernels.rng_nb import LOW_32, bounded_local_nb, bounded_nb, next_local_nb


@njit(cache=True, inline="always")
def beats_nb(card, best, trump_suit):
    """True if ``card``, played after ``best``, takes the trick from it.

    Written without branches: which card wins is close to a coin flip in random play,
    so a branch here would be mispredicted about every other trick.
    """
    same_suit = CARD_SUIT[card] == CARD_SUIT[best]
    stronger = CARD_STRENGTH[card] > CARD_STRENGTH[best]
    trumps_it = (CARD_SUIT[card] == trump_suit) & (CARD_SUIT[best] != trump_suit)
    return (same_suit & stronger) | trumps_it


@njit(cache=True, inline="always")
def trick_key_nb(card, lead_suit, trump_suit):
    """Rank of ``card`` within a trick led in ``lead_suit``: the highest key takes it.

    Trumps rank above the led suit, which ranks above the other suits (keys below the
    lead's, so they never win); within a suit, by strength. No two cards share a key.
    """
    suit = CARD_SUIT[card]
    return CARD_STRENGTH[card] + 10 * (suit == lead_suit) + 20 * (suit == trump_suit)


@njit(cache=True, inline="always")
def winning_position_nb(table, n_table, trump_suit):
    """Position (0 = the lead) of the card that is winning a trick of ``n_table`` cards."""
    lead_suit = CARD_SUIT[table[0]]
    best = 0
    best_key = trick_key_nb(table[0], lead_suit, trump_suit)
    for k in range(1, n_table):
        key = trick_key_nb(table[k], lead_suit, trump_suit)
        if key > best_key:
            best, best_key = k, key
    return best


@njit(cache=True, inline="always")
def n_sides_nb(players):
    """Number of sides: every player alone with 2 or 3 players, two teams with 4 or 6;
    at Briscola Chiamata (5) the caller's side and the defenders'."""
    return 3 if players == 3 else 2


@njit(cache=True, inline="always")
def hand_size_nb(players):
    """Cards dealt to each player: 3, or the whole pack at Briscola Chiamata."""
    return CHIAMATA_HAND if players == CHIAMATA_PLAYERS else HAND_SIZE


@njit(cache=True, inline="always")
def removed_twos_nb(players, rules, states, removed):
    """Fills ``removed`` with the twos that leave the pack; returns how many."""
    if players == 3:
        suit = rules[RULE_REMOVED_TWO]
        if suit == REMOVED_TWO_RANDOM:
            suit = bounded_nb(states, STREAM_DEAL, N_SUITS)
        removed[0] = suit * N_FACES + FACE_TWO
        return 1
    if players == 6:
        for suit in range(N_SUITS):
            removed[suit] = suit * N_FACES + FACE_TWO
        return N_SUITS
    return 0


@njit(cache=True, inline="always")
def shuffle_nb(cards, n, states):
    """Fisher-Yates shuffle of ``cards[:n]``, two 32-bit draws per 64-bit output. The
    dealer's stream counter is kept in a local for the whole shuffle."""
    counter = states[STREAM_DEAL]
    i = np.uint64(n - 1)  # unsigned indices: no checks for negative ones
    while i >= 2:
        bits, counter = next_local_nb(counter)
        j, counter = bounded_local_nb(bits >> np.uint64(32), i + np.uint64(1), counter)
        cards[i], cards[j] = cards[j], cards[i]
        j, counter = bounded_local_nb(bits & LOW_32, i, counter)
        cards[i - np.uint64(1)], cards[j] = cards[j], cards[i - np.uint64(1)]
        i -= np.uint64(2)
    if i == 1:
        bits, counter = next_local_nb(counter)
        j, counter = bounded_local_nb(bits >> np.uint64(32), 2, counter)
        cards[1], cards[j] = cards[j], cards[1]
    states[STREAM_DEAL] = counter


@njit(cache=True, inline="always")
def is_ace_or_three_nb(card):
    face = card % N_FACES
    return face == FACE_ACE or face == FACE_THREE


@njit(cache=True, inline="always")
def redeal_trump_nb(cards, n_stock):
    """Rule trump_redeal=ace-three: while the turned card (the last of the stock
    ``cards[:n_stock]``, in drawing order) is an Ace or a Three, it goes back into the
    middle of the stock and the card on top, ``cards[0]``, is turned instead."""
    length = n_stock - 1  # the stock without the turned card
    middle = (length - 1) // 2  # position of the returned card once the top one is gone
    for _ in range(2 * length):  # ends long before: at most 8 Aces and Threes can return
        turned = cards[n_stock - 1]
        if not is_ace_or_three_nb(turned):
            return
        cards[n_stock - 1] = cards[0]
        for k in range(middle):
            cards[k] = cards[k + 1]
        cards[middle] = turned


@njit(cache=True, _nrt=False)
def deal_nb(players, rules, states, deal):
    """Shuffles and deals one deal into the DEAL_DTYPE record ``deal``.

    The pack is shuffled in place in ``deal.stock`` and read in drawing order: the stock
    first, its last card the turned briscola, then the hands (card k of seat s at
    ``k * players + s``). Any fixed reading of a uniform shuffle is uniform; this one
    moves no card after the shuffle. At Briscola Chiamata the pack is all hands: no
    stock, no briscola (-1).

    Compiled without reference counting (nothing here allocates): it runs once per deal
    and would otherwise pay atomic updates of its arrays' counts on every call.
    """
    deal.players = players
    n_removed = removed_twos_nb(players, rules, states, deal.removed)
    deal.n_removed = n_removed
    for k in range(n_removed, N_SUITS):
        deal.removed[k] = NO_CARD
    cards = deal.stock
    n = _fill_pack_nb(cards, deal.removed, n_removed)
    shuffle_nb(cards, n, states)
    hand_size = hand_size_nb(players)
    deal.hand_size = hand_size
    n_stock = n - hand_size * players
    for seat in range(MAX_PLAYERS):  # constant bounds: a few vector stores
        for k in range(MAX_HAND):
            deal.hands[seat, k] = NO_CARD
    for seat in range(players):
        for k in range(hand_size):
            deal.hands[seat, k] = cards[n_stock + k * players + seat]
    for k in range(n_stock, N_CARDS):
        cards[k] = NO_CARD
    if n_stock > 0 and rules[RULE_TRUMP_REDEAL] == TRUMP_REDEAL_ACE_THREE:
        redeal_trump_nb(cards, n_stock)
    deal.briscola = cards[n_stock - 1] if n_stock > 0 else NO_CARD
    deal.n_stock = n_stock


@njit(cache=True, inline="always")
def _fill_pack_nb(cards, removed, n_removed):
    """Puts the pack, less the removed twos, into ``cards``; returns its size."""
    if n_removed == 0:
        for card in range(N_CARDS):  # a loop over a constant range: a few vector stores
            cards[card] = card
        return N_CARDS
    n = 0
    for card in range(N_CARDS):
        if card % N_FACES != FACE_TWO or not _is_removed_nb(card, removed, n_removed):
            cards[n] = card
            n += 1
    return n


@njit(cache=True, inline="always")
def _is_removed_nb(card, removed, n_removed):
    for k in range(n_removed):
        if removed[k] == card:
            return True
    return False


@njit(cache=True, inline="always")
def trick_points_nb(table, n_table):
    points = 0
    for k in range(n_table):
        points += CARD_POINTS[table[k]]
    return points


# One trick's mechanics, shared by the engine, the playouts and the exact end-game
# search (the 2-player fast path packs its hands instead: docs/engine.md says why).


@njit(cache=True, inline="always")
def seat_after_nb(seat, steps, players):
    """The seat ``steps`` places after ``seat`` in playing order (steps < players)."""
    later = seat + steps
    return later - players if later >= players else later


@njit(cache=True, inline="always")
def trick_winner_nb(table, players, trump_suit, leader):
    """The seat that takes the full trick ``table[:players]`` led by ``leader``."""
    return seat_after_nb(leader, winning_position_nb(table, players, trump_suit), players)


@njit(cache=True, inline="always")
def score_trick_nb(table, players, trump_suit, leader, points):
    """Ends the full trick ``table[:players]``: its winner takes its points into
    ``points[winner]``. Returns the winner, who leads next (and draws first)."""
    winner = trick_winner_nb(table, players, trump_suit, leader)
    points[winner] += trick_points_nb(table, players)
    return winner


@njit(cache=True, inline="always")
def draw_round_nb(stock, top, hands, n_hand, first, players):
    """Each seat draws a card from ``stock[top:]`` into its hand's end, ``first`` first,
    then in playing order."""
    for k in range(players):
        seat = seat_after_nb(first, k, players)
        hands[seat, n_hand[seat]] = stock[top + k]
        n_hand[seat] += 1


@njit(cache=True, inline="always")
def take_nb(hands, n_hand, seat, k):
    """The k-th card of ``seat``, taken out of its hand, the last card filling its slot:
    the searches' way, undone by putting the card back (the engine keeps a hand's order
    instead, which strategies see: ``engine_nb.take_from_hand_nb``)."""
    card = hands[seat, k]
    n = n_hand[seat]
    hands[seat, k] = hands[seat, n - 1]
    n_hand[seat] = n - 1
    return card


@njit(cache=True, inline="always")
def winner_side_nb(side_points, n_sides):
    """The side with the most points, or -1 when the highest total is shared (a draw)."""
    best = 0
    shared = False
    for side in range(1, n_sides):
        if side_points[side] > side_points[best]:
            best = side
            shared = False
        elif side_points[side] == side_points[best]:
            shared = True
    return -1 if shared else best


@njit(cache=True, inline="always")
def bid_face_nb(bid):
    """The face a Briscola Chiamata bid calls: its rank, or the Two for a points bid."""
    return BID_FACES[min(bid, LAST_RANK_BID)]


@njit(cache=True, inline="always")
def bid_target_nb(bid):
    """The points a Briscola Chiamata bid promises: 61 for a rank, else level + 52."""
    return WINNING_POINTS if bid <= LAST_RANK_BID else bid + POINTS_BID_OFFSET
