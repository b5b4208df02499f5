"""A traced deal, for the page to replay move by move with its analysis: a result file's
(``briscola play --replay``), or one just played on the page (``replay_of``).

``replayed(trace, deal)`` reads one game of a trace file (``--trace`` of ``simulate``,
``compare`` or ``tournament``; ``game`` picks the seating of a comparison's deal, ``pair``
a tournament's pair), values its moves as ``briscola analyse`` does, and returns what the
page shows: every hand as dealt, the stock in drawing order, each card played with its
seat and the trick's winner, and each move's analysis. Nothing is hidden in a replay.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from sim.base.cards import short_name
from sim.base.config import CHIAMATA, ConfigError
from sim.base.results import read_config
from sim.pipeline.kinds import trace_kind


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
    return replay_of(row, config, names, samples)


def replay_of(row, config: dict, names: list[str], samples: int) -> dict:
    """One traced game (a one-row Arrow table of trace rows, its run's configuration)
    ready to replay: every hand as dealt (``deal``), each card played valued
    (``moves``), every hand and the trick before each card (``steps``), the points."""
    moves = analysed_moves(row, config, samples, names)
    record = row.to_pylist()[0]
    players, deal_cards = int(record["players"]), whole_deal(record)
    steps = _steps(deal_cards, [move["seat"] for move in moves], [int(w) for w in record["trick_winners"]], players)
    return {"players": players, "deal_index": int(record["deal"]), "names": names, "deal": deal_cards, "moves": moves,
            "steps": steps, "points": [int(p) for p in record["seat_points"]], "chiamata": players == CHIAMATA}  # fmt: skip


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


def analysed_moves(rows, meta: dict, samples: int, names: list[str]) -> list[dict]:
    """The moves of trace rows (an Arrow table, its run's configuration ``meta``) valued
    by ``sim.analyse``, JSON-ready, in playing order; ``names``: the seats' strategies."""
    import pyarrow.parquet as pq

    from sim.base.files import METADATA_KEY
    from sim.present.analyse import analyse

    with tempfile.TemporaryDirectory() as folder:  # analyse reads a trace file, as the command does
        trace = Path(folder) / "deal.parquet"
        pq.write_table(rows.replace_schema_metadata({METADATA_KEY: json.dumps(meta)}), trace)
        moves = analyse(trace, samples=samples)
    return [
        {"trick": int(m.trick), "seat": int(m.seat), "strategy": names[int(m.seat)], "card": short_name(int(m.card)),
         "best_card": short_name(int(m.best_card)), "score_cost": round(float(m.score_cost), 4),
         "points_cost": round(float(m.points_cost), 2), "verdict": str(m.verdict),
         "par_cost": None if math.isnan(m.par_cost) else float(m.par_cost)}
        for m in moves.itertuples()
    ]  # fmt: skip


def whole_deal(trace: dict) -> dict:
    """The finished deal as the replay shows it: every hand as dealt, the stock in drawing
    order (the face-up briscola last), and every card played in order."""
    players = int(trace["players"])
    hands = list(trace["hands"])
    size = len(hands) // players
    stock = [*trace["stock"], trace["briscola"]] if players != CHIAMATA else []
    return {
        "hands": [card_names(hands[seat * size : (seat + 1) * size]) for seat in range(players)],
        "stock": card_names(stock), "plays": card_names(trace["plays"]),
        "auction": [int(a) for a in trace["auction"]],
    }  # fmt: skip


def card_names(codes) -> list[str]:
    """Card codes as people write them (``1D``), the -1 padding left out."""
    return [short_name(int(code)) for code in codes if code >= 0]


def _span(table) -> str:
    deals = table["deal"]
    return f"{pc.min(deals).as_py()} to {pc.max(deals).as_py()}" if table.num_rows else "none"
