"""Playouts of a sampled deal (jitted code only), shared by the search strategies: every
seat plays by the policy (``policy_nb``, or with ``Learned.policy`` the learned policy
network), or at random with its own probability, until the stock is empty and at most
SEARCH_CARDS cards are left (at 2 players, for at most PLAYOUT_TRICKS tricks while the
stock lasts); exact search (``endgame_nb``) then plays the rest, the side of the view's
seat against the others. A playout is scored for the view's seat: win 1, draw 1/2, loss
0, plus ``points_weight`` times the point margin over 120; one cut short is scored as
expected (``expected_score_2p_nb``), or, with ``Learned.cut_tricks``, by the learned
value network from the view the seat would have there. At Briscola Chiamata the policy
plays each seat by the sides it knows: until the called card is played, only its holder
knows who the caller's partner is (exact search, at the end, sees every side).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.engine_nb import trump_honours_nb
from kernels.enums import CHIAMATA_PLAYERS, MAX_HAND, MAX_PLAYERS, MAX_TABLE, N_CARDS, TOTAL_POINTS, VIEW_DTYPE
from kernels.rng_nb import rng_below_nb, rng_uniform_nb
from kernels.rules_nb import take_nb, trick_points_nb, winning_position_nb
from strategies.endgame_nb import new_stack_nb, search_nb
from strategies.knowledge_nb import holder_nb, sides_known_nb
from strategies.net_nb import no_work_nb, policy_logits_nb, value_nb
from strategies.policy_nb import policy_choice_nb

# The work arrays of one playout: hands ``hands[seat, :n_hand[seat]]``, the cards played
# (``plays``: the trick being played, then the exact search's scratch), points taken per
# seat, the exact search's stack, each seat's side in the sampled deal, and its side in
# the exact search (0: on the side of this seat, 1: against it).
Playout = namedtuple("Playout", ["hands", "n_hand", "plays", "points", "stack", "sides", "search_sides"])

# What the learned networks (strategies/net_nb.py) do in a playout:
# - ``cut_tricks`` (0: never): once that many tricks are played, at the view's seat's next
#   turn while the stock lasts, the value network's estimate from the view that seat would
#   then have replaces the rest of the deal (an estimate of a seat to play, as the network
#   was trained). Such playouts are scored by the chance to win alone: the network sees
#   the points taken, so a margin added to it would count them twice.
# - ``policy``: every seat plays the learned policy's card (while the playout's policy
#   plays), from the view it would have: its hand in the sampled deal and the public play.
# ``position``: a one-element VIEW_DTYPE array, the view kept up to date as the playout
# goes (its ``briscola`` as the decision's view showed it, which networks reading the
# flat encoding's version 1 were always given here; ``face_up_holder`` as the playout
# draws); ``data``: the networks' vector; ``work`` its NetWork; ``logits`` the policy's.
# ``signals``, ``partner_hands``: whether a seat's views show its partners' trump signals
# and hands, as the decision's view showed them (the rules are not in a view).
Learned = namedtuple(
    "Learned", ["cut_tricks", "policy", "position", "data", "work", "logits", "signals", "partner_hands"]
)


@njit(cache=True)
def no_learning_nb():
    """Playouts by the hand-written rules alone."""
    return Learned(0, False, np.empty(1, dtype=VIEW_DTYPE), np.empty(0, dtype=np.float32), no_work_nb(),
                   np.empty(0, dtype=np.float64), False, False)  # fmt: skip


SEARCH_CARDS = 12  # exact search takes over once the hands hold this many cards or fewer
# At 2 players a playout stops after PLAYOUT_TRICKS tricks while the stock lasts: the
# policy's play further on adds more noise than knowledge. pimc:samples=16 scores 0.557
# against expert with 3 or 4 tricks, 0.528 with 2, 0.502 played to the end, and is 2.9x
# as fast. At 3 players stopping cost strength (0.513 against 0.559 with 4 tricks, 0.534
# with 8), at 4 too (0.673 against 0.700 with 4; the stock lasts 7 tricks there, 3 at 6
# players): there playouts go to the end.
PLAYOUT_TRICKS = 4
# The chance of winning from a lead of L points with R points still to play, once a
# playout stops: a logistic of L / (WIN_SPREAD * R + 1) (0.1 to 0.35 measured alike).
WIN_SPREAD = 0.2
# At 3 players the search (this seat against the other two together) is used only from
# decisions made once the stock is empty: in playouts from earlier ones it cost 4.7x the
# time for no measured gain (0.801 against random with it, 0.810 without, 400 deals).


@njit(cache=True, inline="always")
def opponents_random_nb(me, sides, opponent_random, randomness):
    """Without inferred trust: every opponent (another side in this deal) plays a card
    at random with probability ``opponent_random``; partners never."""
    for seat in range(randomness.shape[0]):
        randomness[seat] = opponent_random if sides[seat] != sides[me] else 0.0


@njit(cache=True, inline="always")
def new_playout_nb():
    """A ``Playout``'s arrays."""
    return Playout(np.empty((MAX_PLAYERS, MAX_HAND + 1), dtype=np.int64), np.empty(MAX_PLAYERS, dtype=np.int64),
                   np.empty(N_CARDS + MAX_TABLE, dtype=np.int64), np.empty(MAX_PLAYERS, dtype=np.int64),
                   new_stack_nb(), np.empty(MAX_PLAYERS, dtype=np.int64), np.empty(MAX_PLAYERS, dtype=np.int64))  # fmt: skip


