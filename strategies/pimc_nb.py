"""``pimc``: determinized Monte Carlo search (jitted code only).

For each of up to ``samples`` deals of the hidden cards consistent with everything its
player has seen, and ``rollouts`` orders of the face-down stock, every card of the hand
is tried and the deal played out: by the playout policy (``policy_nb``), then by exact
search once the stock is empty and at most SEARCH_CARDS cards are left (this seat's side
against the others: at 3 players the two others together). The card with the best mean
result (win 1, draw 1/2, plus a little for points) is played. Every card is tried on the
same deals, and sampling stops early once one card is clearly better than every other.
With 2 players the end is searched exactly from the last draw on, as by ``expert``.

Which deals are sampled: uniformly among those consistent with the view, or, with
``inference`` > 0, weighed by how likely the opponent model makes the plays seen so far
(``inference_nb``). Under signals=trumps (unless ``signals`` is off) each signalling
partner holds exactly the trump honours it shows. At Briscola Chiamata a sampled deal
also says who holds the called card, and so who the caller's partner is: each playout is
scored for the sides of its own deal (the caller's side wins with its target).

How the others play in playouts: by the policy, except that an opponent plays a card at
random with probability ``opponent_random`` (a model of a good opponent shies away from
lines a weak one rarely punishes); with ``adapt``, each other seat's chance of a random
card is inferred from its own plays instead.
"""

import numpy as np
from numba import njit

from kernels.enums import CHIAMATA_PLAYERS, MAX_HAND, MAX_PLAYERS, MAX_TABLE, N_CARDS, TOTAL_POINTS
from kernels.rng_nb import rng_below_nb, rng_uniform_nb
from kernels.rules_nb import trick_points_nb, winning_position_nb
from strategies.endgame_nb import new_hands_nb, new_stack_nb, search_nb
from strategies.expert_nb import expert_play_nb, forget_partner_hands_nb, throw_cost_nb
from strategies.inference_nb import (
    PAST_HAND,
    RANDOM_TRUST,
    TRUST_GRID,
    resample_nb,
    trust_posterior_nb,
    world_log_weights_nb,
)
from strategies.knowledge_nb import (
    UNSEEN,
    card_places_nb,
    hand_sizes_nb,
    is_trump_honour_nb,
    mark_signalled_nb,
    signalled_by_nb,
)
from strategies.policy_nb import policy_choice_nb

SAMPLES, ROLLOUTS, POINTS_WEIGHT, OPPONENT_RANDOM, SIGNALS, PARTNER_VIEW, INFERENCE, ADAPT = range(8)  # parameters
CANDIDATES = 4  # deals dealt uniformly per sample kept, when inferring
# The search stops early once one card is clearly best: looked at after FIRST_LOOK sampled
# deals, then every LOOK_EVERY, it must lead every other card by CLEAR_Z standard errors,
# a difference smaller than INDIFFERENT (of a win) not counting.
FIRST_LOOK, LOOK_EVERY, CLEAR_Z, INDIFFERENT = 16, 8, 2.0, 0.05
SEARCH_CARDS = 12  # exact search takes over once the hands hold this many cards or fewer


