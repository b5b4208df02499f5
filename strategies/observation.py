"""What a learned player observes: the flat encoding of a view and the legal-decision
masks, for batches of views (numpy record arrays of VIEW_DTYPE, as a batched strategy
receives them).

The layout is defined here once (``SEGMENTS``), for every version the encoder writes
(``FLAT_VERSIONS``; ``FLAT_VERSION``, the newest, by default); the jitted encoder
(``kernels/observe_nb.py``) writes each segment at the offsets this gives. Relative seat
r is seat ``me + r``: 0 is the observer. docs/agents.md shows the layout of each table.

>>> import numpy as np
>>> from kernels.enums import VIEW_DTYPE
>>> views = np.zeros(1, dtype=VIEW_DTYPE)
>>> views["players"], views["n_hand"], views["hand"][0, :3], views["trump_suit"] = 2, 3, [0, 11, 39], 2
>>> views["played_by"], views["briscola"], views["face_up"], views["face_up_holder"] = -1, 21, 21, -1
>>> obs = encode_flat(views)
>>> obs.shape, obs.dtype, [int(c) for c in np.flatnonzero(obs[0, :80])]
((1, 209), dtype('float32'), [0, 11, 39, 61])
>>> encode_flat(views, version=1).shape
(1, 207)
>>> [int(c) for c in np.flatnonzero(legal_mask(views)[0])]
[0, 11, 39]
"""

from __future__ import annotations

import functools

import numpy as np

from kernels.enums import CHIAMATA_PLAYERS, MAX_BID, N_CARDS, N_SUITS, VIEW_DTYPE
from kernels.observe_nb import N_HONOURS, N_SEGMENTS, encode_flat_batch_nb, legal_masks_nb
from strategies.errors import StrategyError

FLAT_VERSION = 2  # the newest, and the default; a new version whenever a segment's meaning, width or order changes
FLAT_VERSIONS = (1, 2)  # every version the encoder still writes: networks trained on each play on
PHASES = {"play": 0, "bid": 1, "call": 2}  # what a decision is; the width of its mask:
MASK_WIDTH = {"play": N_CARDS, "bid": MAX_BID + 1, "call": N_CARDS}


def _teams(players):
    return int(players in (4, 6))


def _chiamata(players):
    return int(players == CHIAMATA_PLAYERS)


def _turned(players):  # a card is turned face up under the stock (not at Briscola Chiamata)
    return int(players != CHIAMATA_PLAYERS)


