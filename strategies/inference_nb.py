"""Inference of the hidden hands from the plays the other seats have made (jitted code
only).

A sampled world (every hidden hand dealt) is weighed by the probability the opponent
model (``policy_nb.play_probability_nb``) gives every play the other seats have made so
far. Weighing a play needs the hand it was made from, which the world does not say
whole: going back from the hand the world deals a seat, each card it played is put back,
and each card it drew is taken out. Which card of the hand was the one drawn is not
known; it is chosen at random, every card alike, which is what a shuffled stock makes
all draw orders: so the weight is the probability of the plays along one random draw
history, and its mean over histories is the world's likelihood. Resampling worlds in
proportion to their weights then draws them from the posterior given the plays.

The model is the hand-written policy's softmax (``policy_nb.model_share_nb``; at Briscola
Chiamata each play made before the called card was out, by a seat not holding it, as by
a seat that knew no partner), or, with a
``Weighing`` whose ``learned`` is on, the learned policy network's (``net_nb``) from the
view the seat had when it played (``past_view_nb``): its hand then, as the draw history
makes it, and the public play up to then. Those views show no partner's hand or signal
(the sampled world does not say what they were), and no ``briscola`` once the view no
longer shows it (as networks reading the flat encoding's version 1 were always given
it here); the face-up card and who had taken it by then are as the seat saw them.

How far a seat follows the policy (its trust, from 0: at random, to 1: always the
policy's best card) can itself be inferred: each trust of ``TRUST_GRID`` is as likely as
the mean weight it gives the worlds dealt (``trust_posterior_nb``), and a seat is
modelled as playing at random as often as its trust is likely to be low.

At Briscola Chiamata the auction can be weighed too (``auction_log_weight_nb``): each
other seat modelled as bidding by ``auction_nb``'s model, the caller's hand then leans
to its called suit, and the hands of those who passed away from strength.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.enums import CARD_SUIT, CHIAMATA_PLAYERS, MAX_HAND, MAX_PLAYERS, MAX_TABLE, N_CARDS, N_SUITS, VIEW_DTYPE
from kernels.rng_nb import rng_below_nb, rng_uniform_nb
from kernels.rules_nb import trick_points_nb
from strategies.auction_nb import call_gains_nb
from strategies.knowledge_nb import called_card_at_nb, first_stock_nb, sides_known_nb
from strategies.net_nb import has_policy_nb, new_work_nb, no_work_nb, policy_logits_nb, softmax_weights_nb
from strategies.policy_nb import model_share_nb

PAST_HAND = MAX_HAND  # the work array ``Weighing.past``: cards of one hand
# How the plays seen are weighed: with ``trust`` in the model (0: uniform), by the
# learned policy in ``data`` if ``learned``, else by the hand-written one. The rest are
# work arrays: the network's (``work``, its ``logits``), the view rebuilt for a past play
# (``then``, one VIEW_DTYPE element) and the hand it was made from (``past``).
# At Briscola Chiamata, with ``auction`` on, the auction seen is weighed too, each seat
# modelled as bidding by ``auction_nb``'s model at ``bid_threshold`` (auction_log_weight_nb).
Weighing = namedtuple(
    "Weighing", ["trust", "learned", "data", "work", "then", "logits", "past", "auction", "bid_threshold"]
)


@njit(cache=True)
def weighing_nb(trust, data, learned, auction, bid_threshold):
    """A ``Weighing`` (made once per decision): by the learned policy if ``learned`` and
    ``data`` holds one, else by the hand-written rules; the auction too if ``auction``."""
    learned = learned and has_policy_nb(data)
    work = new_work_nb(data) if learned else no_work_nb()
    return Weighing(trust, learned, data, work, np.empty(1, dtype=VIEW_DTYPE), np.empty(N_CARDS, dtype=np.float64),
                    np.empty(PAST_HAND, dtype=np.int64), auction, bid_threshold)  # fmt: skip


@njit(cache=True)
def by_rules_nb(trust):
    """A ``Weighing`` by the hand-written policy, for searches without networks."""
    return weighing_nb(trust, np.empty(0, dtype=np.float32), False, False, 0.0)


@njit(cache=True, inline="always")
def weighs_auction_nb(view, weighing):
    """Whether ``weighing`` weighs this view's auction: Briscola Chiamata, a call made."""
    return weighing.auction and view.players == CHIAMATA_PLAYERS and view.caller >= 0