@njit(cache=True)
def pimc_nb(view, params, rng):
    if view.n_hand == 1:
        return view.hand[0]
    samples, rollouts, points_weight = int(params[SAMPLES]), int(params[ROLLOUTS]), params[POINTS_WEIGHT]
    use_signals, adapt = params[SIGNALS] != 0.0, params[ADAPT] != 0.0
    if params[PARTNER_VIEW] == 0.0:
        forget_partner_hands_nb(view)
    if view.players == 2 and view.stock_size <= 2 and (adapt or params[OPPONENT_RANDOM] <= 0.0):
        return expert_play_nb(view, use_signals)  # exact from the last draw on
    places = np.empty(N_CARDS, dtype=np.int64)
    card_places_nb(view, places)
    if use_signals:
        mark_signalled_nb(view, places)
    sizes = np.zeros(MAX_PLAYERS, dtype=np.int64)
    hand_sizes_nb(view, sizes)
    hands, n_hand = new_hands_nb()
    stock = np.empty(N_CARDS, dtype=np.int64)
    work = _new_playout_nb()
    randomness = np.zeros(MAX_PLAYERS, dtype=np.float64)  # each seat's chance of a random card in playouts
    worlds = np.empty(samples, dtype=np.uint64)  # the random state each sampled deal is dealt from
    inferred = view.n_played > 0 and (adapt or params[INFERENCE] > 0.0)
    if inferred:
        _infer_worlds_nb(
            view, places, sizes, rng, hands, n_hand, stock, use_signals, work[5], params, worlds, randomness
        )
    elif adapt:
        randomness[:] = (TRUST_GRID <= RANDOM_TRUST).mean()  # nothing seen yet: every trust alike
    results = np.zeros((samples, MAX_HAND), dtype=np.float64)  # per sampled deal and card
    dealt = 0
    while dealt < samples:
        if inferred:
            playout_state, rng[0] = rng[0], worlds[dealt]
            n_stock = _determinize_nb(view, places, sizes, rng, hands, n_hand, stock, use_signals)
            rng[0] = playout_state
        else:
            n_stock = _determinize_nb(view, places, sizes, rng, hands, n_hand, stock, use_signals)
        _world_sides_nb(view, hands, n_hand, work[5])
        for seat in range(view.players):
            work[6][seat] = 0 if work[5][seat] == work[5][view.seat] else 1
        if not adapt:
            _opponents_random_nb(view.seat, work[5], params[OPPONENT_RANDOM], randomness)
        randomness[view.seat] = 0.0
        orders = rollouts if _playouts_vary_nb(view, n_stock, randomness, sizes) else 1
        for rollout in range(orders):
            if rollout > 0:
                _shuffle_nb(stock, n_stock - 1, rng)  # another order of the face-down stock
            for k in range(view.n_hand):
                results[dealt, k] += _try_card_nb(
                    view, k, hands, n_hand, stock, n_stock, work, points_weight, randomness, rng
                ) * (rollouts / orders)
        dealt += 1
        if dealt >= FIRST_LOOK and dealt % LOOK_EVERY == 0 and _clearly_best_nb(results, dealt, view.n_hand):
            break
    totals = np.zeros(MAX_HAND, dtype=np.float64)
    for k in range(view.n_hand):
        for sample in range(dealt):
            totals[k] += results[sample, k]
    best, best_key = 0, -1e300
    for k in range(view.n_hand):
        key = totals[k] - 1e-9 * throw_cost_nb(view.hand[k], view.trump_suit)  # ties: the cheapest
        if key > best_key:
            best, best_key = k, key
    return view.hand[best]


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


@njit(cache=True, inline="always")
def _opponents_random_nb(me, sides, opponent_random, randomness):
    """Without inferred trust: every opponent (another side in this deal) plays a card
    at random with probability ``opponent_random``; partners never."""
    for seat in range(randomness.shape[0]):
        randomness[seat] = opponent_random if sides[seat] != sides[me] else 0.0


@njit(cache=True)
def _clearly_best_nb(results, n, n_cards):
    """Whether the card with the best total over the first ``n`` sampled deals is
    clearly the best: against every other card, its mean gain per deal (paired, on the
    same deals) is at least CLEAR_Z standard errors above -INDIFFERENT."""
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
        if mean + INDIFFERENT < CLEAR_Z * np.sqrt(gains.var() / (n - 1)):
            return False
    return True


