"""Everything a strategy author needs, in one import.

    from strategies.toolkit import Param, Strategy, beats_nb, rng_below_nb, CARD_SUIT

A decision function is ``choose_nb(view, params, rng) -> card``, compiled by Numba (the
options of your ``@njit`` are kept):

- ``view``: what your player may see, a record made for this decision alone (fields in
  docs/strategies.md); writing to it changes nothing for anyone else.
- ``params``: your parameters as float64, in the order you declare them.
- ``rng``: your own random stream. Draw from it with ``rng_below_nb(rng, n)`` (an
  unbiased integer in ``[0, n)``) or ``rng_uniform_nb(rng)`` (a float in ``[0, 1)``),
  and nothing else, so that runs stay reproducible.

Cards are integers ``suit * 10 + face``; empty slots hold ``NO_CARD`` (-1).

Card tables (indexed by card): ``CARD_SUIT``, ``CARD_FACE``, ``CARD_POINTS``,
``CARD_STRENGTH`` (0 the two, 9 the ace). Sizes: ``N_CARDS``, ``N_SUITS``, ``N_FACES``,
``HAND_SIZE``, ``MAX_PLAYERS``; ``NO_CARD``, ``NO_SEAT``.

Rules: ``beats_nb(card, best, trump_suit)``, ``winning_position_nb(table, n_table,
trump_suit)``, ``trick_points_nb(table, n_table)``, ``n_sides_nb(players)``.

What the view tells about hidden cards: ``card_places_nb(view, places)`` fills
``places[c]`` with ``UNSEEN``, ``MINE``, ``PLAYED``, ``VISIBLE`` or ``OUT`` and returns
the number unseen; ``mark_signalled_nb(view, places)`` then marks ``SIGNALLED`` the trump
honours partners' signals show (signals=trumps); ``hand_sizes_nb(view, sizes)`` gives
every seat's hand size.

Building on ``expert``: ``expert_play_nb(view, use_signals)`` is its card; at Briscola
Chiamata ``bid_at_threshold_nb(view, threshold)`` bids as it does (the next level while
its best call there is expected to gain ``threshold`` game points, else ``PASS``),
``best_call_nb(view, bid)`` gives that call and its expected gain, and
``expert_call_nb(view, params, rng)`` is its call. ``from strategies.library import
EXPERT`` in a plug-in file is fine too: only the strategies a file defines are taken.

>>> from numba import njit
>>> @njit
... def lowest_points_nb(view, params, rng):
...     best = view.hand[0]
...     for k in range(1, view.n_hand):
...         if CARD_POINTS[view.hand[k]] < CARD_POINTS[best]:
...             best = view.hand[k]
...     return best
>>> LOW = Strategy("low", 1, "Plays its card worth least.", lowest_points_nb)
>>> [int(CARD_POINTS[card]) for card in (0, 2, 9)]  # the Ace, the three and the King of Denari
[11, 10, 4]
"""

from kernels.enums import (
    CARD_FACE,
    CARD_POINTS,
    CARD_STRENGTH,
    CARD_SUIT,
    HAND_SIZE,
    MAX_HAND,
    MAX_PLAYERS,
    N_CARDS,
    N_FACES,
    N_SUITS,
    NO_CARD,
    NO_SEAT,
    PASS,
)
from kernels.inlined_strategies_nb import default_bid_nb, default_call_nb, suit_value_nb
from kernels.rng_nb import rng_below_nb, rng_uniform_nb
from kernels.rules_nb import beats_nb, bid_face_nb, bid_target_nb, n_sides_nb, trick_points_nb, winning_position_nb
from strategies.api import Param, Strategy
from strategies.auction_nb import best_call_nb, bid_at_threshold_nb, expert_call_nb
from strategies.errors import StrategyError
from strategies.expert_nb import expert_play_nb
from strategies.knowledge_nb import (
    MINE,
    OUT,
    PLAYED,
    SIGNALLED,
    UNSEEN,
    VISIBLE,
    card_places_nb,
    hand_sizes_nb,
    mark_signalled_nb,
    same_side_nb,
)

__all__ = [
    "CARD_FACE", "CARD_POINTS", "CARD_STRENGTH", "CARD_SUIT", "HAND_SIZE", "MAX_PLAYERS", "N_CARDS", "N_FACES",
    "N_SUITS", "NO_CARD", "NO_SEAT", "rng_below_nb", "rng_uniform_nb", "beats_nb", "n_sides_nb", "trick_points_nb",
    "winning_position_nb", "Param", "Strategy", "StrategyError", "MINE", "OUT", "PLAYED", "UNSEEN", "VISIBLE",
    "SIGNALLED", "card_places_nb", "hand_sizes_nb", "mark_signalled_nb", "same_side_nb", "default_bid_nb",
    "default_call_nb", "suit_value_nb", "bid_face_nb", "bid_target_nb", "MAX_HAND", "PASS", "expert_play_nb",
    "bid_at_threshold_nb", "best_call_nb", "expert_call_nb",
]  # fmt: skip
