"""``pimc``: determinized Monte Carlo search (jitted code only).

For each of up to ``samples`` deals of the hidden cards consistent with everything its
player has seen, and ``rollouts`` orders of the face-down stock, every card of the hand
is tried and the deal played out (``playout_nb``): by the playout policy, then by exact
search once the stock is empty and at most SEARCH_CARDS cards are left (this seat's side
against the others; at 3 players, the two others together, only in decisions made once
the stock is empty). The card with the best mean result (win 1, draw 1/2, plus a little
for points) is played. Every card is tried on the same deals, and sampling stops early
once one card is clearly better than every other. With 2 players the end is searched
exactly from the last draw on, as by ``expert``, unless opponents are modelled as
playing at random (``opponent_random`` > 0 with ``adapt`` off).

Which deals are sampled: uniformly among those consistent with the view, or, with
``inference`` > 0, weighed by how likely the opponent model makes the plays seen so far
(``inference_nb``): the hand-written policy's rules, or with ``policy_inference`` the
learned policy (net's). Under signals=trumps (unless ``signals`` is off) each signalling
partner holds exactly the trump honours it shows. At Briscola Chiamata a sampled deal
also says who holds the called card, and so who the caller's partner is: each playout is
scored for the sides of its own deal (the caller's side wins with its target), but until
the called card is played every seat other than its holder plays, in playouts and in the
opponent model, as one that knows no partner (as ``expert`` does, ``same_side_nb``). With
``auction_inference`` the deals are weighed by the auction too: the caller called its
best suit, worth bidding, and the others found the next level not worth it.

How the others play in playouts: by the policy, except that an opponent plays a card at
random with probability ``opponent_random`` (a model of a good opponent shies away from
lines a weak one rarely punishes); with ``adapt``, each other seat's chance of a random
card is inferred from its own plays instead.
"""

import numpy as np
from numba import njit

from kernels.enums import CHIAMATA_PLAYERS, MAX_HAND, N_CARDS, VIEW_DTYPE
from kernels.rules_nb import take_nb
from strategies.auction_nb import bid_at_threshold_nb, expert_call_nb
from strategies.expert_nb import expert_play_nb, forget_partner_hands_nb, throw_cost_nb
from strategies.inference_nb import weighing_nb
from strategies.net_nb import (
    has_policy_nb,
    has_value_nb,
    new_work_nb,
    no_work_nb,
    policy_logits_nb,
    softmax_weights_nb,
)
from strategies.playout_nb import SEARCH_CARDS, Learned, play_out_nb, reset_playout_nb
from strategies.worlds_nb import deal_next_nb, shuffle_nb, start_search_nb

SAMPLES, ROLLOUTS, POINTS_WEIGHT, OPPONENT_RANDOM, SIGNALS, PARTNER_VIEW, INFERENCE, ADAPT, BID_THRESHOLD = range(9)
VALUE_TRICKS, PLAYOUT_POLICY, POLICY_PRIOR, POLICY_INFERENCE, AUCTION_INFERENCE = 9, 10, 11, 12, 13  # parameters
# The search stops early once one card is clearly best: looked at after FIRST_LOOK sampled
# deals, then every LOOK_EVERY, it must lead every other card by CLEAR_Z standard errors,
# a difference smaller than INDIFFERENT a playout not counting (0.0125 of a win; 0.05 on a
# deal's total over the default 4 rollouts). The deals kept by inference may repeat,
# which makes the standard errors somewhat too small.
FIRST_LOOK, LOOK_EVERY, CLEAR_Z, INDIFFERENT = 16, 8, 2.0, 0.0125


@njit(cache=True)
def pimc_nb(view, params, rng, data):
    if view.n_hand == 1:
        return view.hand[0]
    use_signals, adapt = params[SIGNALS] != 0.0, params[ADAPT] != 0.0
    if params[PARTNER_VIEW] == 0.0:
        forget_partner_hands_nb(view)
    if view.players == 2 and view.stock_size <= 2 and (adapt or params[OPPONENT_RANDOM] <= 0.0):
        return expert_play_nb(view, use_signals)  # exact from the last draw on
    means = np.zeros(MAX_HAND, dtype=np.float64)
    card_means_nb(view, params, rng, data, means)
    best, best_key = 0, -1e300
    for k in range(view.n_hand):
        key = means[k] - 1e-9 * throw_cost_nb(view.hand[k], view.trump_suit)  # ties: the cheapest
        if key > best_key:
            best, best_key = k, key
    return view.hand[best]


@njit(cache=True)
def card_means_nb(view, params, rng, data, means):
    """The search's value of each card of the hand, into ``means[k]`` for ``view.hand[k]``:
    a playout's mean result (win 1, draw 1/2, plus ``points_weight`` per point), with the
    policy prior added where there is one. ``pimc_nb`` plays the best; the analysis of
    moves (sim/present/analyse.py) values every card with it."""
    samples, rollouts, points_weight = int(params[SAMPLES]), int(params[ROLLOUTS]), params[POINTS_WEIGHT]
    use_signals, adapt = params[SIGNALS] != 0.0, params[ADAPT] != 0.0
    weighing = weighing_nb(
        params[INFERENCE],
        data,
        params[POLICY_INFERENCE] != 0.0,
        params[AUCTION_INFERENCE] != 0.0,
        params[BID_THRESHOLD],
    )
    search = start_search_nb(view, use_signals, weighing, adapt, samples, rng)
    learned = learned_playouts_nb(view, params, data)
    if learned.cut_tricks > 0:
        points_weight = 0.0  # every playout scored alike: by the win (Learned)
    results = np.zeros((samples, MAX_HAND), dtype=np.float64)  # per sampled deal and card
    dealt = 0
    while dealt < samples:
        n_stock = deal_next_nb(view, search, dealt, use_signals, adapt, params[OPPONENT_RANDOM], rng)
        orders = rollouts if _playouts_vary_nb(view, n_stock, search.randomness, search.sizes) else 1
        for rollout in range(orders):
            if rollout > 0:
                shuffle_nb(search.stock, n_stock - 1, rng)  # another order of the face-down stock
            for k in range(view.n_hand):
                results[dealt, k] += _try_card_nb(view, k, search, n_stock, points_weight, rng, learned) * (
                    rollouts / orders
                )
        dealt += 1
        if dealt >= FIRST_LOOK and dealt % LOOK_EVERY == 0 and _clearly_best_nb(results, dealt, view.n_hand, rollouts):
            break
    for k in range(view.n_hand):
        means[k] = 0.0
        for sample in range(dealt):
            means[k] += results[sample, k] / (dealt * rollouts)
    prior = params[POLICY_PRIOR] if has_policy_nb(data) else 0.0
    if prior > 0.0:
        add_policy_prior_nb(view, data, prior, means)


