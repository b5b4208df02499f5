"""The one published Briscola agent installable here: ``EpsGreedyPlayer`` of the
``briscola-gym`` package (PyPI, version 0.1.0, 2022), written again as a strategy from its
description, so that it plays on this engine's deals at kernel speed. That package is
for 2 players; at the other tables this one weighs its card against the card winning
the trick so far.

Its rules: with probability ``epsilon`` (0.2 in that package's environment) any card at
random; else, leading, its first card worth the fewest points; following, the card with
the largest gain, where the gain is the points of the trick with its card, counted for
it if it would take the trick and against it if not (the first of equal gains). That
package judges who takes a trick by points (a trump adding 100), which differs from the
rules only between cards worth nothing, where the gain is 0 either way: the rules' own
judge (``beats_nb``) gives the same play.

    briscola compare pimc gym-greedy --strategy-file benchmarks/published/briscola_gym.py \
        --players 2 --deals 2000 --seed 77
"""

from numba import njit

from strategies.toolkit import (
    CARD_POINTS,
    Param,
    Strategy,
    beats_nb,
    rng_below_nb,
    rng_uniform_nb,
    trick_points_nb,
    winning_position_nb,
)


@njit(cache=True)
def gym_greedy_nb(view, params, rng):
    if rng_uniform_nb(rng) < params[0]:
        return view.hand[rng_below_nb(rng, view.n_hand)]
    best = 0
    if view.n_table == 0:  # its first card worth the fewest points
        for k in range(1, view.n_hand):
            if CARD_POINTS[view.hand[k]] < CARD_POINTS[view.hand[best]]:
                best = k
        return view.hand[best]
    winning = view.table[winning_position_nb(view.table, view.n_table, view.trump_suit)]
    best_gain = -1000
    for k in range(view.n_hand):
        card = view.hand[k]
        points = trick_points_nb(view.table, view.n_table) + CARD_POINTS[card]
        gain = points if beats_nb(card, winning, view.trump_suit) else -points
        if gain > best_gain:
            best, best_gain = k, gain
    return view.hand[best]


GYM_GREEDY = Strategy(
    name="gym-greedy",
    version=1,
    description="briscola-gym's EpsGreedyPlayer (PyPI, 2022): fewest points led, the largest gain followed.",
    choose=gym_greedy_nb,
    params=(Param("epsilon", float, 0.2, 0.0, 1.0, "chance of playing any card at random"),),
)