@njit(cache=True)
def _infer_worlds_nb(view, places, sizes, rng, hands, n_hand, stock, use_signals, sides, params, worlds, randomness):
    """Fills ``worlds`` with the random states that deal the sampled deals: of
    CANDIDATES per sample dealt uniformly, each is kept in proportion to how likely the
    opponent model makes the plays seen so far (``inference_nb``). With ``adapt`` on,
    each other seat's trust in the model is inferred first: the chance that it is low
    sets the seat's ``randomness`` in playouts, and the weights use the likeliest trust, capped
    at ``inference``; without, every seat is weighed with trust ``inference``."""
    n_candidates = CANDIDATES * worlds.shape[0]
    trusts = TRUST_GRID if params[ADAPT] != 0.0 else np.full(1, params[INFERENCE])
    states = np.empty(n_candidates, dtype=np.uint64)
    seat_weights = np.empty((n_candidates, MAX_PLAYERS, trusts.shape[0]), dtype=np.float64)
    past = np.empty(PAST_HAND, dtype=np.int64)
    for i in range(n_candidates):
        states[i] = rng[0]
        _determinize_nb(view, places, sizes, rng, hands, n_hand, stock, use_signals)
        _world_sides_nb(view, hands, n_hand, sides)
        world_log_weights_nb(view, hands, n_hand, sides, trusts, seat_weights[i], rng, past)
    used = np.zeros(MAX_PLAYERS, dtype=np.int64)  # the trust each seat is weighed with
    if params[ADAPT] != 0.0:
        posterior = np.empty(trusts.shape[0], dtype=np.float64)
        for seat in range(view.players):
            if seat != view.seat:
                randomness[seat] = trust_posterior_nb(seat_weights, n_candidates, seat, trusts, posterior)
                used[seat] = min(np.argmax(posterior), _last_at_most_nb(trusts, params[INFERENCE]))
    log_weights = np.zeros(n_candidates, dtype=np.float64)
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


@njit(cache=True, inline="always")
def _new_playout_nb():
    """Work arrays of one playout: hands and their sizes, the trick, points per seat, search
    stack, each seat's side in the sampled deal, and its side in the search (0: on the
    side of this seat, 1: against it)."""
    return (np.empty((MAX_PLAYERS, MAX_HAND + 1), dtype=np.int64), np.empty(MAX_PLAYERS, dtype=np.int64),
            np.empty(N_CARDS + MAX_TABLE, dtype=np.int64), np.empty(MAX_PLAYERS, dtype=np.int64), new_stack_nb(),
            np.empty(MAX_PLAYERS, dtype=np.int64), np.empty(MAX_PLAYERS, dtype=np.int64))  # fmt: skip


@njit(cache=True)
def _world_sides_nb(view, hands, n_hand, sides):
    """Each seat's side in a sampled deal: itself with 2 and 3 players, seat % 2 with 4 and
    6; at Briscola Chiamata 0 for the caller and the holder of the called card (the
    partner, as the view shows it once known), 1 for the defenders."""
    players = view.players
    for seat in range(players):
        sides[seat] = seat % 2 if players == 4 or players == 6 else seat
    if players != CHIAMATA_PLAYERS:
        return
    partner = view.partner
    for seat in range(players):
        for k in range(n_hand[seat]):
            if hands[seat, k] == view.called:
                partner = seat
    for seat in range(players):
        sides[seat] = 0 if seat == view.caller or seat == partner else 1


