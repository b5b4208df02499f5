"""``briscola compare A B``: is A better than B, by how much, and how sure are we?

Duplicate deals: every deal is played once per seating, with the same cards:

- 2 players: A in seat 0, then in seat 1;
- 4 and 6 players: A's team is team 0, then team 1;
- 3 players: A in seat 0, 1, then 2, against two copies of B;
- 5 players (Briscola Chiamata): A in each of the five seats against four copies of B.

Strategies draw from random streams keyed by (seed, deal, A or B, copy), not by seat:
the same in every seating of a deal, and different for A and B even when they are the
same strategy, so that A against A plays genuinely different games.

A deal's score is A's mean score over its seatings (win 1, draw 1/2, loss 0); with 3
players each game scores A against each copy of B apart (more points wins), and at
Briscola Chiamata likewise on game points, so that two equal strategies score 1/2 at
every table. Deals are independent: intervals come from
the spread of deal scores (with 2 seatings, the pentanomial model of chess testing).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from sim.base import summaries
from sim.base.config import ConfigError, RunConfig, n_sides
from sim.base.recount import compare_tally
from sim.base.results import arrow_column, results_schema, results_table
from sim.base.stats import A, B, CompareTally, Sprt, deal_games, game_scores, seatings
from sim.pipeline.kinds.base import RunKind, Table, default_path, table_of
from sim.pipeline.kinds.words import elo, interval, run_facts, speed, units


class DuplicateDeals(RunKind):
    """A kind whose parts are comparisons of two of its strategies on duplicate deals."""

    traces = True  # every game of every deal, the seating in ``game``
    called = "a comparison"  # in its messages

    def trace_refusal(self, config) -> str:
        if config.match == "deal":
            return ""
        return f"{self.called} keeps traces deal by deal, not with --match {config.match}"

    def trace_schema(self):
        import pyarrow as pa

        schema = super().trace_schema()
        return schema.insert(schema.get_field_index("deal") + 1, pa.field("game", pa.int8()))

    def trace_strategies(self, config: dict, table):
        """A and B where each game's seating puts them."""
        a, b = (np.full(table.num_rows, config["compare"][who], dtype=object) for who in ("a", "b"))
        return seated(config["compare"]["seatings"], table["game"].to_numpy(), a, b)

    def player(self, experiment, part):
        i, j = part or (0, 1)
        return DuplicatesPlayer(experiment.config, experiment.strategies[i], experiment.strategies[j])

    def new_tally(self, experiment) -> CompareTally:
        return CompareTally(len(seatings(experiment.config.players)))

    def tally_of(self, rows: dict, players: int, match: str) -> CompareTally:
        return compare_tally(rows, players, match)

    def schema(self, experiment):
        a, b = experiment.strategies[:2]
        return compare_schema(seating_config(experiment.config, a, b, seatings(experiment.config.players)[0]))

    def file_metadata(self, experiment, part, tally) -> dict:
        return pair_metadata(experiment, part, tally)

    def file_summary(self, config: dict, deals, tally) -> dict:
        """A comparison's (a tournament's pair file's too): A and B as its rows seat them."""
        a, b = (str(strategy_of(deals.head(1), who).iloc[0]) for who in "ab") if len(deals) else \
            (config["compare"]["a"], config["compare"]["b"])  # fmt: skip
        sprt = config["compare"].get("sprt")
        sprt = Sprt(sprt["elo0"], sprt["elo1"], sprt["alpha"], sprt["beta"]) if sprt else None
        return summaries.compare(table_of(config, [a] * config["players"]), a, b, tally, sprt)


