"""A trace file read back as a tidy frame: one row per card played, joined to its deal's
outcome (``sim.moves``).

A trace (``--trace`` of ``briscola simulate``, ``compare`` and ``tournament``) keeps each
deal as lists: the hands, the stock, every card in playing order and every trick's
winner (sim/base/trace.py). ``moves`` unfolds them:

>>> moves = sim.moves("results/trace.parquet")                                 # doctest: +SKIP
>>> moves.groupby(["strategy", "phase", "leads"])["won_trick"].mean()           # doctest: +SKIP

Columns: ``deal`` (and ``game``, the seating, in a comparison's trace; before them, in a
tournament's, ``pair``: ``i_j``, A and B by their indices among its strategies),
``trick``, ``order`` (0 leads the trick), ``seat``, ``side``, ``strategy``, ``card``,
``trump_suit``, ``leads``, ``phase`` (``stock`` while cards are left to draw after the
trick, ``end`` for the last tricks, played with what is in hand), ``won_trick`` (the
seat's side took the trick), and the deal's outcome for the seat's side: ``deal_points``
(its card points; at Briscola Chiamata the seat's own) and ``deal_score`` (won 1, drawn
1/2, lost 0; at Briscola Chiamata by the sign of the seat's game points). The auction of
Briscola Chiamata is not in it: its bids are in the trace's ``auction`` column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.base.cards import trump_suits
from sim.base.config import CHIAMATA, n_sides
from sim.base.results import read_config
from sim.pipeline.kinds import trace_kind


def moves(trace) -> pd.DataFrame:
    """The cards played in a trace file (a path), one row per card, in playing order."""
    config = read_config(trace)
    table = pq.read_table(trace)
    if "plays" not in table.column_names:
        raise ValueError(f"{trace} is not a trace file (no plays column): give the --trace file of a run")
    players = int(config["players"])
    n_deals = table.num_rows
    played = _counts(table["plays"])
    cards = _values(table["plays"])
    row = np.repeat(np.arange(n_deals), played)
    k = np.arange(len(cards)) - np.repeat(np.cumsum(played) - played, played)
    trick, order = k // players, k % players
    winners = _values(table["trick_winners"])
    first_trick = np.repeat(np.cumsum(played // players) - played // players, played)
    leaders = np.where(trick > 0, winners[np.maximum(first_trick + trick - 1, 0)], _first_leaders(table, config)[row])
    seat = (leaders + order) % players
    sides = players if players == CHIAMATA else n_sides(players)
    won = winners[first_trick + trick]
    hand = len(_values(table["hands"])) // max(n_deals, 1) // players if n_deals else 0
    deal_points, deal_score = _outcomes(table, players)
    strategies = trace_kind(trace, config).trace_strategies(config, table)  # a row per traced deal, a column per seat
    frame = {"pair": table["pair"].to_numpy(zero_copy_only=False)[row]} if "pair" in table.column_names else {}
    frame["deal"] = table["deal"].to_numpy()[row]
    if "game" in table.column_names:
        frame["game"] = table["game"].to_numpy()[row]
    frame.update(
        trick=trick.astype(np.int8), order=order.astype(np.int8), seat=seat.astype(np.int8),
        side=(seat % sides).astype(np.int8), strategy=strategies[row, seat],
        card=cards, trump_suit=trump_suits(table, players)[row], leads=order == 0, phase=np.where(trick >= played[row] // players - hand, "end", "stock"),
        won_trick=(won % sides) == (seat % sides) if players != CHIAMATA else won == seat,
        deal_points=deal_points[row, seat], deal_score=deal_score[row, seat],
    )  # fmt: skip
    return pd.DataFrame(frame)


def _counts(lists: pa.ChunkedArray) -> np.ndarray:
    return pa.compute.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64)


def _values(lists: pa.ChunkedArray) -> np.ndarray:
    return lists.combine_chunks().flatten().to_numpy(zero_copy_only=False).astype(np.int64)


def _first_leaders(table: pa.Table, config: dict) -> np.ndarray:
    """Who leads each deal's first trick: seat 0; at Briscola Chiamata under
    first_lead=caller, the caller (the last seat to bid)."""
    leaders = np.zeros(table.num_rows, dtype=np.int64)
    if int(config["players"]) != CHIAMATA or config.get("rules", {}).get("first_lead") != "caller":
        return leaders
    for i, auction in enumerate(table["auction"].to_pylist()):
        leaders[i] = _caller(auction)
    return leaders


def _caller(auction: list[int]) -> int:
    """The seat that won an auction given as every action in turn order from seat 0, a
    level or -1 for a pass, passed seats skipped (sim/base/trace.py); 0 if all passed."""
    passed, seat, caller = set(), 0, 0
    for action in auction:
        if action < 0:
            passed.add(seat)
        else:
            caller = seat
        seat = (seat + 1) % CHIAMATA
        while seat in passed and len(passed) < CHIAMATA:
            seat = (seat + 1) % CHIAMATA
    return caller


def _outcomes(table: pa.Table, players: int) -> tuple[np.ndarray, np.ndarray]:
    """Per deal and seat: the card points of its side (at Briscola Chiamata its own), and
    its side's score (won 1, drawn 1/2, lost 0; at Briscola Chiamata by the sign of its
    game points)."""
    n = table.num_rows
    points = _values(table["seat_points"]).reshape(n, players)
    if players == CHIAMATA:
        game = _values(table["game_points"]).reshape(n, players) if n else np.zeros((0, players))
        return points, np.where(game > 0, 1.0, np.where(game < 0, 0.0, 0.5))
    sides = n_sides(players)
    side_points = np.stack([points[:, s::sides].sum(axis=1) for s in range(sides)], axis=1)
    top = side_points.max(axis=1, keepdims=True)
    shares = (side_points == top).sum(axis=1, keepdims=True)
    side_score = np.where(side_points == top, 1.0 / shares, 0.0)
    seat_side = np.arange(players) % sides
    return side_points[:, seat_side], side_score[:, seat_side]
