"""Match formats: a result decided over several deals (``--match``).

- ``deal``: every deal is a match of its own (the default).
- ``best-of-3``, ``best-of-5``: deals are played until a side has won 2 (3) of them, at
  most 3 (5). A drawn deal (60-60, or a shared top with 3 players) is counted, not
  replayed: it is a deal won by nobody. After the last deal, the side with the most deals
  won takes the match; sides sharing the most draw it.
- ``two-deals-120``: two deals, one dealt by each side; the side with the most points
  over both (more than 120 of 240 with two sides) wins; equal totals draw.
- ``five-deals`` (Briscola Chiamata only): five deals, each player dealing once; the
  player with the highest running total of game points wins; a shared top draws.

The dealer rotates between the deals of a match: in its k-th deal (from 0), the player
of seat p in the first deal sits in seat (p - k) mod P, so the next player in playing
order deals. Players keep their strategy, their side and their random stream; a
match's sides are named after the seats of its first deal. Match m's k-th deal is deal
index ``m * K + k`` (K the format's most deals), so its cards come from (seed, that
index) alone, and deals a decided match does not need are never shown.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from sim.base.config import CHIAMATA, MATCH_FORMATS, POINTS_FORMATS, RunConfig, n_sides
from sim.base.interrupt import StopFlag
from sim.base.recount import by_first_seats
from sim.base.results import arrow_column, results_table
from sim.runtime.play import Batch, play_batch

FORMATS = dict(zip(MATCH_FORMATS, (1, 3, 5, 2, 5)))  # format: the most deals a match takes


@dataclass
class MatchBatch:
    """Matches ``first .. first + n - 1``: their deals, and how each match ended."""

    batches: list[Batch]  # the k-th deal of every match, one Batch per k
    played: np.ndarray  # (n, K) bool: whether the match needed its k-th deal
    winner: np.ndarray  # (n,) winning side, -1 for a draw
    points: np.ndarray  # (n, sides) points over the deals played
    standing: np.ndarray  # (n, sides) what decides the match: deals won, or points

    @property
    def completed(self) -> int:
        """Matches played to the end (``play_matches`` keeps no others)."""
        return len(self.winner)

    def head(self, n: int) -> MatchBatch:
        """The first ``n`` matches."""
        return MatchBatch(
            [b.head(n) for b in self.batches], self.played[:n], self.winner[:n], self.points[:n], self.standing[:n]
        )


def rotated(config: RunConfig, k: int) -> RunConfig:
    """The seats of a match's k-th deal: seat s holds the first deal's player (s + k) mod P."""
    players = config.players
    streams = config.seat_streams()
    order = [(seat + k) % players for seat in range(players)]
    return replace(
        config, strategies=tuple(config.strategies[p] for p in order), streams=tuple(int(streams[p]) for p in order)
    )


def play_matches(
    config: RunConfig, first: int, n: int, trace: bool = False, stop: StopFlag | None = None
) -> MatchBatch:
    """Plays ``n`` matches of the run's format from match index ``first`` (fewer, the
    first of them, once ``stop`` is set: only matches whose deals were all played)."""
    match = config.match
    most = FORMATS[match]
    sides = n_sides(config.players)
    batches = [play_batch(rotated(config, k), first * most + k, n, trace, most, stop) for k in range(most)]
    n = min(batch.completed for batch in batches)
    batches = [batch.head(n) for batch in batches]
    points = np.empty((n, most, sides), dtype=np.int64)
    winners = np.empty((n, most), dtype=np.int64)
    for k, batch in enumerate(batches):
        seat_side_points = batch.results["game_points" if sides == CHIAMATA else "side_points"][:, :sides]
        points[:, k], winners[:, k] = by_first_seats(seat_side_points, batch.results["winner_side"].astype(np.int64), k)
    if match in POINTS_FORMATS:
        played = np.ones((n, most), dtype=bool)
        standing = points.sum(axis=1)
    else:
        played, standing = _best_of(winners, sides, need=(most + 1) // 2)
    total = (points * played[:, :, None]).sum(axis=1)
    return MatchBatch(batches, played, _unique_top(standing), total, standing)


def _best_of(winners: np.ndarray, sides: int, need: int):
    """Which deals a best-of match plays, and the deals each side won in them."""
    won = np.stack([(winners == side) for side in range(sides)], axis=2).cumsum(axis=1)  # (n, K, sides)
    decided = won.max(axis=2) >= need
    last = np.where(decided.any(axis=1), decided.argmax(axis=1), winners.shape[1] - 1)
    played = np.arange(winners.shape[1])[None, :] <= last[:, None]
    return played, won[np.arange(len(last)), last]


def _unique_top(standing: np.ndarray) -> np.ndarray:
    """The side with the highest standing, or -1 where the highest is shared."""
    top = standing.max(axis=1, keepdims=True)
    shared = (standing == top).sum(axis=1) > 1
    return np.where(shared, -1, standing.argmax(axis=1))


def match_table(matches, config: RunConfig, schema: pa.Schema) -> pa.Table:
    """The deals a batch of matches played, in deal order, each with its match's columns."""
    tables = []
    most = matches.played.shape[1]  # deals a match can take
    for k, batch in enumerate(matches.batches):
        played = matches.played[:, k]
        rows = batch.results[played]
        table = results_table(rows, rotated(config, k), schema)
        table = table.append_column(schema.field("match"), arrow_column(rows["deal"] // most))
        table = table.append_column(schema.field("match_deal"), arrow_column(np.full(len(rows), k, dtype=np.int8)))
        winners = matches.winner[played].astype(np.int8)
        tables.append(table.append_column(schema.field("match_winner_side"), arrow_column(winners)))
    return pa.concat_tables(tables, promote_options="permissive").sort_by("deal").cast(schema)