class Compare(DuplicateDeals):
    name = "compare"
    strategy_keys = ("a", "b")
    plan_keys = ("sprt", "alpha", "beta")

    def check(self, labels, sprt) -> None:
        if len(labels) != 2:
            raise ConfigError(f"a comparison takes two strategies, A and B, not {len(labels)}")

    def summary(self, experiment, tallies, seconds: float) -> dict:
        a, b = experiment.strategies
        return summaries.compare(experiment.config, a, b, tallies[None], experiment.sprt)

    def default_path(self, experiment) -> Path:
        a, b = experiment.strategies
        return default_path(experiment.config, f"{a}-vs-{b}", prefix="compare_")

    def strategies_read(self, config: dict, deals) -> list[str]:
        """A then B."""
        return [config["compare"]["a"], config["compare"]["b"]]

    def study_view(self, config: dict, deals, summary: dict, strategies: list[str]) -> None:
        config["compare"] = {"a": strategies[0], "b": strategies[1], "sprt": summary.get("sprt")}

    def tables(self, summary: dict, interrupted: bool, seconds: float | None) -> list[Table]:
        """The table of ``briscola compare``, from its JSON."""
        row = summary
        count, unit = units(row)
        title = f"{row['a']} (A) against {row['b']} (B)" + (" (interrupted)" if interrupted else "")
        facts = f"{row['players']} players, {count:,} duplicate {unit}, {row['games']:,} games, {run_facts(row)}"
        low, high = row["elo_ci95"]
        margin = "mean game-point margin" if row["players"] == 5 else "mean point margin"
        rows = [
            ("score", f"{row['score']:.4f}", interval(row["score_ci95"], "{:.4f}")),
            ("Elo difference", elo(row["elo"], row["score"]), f"{elo(low, 0.0)} to {elo(high, 1.0)}"),
            ("LOS (A stronger)", f"{row['los']:.4f}", ""),
            ("wins / draws / losses", f"{row['wins']:,} / {row['draws']:,} / {row['losses']:,}", ""),
            (margin, f"{row['mean_margin']:+.2f}", interval(row["mean_margin_ci95"], "{:+.2f}")),
        ]
        if row["sprt"] is not None:
            sprt = row["sprt"]
            verdict = {"H1": "H1 accepted", "H0": "H0 accepted", "none": "no decision"}[sprt["result"]]
            rows.append((f"SPRT elo0={sprt['elo0']:g} elo1={sprt['elo1']:g}", f"LLR {sprt['llr']:.2f}",
                         f"bounds {sprt['bounds'][0]:.2f}, {sprt['bounds'][1]:.2f}: {verdict}"))  # fmt: skip
        columns = (("figure (for A)", "left"), ("value", "right"), ("95% interval", "right"))
        return [Table(title, columns, rows, facts + speed(count, unit, seconds))]

    def headline(self, summary: dict) -> str:
        lo, hi = summary["score_ci95"]
        sprt = f", SPRT {summary['sprt']['result']}" if summary["sprt"] else ""
        return f"{summary['a']} scores {summary['score']:.4f} ({lo:.4f}-{hi:.4f}) against {summary['b']}{sprt}"

    def page_tables(self, summary: dict) -> list:
        if "score" not in summary:
            return []
        keys = ("a", "b", "deals", "matches", "games", "score", "score_ci95", "elo", "elo_ci95", "los", "wins",
                "draws", "losses", "mean_margin", "mean_margin_ci95")  # fmt: skip
        row = {k: summary[k] for k in keys if k in summary}  # deals, or matches with a match format
        return [("Summary (as briscola compare printed it)", [row], [])]

    def strategies_shown(self, strategies: list[str]) -> str:
        return " vs ".join(strategies)


def pair_metadata(experiment, part, tally) -> dict:
    """What a comparison's file says of it: A, B, the seatings and the SPRT."""
    i, j = part or (0, 1)
    a, b = experiment.strategies[i], experiment.strategies[j]
    sprt = experiment.sprt
    seating_list = seating_letters(experiment.config.players)
    return {
        "compare": {"a": a, "b": b, "seatings": seating_list, "sprt": None if sprt is None else sprt.to_dict(tally)}
    }


def seating_letters(players: int) -> list[str]:
    """The seatings as a file's metadata names them: ``"AB"``, ``"BA"``, a letter per seat."""
    return ["".join(seating) for seating in seatings(players)]


