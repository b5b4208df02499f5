"""People rated like strategies: every deal played on the page, kept, and scored.

When a deal played on the page ends, ``save_deal`` writes it to the people folder
(``briscola play --out``, ``results/people`` by default): one Parquet file per deal,
written whole or not at all, under the name the person gave. A row holds the whole deal
as a trace does (every hand, the stock, every card played, the points), the seed and
deal index that deal it again, the person's seat and the strategies at the others. A
closed tab or a stopped server loses no finished deal: each is on disk once it ends.

``people(folder)`` reads them, a row per deal; ``person_ratings(folder)`` scores each
person against each line-up of strategies, with 95% intervals and Elo. A deal played
from several seats (the page's "the same deal, the next seat") is one unit of the
interval, its games averaged: duplicate deals, as ``compare`` plays them.

>>> sim.person_ratings("results/people")                                       # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd

from sim.base.files import PEOPLE_MARKER as MARKER  # marks a people folder (briscola report reads it)

NAME = re.compile(r"^[\w .-]{1,40}$")


def check_name(name: str) -> str:
    """The person's name as given, if it can name a folder; ValueError otherwise."""
    name = str(name).strip()
    if not NAME.match(name) or name.startswith("."):
        raise ValueError(f"name {name!r}: give 1-40 letters, digits, spaces, dots, dashes or underscores")
    return name


def save_deal(table, folder: Path) -> Path:
    """Writes the finished deal of ``table`` (a PersonTable) under ``folder``, in its
    person's folder."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sim.base.files import METADATA_KEY, write_atomically
    from sim.base.trace import trace_schema

    config, name = table.config, table.person
    row = {**table.trace(), "person": name, "person_seat": table.seat, "seed": config.seed, "lineup": list(table.names)}
    schema = trace_schema().append(pa.field("person", pa.string())).append(pa.field("person_seat", pa.int8()))
    schema = schema.append(pa.field("seed", pa.int64())).append(pa.field("lineup", pa.list_(pa.string())))
    meta = {"format": 1, "kind": "person", "players": config.players, "seed": config.seed,
            "rules": vars(config.rules), "person": name}  # fmt: skip
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = (
        Path(folder) / name / f"{stamp}-{config.players}p-seed{config.seed}-deal{row['deal']}-seat{table.seat}.parquet"
    )
    data = pa.Table.from_pylist([row], schema=schema).replace_schema_metadata({METADATA_KEY: json.dumps(meta)})
    write_atomically(path, lambda temporary: pq.write_table(data, temporary))
    marker = Path(folder) / MARKER
    if not marker.exists():
        write_atomically(marker, lambda temporary: temporary.write_text(json.dumps({"kind": "people"}) + "\n"))
    return path


def is_people_folder(path) -> bool:
    return Path(path).is_dir() and (Path(path) / MARKER).exists()


def people(folder) -> pd.DataFrame:
    """Every deal of a people folder, a row each: ``person``, ``players``, ``lineup`` (the
    others' strategies, in seat order), ``seed``, ``deal``, ``seat``, the person's side's
    ``points`` and ``score`` (won 1, drawn 1/2, lost 0), and ``file``."""
    import pyarrow.parquet as pq

    from sim.base.config import n_sides
    from sim.base.results import read_config

    rows = []
    for path in sorted(Path(folder).glob("*/*.parquet")):
        if read_config(path).get("kind") != "person":  # raises, naming it, for a file not briscola's
            raise ValueError(f"{path} is not a deal played on the page (briscola play): move it out of {folder}")
        for row in pq.read_table(path).to_pylist():
            players, seat = int(row["players"]), int(row["person_seat"])
            points = [int(p) for p in row["seat_points"]]
            sides = n_sides(players)
            mine = sum(p for s, p in enumerate(points) if s % sides == seat % sides)
            best_other = max(sum(p for s, p in enumerate(points) if s % sides == side)
                             for side in range(sides) if side != seat % sides)  # fmt: skip
            if players == 5:  # Briscola Chiamata: the seat's own game points say it
                game = [int(p) for p in row["game_points"]]
                score = 1.0 if game[seat] > 0 else (0.5 if game[seat] == 0 else 0.0)
            else:
                score = 1.0 if mine > best_other else (0.5 if mine == best_other else 0.0)
            lineup = [n for s, n in enumerate(row["lineup"]) if s != seat]
            rows.append({"person": row["person"], "players": players, "lineup": ", ".join(lineup),
                         "seed": int(row["seed"]), "deal": int(row["deal"]), "seat": seat, "points": mine,
                         "score": score, "file": path.name})  # fmt: skip
    columns = ["person", "players", "lineup", "seed", "deal", "seat", "points", "score", "file"]
    return pd.DataFrame(rows, columns=columns)


def person_ratings(folder) -> pd.DataFrame:
    """Each person's score against each line-up at each table: games, deals (a deal
    played from several seats counts once, its games averaged), the mean score with its
    95% interval over deals, and the Elo difference it means (the person's over the
    line-up's), with the interval's."""
    from sim.base.stats import elo_from_score, mean_interval

    played = people(folder)
    rows = []
    for (person, players, lineup), games in played.groupby(["person", "players", "lineup"], sort=True):
        per_deal = games.groupby(["seed", "deal"])["score"].mean()
        mean, low, high = mean_interval(per_deal)
        elo = [elo_from_score(x) if np.isfinite(x) else None for x in (mean, max(low, 0.0), min(high, 1.0))]
        rows.append({"person": person, "players": int(players), "lineup": lineup, "games": len(games),
                     "deals": len(per_deal), "score": mean, "ci_low": low, "ci_high": high, "elo": elo[0],
                     "elo_low": elo[1], "elo_high": elo[2]})  # fmt: skip
    return pd.DataFrame(rows)
