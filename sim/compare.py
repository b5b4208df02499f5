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

import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from kernels.enums import MAX_PLAYERS
from sim.compiling import warm_up
from sim.config import RunConfig, n_sides
from sim.files import make_parent
from sim.interrupt import deferred_interrupt
from sim.play import play_batch, seat_specs
from sim.results import AtomicParquetWriter, arrow_column, match_table, results_schema, results_table
from sim.runner import Pace, batches, default_path, final_metadata, prepare_outputs
from sim.stats import A, B, CompareTally, Sprt, deal_games, game_scores, seatings


def seating_config(base: RunConfig, a: str, b: str, seating: tuple[str, ...]) -> RunConfig:
    """The run of one seating: strategies per seat, streams keyed by strategy and copy
    (A's copies 1, 2, ...; B's after every possible copy of A)."""
    strategies, streams, copies = [], [], {A: 0, B: 0}
    for who in seating:
        strategies.append(a if who == A else b)
        streams.append(1 + copies[who] + (0 if who == A else MAX_PLAYERS))
        copies[who] += 1
    return replace(base, strategies=tuple(strategies), streams=tuple(streams))


# ------------------------------------------------------------------ running a comparison


@dataclass
class CompareOutcome(Pace):
    config: RunConfig  # the first seating's
    a: str
    b: str
    tally: CompareTally
    sprt: Sprt | None
    seconds: float
    interrupted: bool
    out: Path | None
    warm_up_seconds: float = 0.0


SPRT_CHECK_DEALS = 1000  # the SPRT is checked after every multiple of this many deals, and only there


def default_compare_path(config: RunConfig, a: str, b: str) -> Path:
    return default_path(config, f"{a}-vs-{b}", prefix="compare_")


def run_comparison(
    base: RunConfig,
    a: str,
    b: str,
    out: Path | None,
    sprt=None,
    overwrite: bool = False,
    command: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    stop=None,
) -> CompareOutcome:
    """Plays ``base.deals`` duplicate deals of A against B (fewer when the SPRT ``sprt``
    decides first), writing one row per game to ``out`` (None: summary only). ``stop``:
    the StopFlag of a caller's Ctrl-C handler (a tournament's), else this run installs one."""
    from sim.report import compare_dict

    seating_list = seatings(base.players)
    configs = [seating_config(base, a, b, seating) for seating in seating_list]
    for config in configs:
        seat_specs(config)  # unknown strategies fail before any file is opened
    prepare_outputs(out, None, overwrite)
    warm_up_seconds = sum(warm_up(config) for config in configs)
    make_parent(out)
    tally = CompareTally(len(configs))
    writer = None
    started = time.perf_counter()
    try:
        with nullcontext(stop) if stop is not None else deferred_interrupt() as stop:
            if out is not None:
                schema = compare_schema(configs[0])
                writer = AtomicParquetWriter(out, schema)
            # With an SPRT, batches end on every multiple of SPRT_CHECK_DEALS: the test is
            # checked there, at deal counts that do not depend on speed or threads.
            for first, n in batches(base.deals, stop, SPRT_CHECK_DEALS if sprt is not None else None):
                done = _play_duplicates(
                    configs, seating_list, first, n, tally, writer, schema if writer else None, stop
                )
                if on_progress is not None:
                    on_progress(done)
                at_checkpoint = (first + done) % SPRT_CHECK_DEALS == 0
                if sprt is not None and at_checkpoint and sprt.decision(tally) != "none":
                    break
            seconds = time.perf_counter() - started
            outcome = CompareOutcome(configs[0], a, b, tally, sprt, seconds, stop.is_set(), out, warm_up_seconds)
            if writer is not None:
                metadata = final_metadata(configs[0], command, stop, tally.units, seconds)
                metadata["compare"] = {"a": a, "b": b, "seatings": ["".join(s) for s in seating_list],
                                       "sprt": None if sprt is None else sprt.to_dict(tally)}  # fmt: skip
                metadata["summary"] = compare_dict(outcome)  # what the command prints, for briscola report
                writer.close(metadata)
                writer.commit()
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    return outcome


def _play_duplicates(configs, seating_list, first: int, n: int, tally: CompareTally, writer, schema, stop) -> int:
    """Plays games ``first .. first + n - 1`` from every seating into ``tally`` (and
    ``writer``, when there is one: rows by deal, then seating, whatever the batches).
    Returns how many: after a stop, only the first games played from every seating."""
    import pyarrow as pa

    played = [_play_seating(config, first, n, stop) for config in configs]
    done = min(games.completed for games in played)
    scores, tables = [], []
    for game, (config, seating, games) in enumerate(zip(configs, seating_list, played)):
        games = games.head(done)
        scores.append(game_scores(*_outcomes(games, config), seating))
        if writer is not None:
            tables.append(_with_seating(_rows(games, config), schema, game, seating, config.players))
    tally.add(*(np.stack([g[k] for g in scores], axis=1) for k in range(3)))
    if writer is not None:
        writer.write(pa.concat_tables(tables).sort_by([("deal", "ascending"), ("game", "ascending")]))
    return done


def compare_schema(config: RunConfig):
    """A result file's columns, plus the seating (``game``) and the side of A."""
    import pyarrow as pa

    schema = results_schema(config)
    return schema.insert(1, pa.field("game", pa.int8())).insert(2, pa.field("a_side", pa.int8()))


def _play_seating(config: RunConfig, first: int, n: int, stop):
    """Games (deals or matches) ``first .. first + n - 1`` of one seating: a Batch, or a
    MatchBatch with a match format."""
    from sim.matches import play_matches

    if config.match == "deal":
        return play_batch(config, first, n, stop=stop)
    return play_matches(config, first, n, stop=stop)


def _outcomes(games, config: RunConfig):
    """``game_scores``' inputs (side points, winner, standing) of a seating's games."""
    if config.match == "deal":
        return deal_games(games.results, n_sides(config.players))
    return games.points, games.winner, games.standing


def _rows(games, config: RunConfig):
    """A seating's games as result-file rows."""
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