def seated(letters: list[str], games: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Each game's strategy per seat (a row per game): its A (``a``) or B (``b``) where
    its seating (``games``, indices into ``letters``, a letter per seat) puts them."""
    is_a = np.array([[letter == A for letter in seating] for seating in letters], dtype=bool)[games]
    return np.where(is_a, a[:, None], b[:, None])


def seating_config(base: RunConfig, a: str, b: str, seating: tuple[str, ...]) -> RunConfig:
    """The run of one seating: strategies per seat, streams keyed by strategy and copy
    (A's copies 1, 2, ...; B's after every possible copy of A)."""
    from kernels.enums import MAX_PLAYERS  # here: the kernels load when a kind plays, not when it is read

    strategies, streams, copies = [], [], {A: 0, B: 0}
    for who in seating:
        strategies.append(a if who == A else b)
        streams.append(1 + copies[who] + (0 if who == A else MAX_PLAYERS))
        copies[who] += 1
    return replace(base, strategies=tuple(strategies), streams=tuple(streams))


def compare_schema(config: RunConfig):
    """A result file's columns, plus the seating (``game``) and the side of A."""
    import pyarrow as pa

    schema = results_schema(config)
    return schema.insert(1, pa.field("game", pa.int8())).insert(2, pa.field("a_side", pa.int8()))


# ------------------------------------------------------------------ the columns of its rows


def players_of(deals) -> int:
    """The table of some rows: the players whose points they hold."""
    return sum(c.startswith("points_") for c in deals.columns)


def a_in_row(deals) -> np.ndarray:
    """A's seat (3 players) or side in each row: ``a_side`` names it in the first deal of
    a match; the k-th deal's seats are rotated by k."""
    a = deals["a_side"].to_numpy()
    if "match_deal" not in deals:
        return a
    return (a - deals["match_deal"].to_numpy()) % n_sides(players_of(deals))


def strategy_of(deals, who: str):
    """The strategy of A (or B) in each row (a pandas Series): A sits in ``a_side``'s seats."""
    import pandas as pd

    players = players_of(deals)
    a_seat = a_in_row(deals)  # seat a_side (this row's) is always one of A's seats, the next one B's
    seat = a_seat if who == "a" else (a_seat + 1) % players
    columns = np.stack([deals[f"strategy_{s}"].astype(str).to_numpy() for s in range(players)], axis=1)
    return pd.Series(columns[np.arange(len(deals)), seat], index=deals.index)


# ------------------------------------------------------------------ playing


class DuplicatesPlayer:
    """Plays A against B on duplicate deals: every deal from every seating. ``pair``: a
    tournament's label of the pair (``i_j``), which its traces carry."""

    def __init__(self, base: RunConfig, a: str, b: str, pair: str | None = None):
        self.pair = pair
        self.seatings = seatings(base.players)
        self.configs = [seating_config(base, a, b, seating) for seating in self.seatings]
        from sim.runtime.play import check_seats  # here: reading a file of this kind must not load the kernels

        for config in self.configs:
            check_seats(config)  # bad ones fail here, before anything runs
        self.games = len(self.configs)
        self.schema = compare_schema(self.configs[0])

    def new_tally(self) -> CompareTally:
        return CompareTally(self.games)

    def deals_played(self, tally: CompareTally, completed: int) -> int:
        return completed * self.games  # every unit, from every seating

    def play(self, first: int, n: int, tally: CompareTally, stop, rows=None, trace=None) -> int:
        """Plays games ``first .. first + n - 1`` from every seating into ``tally`` (and
        ``rows``, when given: rows by deal, then seating, whatever the batches). Returns
        how many: after a stop, only the first games played from every seating."""
        import pyarrow as pa

        played = [_play_seating(config, first, n, stop, trace is not None) for config in self.configs]
        done = min(games.completed for games in played)
        scores, tables, traces = [], [], []
        for game, (config, seating, games) in enumerate(zip(self.configs, self.seatings, played)):
            games = games.head(done)
            scores.append(game_scores(*_outcomes(games, config), seating))
            if rows is not None:
                tables.append(_with_seating(_rows(games, config), self.schema, game, seating, config.players))
            if trace is not None:
                traces.append(_traced_game(games, game, self.pair))
        tally.add_games(scores)
        in_order = [("deal", "ascending"), ("game", "ascending")]
        if rows is not None:
            rows.write(pa.concat_tables(tables).sort_by(in_order))
        if trace is not None:
            trace.write(pa.concat_tables(traces).sort_by(in_order))
        return done


def _play_seating(config: RunConfig, first: int, n: int, stop, trace: bool = False):
    """Games (deals or matches) ``first .. first + n - 1`` of one seating: a Batch (traced
    with ``trace``), or a MatchBatch with a match format."""
    from sim.pipeline.matches import play_matches
    from sim.runtime.play import play_batch

    if config.match == "deal":
        return play_batch(config, first, n, trace=trace, stop=stop)
    return play_matches(config, first, n, stop=stop)


def _traced_game(games, game: int, pair: str | None = None):
    """A seating's traced deals as trace rows, with the seating (``game``) and, in a
    tournament, the pair first."""
    import pyarrow as pa

    from sim.base.trace import trace_table

    table = trace_table(games)
    column = arrow_column(np.full(table.num_rows, game, dtype=np.int8))
    table = table.add_column(table.schema.get_field_index("deal") + 1, pa.field("game", pa.int8()), column)
    if pair is None:
        return table
    return table.add_column(0, pa.field("pair", pa.string()), pa.array([pair] * table.num_rows, pa.string()))


def _outcomes(games, config: RunConfig):
    """``game_scores``' inputs (side points, winner, standing) of a seating's games."""
    if config.match == "deal":
        return deal_games(games.results, n_sides(config.players))
    return games.points, games.winner, games.standing


def _rows(games, config: RunConfig):
    """A seating's games as result-file rows."""
    from sim.pipeline.matches import match_table

    schema = results_schema(config)
    if config.match == "deal":
        return results_table(games.results, config, schema)
    return match_table(games, config, schema)


def _with_seating(table, schema, game: int, seating, players: int):
    """Adds a compare file's columns: the seating (``game``) and A's side."""
    a_side = seating.index(A) if players in (3, 5) else seating.index(A) % 2
    n = table.num_rows
    table = table.add_column(1, schema.field("game"), arrow_column(np.full(n, game, dtype=np.int8)))
    return table.add_column(2, schema.field("a_side"), arrow_column(np.full(n, a_side, dtype=np.int8)))
