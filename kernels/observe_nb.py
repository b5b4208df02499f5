"""Observations of a view for learned players (jitted code only): the flat float32
encoding and the legal-decision masks.

The flat encoding's layout (which segment starts where) is decided once, in Python, by
``strategies/observation.py``; the encoder only reads its offsets (index SEG_*), so the
layout and the code that writes it cannot drift apart. Everything is relative to the observing seat: seat
``me + r`` is "relative seat r" (0 is the observer). Every value is what the player
may see: it is computed from its view alone.
"""

import numpy as np
from numba import njit

from kernels.enums import (
    CARD_FACE,
    CHIAMATA_PLAYERS,
    MAX_BID,
    N_CARDS,
    TOTAL_POINTS,
)
from kernels.rules_nb import bid_face_nb

N_HONOURS = 5  # trump honours a partner's signal shows: Ace, Three, King, Knight, Jack
HONOUR_BITS = np.array([1, 2, 4, 8, 16], dtype=np.int64)  # FACE_HONOUR_BIT of each, in that order

# Segments, in order (strategies/observation.py: SEGMENTS). A version of the encoding
# gives some of them no width (version 1: no face_up or holder; version 2: no briscola):
# the encoder writes a segment only where its width is not zero.
SEG_HAND, SEG_BRISCOLA, SEG_FACE_UP, SEG_HOLDER, SEG_TABLE, SEG_PLAYED, SEG_PARTNERS = 0, 1, 2, 3, 4, 5, 6
SEG_CALLED, SEG_TRUMP, SEG_POINTS, SEG_STOCK, SEG_SIGNALS, SEG_BID, SEG_BIDDER = 7, 8, 9, 10, 11, 12, 13
SEG_PASSED, SEG_CALLER, SEG_PARTNER, SEG_TARGET = 14, 15, 16, 17
N_SEGMENTS = 18


@njit(cache=True, inline="always")
def _relative_nb(seat, me, players):
    return seat - me + players if seat < me else seat - me


@njit(cache=True, inline="always")
def _has_nb(offsets, segment):
    """Whether ``segment`` has a width in the layout ``offsets`` describes."""
    return offsets[segment + 1] > offsets[segment]


@njit(cache=True)
def encode_flat_nb(view, offsets, out):
    """Writes the flat encoding of ``view`` into ``out`` (float32, ``offsets[-1]`` long)."""
    for k in range(out.shape[0]):
        out[k] = 0.0
    players, me = view.players, view.seat
    for k in range(view.n_hand):
        out[offsets[SEG_HAND] + view.hand[k]] = 1.0
    if view.briscola >= 0 and _has_nb(offsets, SEG_BRISCOLA):
        out[offsets[SEG_BRISCOLA] + view.briscola] = 1.0
    if view.face_up >= 0 and _has_nb(offsets, SEG_FACE_UP):
        out[offsets[SEG_FACE_UP] + view.face_up] = 1.0
    if view.face_up_holder >= 0 and _has_nb(offsets, SEG_HOLDER):
        out[offsets[SEG_HOLDER] + _relative_nb(view.face_up_holder, me, players)] = 1.0
    on_table = view.n_played - view.n_table  # cards of finished tricks, in ``history``
    for k in range(view.n_table):
        out[offsets[SEG_TABLE] + N_CARDS * k + view.table[k]] = 1.0
    for k in range(on_table):
        card = view.history[k]
        out[offsets[SEG_PLAYED] + N_CARDS * _relative_nb(view.played_by[card], me, players) + card] = 1.0
    if players == 4 or players == 6:
        for seat in range(players):
            for k in range(view.partner_hands.shape[1]):
                card = view.partner_hands[seat, k]
                if card >= 0:
                    out[offsets[SEG_PARTNERS] + card] = 1.0
        partner = 0
        for r in range(2, players, 2):  # partners sit two seats apart
            bits = view.partner_trumps[(me + r) % players]
            for h in range(N_HONOURS):
                out[offsets[SEG_SIGNALS] + N_HONOURS * partner + h] = 1.0 if bits > 0 and bits & HONOUR_BITS[h] else 0.0
            partner += 1
    if view.trump_suit >= 0:
        out[offsets[SEG_TRUMP] + view.trump_suit] = 1.0
    for r in range(players):
        out[offsets[SEG_POINTS] + r] = view.points[(me + r) % players] / TOTAL_POINTS
    out[offsets[SEG_STOCK]] = view.stock_size / N_CARDS
    if players == CHIAMATA_PLAYERS:
        _encode_auction_nb(view, offsets, out, me, players)


@njit(cache=True, inline="always")
def _encode_auction_nb(view, offsets, out, me, players):
    if view.called >= 0:
        out[offsets[SEG_CALLED] + view.called] = 1.0
    out[offsets[SEG_BID]] = (view.bid + 1) / (MAX_BID + 1)
    if view.bidder >= 0:
        out[offsets[SEG_BIDDER] + _relative_nb(view.bidder, me, players)] = 1.0
    for r in range(players):
        out[offsets[SEG_PASSED] + r] = view.passed[(me + r) % players]
    if view.caller >= 0:
        out[offsets[SEG_CALLER] + _relative_nb(view.caller, me, players)] = 1.0
    if view.partner >= 0:
        out[offsets[SEG_PARTNER] + _relative_nb(view.partner, me, players)] = 1.0
    out[offsets[SEG_TARGET]] = max(0, view.target) / TOTAL_POINTS


@njit(cache=True)
def encode_flat_batch_nb(views, offsets, out):
    for i in range(views.shape[0]):
        encode_flat_nb(views[i], offsets, out[i])


@njit(cache=True, inline="always")
def card_mask_nb(view, mask):
    """The legal cards to play: those in hand (Briscola never obliges a suit)."""
    for card in range(N_CARDS):
        mask[card] = False
    for k in range(view.n_hand):
        mask[view.hand[k]] = True


@njit(cache=True)
def legal_masks_nb(views, phase, masks):
    """Each view's legal decisions: cards to play (phase 0, 40 wide), bid levels (1,
    MAX_BID + 1 wide: above the last bid up to ``max_bid``; passing is always legal) or
    cards to call (2, 40 wide: those of the bid's face)."""
    for i in range(views.shape[0]):
        view, mask = views[i], masks[i]
        if phase == 0:
            card_mask_nb(view, mask)
        elif phase == 1:
            for level in range(mask.shape[0]):
                mask[level] = view.bid < level <= view.max_bid
        else:
            face = bid_face_nb(view.bid)
            for card in range(N_CARDS):
                mask[card] = CARD_FACE[card] == face
    return masks
