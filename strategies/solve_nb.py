"""Exact par of a whole 2-player deal (jitted code only): both hands and the stock's
order face up, both players perfect, every card to the last.

Alpha-beta over tricks with a transposition table. A node is the start of a trick:
each hand as a 40-bit mask, who leads, and how many cards of the stock are drawn (the
points taken so far do not matter to the best play from here: the value is the points
player 0 takes from the cards still out). Within a node the leader's three cards and
the follower's three answers are tried, the most promising first: the follower's, a
trick it takes with the most points, else the card that gives away the least; the
leader's, its best card of an earlier visit, then the cheapest to give away.
Transpositions are many: the same cards reach the same hands by different trick orders.
The last two tricks, once the stock is empty, are played by plain minimax, without the
table. A deal takes about a million nodes, about a second on one thread
(benchmarks/bench_par.py).

Numba's cache cannot reload a recursive function: the search keeps its own stack, a
row per trick (``Frames``).
"""

from collections import namedtuple

import numpy as np
from numba import njit, prange

from kernels.enums import CARD_POINTS, N_CARDS, N_FACES
from kernels.rules_nb import trick_key_nb

HAND_CARDS, TRICKS = 3, N_CARDS // 2
TABLE_BITS = 21  # 2M entries, 64 MB per thread: a deal's nodes fit, little is overwritten
EMPTY, EXACT, LOWER, UPPER = 0, 1, 2, 3  # what a table entry holds
ENTER, NEXT_LEAD, NEXT_FOLLOW, RETURN = 0, 1, 2, 3  # steps of the search loop
INFINITE = 1000

# The transposition table, a row per entry (one cache line's worth, read at once): a
# node's full key (hand 0, leader and drawn cards; hand 1), the value or bound found, and
# its kind with the best lead card (``kind | (card + 1) << 8``).
KEY, KEY_2, VALUE, META = range(4)
# What a search of one deal works with: the stock in drawing order (``n_stock`` cards),
# the trump suit, ``wins`` (``follower_wins_table_nb``), the transposition table and the
# stack.
Solving = namedtuple("Solving", ["stock", "n_stock", "trump", "wins", "table", "frames"])
# The stack: a row per trick of the search (``hands[d]``: the two masks), the window, the
# best so far, the cards in the order tried (the follower's with their sort keys), where
# each loop stands and the points the current child's trick gave player 0.
Frames = namedtuple(
    "Frames",
    ["hands", "leader", "drawn", "alpha", "beta", "alpha_0", "beta_0", "best", "best_card", "slot",
     "leads", "n_leads", "lead_at", "follows", "keys", "n_follows", "follow_at", "inner", "gained"],
)  # fmt: skip


@njit(cache=True)
def new_table_nb():
    return np.zeros((1 << TABLE_BITS, 4), dtype=np.int64)


@njit(cache=True)
def new_frames_nb():
    n = TRICKS + 2
    i64 = np.int64
    return Frames(np.zeros((n, 2), i64), np.zeros(n, i64), np.zeros(n, i64), np.zeros(n, i64), np.zeros(n, i64),
                  np.zeros(n, i64), np.zeros(n, i64), np.zeros(n, i64), np.zeros(n, i64), np.zeros(n, i64),
                  np.zeros((n, HAND_CARDS), i64), np.zeros(n, i64), np.zeros(n, i64), np.zeros((n, HAND_CARDS), i64),
                  np.zeros((n, HAND_CARDS), i64), np.zeros(n, i64), np.zeros(n, i64), np.zeros(n, i64),
                  np.zeros(n, i64))  # fmt: skip


@njit(cache=True)
def follower_wins_table_nb(trump):
    """``wins[a, b]``: the follower's card b takes the trick the leader opened with a."""
    wins = np.zeros((N_CARDS, N_CARDS), dtype=np.bool_)
    for a in range(N_CARDS):
        lead_suit = a // N_FACES
        for b in range(N_CARDS):
            wins[a, b] = trick_key_nb(b, lead_suit, trump) > trick_key_nb(a, lead_suit, trump)
    return wins