@njit(cache=True)
def auction_log_weight_nb(view, hands, n_hand, weighing):
    """The log-probability of the auction seen (at Briscola Chiamata) in the world
    ``hands``, every other seat modelled as bidding as ``auction_nb`` does at
    ``weighing.bid_threshold``, with ``weighing.trust`` in that model (else a bid or a
    pass is a coin's toss and a call any suit's). From the hand each seat bid from (its
    hand now and the cards it has played: nothing is drawn), the view shows: the caller
    called the card it did at the final bid, its best call, worth bidding; each other
    seat's last bid was worth bidding; and no seat but the caller found the level above
    the final bid worth bidding (a seat passes where the next level is not; a call's
    worth falls as the level rises). ``AUCTION_SOFTNESS`` makes each a soft threshold."""
    players, trust, threshold = view.players, weighing.trust, weighing.bid_threshold
    hand, gains = weighing.past, np.empty(N_SUITS, dtype=np.float64)
    above = view.bid + 1 if view.bid < view.max_bid else -1  # the level nobody else would bid
    log_weight = 0.0
    for seat in range(players):
        if seat == view.seat:
            continue
        n = dealt_hand_nb(view, seat, hands[seat], n_hand[seat], hand)
        if seat == view.caller:
            call_gains_nb(hand, n, view.bid, gains)
            called = CARD_SUIT[view.called]
            log_weight += np.log(trust * _call_share_nb(gains, called) + (1.0 - trust) / N_SUITS)
            log_weight += np.log(trust * _worth_bidding_nb(gains[called], threshold) + (1.0 - trust) * 0.5)
            continue
        if view.seat_bids[seat] >= 0:
            call_gains_nb(hand, n, view.seat_bids[seat], gains)
            log_weight += np.log(trust * _worth_bidding_nb(gains.max(), threshold) + (1.0 - trust) * 0.5)
        if above >= 0:
            call_gains_nb(hand, n, above, gains)
            log_weight += np.log(trust * (1.0 - _worth_bidding_nb(gains.max(), threshold)) + (1.0 - trust) * 0.5)
    return log_weight


@njit(cache=True)
def dealt_hand_nb(view, seat, hand_now, n_now, out):
    """Fills ``out`` with the hand ``seat`` was dealt at Briscola Chiamata (where nothing
    is drawn): ``hand_now[:n_now]`` and every card it has played. Returns its size."""
    n = 0
    for k in range(n_now):
        out[n] = hand_now[k]
        n += 1
    for k in range(view.n_played):
        card = view.history[k]
        if view.played_by[card] == seat:
            out[n] = card
            n += 1
    return n


@njit(cache=True, inline="always")
def _worth_bidding_nb(gain, threshold):
    """How likely a call expected to gain ``gain`` game points is bid at ``threshold``."""
    return 1.0 / (1.0 + np.exp(-(gain - threshold) / AUCTION_SOFTNESS))


@njit(cache=True, inline="always")
def _call_share_nb(gains, suit):
    """How likely the caller calls in ``suit``: a softmax of the calls' expected gains."""
    top = gains.max()
    total = 0.0
    for s in range(N_SUITS):
        total += np.exp((gains[s] - top) / AUCTION_SOFTNESS)
    return np.exp((gains[suit] - top) / AUCTION_SOFTNESS) / total


