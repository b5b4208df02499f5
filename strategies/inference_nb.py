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

How far a seat follows the policy (its trust, from 0: at random, to 1: always the
policy's best card) can itself be inferred: each trust of ``TRUST_GRID`` is as likely as
the mean weight it gives the worlds dealt (``trust_posterior_nb``), and a seat is
modelled as playing at random as often as its trust is likely to be low.
"""

import numpy as np
from numba import njit

from kernels.enums import MAX_HAND
from kernels.rng_nb import rng_below_nb, rng_uniform_nb
from kernels.rules_nb import hand_size_nb
from strategies.knowledge_nb import pack_size_nb
from strategies.policy_nb import model_share_nb


@njit(cache=True)
def world_log_weights_nb(view, hands, n_hand, sides, trusts, log_weights, rng, past):
    """``log_weights[seat, j]``: the log-probability of ``seat``'s plays so far in the
    world ``hands[seat, :n_hand[seat]]`` (sides ``sides``) under the model with trust
    ``trusts[j]``, for every seat but this one (0 for this one). ``past``: a work array
    of PAST_HAND cards."""
    log_weights[:, :] = 0.0
    for seat in range(view.players):
        if seat != view.seat:
            _seat_log_weights_nb(view, seat, hands[seat], n_hand[seat], sides, trusts, rng, past, log_weights[seat])


# 9 arguments: one seat's row of world_log_weights_nb's arrays, and its work array.
@njit(cache=True)
def _seat_log_weights_nb(view, seat, hand, n, sides, trusts, rng, past, log_weights):
    """The log-probabilities of ``seat``'s plays, for each trust, going back trick by
    trick from its hand now (``hand[:n]``) along one random draw history."""
    players = view.players
    for k in range(n):
        past[k] = hand[k]
    likelihoods = log_weights  # products of the probabilities first, one log at the end
    likelihoods[:] = 1.0
    drawing_tricks = draw_rounds_nb(players)  # tricks 0 .. drawing_tricks - 1 end with a draw
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
        table = view.history[start : start + position]
        share = model_share_nb(past, n, card, table, position, view.trump_suit, players, leader, seat, sides)
        for j in range(trusts.shape[0]):
            likelihoods[j] *= trusts[j] * share + (1.0 - trusts[j]) / n
    for j in range(trusts.shape[0]):
        log_weights[j] = np.log(likelihoods[j])  # trust <= 0.99: at least 0.01 / 8 a play, no underflow


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
    return (pack_size_nb(players) - hand_size_nb(players) * players) // players


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


PAST_HAND = MAX_HAND  # the work array ``past`` of world_log_weights_nb: cards of one hand
# The trusts an opponent's play is judged against when its trust is inferred too: from a
# player at random (0) to one that nearly always plays as the policy.
TRUST_GRID = np.array([0.0, 0.25, 0.5, 0.75, 0.95])
RANDOM_TRUST = 0.25  # a seat whose trust is this or less is modelled as playing at random
