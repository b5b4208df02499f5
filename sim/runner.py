"""Runs a simulation batch by batch: plays, tallies, streams results to disk.

Batches are sized to take about half a second, so memory stays flat however many
deals are asked for, Ctrl-C is honoured within seconds, and progress moves smoothly.
Deal ``i`` always gets the same cards and moves, whatever the batch and thread counts.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from sim import __version__
from sim.config import ConfigError, RunConfig, n_sides, side_of_seat
from sim.compiling import warm_up
from sim.engine import Batch, effective_threads, play_batch, seat_specs
from sim.results import (
    FORMAT_VERSION,
    AtomicParquetWriter,
    check_output_path,
    match_table,
    results_schema,
    results_table,
)
from sim.stats import RunTally
from sim.trace import trace_schema, trace_table

FIRST_BATCH = 10_000
MAX_BATCH = 2_000_000
SECONDS_PER_BATCH = 0.5


class _Pace:
    """Deals done and deals per second, for outcomes with a ``tally`` and ``seconds``."""

    @property
    def deals_done(self) -> int:
        return self.tally.deals

    @property
    def deals_per_second(self) -> float:
        return self.deals_done / self.seconds if self.seconds > 0 else 0.0


@dataclass
class RunOutcome(_Pace):
    config: RunConfig
    tally: RunTally
    seconds: float
    interrupted: bool
    out: Path | None
    trace: Path | None
    warm_up_seconds: float = 0.0  # loading or compiling the kernels, before the timed run


def default_out_path(config: RunConfig) -> Path:
    names = "-".join(config.strategies).replace(":", "_")
    count = f"{config.deals}deals" if config.match == "deal" else f"{config.deals}matches_{config.match}"
    return Path("results") / f"{config.players}p_{names}_seed{config.seed}_{count}.parquet"


def run_metadata(config: RunConfig, command: str | None) -> dict:
    """What goes into a file's metadata: everything needed to reproduce the run."""
    return {
        "format": FORMAT_VERSION,
        "version": __version__,
        "seed": config.seed,
        "players": config.players,
        "rules": vars(config.rules).copy(),
        "strategies": [
            {"seat": seat, "side": side_of_seat(seat, config.players), **spec.to_dict()}
            for seat, spec in enumerate(seat_specs(config))
        ],
        "strategy_files": [str(Path(p).resolve()) for p in config.strategy_files],
        "deals": config.deals,
        "match": config.match,
        "threads": effective_threads(config),
        "command": command,
    }


def prepare_outputs(
    out: Path | None, trace: Path | None, overwrite: bool, out_dir_may_be_created: bool = False
) -> None:
    """Checks every output path before anything runs, so bad input writes nothing."""
    if out is not None:
        check_output_path(out, overwrite, "--out", parent_may_be_created=out_dir_may_be_created)
    if trace is not None:
        check_output_path(trace, overwrite, "--trace")
    if out is not None and trace is not None and out.resolve() == trace.resolve():
        raise ConfigError("--out and --trace name the same file; give two paths")


def run_simulation(
    config: RunConfig,
    out: Path | None,
    trace: Path | None = None,
    overwrite: bool = False,
    command: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    create_out_dir: bool = False,
) -> RunOutcome:
    """Plays ``config.deals`` deals, writing results to ``out`` (None: summary only).

    ``create_out_dir`` creates the folder of ``out`` (for the default ``results/``) once
    the configuration is known to be good: bad input writes nothing.
    """
    seat_specs(config)  # unknown strategies and parameters fail here, before any file is opened
    prepare_outputs(out, trace, overwrite, out_dir_may_be_created=create_out_dir)
    warm_up_seconds = warm_up(config)  # a first run compiles here: Ctrl-C leaves nothing behind
    if create_out_dir and out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
    tally = RunTally(n_sides(config.players))
    writers = {}
    started = time.perf_counter()
    try:
        with _deferred_interrupt() as stop:
            _open_writers(writers, config, out, trace)
            _play_all(config, writers, tally, on_progress, stop)
            seconds = time.perf_counter() - started
            metadata = run_metadata(config, command)
            metadata.update(
                status="partial" if stop.is_set() else "complete",
                deals_completed=tally.deals,
                seconds=round(seconds, 3),
            )
            for writer in writers.values():  # every file complete before any is renamed
                writer.close(metadata)
            for writer in writers.values():
                writer.commit()
    except BaseException:
        for writer in writers.values():
            writer.abort()
        raise
    return RunOutcome(config, tally, seconds, stop.is_set(), out, trace, warm_up_seconds)


def _open_writers(writers: dict, config: RunConfig, out: Path | None, trace: Path | None) -> None:
    """Opens the output files into ``writers`` (a dict the caller owns, so that files
    opened before a failure are still cleaned up)."""
    if out is not None:
        writers["out"] = AtomicParquetWriter(out, results_schema(config))
    if trace is not None:
        writers["trace"] = AtomicParquetWriter(trace, trace_schema())


