"""What a learned player observes: the flat encoding of a view (version FLAT_VERSION) and
the legal-decision masks, for batches of views (numpy record arrays of VIEW_DTYPE, as a
batched strategy receives them).

The layout is defined here once (``SEGMENTS``); the jitted encoder
(``kernels/observe_nb.py``) writes each segment at the offsets this gives. Relative seat
r is seat ``me + r``: 0 is the observer. docs/agents.md shows the layout of each table.

>>> import numpy as np
>>> from kernels.enums import VIEW_DTYPE
>>> views = np.zeros(1, dtype=VIEW_DTYPE)
>>> views["players"], views["n_hand"], views["hand"][0, :3], views["trump_suit"] = 2, 3, [0, 11, 39], 2
>>> views["played_by"], views["briscola"] = -1, 21
>>> obs = encode_flat(views)
>>> obs.shape, obs.dtype, [int(c) for c in np.flatnonzero(obs[0, :40])]
((1, 207), dtype('float32'), [0, 11, 39])
>>> [int(c) for c in np.flatnonzero(legal_mask(views)[0])]
[0, 11, 39]
"""

from __future__ import annotations

import functools

import numpy as np

from kernels.enums import CHIAMATA_PLAYERS, MAX_BID, N_CARDS, N_SUITS, VIEW_DTYPE
from kernels.observe_nb import N_HONOURS, N_SEGMENTS, encode_flat_batch_nb, legal_masks_nb
from strategies.errors import StrategyError

FLAT_VERSION = 1  # bump whenever a segment's meaning, width or order changes
PHASES = {"play": 0, "bid": 1, "call": 2}  # what a decision is; the width of its mask:
MASK_WIDTH = {"play": N_CARDS, "bid": MAX_BID + 1, "call": N_CARDS}


def _teams(players):
    return int(players in (4, 6))


def _chiamata(players):
    return int(players == CHIAMATA_PLAYERS)


# name, description, width for ``players``
SEGMENTS = (
    ("hand", "one-hot of the cards in hand", lambda p: N_CARDS),
    ("briscola", "the face-up trump card, while it lies under the stock", lambda p: N_CARDS),
    ("table", "the cards on the table, one block of 40 per position in the trick (0 led it)",
     lambda p: N_CARDS * (p - 1)),
    ("played", "cards played in finished tricks, one block of 40 per relative seat", lambda p: N_CARDS * p),
    ("partners", "cards shown in partners' hands (4 and 6 players)", lambda p: N_CARDS * _teams(p)),
    ("called", "the called card (5 players)", lambda p: N_CARDS * _chiamata(p)),
    ("trump", "the trump suit, one-hot (none before the call at 5 players)", lambda p: N_SUITS),
    ("points", "points taken per relative seat, / 120", lambda p: p),
    ("stock", "cards still to draw, / 40", lambda p: 1),
    ("signals", "each partner's trump honours signalled (A, 3, K, Kn, J), by partner (4 and 6 players)",
     lambda p: N_HONOURS * (p // 2 - 1) * _teams(p)),
    ("bid", "the highest bid's level + 1, / 69; 0 before any (5 players)", lambda p: _chiamata(p)),
    ("bidder", "who made it, one-hot by relative seat (5 players)", lambda p: p * _chiamata(p)),
    ("passed", "who has passed, by relative seat (5 players)", lambda p: p * _chiamata(p)),
    ("caller", "the caller, one-hot by relative seat (5 players)", lambda p: p * _chiamata(p)),
    ("partner", "the caller's partner once known, one-hot by relative seat (5 players)", lambda p: p * _chiamata(p)),
    ("target", "the points the caller needs, / 120 (5 players)", lambda p: _chiamata(p)),
)  # fmt: skip
assert len(SEGMENTS) == N_SEGMENTS


def flat_layout(players: int) -> list[tuple[str, int, int, str]]:
    """The flat encoding at ``players``: (segment, start, width, what) in order.

    >>> [(name, start, width) for name, start, width, _ in flat_layout(2)][:4]
    [('hand', 0, 40), ('briscola', 40, 40), ('table', 80, 40), ('played', 120, 80)]
    """
    layout, start = [], 0
    for name, what, width in SEGMENTS:
        layout.append((name, start, width(players), what))
        start += width(players)
    return layout


def flat_size(players: int) -> int:
    """The flat encoding's length at ``players``.

    >>> [flat_size(p) for p in (2, 3, 4, 5, 6)]
    [207, 288, 414, 512, 581]
    """
    _, start, width, _ = flat_layout(players)[-1]
    return start + width


def flat_offsets(players: int) -> np.ndarray:
    """The segments' starts as the encoder reads them (index SEG_* of observe_nb), then the size."""
    return _offsets(players).copy()


@functools.cache
def _offsets(players: int) -> np.ndarray:  # encode_flat runs once a lock-step round: the layout is built once
    return np.array([start for _, start, _, _ in flat_layout(players)] + [flat_size(players)], dtype=np.int64)


def encode_flat(views: np.ndarray, out: np.ndarray | None = None, *, trained_at: int | None = None) -> np.ndarray:
    """The flat encoding of each view of a batch (all at one table): float32 (n, flat_size).
    ``trained_at``: the table a network takes observations of; at another, a StrategyError
    that says so (a check at every table would otherwise fail on a mismatched matmul)."""
    views = _checked(views)
    players = int(views["players"][0]) if len(views) else 2
    if trained_at is not None and players != trained_at:
        raise StrategyError(
            f"this network plays {trained_at} players only (observations of {flat_size(trained_at)} values), "
            f"not {players}: check it with --players {trained_at}"
        )
    offsets = _offsets(players)
    if out is None:
        out = np.empty((len(views), offsets[-1]), dtype=np.float32)
    encode_flat_batch_nb(views, offsets, out)
    return out


def legal_mask(views: np.ndarray, phase: str = "play") -> np.ndarray:
    """Each view's legal decisions as booleans: for ``play`` and ``call`` one per card code
    (40), for ``bid`` one per bid level (MAX_BID + 1; passing, -1, is always legal)."""
    views = _checked(views)
    if phase not in PHASES:
        raise ValueError(f"phase {phase!r}: valid phases: {', '.join(PHASES)}")
    return legal_masks_nb(views, PHASES[phase], np.empty((len(views), MASK_WIDTH[phase]), dtype=np.bool_))


def _checked(views: np.ndarray) -> np.ndarray:
    if not isinstance(views, np.ndarray) or views.dtype != VIEW_DTYPE or views.ndim != 1:
        raise TypeError("views must be a one-dimensional numpy array of VIEW_DTYPE records")
    return views