@njit(cache=True)
def add_policy_prior_nb(view, data, prior, means):
    """Adds to each card's mean result ``prior`` times the learned policy's probability of
    it: the search overrules the policy only where its playouts find a card better by more
    than the policy's preference (few samples leave the means noisy; the policy is not)."""
    logits = np.empty(N_CARDS, dtype=np.float64)
    policy_logits_nb(view, data, logits, new_work_nb(data))
    weights = softmax_weights_nb(logits, view.n_hand, 1.0)
    total = weights.sum()
    for k in range(view.n_hand):
        means[k] += prior * weights[k] / total


@njit(cache=True)
def learned_playouts_nb(view, params, data):
    """What the learned networks do in this decision's playouts (playout_nb.Learned): cut
    them after ``value_tricks`` tricks where the data holds a value network and the stock
    lasts that long (a playout cuts only while it lasts: each trick draws a card a seat);
    play the learned policy with ``playout_policy`` where it holds one (not at Briscola
    Chiamata, whose views of the auction the playouts do not keep)."""
    tricks = int(params[VALUE_TRICKS]) if has_value_nb(data) else 0
    if tricks * view.players >= view.stock_size:
        tricks = 0
    policy = params[PLAYOUT_POLICY] != 0.0 and has_policy_nb(data) and view.players != CHIAMATA_PLAYERS
    if tricks == 0 and not policy:  # (the data itself, as the type of a Learned has it: read-only)
        return Learned(0, False, np.empty(1, dtype=VIEW_DTYPE), data, no_work_nb(), np.empty(0, dtype=np.float64),
                       False, False)  # fmt: skip
    signals, partner_hands = False, False
    for seat in range(view.players):
        signals |= view.partner_trumps[seat] >= 0
        partner_hands |= view.partner_hands[seat, 0] >= 0
    return Learned(tricks, policy, np.empty(1, dtype=VIEW_DTYPE), data, new_work_nb(data),
                   np.empty(N_CARDS, dtype=np.float64), signals, partner_hands)  # fmt: skip


@njit(cache=True, inline="always")
def _playouts_vary_nb(view, n_stock, randomness, sizes):
    """Whether playouts of one sampled deal can differ: a face-down stock to reorder, or
    a seat that may play at random before exact search takes over (right after this
    trick, when it applies then: only a seat yet to play this trick)."""
    if n_stock > 1:
        return True
    left = -(view.players - view.n_table)  # cards in hand once this trick is over
    for seat in range(view.players):
        left += sizes[seat]
    searched_next = left <= SEARCH_CARDS
    for seat in range(view.players):
        position = (seat - view.leader) % view.players
        if randomness[seat] > 0.0 and (position > view.n_table or not searched_next):
            return True
    return False


@njit(cache=True)
def _clearly_best_nb(results, n, n_cards, rollouts):
    """Whether the card with the best total over the first ``n`` sampled deals is
    clearly the best: against every other card, its mean gain per deal (paired, on the
    same deals, each deal's total over its ``rollouts``) is at least CLEAR_Z standard
    errors above -INDIFFERENT a playout."""
    best, best_total = 0, -np.inf
    for k in range(n_cards):
        total = results[:n, k].sum()
        if total > best_total:
            best, best_total = k, total
    for k in range(n_cards):
        if k == best:
            continue
        gains = results[:n, best] - results[:n, k]
        mean = gains.mean()
        if mean + INDIFFERENT * rollouts < CLEAR_Z * np.sqrt(gains.var() / (n - 1)):
            return False
    return True


@njit(cache=True)
def _try_card_nb(view, k, search, n_stock, points_weight, rng, learned):
    """The result for this seat's side of playing its k-th card on the search's sampled deal."""
    reset_playout_nb(view, search)
    playout = search.playout
    hands, n_hand = playout.hands, playout.n_hand
    playout.plays[view.n_table] = take_nb(hands, n_hand, view.seat, k)
    return play_out_nb(
        view, hands, n_hand, playout.plays, view.n_table + 1, view.leader, search.stock, 0, n_stock, playout.points,
        points_weight, playout.stack, playout.sides, playout.search_sides, search.randomness, rng, learned,
    )  # fmt: skip


@njit(cache=True)
def pimc_bid_nb(view, params, rng, data):
    """Briscola Chiamata's bids: as ``expert``'s, at this strategy's own ``bid_threshold``."""
    return bid_at_threshold_nb(view, params[BID_THRESHOLD])


@njit(cache=True)
def pimc_call_nb(view, params, rng, data):
    """The call: ``expert``'s (this signature: pimc's functions take its data)."""
    return expert_call_nb(view, params, rng)
