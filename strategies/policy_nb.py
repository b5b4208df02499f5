"""The playout policy of the search strategies, and the opponent model of their inference
(jitted code only): ``expert``'s rules without its card counting (and with its 2-player
lead at every table), as one score per card.

Leading, the cheapest card to lose scores most (a plain load least); following, a plain
card that takes the trick scores most, then a trump for a trick worth 10+ (3+ with a
trump worth nothing), else the cheapest card to throw; loading a trick the partner takes
(this seat plays last), the card worth most, plain before trump. Scores are expert's
keys scaled to points where cards are thrown or led (400 key units a point) or loaded
(16 a point); taking a trick scores about 250 above not taking it, and among takers a
point of the trick is a quarter. The policy plays the best-scoring card; the model
(``play_probability_nb``) gives each card a softmax of its score, mixed with a uniform
choice so that no play is ruled out.
"""

import numpy as np
from numba import njit

from kernels.rules_nb import trick_points_nb, winning_position_nb
from strategies.expert_nb import follow_key_nb, lead_key_nb, load_key_nb

LEAD_KEY_PER_POINT, LOAD_KEY_PER_POINT = 400.0, 16.0  # the expert keys' scale: units per point
NEGLIGIBLE_GAP = -40.0  # a card scoring this far below the best has a share of 0 (e**-40)


@njit(cache=True, inline="always")
def trick_state_nb(table, n_table, trump, players, leader, seat, sides):
    """What the policy needs of the trick so far for ``seat`` to play: the winning card,
    the table's points, whether its side wins it now, and whether it loads (its side
    wins and it plays last)."""
    if n_table == 0:
        return -1, 0, False, False
    position = winning_position_nb(table, n_table, trump)
    partner_wins = players >= 4 and sides[(leader + position) % players] == sides[seat]
    return table[position], trick_points_nb(table, n_table), partner_wins, partner_wins and n_table == players - 1


@njit(cache=True, inline="always")
def policy_score_nb(card, trump, winning_card, table_points, partner_wins, loads):
    """The policy's score of ``card`` in points (module docstring); ``winning_card`` -1
    when leading."""
    if winning_card < 0:
        return -lead_key_nb(card, trump) / LEAD_KEY_PER_POINT
    if loads:
        return load_key_nb(card, trump) / LOAD_KEY_PER_POINT
    return follow_key_nb(card, winning_card, trump, table_points, partner_wins) / LEAD_KEY_PER_POINT


# 9 arguments: the trick as the playouts hold it, inlined in their inner loop.
@njit(cache=True, inline="always")
def policy_choice_nb(hand, n, table, n_table, trump, players, leader, seat, sides):
    """Index in ``hand[:n]`` of the policy's card for ``seat`` (the first of equals)."""
    winning_card, table_points, partner_wins, loads = trick_state_nb(
        table, n_table, trump, players, leader, seat, sides
    )
    best_k, best_score = 0, -np.inf
    for k in range(n):
        score = policy_score_nb(hand[k], trump, winning_card, table_points, partner_wins, loads)
        if score > best_score:
            best_k, best_score = k, score
    return best_k


# 10 arguments: policy_choice_nb's trick and the card played, as inference holds them.
@njit(cache=True)
def model_share_nb(hand, n, played, table, n_table, trump, players, leader, seat, sides):
    """The softmax share of ``played`` (one of ``hand[:n]``) by the policy's scores: the
    model's probability of that play when it trusts the policy fully."""
    winning_card, table_points, partner_wins, loads = trick_state_nb(
        table, n_table, trump, players, leader, seat, sides
    )
    top = -np.inf
    for k in range(n):
        top = max(top, policy_score_nb(hand[k], trump, winning_card, table_points, partner_wins, loads))
    total, mine = 0.0, 0.0
    for k in range(n):
        gap = policy_score_nb(hand[k], trump, winning_card, table_points, partner_wins, loads) - top
        weight = np.exp(gap) if gap > NEGLIGIBLE_GAP else 0.0
        total += weight
        if hand[k] == played:
            mine = weight
    return mine / total


# 11 arguments: model_share_nb's and the trust (the tests' entry to the model).
@njit(cache=True)
def play_probability_nb(hand, n, played, table, n_table, trump, players, leader, seat, sides, trust):
    """How likely the model makes ``seat`` play ``played`` from ``hand[:n]`` (``played``
    among them): ``trust`` times the softmax of the policy's scores, plus ``1 - trust``
    times a uniform choice."""
    share = model_share_nb(hand, n, played, table, n_table, trump, players, leader, seat, sides)
    return trust * share + (1.0 - trust) / n