@njit(cache=True)
def new_solving_nb(stock, n_stock, trump):
    """A search of the deal whose stock is ``stock[:n_stock]``, its table empty."""
    return Solving(stock, n_stock, trump, follower_wins_table_nb(trump), new_table_nb(), new_frames_nb())


@njit(cache=True)
def solve_2p_nb(hand_0, hand_1, leader, drawn, solving):
    """The points player 0 takes from every card still out (both hands as 40-bit masks,
    ``stock[drawn:n_stock]``) with best play by both, ``leader`` to open the next trick.
    ``solving``: a Solving of this deal (its table may hold earlier searches of it)."""
    f, table, wins, n_stock = solving.frames, solving.table, solving.wins, solving.n_stock
    d = 0
    f.hands[0, 0], f.hands[0, 1], f.leader[0], f.drawn[0] = hand_0, hand_1, leader, drawn
    f.alpha[0], f.beta[0] = -INFINITE, INFINITE
    value = 0
    step = ENTER
    while True:
        if step == ENTER:
            step = _enter_nb(d, f, table, solving.trump)
            if step == RETURN:
                value = f.best[d]
        elif step == NEXT_LEAD:
            if f.lead_at[d] < f.n_leads[d] and f.alpha[d] < f.beta[d]:
                _order_follows_nb(d, f, wins, solving.trump)
                step = NEXT_FOLLOW
            else:
                _store_nb(d, f, table)
                value = f.best[d]
                step = RETURN
        elif step == NEXT_FOLLOW:
            lead_max = f.leader[d] == 0
            cut = f.inner[d] <= f.alpha[d] if lead_max else f.inner[d] >= f.beta[d]
            if f.follow_at[d] < f.n_follows[d] and not cut:
                _push_child_nb(d, f, wins, solving.stock, n_stock)
                d += 1
                step = ENTER
                if f.drawn[d] == n_stock and _two_at_most_nb(f.hands[d, 0]) and _two_at_most_nb(f.hands[d, 1]):
                    value = _last_tricks_nb(f.hands[d, 0], f.hands[d, 1], f.leader[d], wins)  # the commonest nodes
                    step = RETURN
            else:  # the leader's card is valued: the follower's best answer
                inner = f.inner[d]
                if lead_max and inner > f.best[d] or not lead_max and inner < f.best[d]:
                    f.best[d], f.best_card[d] = inner, f.leads[d, f.lead_at[d]]
                if lead_max:
                    f.alpha[d] = max(f.alpha[d], f.best[d])
                else:
                    f.beta[d] = min(f.beta[d], f.best[d])
                f.lead_at[d] += 1
                step = NEXT_LEAD
        else:  # RETURN: ``value`` is node d's, for player 0 from its cards out
            if d == 0:
                return value
            d -= 1
            child = f.gained[d] + value
            if f.leader[d] == 0:
                f.inner[d] = min(f.inner[d], child)
            else:
                f.inner[d] = max(f.inner[d], child)
            f.follow_at[d] += 1
            step = NEXT_FOLLOW