@contextmanager
def _deferred_interrupt():
    """A first Ctrl-C asks the run to stop after the current batch (files are then closed
    as partial); a second one interrupts at once (temporary files are removed)."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def request_stop(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = signal.signal(signal.SIGINT, request_stop)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def _play_all(config: RunConfig, writers: dict, tally: RunTally, on_progress, stop) -> None:
    """Plays the run batch by batch (of deals, or of matches with a match format)."""
    schema = results_schema(config) if "out" in writers else None
    done, batch_size = 0, FIRST_BATCH
    while done < config.deals and not stop.is_set():
        n = min(batch_size, config.deals - done)
        started = time.perf_counter()
        if config.match == "deal":
            _play_deals(config, done, n, writers, schema, tally)
        else:
            _play_matches(config, done, n, writers, schema, tally)
        done += n
        if on_progress is not None:
            on_progress(n)
        batch_size = _next_batch_size(n, time.perf_counter() - started)


def _play_deals(config, first, n, writers, schema, tally) -> None:
    batch = play_batch(config, first, n, trace="trace" in writers)
    if schema is not None:
        writers["out"].write(results_table(batch.results, config, schema))
    if "trace" in writers:
        writers["trace"].write(trace_table(batch))
    tally.add(batch.results)


def _play_matches(config, first, n, writers, schema, tally) -> None:
    from sim.matches import play_matches

    matches = play_matches(config, config.match, first, n, trace="trace" in writers)
    if schema is not None:
        writers["out"].write(match_table(matches, config, schema))
    if "trace" in writers:
        for k, batch in enumerate(matches.batches):
            played = matches.played[:, k]
            writers["trace"].write(trace_table(Batch(batch.results[played], batch.deals[played], batch.records[played])))
    tally.add_outcomes(matches.winner, matches.points, matches.standing)
    tally.deals_played += int(matches.played.sum())


def _next_batch_size(last_size: int, last_seconds: float) -> int:
    rate = last_size / max(last_seconds, 1e-3)
    return int(min(MAX_BATCH, max(FIRST_BATCH, rate * SECONDS_PER_BATCH)))


# ------------------------------------------------------------------ comparisons


@dataclass
class CompareOutcome(_Pace):
    config: RunConfig  # the first seating's
    a: str
    b: str
    tally: object  # sim.compare.CompareTally
    sprt: object | None  # sim.compare.Sprt
    seconds: float
    interrupted: bool
    out: Path | None
    warm_up_seconds: float = 0.0


SPRT_CHECK_DEALS = 1000  # the SPRT is checked at least this often


def default_compare_path(config: RunConfig, a: str, b: str) -> Path:
    names = f"{a}-vs-{b}".replace(":", "_")
    return Path("results") / f"compare_{config.players}p_{names}_seed{config.seed}_{config.deals}deals.parquet"


def run_comparison(
    base: RunConfig,
    a: str,
    b: str,
    out: Path | None,
    sprt=None,
    overwrite: bool = False,
    command: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    create_out_dir: bool = False,
) -> CompareOutcome:
    """Plays ``base.deals`` duplicate deals of A against B (fewer when the SPRT ``sprt``
    decides first), writing one row per game to ``out`` (None: summary only)."""
    from sim.compare import CompareTally, game_scores, seating_config, seatings

    seating_list = seatings(base.players)
    configs = [seating_config(base, a, b, seating) for seating in seating_list]
    for config in configs:
        seat_specs(config)  # unknown strategies fail before any file is opened
    prepare_outputs(out, None, overwrite, out_dir_may_be_created=create_out_dir)
    warm_up_seconds = sum(warm_up(config) for config in configs)
    if create_out_dir and out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
    tally = CompareTally(len(configs))
    writer = None
    started = time.perf_counter()
    try:
        with _deferred_interrupt() as stop:
            if out is not None:
                schema = compare_schema(configs[0])
                writer = AtomicParquetWriter(out, schema)
            done, batch_size = 0, FIRST_BATCH
            while done < base.deals and not stop.is_set():
                limit = SPRT_CHECK_DEALS if sprt is not None else MAX_BATCH
                n = min(batch_size, limit, base.deals - done)
                batch_started = time.perf_counter()
                games = []
                for game, (config, seating) in enumerate(zip(configs, seating_list)):
                    points, winner, standing, table = _seating_games(config, done, n, writer is not None)
                    games.append(game_scores(points, winner, standing, seating))
                    if writer is not None:
                        writer.write(_with_seating(table, schema, game, seating, config.players))
                tally.add(*(np.stack([g[k] for g in games], axis=1) for k in range(3)))
                done += n
                if on_progress is not None:
                    on_progress(n)
                if sprt is not None and sprt.decision(tally) != "none":
                    break
                batch_size = _next_batch_size(n * len(configs), time.perf_counter() - batch_started) // len(configs)
            seconds = time.perf_counter() - started
            if writer is not None:
                metadata = run_metadata(configs[0], command)
                metadata.update(
                    compare={"a": a, "b": b, "seatings": ["".join(s) for s in seating_list],
                             "sprt": None if sprt is None else sprt.to_dict(tally)},
                    status="partial" if stop.is_set() else "complete",
                    deals_completed=tally.deals,
                    seconds=round(seconds, 3),
                )  # fmt: skip
                writer.close(metadata)
                writer.commit()
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    return CompareOutcome(configs[0], a, b, tally, sprt, seconds, stop.is_set(), out, warm_up_seconds)


def compare_schema(config: RunConfig):
    """A result file's columns, plus the seating (``game``) and the side of A."""
    import pyarrow as pa

    schema = results_schema(config)
    return schema.insert(1, pa.field("game", pa.int8())).insert(2, pa.field("a_side", pa.int8()))