@njit(cache=True, inline="always")
def reset_playout_nb(view, search):
    """Starts the search's playout from its sampled deal (``search.hands``) as the view
    stands: every hand, the points taken and the cards on the table."""
    playout = search.playout
    for seat in range(view.players):
        playout.n_hand[seat] = search.n_hand[seat]
        for j in range(search.n_hand[seat]):
            playout.hands[seat, j] = search.hands[seat, j]
        playout.points[seat] = view.points[seat]
    for j in range(view.n_table):
        playout.plays[j] = view.table[j]


# 10 arguments: the trick as the playouts hold it, inlined in their inner loop.
@njit(cache=True, inline="always")
def end_trick_nb(plays, players, trump, leader, points, hands, n_hand, stock, drawn, n_stock):
    """Scores the full trick ``plays[:players]`` led by ``leader`` and deals the next
    cards of the stock, the winner first; returns the winner (who leads next) and how
    many cards of the stock are drawn now."""
    winner = (leader + winning_position_nb(plays, players, trump)) % players
    points[winner] += trick_points_nb(plays, players)
    if drawn < n_stock:
        for j in range(players):
            seat = (winner + j) % players
            hands[seat, n_hand[seat]] = stock[drawn + j]
            n_hand[seat] += 1
        drawn += players
    return winner, drawn


# 17 arguments: the playout's loop takes the search's arrays one by one: given the Search whole, pimc took 1.07-1.11x its CPU (docs/engine.md).
@njit(cache=True)
def play_out_nb(
    view, hands, n_hand, plays, n_table, leader, stock, drawn, n_stock, points, points_weight, stack, sides,
    search_sides, randomness, rng, learned,
):  # fmt: skip
    """Plays the deal on from a trick ``leader`` led, ``plays[:n_table]`` on the table (the
    policy, then exact search), and scores it for the seat of the view. A seat plays a
    card at random with probability ``randomness[seat]``. ``learned``: a Learned."""
    players, trump, me = view.players, view.trump_suit, view.seat
    # At Briscola Chiamata, until the called card is played, a seat other than its holder
    # knows no partner: it plays as if on its own (each seat its own side in ``alone``).
    # (read from the hands: the card tried, or one a tree played, may be the called card)
    hidden = players == CHIAMATA_PLAYERS and holder_nb(hands, n_hand, players, view.called) >= 0
    alone = np.arange(MAX_PLAYERS) if hidden else sides
    tricks = 0
    tracked = learned.cut_tricks > 0 or learned.policy
    if tracked:
        learned.position[0] = view  # the view, to bring up to date as the playout goes
    trick_start = view.n_played - view.n_table  # where the trick's cards lie in the history
    while True:
        while n_table < players:  # the rest of the trick
            seat = (leader + n_table) % players
            if seat == me and 0 < learned.cut_tricks <= tricks and drawn < n_stock:
                show_seat_nb(learned, me, hands, n_hand, plays, n_table, leader, trick_start, points, n_stock - drawn)
                return 1.0 / (1.0 + np.exp(-value_nb(learned.position[0], learned.data, learned.work)))
            if randomness[seat] > 0.0 and rng_uniform_nb(rng) < randomness[seat]:
                plays[n_table] = take_nb(hands, n_hand, seat, rng_below_nb(rng, n_hand[seat]))
            elif learned.policy:
                show_seat_nb(learned, seat, hands, n_hand, plays, n_table, leader, trick_start, points, n_stock - drawn)
                plays[n_table] = take_nb(hands, n_hand, seat, learned_choice_nb(learned))
            else:
                known = sides_known_nb(hidden, hands[seat], n_hand[seat], view.called, sides, alone)
                plays[n_table] = _rollout_take_nb(hands, n_hand, seat, plays, n_table, trump, players, leader, known)
            hidden = hidden and plays[n_table] != view.called
            n_table += 1
        if tracked:
            note_trick_nb(learned.position[0], plays, players, leader, trick_start)
        was_drawn = drawn
        leader, drawn = end_trick_nb(plays, players, trump, leader, points, hands, n_hand, stock, drawn, n_stock)
        if tracked:
            learned.position[0].trick_winners[view.trick + tricks] = leader  # the winner leads the next trick
            learned.position[0].trick = view.trick + tricks + 1
            if drawn == n_stock and was_drawn < n_stock:  # the last draw: the face-up card to its last seat
                learned.position[0].face_up_holder = (leader + players - 1) % players
        trick_start += players
        n_table = 0
        tricks += 1
        if players == 2 and tricks == PLAYOUT_TRICKS and drawn < n_stock and learned.cut_tricks == 0:
            return expected_score_2p_nb(points, me, points_weight)
        left = 0
        for seat in range(players):
            left += n_hand[seat]
        if left == 0:
            break
        searched = players != 3 or n_stock == 0  # at 3 players only from the endgame's decisions
        if drawn == n_stock and left <= SEARCH_CARDS and searched:  # ``me``'s side against the rest
            rest = TOTAL_POINTS
            for seat in range(players):
                rest -= points[seat]
            mine = search_nb(
                hands, n_hand, plays, 0, 0, leader, players, trump, stock, drawn, n_stock, search_sides, 0, stack
            )
            points[me] += mine
            points[_leading_opponent_nb(points, players, sides, me)] += rest - mine
            break
    return score_points_nb(points, players, me, points_weight, sides, view.target)


