"""``ismcts``: information-set Monte Carlo tree search (jitted code only).

One tree of the cards played from this decision on, whoever plays them, shared by every
sampled deal: single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012). Each
iteration deals the hidden cards anew (``worlds_nb``: uniformly, or weighed by the plays
seen), walks down the tree choosing among the cards that deal gives the seat to play by
UCB with availability counts (a card is a choice only in the deals where its player
holds it), adds one node, plays the deal out (``playout_nb``: the policy, then exact
search) and credits every node on the way with the result for its player's side. The
card played is the root's most visited child. Draws from the stock are not in the tree:
a node stands for all the deals that reach it by the same cards played.

With 2 players the end is searched exactly from the last draw on, as by ``expert``, unless
opponents are modelled as playing at random (``opponent_random`` > 0 with ``adapt`` off).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.enums import MAX_HAND, N_CARDS
from kernels.rng_nb import rng_below_nb
from kernels.rules_nb import take_nb
from strategies.auction_nb import bid_at_threshold_nb
from strategies.expert_nb import expert_play_nb, forget_partner_hands_nb, throw_cost_nb
from strategies.inference_nb import by_rules_nb
from strategies.playout_nb import end_trick_nb, no_learning_nb, play_out_nb, reset_playout_nb, score_points_nb
from strategies.worlds_nb import deal_next_nb, start_search_nb

ITERATIONS, EXPLORATION, POINTS_WEIGHT, OPPONENT_RANDOM, INFERENCE, ADAPT, SIGNALS, PARTNER_VIEW, BID_THRESHOLD = range(
    9
)
MAX_WORLDS = 64  # inferred deals kept per decision; iterations cycle through them
# The tree: one row per node of ``links`` (the card played into it and by whom, its first
# child and next sibling) and of ``stats`` (its visits, availability and total reward);
# the ``path`` of an iteration, and work space for a node's ``children``.
Tree = namedtuple("Tree", ["links", "stats", "path", "children"])
MOVE, MOVER, CHILD, SIBLING = 0, 1, 2, 3  # columns of links
VISITS, AVAILABLE, REWARD = 0, 1, 2  # columns of stats


@njit(cache=True)
def ismcts_nb(view, params, rng):
    if view.n_hand == 1:
        return view.hand[0]
    iterations, adapt, use_signals = int(params[ITERATIONS]), params[ADAPT] != 0.0, params[SIGNALS] != 0.0
    if params[PARTNER_VIEW] == 0.0:
        forget_partner_hands_nb(view)
    if view.players == 2 and view.stock_size <= 2 and (adapt or params[OPPONENT_RANDOM] <= 0.0):
        return expert_play_nb(view, use_signals)  # exact from the last draw on
    search = start_search_nb(view, use_signals, by_rules_nb(params[INFERENCE]), adapt, min(iterations, MAX_WORLDS), rng)
    tree = _new_tree_nb(iterations + 1)
    links, stats = tree.links, tree.stats
    by_rules = no_learning_nb()  # playouts by the hand-written rules
    for iteration in range(iterations):
        n_stock = deal_next_nb(view, search, iteration, use_signals, adapt, params[OPPONENT_RANDOM], rng)
        _iterate_nb(view, params, search, n_stock, tree, iteration + 1, rng, by_rules)
    best, best_key = -1, -np.inf
    child = links[0, CHILD]
    while child >= 0:
        key = stats[child, VISITS] - 1e-9 * throw_cost_nb(links[child, MOVE], view.trump_suit)
        if key > best_key:
            best, best_key = child, key
        child = links[child, SIBLING]
    return links[best, MOVE]


@njit(cache=True, inline="always")
def _new_tree_nb(nodes):
    """A ``Tree`` of ``nodes`` nodes, node 0 the root."""
    return Tree(np.full((nodes, 4), -1, dtype=np.int64), np.zeros((nodes, 3), dtype=np.float64),
                np.empty(N_CARDS + 1, dtype=np.int64), np.empty(MAX_HAND, dtype=np.int64))  # fmt: skip


@njit(cache=True)
def _iterate_nb(view, params, search, n_stock, tree, new_node, rng, by_rules):
    """One iteration on the search's sampled deal: selection, one expansion (node
    ``new_node``), playout, and the result credited along the path."""
    players, trump, me = view.players, view.trump_suit, view.seat
    links, stats, path, children = tree.links, tree.stats, tree.path, tree.children
    playout = search.playout
    w_hands, w_n_hand, plays, points = playout.hands, playout.n_hand, playout.plays, playout.points
    reset_playout_nb(view, search)
    n_table, leader, drawn = view.n_table, view.leader, 0
    node, depth, over = 0, 0, False
    while True:
        seat = (leader + n_table) % players
        if w_n_hand[seat] == 0:
            over = True
            break
        k, child = _select_nb(links, stats, node, w_hands[seat], w_n_hand[seat], params[EXPLORATION], children, rng)
        if child < 0:  # a card never tried here: a new node, then the playout
            child = new_node
            links[child, MOVE], links[child, MOVER] = w_hands[seat, k], seat
            links[child, SIBLING], links[node, CHILD] = links[node, CHILD], child
            stats[child, AVAILABLE] = 1.0
        plays[n_table] = take_nb(w_hands, w_n_hand, seat, k)
        n_table += 1
        if n_table == players:
            leader, drawn = end_trick_nb(
                plays, players, trump, leader, points, w_hands, w_n_hand, search.stock, drawn, n_stock
            )
            n_table = 0
        node = child
        path[depth] = node
        depth += 1
        if node == new_node:
            over = n_table == 0 and w_n_hand[leader] == 0
            break
    if over:
        result = score_points_nb(points, players, me, params[POINTS_WEIGHT], playout.sides, view.target)
    else:
        result = play_out_nb(
            view, w_hands, w_n_hand, plays, n_table, leader, search.stock, drawn, n_stock, points,
            params[POINTS_WEIGHT], playout.stack, playout.sides, playout.search_sides, search.randomness, rng, by_rules,
        )  # fmt: skip
    for j in range(depth):
        on_my_side = playout.search_sides[links[path[j], MOVER]] == 0
        stats[path[j], VISITS] += 1.0
        stats[path[j], REWARD] += result if on_my_side else 1.0 - result


@njit(cache=True, inline="always")
def _select_nb(links, stats, node, hand, n, exploration, children, rng):
    """The card (index in ``hand[:n]``) to play at ``node`` and its child there: a card
    without a child first (at random among them; child -1), else the best by UCB, where
    a child's trials are counted only in the deals where it could be played
    (``children``: work space)."""
    untried = 0
    for k in range(n):
        child = links[node, CHILD]
        while child >= 0 and links[child, MOVE] != hand[k]:
            child = links[child, SIBLING]
        children[k] = child
        untried += child < 0
    if untried > 0:
        pick = rng_below_nb(rng, untried)
        for k in range(n):
            if children[k] < 0:
                if pick == 0:
                    return k, -1
                pick -= 1
    best_k, best_value = 0, -np.inf
    for k in range(n):
        child = children[k]
        stats[child, AVAILABLE] += 1.0
        visits = stats[child, VISITS]
        value = stats[child, REWARD] / visits + exploration * np.sqrt(np.log(stats[child, AVAILABLE]) / visits)
        if value > best_value:
            best_k, best_value = k, value
    return best_k, children[best_k]


@njit(cache=True)
def ismcts_bid_nb(view, params, rng):
    """Briscola Chiamata's bids: as ``expert``'s, at this strategy's own ``bid_threshold``."""
    return bid_at_threshold_nb(view, params[BID_THRESHOLD])