def _seating_games(config: RunConfig, first: int, n: int, want_table: bool):
    """Plays games (deals or matches) ``first .. first + n - 1`` of one seating: side
    points, winner, standing (see ``compare.game_scores``) and, if wanted, their rows."""
    from sim.compare import deal_games
    from sim.config import n_sides
    from sim.matches import play_matches

    if config.match == "deal":
        results = play_batch(config, first, n).results
        table = results_table(results, config, results_schema(config)) if want_table else None
        return (*deal_games(results, n_sides(config.players)), table)
    matches = play_matches(config, config.match, first, n)
    table = match_table(matches, config, results_schema(config)) if want_table else None
    return matches.points, matches.winner, matches.standing, table


def _with_seating(table, schema, game: int, seating, players: int):
    """Adds a compare file's columns: the seating (``game``) and A's side."""
    import pyarrow as pa

    from sim.compare import A

    a_side = seating.index(A) if players == 3 else seating.index(A) % 2
    n = table.num_rows
    table = table.add_column(1, schema.field("game"), pa.array(np.full(n, game, dtype=np.int8)))
    return table.add_column(2, schema.field("a_side"), pa.array(np.full(n, a_side, dtype=np.int8)))


# ------------------------------------------------------------------ tournaments


@dataclass
class TournamentOutcome:
    config: RunConfig
    names: list[str]
    pairs: list  # sim.tournament.PairResult, in play order
    seconds: float
    interrupted: bool
    out: Path | None


def default_tournament_path(config: RunConfig) -> Path:
    return Path("results") / f"tournament_{config.players}p_seed{config.seed}_{config.deals}deals"


def run_tournament(
    base: RunConfig,
    names: list[str],
    out: Path | None,
    overwrite: bool = False,
    command: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    create_out_dir: bool = False,
) -> TournamentOutcome:
    """Compares every pair of ``names`` on the same duplicate deals; with ``out``, writes a
    Parquet dataset there: one file per pair and ``_tournament.json``. The folder
    appears only when complete (or, after Ctrl-C, holding the pairs played so far)."""
    import json
    import shutil

    from sim.tournament import PairResult, fit_ratings, score_matrix

    for name in names:
        seat_specs(replace_strategies(base, name))  # unknown strategies fail before anything runs
    if out is not None:
        _check_dataset_path(out, overwrite, create_out_dir)
    staging = None if out is None else out.with_name(f".{out.name}.{os.getpid()}.tmp")
    pairs, started, interrupted = [], time.perf_counter(), False
    try:
        if staging is not None:
            staging.mkdir(parents=True)
        for i, j in [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]:
            pair_out = None if staging is None else staging / f"pair_{i}_{j}.parquet"
            outcome = run_comparison(base, names[i], names[j], pair_out, command=command, on_progress=on_progress)
            pairs.append(PairResult(i, j, outcome.tally))
            if outcome.interrupted:
                interrupted = True
                break
        seconds = time.perf_counter() - started
        if staging is not None:
            summary = {"players": base.players, "deals": base.deals, "seed": base.seed, "strategies": names,
                       "status": "partial" if interrupted else "complete", "seconds": round(seconds, 3),
                       "matrix": score_matrix(len(names), pairs), "ratings": fit_ratings(names, pairs),
                       "command": command}  # fmt: skip
            (staging / "_tournament.json").write_text(json.dumps(summary, indent=1))
            if out.exists():
                shutil.rmtree(out)
            os.replace(staging, out)
    except BaseException:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        raise
    return TournamentOutcome(base, names, pairs, seconds, interrupted, out)


def replace_strategies(base: RunConfig, name: str) -> RunConfig:
    from dataclasses import replace

    return replace(base, strategies=(name,) * base.players)


def _check_dataset_path(out: Path, overwrite: bool, create_parent: bool) -> None:
    if out.exists() and not overwrite:
        raise ConfigError(f"--out {out} already exists; pass --overwrite to replace it")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; a tournament writes a folder (a Parquet dataset)")
    parent = out.parent
    if create_parent and not parent.exists():
        parent.mkdir(parents=True)
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"--out {out}: directory {parent} does not exist or is not writable")
