"""Whole-deal traces: every card dealt and played, one row per deal, for auditing.

Columns (all card codes are ``suit * 10 + face``):

- ``deal``: deal index in the run
- ``players``
- ``hands``: 3*P cards, seat 0's three, then seat 1's, ...
- ``briscola``: the face-up card (its suit is trump), drawn last
- ``stock``: the other cards of the stock in drawing order
- ``removed``: twos taken out of the pack (3 and 6 players)
- ``plays``: every card in playing order
- ``trick_winners``: the seat that won each trick
- ``seat_points``: points per seat
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from kernels.enums import HAND_SIZE
from sim.results import arrow_column


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
        ]
    )


def trace_table(batch) -> pa.Table:
    """The trace rows of a traced ``sim.play.Batch`` as an Arrow table."""
    deals, records, results = batch.deals, batch.records, batch.results
    n = len(results)
    players = int(deals["players"][0])  # the same for every deal of a run
    n_stock = int(deals["n_stock"][0])
    n_removed = int(deals["n_removed"][0])
    n_cards = HAND_SIZE * players + n_stock
    columns = {
        "deal": arrow_column(results["deal"]),
        "players": arrow_column(np.full(n, players, dtype=np.int8)),
        "hands": _fixed_lists(deals["hands"][:, :players, :].reshape(n, -1)),
        "briscola": arrow_column(deals["briscola"]),
        "stock": _fixed_lists(deals["stock"][:, : n_stock - 1]),
        "removed": _fixed_lists(deals["removed"][:, :n_removed]),
        "plays": _fixed_lists(records["plays"][:, :n_cards]),
        "trick_winners": _fixed_lists(records["trick_winners"][:, : n_cards // players]),
        "seat_points": _fixed_lists(results["seat_points"][:, :players]),
    }
    return pa.table(columns, schema=trace_schema())


def _fixed_lists(matrix: np.ndarray) -> pa.ListArray:
    """Each row of a 2-D array as one list value."""
    n, width = matrix.shape
    offsets = arrow_column(np.arange(n + 1, dtype=np.int32) * width)
    return pa.ListArray.from_arrays(offsets, arrow_column(matrix.reshape(-1)))


def trace_rows(batch) -> list[dict]:
    """The trace rows as plain Python dicts (for tests and the reference engine)."""
    return trace_table(batch).to_pylist()