@njit(cache=True, inline="always")
def note_trick_nb(v, plays, n_table, leader, trick_start):
    """Writes the trick's cards ``plays[:n_table]`` into the view's public play, at their
    places in the history (written again, a card lands where it was: no count is kept)."""
    players = v.players
    for j in range(n_table):
        card = plays[j]
        v.history[trick_start + j] = card
        v.played_by[card] = (leader + j) % players
    v.n_played = trick_start + n_table


# 10 arguments: the playout's state as its loop holds it.
@njit(cache=True)
def show_seat_nb(learned, seat, hands, n_hand, plays, n_table, leader, trick_start, points, stock_size):
    """Makes ``learned.position`` the view ``seat`` has now in the playout: its hand, the
    trick, the public play, the points and the stock (the trick index and the trick
    winners are kept by the playout as tricks end)."""
    v = learned.position[0]
    players = v.players
    note_trick_nb(v, plays, n_table, leader, trick_start)
    v.seat = seat
    v.n_hand = n_hand[seat]
    for k in range(MAX_HAND):
        v.hand[k] = hands[seat, k] if k < n_hand[seat] else -1
    v.n_table = n_table
    for j in range(MAX_TABLE):
        v.table[j] = plays[j] if j < n_table else -1
    v.leader = leader
    v.stock_size = stock_size
    for other in range(players):
        v.points[other] = points[other]
        partner = players in (4, 6) and other != seat and other % 2 == seat % 2
        v.partner_trumps[other] = (
            trump_honours_nb(hands, n_hand, other, v.trump_suit) if partner and learned.signals else -1
        )
        for k in range(v.partner_hands.shape[1]):
            shown = partner and learned.partner_hands and k < n_hand[other]
            v.partner_hands[other, k] = hands[other, k] if shown else -1


@njit(cache=True)
def learned_choice_nb(learned):
    """Index in its hand of the learned policy's card for the seat of ``learned.position``."""
    v = learned.position[0]
    if v.n_hand == 1:
        return 0
    policy_logits_nb(v, learned.data, learned.logits, learned.work)
    best = 0
    for k in range(1, v.n_hand):
        if learned.logits[k] > learned.logits[best]:
            best = k
    return best


# 9 arguments: the trick as the playouts hold it, inlined in their inner loop.
@njit(cache=True, inline="always")
def _rollout_take_nb(hands, n_hand, seat, table, n_table, trump, players, leader, sides):
    """The playout policy's card for ``seat`` (``policy_nb``), taken out of its hand."""
    k = policy_choice_nb(hands[seat], n_hand[seat], table, n_table, trump, players, leader, seat, sides)
    return take_nb(hands, n_hand, seat, k)


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
def expected_score_2p_nb(points, me, points_weight):
    """The score ``score_points_nb`` expects of a 2-player playout stopped with points
    still to play: they are shared evenly, and the lead wins with a logistic chance that
    narrows as fewer points are left (WIN_SPREAD), or surely once the points left cannot
    overturn it."""
    rest = TOTAL_POINTS - points[0] - points[1]
    lead = points[me] - points[1 - me]
    if abs(lead) > rest:
        won = 1.0 if lead > 0 else 0.0
    else:
        won = 1.0 / (1.0 + np.exp(-lead / (WIN_SPREAD * rest + 1.0)))
    return won + points_weight * lead / TOTAL_POINTS


@njit(cache=True)
def score_points_nb(points, players, me, points_weight, sides, target):
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
