"""Every result row's deal, dealt again from its index (jitted code only).

A deal is a pure function of the run's seed, the deal's index, the table and the rules
(kernels/rng_nb.py), and the engine keeps no deal it has played (that would slow every
deal down). So the result files' ``deck`` column is dealt again at the boundary, by the
engine's own ``deal_nb``: the cards are those the deal was played with.
"""

import numpy as np
from numba import njit, prange

from kernels.enums import DEAL_DTYPE, N_CARDS, N_STREAMS, NO_CARD
from kernels.rng_nb import start_streams_nb
from kernels.rules_nb import deal_nb

DECKS_PER_BLOCK = 4096


@njit(cache=True, parallel=True)
def dealt_decks_nb(seed_key, deal_indices, players, rules, decks):
    """Writes deal ``deal_indices[i]``'s deck into ``decks[i]`` (int8, N_CARDS wide): the
    cards in dealing order, the hands round by round (card k of seat s at
    ``k * players + s``), then the stock in drawing order, the face-up briscola last;
    -1 after the pack's last card (at 3 and 6 players twos leave the pack)."""
    n = deal_indices.shape[0]
    for block in prange((n + DECKS_PER_BLOCK - 1) // DECKS_PER_BLOCK):
        states = np.empty(N_STREAMS, dtype=np.uint64)
        deal = np.empty(1, dtype=DEAL_DTYPE)
        no_seats = np.empty(0, dtype=np.int64)  # the dealer's stream alone
        for i in range(block * DECKS_PER_BLOCK, min(n, (block + 1) * DECKS_PER_BLOCK)):
            start_streams_nb(states, seed_key, deal_indices[i], no_seats, 0)
            deal_nb(players, rules, states, deal[0])
            _write_deck_nb(deal[0], decks[i])


@njit(cache=True, inline="always")
def _write_deck_nb(deal, deck):
    k = 0
    for card in range(deal.hand_size):
        for seat in range(deal.players):
            deck[k] = deal.hands[seat, card]
            k += 1
    for j in range(deal.n_stock):
        deck[k] = deal.stock[j]
        k += 1
    for j in range(k, N_CARDS):
        deck[j] = NO_CARD