# name, description, width for ``players`` and ``version``. Version 1 shows the face-up
# card only while it lies under the stock (``briscola``); version 2 shows it the whole
# deal (``face_up``) and who took it (``holder``), and has no ``briscola`` segment (the
# card is under the stock exactly while ``holder`` is empty).
SEGMENTS = (
    ("hand", "one-hot of the cards in hand", lambda p, v: N_CARDS),
    ("briscola", "the face-up trump card, while it lies under the stock (version 1)", lambda p, v: N_CARDS * (v == 1)),
    ("face_up", "the face-up trump card, the whole deal (version 2; not at 5 players)",
     lambda p, v: N_CARDS * (v >= 2) * _turned(p)),
    ("holder", "who took the face-up card with the last draw, one-hot by relative seat; none while it lies under "
     "the stock (version 2; not at 5 players)", lambda p, v: p * (v >= 2) * _turned(p)),
    ("table", "the cards on the table, one block of 40 per position in the trick (0 led it)",
     lambda p, v: N_CARDS * (p - 1)),
    ("played", "cards played in finished tricks, one block of 40 per relative seat", lambda p, v: N_CARDS * p),
    ("partners", "cards shown in partners' hands (4 and 6 players)", lambda p, v: N_CARDS * _teams(p)),
    ("called", "the called card (5 players)", lambda p, v: N_CARDS * _chiamata(p)),
    ("trump", "the trump suit, one-hot (none before the call at 5 players)", lambda p, v: N_SUITS),
    ("points", "points taken per relative seat, / 120", lambda p, v: p),
    ("stock", "cards still to draw, / 40", lambda p, v: 1),
    ("signals", "each partner's trump honours signalled (A, 3, K, Kn, J), by partner (4 and 6 players)",
     lambda p, v: N_HONOURS * (p // 2 - 1) * _teams(p)),
    ("bid", "the highest bid's level + 1, / 69; 0 before any (5 players)", lambda p, v: _chiamata(p)),
    ("bidder", "who made it, one-hot by relative seat (5 players)", lambda p, v: p * _chiamata(p)),
    ("passed", "who has passed, by relative seat (5 players)", lambda p, v: p * _chiamata(p)),
    ("caller", "the caller, one-hot by relative seat (5 players)", lambda p, v: p * _chiamata(p)),
    ("partner", "the caller's partner once known, one-hot by relative seat (5 players)",
     lambda p, v: p * _chiamata(p)),
    ("target", "the points the caller needs, / 120 (5 players)", lambda p, v: _chiamata(p)),
)  # fmt: skip
assert len(SEGMENTS) == N_SEGMENTS


def flat_layout(players: int, version: int = FLAT_VERSION) -> list[tuple[str, int, int, str]]:
    """The flat encoding at ``players``, version ``version``: (segment, start, width,
    what) of each segment it has, in order.

    >>> [(name, start, width) for name, start, width, _ in flat_layout(2)][:4]
    [('hand', 0, 40), ('face_up', 40, 40), ('holder', 80, 2), ('table', 82, 40)]
    >>> [(name, start, width) for name, start, width, _ in flat_layout(2, version=1)][:4]
    [('hand', 0, 40), ('briscola', 40, 40), ('table', 80, 40), ('played', 120, 80)]
    """
    return [(name, start, width, what) for name, start, width, what in _all_segments(players, version) if width]


def _all_segments(players: int, version: int) -> list[tuple[str, int, int, str]]:
    """Every segment, those the version gives no width included (the encoder's offsets)."""
    checked_version(version)
    layout, start = [], 0
    for name, what, width in SEGMENTS:
        layout.append((name, start, width(players, version), what))
        start += width(players, version)
    return layout


def flat_size(players: int, version: int = FLAT_VERSION) -> int:
    """The flat encoding's length at ``players``.

    >>> [flat_size(p) for p in (2, 3, 4, 5, 6)]
    [209, 291, 418, 472, 587]
    >>> [flat_size(p, version=1) for p in (2, 3, 4, 5, 6)]
    [207, 288, 414, 512, 581]
    """
    return int(_offsets(players, version)[-1])


def flat_offsets(players: int, version: int = FLAT_VERSION) -> np.ndarray:
    """Every segment's start as the encoder reads them (index SEG_* of observe_nb; a
    segment the version does not have starts where the next one does), then the size."""
    return _offsets(players, version).copy()


@functools.cache
def _offsets(players: int, version: int) -> np.ndarray:  # encode_flat runs once a lock-step round: built once
    layout = _all_segments(players, version)
    _, start, width, _ = layout[-1]
    return np.array([start for _, start, _, _ in layout] + [start + width], dtype=np.int64)


def flat_version_of(width: int, players: int) -> int | None:
    """The version whose encoding at ``players`` has ``width`` values (a network's
    inputs), or None. No two versions have the same width at a table.

    >>> flat_version_of(207, 2), flat_version_of(209, 2), flat_version_of(208, 2)
    (1, 2, None)
    """
    found = [version for version in FLAT_VERSIONS if flat_size(players, version) == width]
    return found[0] if found else None


def checked_version(version: int) -> int:
    """``version`` if the encoder writes it; else ValueError naming the valid ones."""
    if isinstance(version, bool) or version not in FLAT_VERSIONS:
        raise ValueError(f"flat encoding version {version!r}: valid: {', '.join(map(str, FLAT_VERSIONS))}")
    return version


def encode_flat(
    views: np.ndarray, out: np.ndarray | None = None, *, trained_at: int | None = None, version: int = FLAT_VERSION
) -> np.ndarray:
    """The flat encoding of each view of a batch (all at one table): float32 (n,
    flat_size). ``version``: the layout a network was trained on (1 for networks trained
    before version 2 existed; docs/agents.md). ``trained_at``: the table a network takes
    observations of; at another, a StrategyError that says so (a check at every table
    would otherwise fail on a mismatched matmul)."""
    views = _checked(views)
    players = int(views["players"][0]) if len(views) else 2
    if trained_at is not None and players != trained_at:
        raise StrategyError(
            f"this network plays {trained_at} players only (observations of {flat_size(trained_at, version)} "
            f"values), not {players}: check it with --players {trained_at}"
        )
    offsets = _offsets(players, checked_version(version))
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