@njit(cache=True)
def world_log_weights_nb(view, hands, n_hand, sides, trusts, log_weights, rng, weighing):
    """``log_weights[seat, j]``: the log-probability of ``seat``'s plays so far in the
    world ``hands[seat, :n_hand[seat]]`` (sides ``sides``) under the model of
    ``weighing`` with trust ``trusts[j]``, for every seat but this one (0 for this one)."""
    log_weights[:, :] = 0.0
    for seat in range(view.players):
        if seat != view.seat:
            _seat_log_weights_nb(view, seat, hands[seat], n_hand[seat], sides, trusts, rng, weighing, log_weights[seat])


# 9 arguments: one seat's row of world_log_weights_nb's arrays, and the weighing.
@njit(cache=True)
def _seat_log_weights_nb(view, seat, hand, n, sides, trusts, rng, weighing, log_weights):
    """The log-probabilities of ``seat``'s plays, for each trust, going back trick by
    trick from its hand now (``hand[:n]``) along one random draw history."""
    players, past = view.players, weighing.past
    for k in range(n):
        past[k] = hand[k]
    likelihoods = log_weights  # products of the probabilities first, one log at the end
    likelihoods[:] = 1.0
    drawing_tricks = draw_rounds_nb(players)  # tricks 0 .. drawing_tricks - 1 end with a draw
    called_at = called_card_at_nb(view)  # before it, a seat not holding the called card plays alone
    alone = np.arange(MAX_PLAYERS) if called_at >= 0 else sides
    for trick in range(view.trick, -1, -1):
        if trick < view.trick and trick < drawing_tricks:  # before the draw after this trick
            k = rng_below_nb(rng, n)
            past[k] = past[n - 1]
            n -= 1
        leader = trick_leader_nb(view, trick)
        start = trick * players
        position = (seat - leader) % players
        if start + position >= view.n_played:  # not played yet in the current trick
            continue
        card = view.history[start + position]
        past[n] = card
        n += 1
        if weighing.learned:
            share = _learned_share_nb(view, seat, trick, position, n, weighing)
        else:
            table = view.history[start : start + position]
            known = sides_known_nb(start + position < called_at, past, n, view.called, sides, alone)
            share = model_share_nb(past, n, card, table, position, view.trump_suit, players, leader, seat, known)
        for j in range(trusts.shape[0]):
            likelihoods[j] *= trusts[j] * share + (1.0 - trusts[j]) / n
    for j in range(trusts.shape[0]):
        log_weights[j] = np.log(likelihoods[j])  # trust <= 0.99: at least 0.01 / 8 a play, no underflow


@njit(cache=True)
def _learned_share_nb(view, seat, trick, position, n, weighing):
    """The learned policy's probability of the card ``seat`` played ``position``-th in
    ``trick``, from the view it had then, holding ``weighing.past[:n]`` (that card last)."""
    past_view_nb(view, seat, trick, position, weighing.past, n, weighing.then)
    policy_logits_nb(weighing.then[0], weighing.data, weighing.logits, weighing.work)
    weights = softmax_weights_nb(weighing.logits, n, 1.0)
    return weights[n - 1] / weights.sum()


