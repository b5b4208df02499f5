"""A traced deal of a result file, for the page to replay move by move with its analysis.

``replayed(trace, deal)`` reads one game of a trace file (``--trace`` of ``simulate``,
``compare`` or ``tournament``; ``game`` picks the seating of a comparison's deal, ``pair``
a tournament's pair), values its moves as ``briscola analyse`` does, and returns what the
page shows: every hand as dealt, the stock in drawing order, each card played with its
seat and the trick's winner, and each move's analysis. Nothing is hidden in a replay.
"""

from __future__ import annotations

import pyarrow.compute as pc
import pyarrow.parquet as pq

from sim.base.config import CHIAMATA, ConfigError
from sim.base.results import read_config
from sim.pipeline.kinds import trace_kind
from sim.web.table import analysed_moves, whole_deal


def replayed(trace, deal: int, game: int | None = None, pair: str | None = None, samples: int = 16) -> dict:
    """One game of ``trace`` (a path) ready to replay; ConfigError naming what is there
    when no row matches."""
    config = read_config(trace)
    table = pq.read_table(trace)
    chosen = pc.equal(table["deal"], deal)
    for column, value in (("game", game), ("pair", pair)):
        if column in table.column_names and value is not None:
            chosen = pc.and_(chosen, pc.equal(table[column], value))
    rows = table.filter(chosen)
    if rows.num_rows == 0:
        raise ConfigError(f"no deal {deal} in {trace}: it holds deals {_span(table)}")
    if rows.num_rows > 1:
        keys = [c for c in ("pair", "game") if c in rows.column_names]
        options = ", ".join(str({k: rows[k][i].as_py() for k in keys}) for i in range(rows.num_rows))
        raise ConfigError(f"deal {deal} of {trace} was played {rows.num_rows} times: choose one of {options}")
    row = rows.slice(0, 1)
    names = [str(name) for name in trace_kind(trace, config).trace_strategies(config, row)[0]]
    moves = analysed_moves(row, config, samples, names)  # the one game, as a trace of its own
    record = row.to_pylist()[0]
    players, deal_cards = int(record["players"]), whole_deal(record)
    steps = _steps(deal_cards, [move["seat"] for move in moves], [int(w) for w in record["trick_winners"]], players)
    return {"players": players, "deal_index": deal, "names": names, "deal": deal_cards, "moves": moves, "steps": steps,
            "points": [int(p) for p in record["seat_points"]], "chiamata": players == CHIAMATA}  # fmt: skip


def _steps(deal: dict, seats: list[int], winners: list[int], players: int) -> list[dict]:
    """Every hand and the trick on the table before each card played, and once the last
    is: the winner of a trick draws first, then the others in playing order."""
    hands = [list(hand) for hand in deal["hands"]]
    stock, drawn, table, steps = deal["stock"], 0, [], []
    for k, (seat, card) in enumerate(zip(seats, deal["plays"])):
        steps.append({"hands": [list(hand) for hand in hands], "table": list(table)})
        hands[seat].remove(card)
        table.append(card)
        if len(table) == players:  # the trick is over: its winner draws first
            winner = winners[k // players]
            for j in range(players if drawn < len(stock) else 0):
                hands[(winner + j) % players].append(stock[drawn])
                drawn += 1
            table = []
    steps.append({"hands": hands, "table": table})
    return steps


def _span(table) -> str:
    deals = table["deal"]
    return f"{pc.min(deals).as_py()} to {pc.max(deals).as_py()}" if table.num_rows else "none"