@njit(cache=True)
def _determinize_nb(view, places, sizes, rng, hands, n_hand, stock, use_signals):
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
    _shuffle_nb(unseen, n_unseen, rng)
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
        _shuffle_nb(unseen, n_unseen, rng)
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
def _shuffle_nb(cards, n, rng):
    for i in range(n - 1, 0, -1):
        j = rng_below_nb(rng, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@njit(cache=True)
def _try_card_nb(view, k, hands, n_hand, stock, n_stock, work, points_weight, randomness, rng):
    """The result for this seat's side of playing its k-th card on one determinized deal."""
    players = view.players
    w_hands, w_n_hand, plays, points, stack, sides, search_sides = work
    for seat in range(players):
        w_n_hand[seat] = n_hand[seat]
        for j in range(n_hand[seat]):
            w_hands[seat, j] = hands[seat, j]
        points[seat] = view.points[seat]
    for j in range(view.n_table):
        plays[j] = view.table[j]
    me = view.seat
    card = w_hands[me, k]
    w_hands[me, k] = w_hands[me, w_n_hand[me] - 1]
    w_n_hand[me] -= 1
    plays[view.n_table] = card
    drawn = 0
    return _play_out_nb(
        view,
        w_hands,
        w_n_hand,
        plays,
        view.n_table + 1,
        stock,
        drawn,
        n_stock,
        points,
        points_weight,
        stack,
        sides,
        search_sides,
        randomness,
        rng,
    )


@njit(cache=True)
def _play_out_nb(
    view, hands, n_hand, plays, n_table, stock, drawn, n_stock, points, points_weight, stack, sides, search_sides,
    randomness, rng,
):  # fmt: skip
    """Plays the deal to its end (the policy, then exact search) and scores it for this
    seat. A seat plays a card at random with probability ``randomness[seat]``."""
    players, trump, me = view.players, view.trump_suit, view.seat
    leader = view.leader
    while True:
        while n_table < players:  # the rest of the trick
            seat = (leader + n_table) % players
            if randomness[seat] > 0.0 and rng_uniform_nb(rng) < randomness[seat]:
                plays[n_table] = _take_nb(hands, n_hand, seat, rng_below_nb(rng, n_hand[seat]))
            else:
                plays[n_table] = _rollout_take_nb(hands, n_hand, seat, plays, n_table, trump, players, leader, sides)
            n_table += 1
        winner = (leader + winning_position_nb(plays, players, trump)) % players
        points[winner] += trick_points_nb(plays, players)
        if drawn < n_stock:
            for j in range(players):
                seat = (winner + j) % players
                hands[seat, n_hand[seat]] = stock[drawn + j]
                n_hand[seat] += 1
            drawn += players
        leader, n_table = winner, 0
        left = 0
        for seat in range(players):
            left += n_hand[seat]
        if left == 0:
            break
        if drawn == n_stock and left <= SEARCH_CARDS:  # the side of ``me`` against the others
            rest = TOTAL_POINTS
            for seat in range(players):
                rest -= points[seat]
            mine = search_nb(
                hands, n_hand, plays, 0, 0, leader, players, trump, stock, drawn, n_stock, search_sides, 0, stack
            )
            points[me] += mine
            points[_leading_opponent_nb(points, players, sides, me)] += rest - mine
            break
    return _score_points_nb(points, players, me, points_weight, sides, view.target)


@njit(cache=True, inline="always")
def _rollout_take_nb(hands, n_hand, seat, table, n_table, trump, players, leader, sides):
    """The playout policy's card for ``seat`` (``policy_nb``), taken out of its hand."""
    k = policy_choice_nb(hands[seat], n_hand[seat], table, n_table, trump, players, leader, seat, sides)
    return _take_nb(hands, n_hand, seat, k)


@njit(cache=True, inline="always")
def _take_nb(hands, n_hand, seat, k):
    """The k-th card of ``seat``, taken out of its hand (the last card fills the slot)."""
    card = hands[seat, k]
    n = n_hand[seat]
    hands[seat, k] = hands[seat, n - 1]
    n_hand[seat] = n - 1
    return card


@njit(cache=True, inline="always")
def _leading_opponent_nb(points, players, sides, me):
    """The seat of another side than ``me`` with the most points: the exact search
    plays all the others as one side, so what they take goes to the most dangerous."""
    leading, most = -1, -1
    for seat in range(players):
        if sides[seat] != sides[me] and points[seat] > most:
            leading, most = seat, points[seat]
    return leading


@njit(cache=True, inline="always")
def _score_nb(mine, theirs, points_weight):
    result = 1.0 if mine > theirs else (0.5 if mine == theirs else 0.0)
    return result + points_weight * (mine - theirs) / TOTAL_POINTS


@njit(cache=True)
def _score_points_nb(points, players, me, points_weight, sides, target):
    """Score from the points per seat: by team with 4 and 6 players; with 3, against the
    best of the two others; at Briscola Chiamata by side, the caller's winning with its
    ``target``."""
    if players == CHIAMATA_PLAYERS:
        callers = 0
        for seat in range(players):
            callers += points[seat] if sides[seat] == 0 else 0
        mine = callers if sides[me] == 0 else TOTAL_POINTS - callers
        won = callers >= target if sides[me] == 0 else callers < target
        return (1.0 if won else 0.0) + points_weight * (2 * mine - TOTAL_POINTS) / TOTAL_POINTS
    if players == 3:
        theirs = 0
        for seat in range(3):
            if seat != me:
                theirs = max(theirs, points[seat])
        return _score_nb(points[me], theirs, points_weight)
    mine = 0
    for seat in range(players):
        mine += points[seat] if seat % 2 == me % 2 else 0
    return _score_nb(mine, TOTAL_POINTS - mine, points_weight)
