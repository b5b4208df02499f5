"""The deals a search plays on (jitted code only): the hidden cards dealt consistently
with everything a player has seen, uniformly or weighed by the plays seen
(``inference_nb``), and the sides each deal implies.

A sampled deal is ``hands[seat, :n_hand[seat]]`` for every seat and the face-down
``stock`` in drawing order, the face-up briscola last.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.enums import CHIAMATA_PLAYERS, MAX_PLAYERS, N_CARDS
from kernels.rng_nb import rng_below_nb
from strategies.endgame_nb import new_hands_nb
from strategies.inference_nb import (
    RANDOM_TRUST,
    TRUST_GRID,
    auction_log_weight_nb,
    resample_nb,
    trust_posterior_nb,
    weighs_auction_nb,
    world_log_weights_nb,
)
from strategies.knowledge_nb import (
    UNSEEN,
    card_places_nb,
    hand_sizes_nb,
    holder_nb,
    is_trump_honour_nb,
    mark_signalled_nb,
    signalled_by_nb,
)
from strategies.playout_nb import new_playout_nb, opponents_random_nb

CANDIDATES = 4  # deals dealt uniformly per deal kept, when inferring

# A search's state, made once per decision (``start_search_nb``): where each card may be
# (``places``), each hand's size, the sampled deal (``hands``, ``n_hand``, ``stock``), the
# playout's work arrays, each seat's chance of a random card in playouts, and whether the
# deals are inferred (then ``worlds`` holds the random states that deal them).
Search = namedtuple(
    "Search", ["places", "sizes", "hands", "n_hand", "stock", "playout", "randomness", "worlds", "inferred"]
)


@njit(cache=True)
def start_search_nb(view, use_signals, weighing, adapt, n_worlds, rng):
    """What a search needs before its first sampled deal: where each card may be, each
    hand's size, the arrays of a deal and of a playout, each seat's chance of a random
    card in playouts, and (when the plays seen are weighed) the random states of
    ``n_worlds`` inferred deals, weighed by ``weighing`` (an ``inference_nb.Weighing``).
    ``deal_next_nb`` deals from it."""
    places = np.empty(N_CARDS, dtype=np.int64)
    card_places_nb(view, places)
    if use_signals:
        mark_signalled_nb(view, places)
    sizes = np.zeros(MAX_PLAYERS, dtype=np.int64)
    hand_sizes_nb(view, sizes)
    hands, n_hand = new_hands_nb()
    stock = np.empty(N_CARDS, dtype=np.int64)
    playout = new_playout_nb()
    randomness = np.zeros(MAX_PLAYERS, dtype=np.float64)
    worlds = np.empty(n_worlds, dtype=np.uint64)
    seen = view.n_played > 0 or weighs_auction_nb(view, weighing)
    inferred = seen and (adapt or weighing.trust > 0.0)
    if inferred:
        infer_worlds_nb(
            view, places, sizes, rng, hands, n_hand, stock, use_signals, playout.sides, weighing, adapt, worlds, randomness
        )  # fmt: skip
    elif adapt:
        randomness[:] = (TRUST_GRID <= RANDOM_TRUST).mean()  # nothing seen yet: every trust alike
    return Search(places, sizes, hands, n_hand, stock, playout, randomness, worlds, inferred)


@njit(cache=True)
def deal_next_nb(view, search, k, use_signals, adapt, opponent_random, rng):
    """Deals the ``k``-th sampled deal of a search (``start_search_nb``): an inferred one
    in turn, or a fresh uniform one; sets each seat's side in it and in the exact search,
    and (without ``adapt``) each seat's randomness. Returns the stock's size."""
    hands, n_hand, stock = search.hands, search.n_hand, search.stock
    if search.inferred:
        playout_state, rng[0] = rng[0], search.worlds[k % search.worlds.shape[0]]
        n_stock = deal_world_nb(view, search.places, search.sizes, rng, hands, n_hand, stock, use_signals)
        rng[0] = playout_state
    else:
        n_stock = deal_world_nb(view, search.places, search.sizes, rng, hands, n_hand, stock, use_signals)
    sides, search_sides = search.playout.sides, search.playout.search_sides
    world_sides_nb(view, hands, n_hand, sides)
    for seat in range(view.players):
        search_sides[seat] = 0 if sides[seat] == sides[view.seat] else 1
    if not adapt:
        opponents_random_nb(view.seat, sides, opponent_random, search.randomness)
    search.randomness[view.seat] = 0.0
    return n_stock


# 13 arguments: the tests drive it on hand-made arrays, as the searches hold them.
@njit(cache=True)
def infer_worlds_nb(
    view, places, sizes, rng, hands, n_hand, stock, use_signals, sides, weighing, adapt, worlds, randomness
):
    """Fills ``worlds`` with the random states that deal the sampled deals: of
    CANDIDATES per sample dealt uniformly, each is kept in proportion to how likely the
    opponent model of ``weighing`` makes the plays seen so far (``inference_nb``), and
    the auction at Briscola Chiamata when it weighs that. With
    ``adapt`` on, each other seat's trust in the model is inferred first: the chance that
    it is low sets the seat's ``randomness`` in playouts, and the weights use the likeliest
    trust, capped at ``weighing.trust``; without, every seat is weighed with that trust."""
    n_candidates = CANDIDATES * worlds.shape[0]
    trusts = TRUST_GRID if adapt else np.full(1, weighing.trust)
    states = np.empty(n_candidates, dtype=np.uint64)
    seat_weights = np.empty((n_candidates, MAX_PLAYERS, trusts.shape[0]), dtype=np.float64)
    log_weights = np.zeros(n_candidates, dtype=np.float64)  # the auction's first, then the plays'
    auction = weighs_auction_nb(view, weighing)
    for i in range(n_candidates):
        states[i] = rng[0]
        deal_world_nb(view, places, sizes, rng, hands, n_hand, stock, use_signals)
        world_sides_nb(view, hands, n_hand, sides)
        world_log_weights_nb(view, hands, n_hand, sides, trusts, seat_weights[i], rng, weighing)
        if auction:
            log_weights[i] = auction_log_weight_nb(view, hands, n_hand, weighing)
    used = np.zeros(MAX_PLAYERS, dtype=np.int64)  # the trust each seat is weighed with
    if adapt:
        posterior = np.empty(trusts.shape[0], dtype=np.float64)
        for seat in range(view.players):
            if seat != view.seat:
                randomness[seat] = trust_posterior_nb(seat_weights, n_candidates, seat, trusts, posterior)
                used[seat] = min(np.argmax(posterior), _last_at_most_nb(trusts, weighing.trust))
    for i in range(n_candidates):
        for seat in range(view.players):
            log_weights[i] += seat_weights[i, seat, used[seat]]
    chosen = np.empty(worlds.shape[0], dtype=np.int64)
    resample_nb(log_weights, n_candidates, chosen, worlds.shape[0], rng)
    for j in range(worlds.shape[0]):
        worlds[j] = states[chosen[j]]


@njit(cache=True, inline="always")
def _last_at_most_nb(values, bound):
    """Index of the last of the increasing ``values`` at most ``bound`` (0 if none)."""
    last = 0
    for j in range(values.shape[0]):
        if values[j] <= bound:
            last = j
    return last


@njit(cache=True)
def world_sides_nb(view, hands, n_hand, sides):
    """Each seat's side in a sampled deal: itself with 2 and 3 players, seat % 2 with 4 and
    6; at Briscola Chiamata 0 for the caller and the holder of the called card (the
    partner, as the view shows it once known), 1 for the defenders."""
    players = view.players
    for seat in range(players):
        sides[seat] = seat % 2 if players == 4 or players == 6 else seat
    if players != CHIAMATA_PLAYERS:
        return
    holder = holder_nb(hands, n_hand, players, view.called)
    partner = holder if holder >= 0 else view.partner
    for seat in range(players):
        sides[seat] = 0 if seat == view.caller or seat == partner else 1


@njit(cache=True)
def deal_world_nb(view, places, sizes, rng, hands, n_hand, stock, use_signals):
    """Deals the unseen cards at random: to the hands of the seats whose cards are not
    shown, then to the face-down stock, the face-up briscola under it. Returns the
    stock's size. Uniform over the deals consistent with the view: a signalling partner
    (``use_signals``) gets its signalled honours, then the first unseen cards of the
    shuffle that are no trump honour; the rest is shuffled again for the others (else
    the honours it passed over would come first)."""
    unseen = np.empty(N_CARDS, dtype=np.int64)
    n_unseen = 0
    for card in range(N_CARDS):
        if places[card] == UNSEEN:
            unseen[n_unseen] = card
            n_unseen += 1
    shuffle_nb(unseen, n_unseen, rng)
    taken = np.zeros(n_unseen, dtype=np.bool_)
    dealt = np.zeros(MAX_PLAYERS, dtype=np.bool_)  # hands known or dealt in the first pass
    signalling = False
    for seat in range(view.players):
        n_hand[seat] = 0
        dealt[seat] = True
        if seat == view.seat:
            for k in range(view.n_hand):
                hands[seat, k] = view.hand[k]
            n_hand[seat] = view.n_hand
        elif view.partner_hands[seat, 0] >= 0:
            for k in range(view.partner_hands.shape[1]):
                if view.partner_hands[seat, k] >= 0:
                    hands[seat, n_hand[seat]] = view.partner_hands[seat, k]
                    n_hand[seat] += 1
        elif use_signals and view.partner_trumps[seat] >= 0 and sizes[seat] > 0:
            _deal_signalling_nb(view, seat, sizes[seat], unseen, n_unseen, taken, hands, n_hand)
            signalling = True
        else:
            dealt[seat] = False
    if signalling:
        n_unseen = _compact_untaken_nb(unseen, n_unseen, taken)
        shuffle_nb(unseen, n_unseen, rng)
    next_card = 0
    for seat in range(view.players):
        if not dealt[seat]:
            for k in range(sizes[seat]):
                hands[seat, k] = unseen[next_card]
                next_card += 1
            n_hand[seat] = sizes[seat]
    n_stock = view.stock_size
    for k in range(n_stock - 1):
        stock[k] = unseen[next_card]
        next_card += 1
    if n_stock > 0:
        stock[n_stock - 1] = view.briscola
    return n_stock


@njit(cache=True, inline="always")
def _deal_signalling_nb(view, seat, size, unseen, n_unseen, taken, hands, n_hand):
    """A signalling partner's hand: the honours it shows, then unseen cards that are no
    trump honour (it would have shown them), the first untaken of the shuffle."""
    for card in range(N_CARDS):
        if view.played_by[card] < 0 and signalled_by_nb(view, card) == seat:
            hands[seat, n_hand[seat]] = card
            n_hand[seat] += 1
    for j in range(n_unseen):
        if n_hand[seat] == size:
            break
        if not taken[j] and not is_trump_honour_nb(unseen[j], view.trump_suit):
            taken[j] = True
            hands[seat, n_hand[seat]] = unseen[j]
            n_hand[seat] += 1


@njit(cache=True, inline="always")
def _compact_untaken_nb(cards, n, taken):
    """Moves the cards not taken to the front, in order; returns how many."""
    kept = 0
    for k in range(n):
        if not taken[k]:
            cards[kept] = cards[k]
            kept += 1
    return kept


@njit(cache=True, inline="always")
def shuffle_nb(cards, n, rng):
    for i in range(n - 1, 0, -1):
        j = rng_below_nb(rng, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