@njit(cache=True)
def past_view_nb(view, seat, trick, position, hand, n, out):
    """Makes ``out[0]`` the view ``seat`` had when it played ``position``-th in ``trick``
    (of this deal, up to ``view``), holding ``hand[:n]``: the public play up to then, the
    points and the stock then; no partner's hand or signal. The ``briscola`` field is as
    ``view`` shows it: while it does, the stock lasted at every earlier play too; once it
    does not, no past view shows it either (kept so: version 1 networks' inferences are
    unchanged). The face-up card's holder shows once the last draw was made by then. At
    Briscola Chiamata the seat knows its partner if the called card was played by then,
    or is in its hand."""
    out[0] = view
    v = out[0]
    players = view.players
    start = trick * players
    v.seat, v.trick, v.leader, v.n_table, v.n_hand = seat, trick, trick_leader_nb(view, trick), position, n
    for j in range(MAX_TABLE):
        v.table[j] = view.history[start + j] if j < position else -1
    for k in range(MAX_HAND):
        v.hand[k] = hand[k] if k < n else -1
    for k in range(start + position, view.n_played):
        v.played_by[view.history[k]] = -1
        v.history[k] = -1
    v.n_played = start + position
    v.points[:] = 0
    for t in range(view.trick):
        if t < trick:
            v.points[view.trick_winners[t]] += trick_points_nb(view.history[t * players : (t + 1) * players], players)
        else:
            v.trick_winners[t] = -1
    v.stock_size = max(0, first_stock_nb(players) - trick * players)  # (the briscola: as the view shows it)
    v.face_up_holder = view.face_up_holder if v.stock_size == 0 else -1
    v.partner_hands[:, :] = -1
    v.partner_trumps[:] = -1
    if players == CHIAMATA_PLAYERS and view.called >= 0:
        v.partner = v.played_by[view.called]
        for k in range(n):
            if hand[k] == view.called:
                v.partner = seat


@njit(cache=True)
def trust_posterior_nb(log_weights, n, seat, trusts, posterior):
    """``posterior[j]``: how likely ``seat`` plays with trust ``trusts[j]`` given its plays,
    from the log-weights ``log_weights[:n, seat, j]`` of ``n`` worlds dealt uniformly
    (each trust's likelihood is its mean weight over them), every trust equally likely
    before. Returns the chance that the seat plays at random, or nearly: that its trust
    is at most RANDOM_TRUST."""
    top = -np.inf
    for i in range(n):
        for j in range(trusts.shape[0]):
            top = max(top, log_weights[i, seat, j])
    total = 0.0
    for j in range(trusts.shape[0]):
        posterior[j] = 0.0
        for i in range(n):
            posterior[j] += np.exp(log_weights[i, seat, j] - top)
        total += posterior[j]
    at_random = 0.0
    for j in range(trusts.shape[0]):
        posterior[j] /= total
        at_random += posterior[j] if trusts[j] <= RANDOM_TRUST else 0.0
    return at_random


@njit(cache=True, inline="always")
def trick_leader_nb(view, trick):
    """The seat that led ``trick`` (the current one or an earlier one)."""
    if trick == view.trick:
        return view.leader
    if trick == 0:
        return view.played_by[view.history[0]]
    return view.trick_winners[trick - 1]


@njit(cache=True, inline="always")
def draw_rounds_nb(players):
    """How many tricks are followed by a draw: the stock dealt out, a card to each seat."""
    return first_stock_nb(players) // players


@njit(cache=True)
def resample_nb(log_weights, n, chosen, m, rng):
    """Fills ``chosen[:m]`` with indices into ``log_weights[:n]``, each drawn with
    probability proportional to its weight (systematic resampling: one uniform draw,
    ``m`` evenly spaced points, indices in increasing order). Flat weights when every
    weight is 0."""
    top = -np.inf
    for i in range(n):
        top = max(top, log_weights[i])
    weights = np.empty(n, dtype=np.float64)
    total = 0.0
    for i in range(n):
        weights[i] = np.exp(log_weights[i] - top) if top > -np.inf else 1.0
        total += weights[i]
    step = total / m
    point = rng_uniform_nb(rng) * step
    i, reached = 0, weights[0]
    for j in range(m):
        while reached <= point and i < n - 1:
            i += 1
            reached += weights[i]
        chosen[j] = i
        point += step


# The trusts an opponent's play is judged against when its trust is inferred too: from a
# player at random (0) to one that nearly always plays as the policy.
TRUST_GRID = np.array([0.0, 0.25, 0.5, 0.75, 0.95])
RANDOM_TRUST = 0.25  # a seat whose trust is this or less is modelled as playing at random
# How sharply the auction is read, in game points: a call expected to gain this much
# above the bidding threshold is bid 73% of the time, and a call this much better than
# another is made e (2.7) times as often.
AUCTION_SOFTNESS = 0.25
