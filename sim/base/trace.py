"""Whole-deal traces: every card dealt and played, one row per deal, for auditing.

Columns (all card codes are ``suit * 10 + face``):

- ``deal``: deal index in the run
- ``players``
- ``hands``: 3*P cards, seat 0's three, then seat 1's, ... (at Briscola Chiamata, 8 each)
- ``briscola``: the face-up card (its suit is trump), drawn last; -1 at Briscola Chiamata
- ``stock``: the other cards of the stock in drawing order
- ``removed``: twos taken out of the pack (3 and 6 players)
- ``plays``: every card in playing order (none for a Chiamata deal thrown in)
- ``trick_winners``: the seat that won each trick
- ``seat_points``: points per seat
- Briscola Chiamata only (else empty or -1): ``auction``, every action in turn order from
  seat 0 (a bid level, or -1 for a pass; passed seats are skipped); ``called``, the card
  called; ``game_points`` per seat.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.base.results import arrow_column


def trace_schema() -> pa.Schema:
    cards = pa.list_(pa.int8())
    return pa.schema(
        [
            ("deal", pa.int64()),
            ("players", pa.int8()),
            ("hands", cards),
            ("briscola", pa.int8()),
            ("stock", cards),
            ("removed", cards),
            ("plays", cards),
            ("trick_winners", cards),
            ("seat_points", pa.list_(pa.int16())),
            ("auction", cards),
            ("called", pa.int8()),
            ("game_points", cards),
        ]
    )


def trace_table(batch) -> pa.Table:
    """The trace rows of a traced ``sim.runtime.play.Batch`` as an Arrow table."""
    deals, records, results = batch.deals, batch.records, batch.results
    n = len(results)
    players = int(deals["players"][0])  # the same for every deal of a run
    hand_size = int(deals["hand_size"][0])
    n_stock = int(deals["n_stock"][0])
    n_removed = int(deals["n_removed"][0])
    n_cards = hand_size * players + n_stock
    played = np.count_nonzero(records["plays"][:, :n_cards] >= 0, axis=1)  # all, or none if thrown in
    chiamata = players == 5
    columns = {
        "deal": arrow_column(results["deal"]),
        "players": arrow_column(np.full(n, players, dtype=np.int8)),
        "hands": _fixed_lists(deals["hands"][:, :players, :hand_size].reshape(n, -1)),
        "briscola": arrow_column(deals["briscola"]),
        "stock": _fixed_lists(deals["stock"][:, : max(n_stock - 1, 0)]),
        "removed": _fixed_lists(deals["removed"][:, :n_removed]),
        "plays": _ragged_lists(records["plays"][:, :n_cards], played),
        "trick_winners": _ragged_lists(records["trick_winners"][:, : n_cards // players], played // players),
        "seat_points": _fixed_lists(results["seat_points"][:, :players]),
        "auction": _ragged_lists(records["auction_bids"], records["n_auction"].astype(np.int64) * chiamata),
        "called": arrow_column(results["called"] if chiamata else np.full(n, -1, dtype=np.int8)),
        "game_points": _fixed_lists(results["game_points"][:, : players if chiamata else 0]),
    }
    return pa.table(columns, schema=trace_schema())


def _fixed_lists(matrix: np.ndarray) -> pa.ListArray:
    """Each row of a 2-D array as one list value."""
    n, width = matrix.shape
    return _ragged_lists(matrix, np.full(n, width, dtype=np.int64))


def _ragged_lists(matrix: np.ndarray, lengths: np.ndarray) -> pa.ListArray:
    """Row i of a 2-D array, its first ``lengths[i]`` values, as one list value."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    keep = np.arange(matrix.shape[1])[None, :] < np.asarray(lengths)[:, None]
    return pa.ListArray.from_arrays(arrow_column(offsets), arrow_column(np.ascontiguousarray(matrix[keep])))


def trace_rows(batch) -> list[dict]:
    """The trace rows as plain Python dicts (for tests and the reference engine)."""
    return trace_table(batch).to_pylist()
