"""A run's tallies counted again from its rows, as the run counted them while it played:
what a result file's rows, or a study chunk's, add up to. Readers check what is kept
beside the rows against them (a file's summary, a chunk record's tally), so that a
figure shown is always its rows' own.

The rows are given as columns: ``{name: numpy array}`` (``columns_of``). Pure numpy:
reading results needs no kernels.
"""

from __future__ import annotations

import numpy as np

from sim.base.config import CHIAMATA, POINTS_FORMATS, n_sides
from sim.base.stats import CompareTally, RunTally, game_scores, seatings


class RowsDisagree(ValueError):
    """Rows that no run writes (a seating without the deals of the others): the message
    says what."""


COUNTED = ("deal", "game", "winner_side", "match", "match_deal", "match_winner_side")  # and the points per side
CHIAMATA_COUNTED = ("caller", "partner", "made", "bid", "cappotto")  # and each seat's strategy


def counted(names, players: int) -> list[str]:
    """The columns of ``names`` that a recount reads (reading no others is faster)."""
    points = [f"side_points_{side}" for side in range(n_sides(players))] if players != CHIAMATA else \
        [f"game_points_{seat}" for seat in range(CHIAMATA)]  # fmt: skip
    chiamata = [*CHIAMATA_COUNTED, *(f"strategy_{seat}" for seat in range(CHIAMATA))] if players == CHIAMATA else []
    wanted = {*COUNTED, *points, *chiamata}
    return [name for name in names if name in wanted]


def columns_of(rows, players: int) -> dict[str, np.ndarray]:
    """The columns a recount reads of a pyarrow Table or a pandas DataFrame, as numpy
    arrays (strategy names as strings)."""
    names = rows.column_names if hasattr(rows, "column_names") else rows.columns
    return {name: np.asarray(rows[name].to_numpy()) for name in counted(names, players)}


def by_first_seats(side_points: np.ndarray, winner: np.ndarray, k) -> tuple[np.ndarray, np.ndarray]:
    """A match's ``k``-th deal (a number, or one per row) told by the sides of the match's
    first deal (the dealer rotates: the side of seat s there is side (s - k) mod S in
    deal k): its points per side, and its winner (-1: none)."""
    sides = side_points.shape[1]
    k = np.broadcast_to(np.asarray(k, dtype=np.int64), winner.shape)
    order = (np.arange(sides)[None, :] - k[:, None]) % sides
    return np.take_along_axis(side_points, order, axis=1), np.where(winner < 0, -1, (winner + k) % sides)


def run_tally(rows: dict, players: int, match: str) -> RunTally:
    """What a ``simulate`` run tallied of these rows (``RunTally``): per side, over its
    deals (or matches), and at Briscola Chiamata per strategy by role and bid."""
    sides = n_sides(players)
    tally = RunTally(sides)
    if match != "deal":
        _, points, winner, standing = _match_outcomes(rows, players, match)
        tally.add_outcomes(winner, points, standing)
    elif players == CHIAMATA:
        tally.add_game_points(rows_points(rows, players))
    else:
        points = rows_points(rows, players)
        tally.add_outcomes(rows["winner_side"], points, points)
    tally.deals_played += len(rows["deal"])
    if tally.chiamata is not None:
        _add_chiamata(tally, rows)
    return tally


def compare_tally(rows: dict, players: int, match: str) -> CompareTally:
    """What a comparison tallied of these rows (``CompareTally``): every unit (deal, or
    match) from each seating, scored for A as ``briscola compare`` scores it."""
    games = seatings(players)
    per_seating, units = [], None
    for game, seating in enumerate(games):
        mine = _select(rows, rows["game"] == game)
        if match == "deal":
            if np.any(mine["deal"][1:] < mine["deal"][:-1]):  # a run writes them in order
                mine = _select(mine, np.argsort(mine["deal"], kind="stable"))
            ids, points = mine["deal"], rows_points(mine, players)
            outcomes = (points, mine["winner_side"], points)
        else:
            ids, *outcomes = _match_outcomes(mine, players, match)
        if units is not None and not np.array_equal(ids, units):
            raise RowsDisagree(f"seating {game} holds other deals than seating 0 (a comparison plays each from all)")
        units = ids
        per_seating.append(game_scores(*outcomes, seating))
    tally = CompareTally(len(games))
    tally.add_games(per_seating)
    return tally


def rows_points(rows: dict, players: int) -> np.ndarray:
    """What decides each row, per side: its side points; at Briscola Chiamata (a side
    per seat) each seat's game points."""
    if players == CHIAMATA:
        return np.stack([rows[f"game_points_{seat}"] for seat in range(CHIAMATA)], axis=1).astype(np.int64)
    return np.stack([rows[f"side_points_{side}"] for side in range(n_sides(players))], axis=1).astype(np.int64)


def _match_outcomes(rows: dict, players: int, match: str):
    """Per match (in order): its number, points over its deals, winner and standing (its
    points, or deals won in a best-of), told by the sides of its first deal."""
    ids, first_row, inverse = np.unique(rows["match"], return_index=True, return_inverse=True)
    points, winners = by_first_seats(rows_points(rows, players), rows["winner_side"], rows["match_deal"])
    sides = points.shape[1]
    total = np.zeros((len(ids), sides), dtype=np.int64)
    np.add.at(total, inverse, points)
    if match in POINTS_FORMATS:
        standing = total
    else:
        standing = np.zeros((len(ids), sides), dtype=np.int64)
        won = winners >= 0
        np.add.at(standing, (inverse[won], winners[won]), 1)
    return ids, total, rows["match_winner_side"][first_row].astype(np.int64), standing


def _add_chiamata(tally: RunTally, rows: dict) -> None:
    """Briscola Chiamata's figures by role and bid, per group of rows whose seats play
    the same strategies (a match rotates them), in the order the run met them."""
    fields = ("caller", "partner", "made", "bid", "cappotto")
    results = np.zeros(len(rows["deal"]), dtype=[*((f, np.int64) for f in fields), ("game_points", np.int64, CHIAMATA)])
    for name in fields:
        results[name] = rows[name]
    results["game_points"] = rows_points(rows, CHIAMATA)
    seats = np.stack([rows[f"strategy_{seat}"].astype(str) for seat in range(CHIAMATA)], axis=1)
    lineups, first_row, inverse = np.unique(seats, axis=0, return_index=True, return_inverse=True)
    for group in np.argsort(first_row):
        tally.chiamata.add(results[inverse.ravel() == group], tuple(map(str, lineups[group])))


def _select(rows: dict, which) -> dict:
    return {name: column[which] for name, column in rows.items()}