@njit(cache=True)
def _enter_nb(d, f, table, trump):
    """Starts node d: its value at once if no card is left or the table knows it (RETURN,
    the value in ``best[d]``), else its lead cards in order (NEXT_LEAD)."""
    hand_0, hand_1 = f.hands[d, 0], f.hands[d, 1]
    if hand_0 == 0 and hand_1 == 0:
        f.best[d] = 0
        return RETURN
    key = _key_nb(hand_0, f.leader[d], f.drawn[d])
    slot = _slot_nb(key, hand_1)
    f.slot[d] = slot
    hint = -1
    entry = table[slot]
    if entry[META] != EMPTY and entry[KEY] == key and entry[KEY_2] == hand_1:
        hint = (entry[META] >> 8) - 1
        value, kind = entry[VALUE], entry[META] & 255
        if kind == EXACT or kind == LOWER and value >= f.beta[d] or kind == UPPER and value <= f.alpha[d]:
            f.best[d] = value
            return RETURN
        if kind == LOWER:
            f.alpha[d] = max(f.alpha[d], value)
        else:
            f.beta[d] = min(f.beta[d], value)
    f.alpha_0[d], f.beta_0[d] = f.alpha[d], f.beta[d]
    f.best[d] = -INFINITE if f.leader[d] == 0 else INFINITE
    f.best_card[d] = -1
    lead_hand = hand_0 if f.leader[d] == 0 else hand_1
    n = 0
    for card in range(N_CARDS):
        if (lead_hand >> card) & 1:
            f.leads[d, n] = card
            n += 1
    keys = f.keys[d]
    for k in range(n):  # the card best at an earlier visit first, then the cheapest to give
        card = f.leads[d, k]
        keys[k] = (
            -INFINITE if card == hint else 4 * CARD_POINTS[card] + 50 * (card // N_FACES == trump) + card % N_FACES
        )
    _sort_nb(f.leads[d], keys, n)
    f.n_leads[d], f.lead_at[d] = n, 0
    return NEXT_LEAD


@njit(cache=True, inline="always")
def _key_nb(hand_0, leader, drawn):
    return hand_0 | (leader << 40) | (drawn << 41)


@njit(cache=True, inline="always")
def _slot_nb(key, key_2):
    x = np.uint64(key) ^ (np.uint64(key_2) * np.uint64(0x9E3779B97F4A7C15))
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(33)
    return np.int64(x & np.uint64((1 << TABLE_BITS) - 1))


@njit(cache=True)
def _order_follows_nb(d, f, wins, trump):
    """The follower's answers to the leader's current card, the most promising for the
    follower first; the inner value starts at the follower's worst."""
    a = f.leads[d, f.lead_at[d]]
    follow_hand = f.hands[d, 1] if f.leader[d] == 0 else f.hands[d, 0]
    keys = f.keys[d]
    m = 0
    for card in range(N_CARDS):
        if (follow_hand >> card) & 1:
            trump_cost = 20 if card // N_FACES == trump else 0
            if wins[a, card]:
                keys[m] = -8 * (CARD_POINTS[a] + CARD_POINTS[card]) + trump_cost
            else:
                keys[m] = 8 * CARD_POINTS[card] + trump_cost
            f.follows[d, m] = card
            m += 1
    _sort_nb(f.follows[d], keys, m)
    f.n_follows[d], f.follow_at[d] = m, 0
    f.inner[d] = INFINITE if f.leader[d] == 0 else -INFINITE


@njit(cache=True, inline="always")
def _two_at_most_nb(hand):
    rest = hand & (hand - 1)  # the lowest card taken away
    return rest & (rest - 1) == 0


@njit(cache=True)
def _last_tricks_nb(hand_0, hand_1, leader, wins):
    """The points player 0 takes from the last one or two tricks, both perfect, each
    hand holding one or two cards and the stock empty: plain minimax, no table."""
    lead_hand, follow_hand = (hand_0, hand_1) if leader == 0 else (hand_1, hand_0)
    best = -INFINITE if leader == 0 else INFINITE
    a_cards = lead_hand
    while a_cards:
        a = _lowest_card_nb(a_cards)
        a_cards &= a_cards - 1
        inner = INFINITE if leader == 0 else -INFINITE
        b_cards = follow_hand
        while b_cards:
            b = _lowest_card_nb(b_cards)
            b_cards &= b_cards - 1
            winner = 1 - leader if wins[a, b] else leader
            value = CARD_POINTS[a] + CARD_POINTS[b] if winner == 0 else 0
            rest_lead, rest_follow = lead_hand & ~(np.int64(1) << a), follow_hand & ~(np.int64(1) << b)
            if rest_lead:  # the last trick, its winner leading
                last_a, last_b = (rest_lead, rest_follow) if winner == leader else (rest_follow, rest_lead)
                c, e = _lowest_card_nb(last_a), _lowest_card_nb(last_b)
                last_winner = winner if not wins[c, e] else 1 - winner
                value += CARD_POINTS[c] + CARD_POINTS[e] if last_winner == 0 else 0
            inner = min(inner, value) if leader == 0 else max(inner, value)
        best = max(best, inner) if leader == 0 else min(best, inner)
    return best


@njit(cache=True, inline="always")
def _lowest_card_nb(hand):
    card = 0
    while not (hand >> card) & 1:
        card += 1
    return card


@njit(cache=True, inline="always")
def _sort_nb(cards, keys, n):
    """Insertion sort of at most three cards by their keys, the lowest first."""
    for i in range(1, n):
        j = i
        while j > 0 and keys[j] < keys[j - 1]:
            keys[j], keys[j - 1] = keys[j - 1], keys[j]
            cards[j], cards[j - 1] = cards[j - 1], cards[j]
            j -= 1


@njit(cache=True)
def _push_child_nb(d, f, wins, stock, n_stock):
    """Plays the current lead and answer: the trick's points to its winner, the stock's
    next cards drawn (the winner first), and the child node's window at d + 1."""
    a, b = f.leads[d, f.lead_at[d]], f.follows[d, f.follow_at[d]]
    leader = f.leader[d]
    winner = 1 - leader if wins[a, b] else leader
    gained = CARD_POINTS[a] + CARD_POINTS[b] if winner == 0 else 0
    c = d + 1
    f.hands[c, leader] = f.hands[d, leader] & ~(np.int64(1) << a)
    f.hands[c, 1 - leader] = f.hands[d, 1 - leader] & ~(np.int64(1) << b)
    drawn = f.drawn[d]
    if drawn < n_stock:
        f.hands[c, winner] |= np.int64(1) << stock[drawn]
        f.hands[c, 1 - winner] |= np.int64(1) << stock[drawn + 1]
        drawn += 2
    f.gained[d] = gained
    f.leader[c], f.drawn[c] = winner, drawn
    if leader == 0:  # the follower minimises: its window is cut by the best answer so far
        f.alpha[c], f.beta[c] = f.alpha[d] - gained, min(f.beta[d], f.inner[d]) - gained
    else:
        f.alpha[c], f.beta[c] = max(f.alpha[d], f.inner[d]) - gained, f.beta[d] - gained


@njit(cache=True)
def _store_nb(d, f, table):
    """Keeps node d's value in the table: exact, or a bound where the window cut it."""
    slot, best = f.slot[d], f.best[d]
    kind = EXACT
    if best <= f.alpha_0[d]:
        kind = UPPER
    elif best >= f.beta_0[d]:
        kind = LOWER
    entry = table[slot]
    entry[KEY], entry[KEY_2] = _key_nb(f.hands[d, 0], f.leader[d], f.drawn[d]), f.hands[d, 1]
    entry[VALUE], entry[META] = best, kind | ((f.best_card[d] + 1) << 8)


@njit(cache=True, parallel=True)
def exact_pars_2p_nb(decks, leaders, pars):
    """``pars[i]``: player 0's points in deal i's exact par (``decks[i]`` in the result
    rows' layout: the hands round by round, then the stock, the briscola last; the
    first trick led by ``leaders[i]``)."""
    for i in prange(decks.shape[0]):
        pars[i] = _deck_par_nb(decks[i], leaders[i])


@njit(cache=True)
def _deck_par_nb(deck, leader):
    hand_0, hand_1 = np.int64(0), np.int64(0)
    for k in range(HAND_CARDS):
        hand_0 |= np.int64(1) << deck[2 * k]
        hand_1 |= np.int64(1) << deck[2 * k + 1]
    stock = deck[2 * HAND_CARDS :].astype(np.int64)
    solving = new_solving_nb(stock, len(stock), stock[-1] // N_FACES)
    return solve_2p_nb(hand_0, hand_1, leader, 0, solving)
