"""Runs a simulation batch by batch: plays, tallies, streams results to disk.

Batches are sized to take about half a second, so memory stays flat however many
deals are asked for and progress moves smoothly; a Ctrl-C cuts the batch in progress
short (``sim.interrupt``). Deal ``i`` always gets the same cards and moves, whatever
the batch and thread counts.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kernels.tally_nb import tally_results_nb
from sim import __version__
from sim.compiling import warm_up
from sim.config import ConfigError, RunConfig, n_sides, side_of_seat
from sim.files import check_output_path, make_parent
from sim.interrupt import StopFlag, deferred_interrupt
from sim.play import NOT_PLAYED, Batch, effective_threads, play_batch, seat_specs
from sim.results import (
    FORMAT_VERSION,
    TRACE_ROW_GROUP,
    AtomicParquetWriter,
    match_table,
    results_schema,
    results_table,
)
from sim.stats import RunTally
from sim.trace import trace_schema, trace_table

FIRST_BATCH = 64  # small: the first batch of a slow strategy (pimc) must not stall progress
MIN_BATCH = 8
MAX_BATCH = 2_000_000
SECONDS_PER_BATCH = 0.5


class Pace:
    """Units done (deals, or matches with a match format), for outcomes with a ``tally``."""

    @property
    def units_done(self) -> int:
        return self.tally.units


@dataclass
class RunOutcome(Pace):
    config: RunConfig
    tally: RunTally
    seconds: float
    interrupted: bool
    out: Path | None
    trace: Path | None
    warm_up_seconds: float = 0.0  # loading or compiling the kernels, before the timed run


MAX_NAMES_IN_PATH = 120  # characters of strategy names a default path holds; longer ones end in a hash


def default_out_path(config: RunConfig) -> Path:
    sides = [config.side_strategy(side) for side in range(n_sides(config.players))]
    return default_path(config, "-".join(sides))


def default_path(config: RunConfig, strategies: str, prefix: str = "", suffix: str = ".parquet") -> Path:
    """``results/[PREFIX]{P}p_{STRATEGIES}_seed{S}_{COUNT}[_{RULE}={VALUE}...]{SUFFIX}``: a run's
    default output, named by everything that decides its results (rules away from their
    defaults, the match format), so that runs that differ in any of these get different
    names (strategies from --strategy-file files are named, not their files)."""
    names = strategies.replace(":", "_")
    if len(names) > MAX_NAMES_IN_PATH:
        names = f"{names[: MAX_NAMES_IN_PATH - 11]}-{hashlib.sha1(names.encode()).hexdigest()[:10]}"
    rules = [f"{key}={value}" for key, value in config.rules.changed().items()]
    parts = [f"{prefix}{config.players}p", names, f"seed{config.seed}", run_count(config), *rules]
    return Path("results") / ("_".join(parts) + suffix)


def run_count(config: RunConfig) -> str:
    """``10000deals``, or ``10000matches_best-of-3`` with a match format (for file names)."""
    return f"{config.deals}deals" if config.match == "deal" else f"{config.deals}matches_{config.match}"


def run_metadata(config: RunConfig, command: str | None) -> dict:
    """What goes into a file's metadata: everything needed to reproduce the run."""
    return {
        "format": FORMAT_VERSION,
        "version": __version__,
        "seed": config.seed,
        "players": config.players,
        "rules": config.rules.for_table(config.players),
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


def final_metadata(config: RunConfig, command: str | None, stop: StopFlag, completed: int, seconds: float) -> dict:
    """``run_metadata`` plus how the run ended: complete or partial (Ctrl-C), how far, how long."""
    metadata = run_metadata(config, command)
    metadata.update(
        status="partial" if stop.is_set() else "complete", deals_completed=completed, seconds=round(seconds, 3)
    )
    return metadata


def prepare_outputs(out: Path | None, trace: Path | None, overwrite: bool) -> None:
    """Checks every output path before anything runs, so bad input writes nothing."""
    if out is not None:
        check_output_path(out, overwrite, "--out")
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
) -> RunOutcome:
    """Plays ``config.deals`` deals, writing results to ``out`` (None: summary only).
    Folders of the outputs are made once the configuration is known to be good: bad
    input writes nothing."""
    from sim.report import summary_dict

    seat_specs(config)  # unknown strategies and parameters fail here, before any file is opened
    prepare_outputs(out, trace, overwrite)
    warm_up_seconds = warm_up(config, tally=True)  # a first run compiles here: Ctrl-C leaves nothing behind
    make_parent(out)
    make_parent(trace)
    tally = RunTally(n_sides(config.players))
    writers = {}
    started = time.perf_counter()
    try:
        with deferred_interrupt() as stop:
            _open_writers(writers, config, out, trace)
            _play_all(config, writers, tally, on_progress, stop)
            outcome = RunOutcome(
                config, tally, time.perf_counter() - started, stop.is_set(), out, trace, warm_up_seconds
            )
            metadata = final_metadata(config, command, stop, tally.units, outcome.seconds)
            metadata["summary"] = summary_dict(outcome)  # what the command prints, for briscola report
            for writer in writers.values():  # every file complete before any is renamed
                writer.close(metadata)
            for writer in writers.values():
                writer.commit()
    except BaseException:
        for writer in writers.values():
            writer.abort()
        raise
    return outcome


def _open_writers(writers: dict, config: RunConfig, out: Path | None, trace: Path | None) -> None:
    """Opens the output files into ``writers`` (a dict the caller owns, so that files
    opened before a failure are still cleaned up)."""
    if out is not None:
        writers["out"] = AtomicParquetWriter(out, results_schema(config))
    if trace is not None:
        writers["trace"] = AtomicParquetWriter(trace, trace_schema(), row_group=TRACE_ROW_GROUP)


def batches(total: int, stop: StopFlag, boundary: int | None = None, start: int = 0):
    """Yields ``(first, n)``: ``total`` deals (or matches) from ``start`` on, cut into
    batches of about SECONDS_PER_BATCH each, timed on the work the caller does between two
    yields. Stops early once ``stop`` is set; with ``boundary``, batches also end on its
    multiples."""
    done, end, size = start, start + total, FIRST_BATCH
    while done < end and not stop.is_set():
        limit = boundary - done % boundary if boundary else MAX_BATCH
        n = min(size, limit, end - done)
        started = time.perf_counter()
        yield done, n
        done += n
        size = _next_batch_size(n, time.perf_counter() - started)


def _play_all(config: RunConfig, writers: dict, tally: RunTally, on_progress, stop: StopFlag) -> None:
    """Plays the run batch by batch (of deals, or of matches with a match format)."""
    schema = results_schema(config) if "out" in writers else None
    for first, n in batches(config.deals, stop):
        done = play_range(config, first, n, writers, schema, tally, stop)
        if on_progress is not None:
            on_progress(done)


def play_range(config: RunConfig, first: int, n: int, writers: dict, schema, tally: RunTally, stop: StopFlag) -> int:
    """Plays deals (or matches) ``first .. first + n - 1``: writes their rows to
    ``writers["out"]`` (and traces to ``writers["trace"]``) if there, tallies them; returns
    how many were finished (fewer once ``stop`` is set)."""
    play = _play_deals if config.match == "deal" else _play_matches
    return play(config, first, n, writers, schema, tally, stop)


def _play_deals(config, first, n, writers, schema, tally, stop) -> int:
    """Plays, writes and tallies deals ``first .. first + n - 1``, or the first of them
    a stop left finished; returns how many."""
    batch = play_batch(config, first, n, trace="trace" in writers, stop=stop)
    completed, counts = tally_results_nb(batch.results, tally.n_sides, NOT_PLAYED)
    batch = batch.head(completed)
    if schema is not None:
        writers["out"].write(results_table(batch.results, config, schema))
    if "trace" in writers:
        writers["trace"].write(trace_table(batch))
    tally.add_counts(counts, completed)
    if tally.chiamata is not None:
        tally.chiamata.add(batch.results, config.strategies)
    return completed


def _play_matches(config, first, n, writers, schema, tally, stop) -> int:
    """As ``_play_deals``, for matches."""
    from sim.matches import play_matches, rotated

    matches = play_matches(config, first, n, trace="trace" in writers, stop=stop)
    if schema is not None:
        writers["out"].write(match_table(matches, config, schema))
    if "trace" in writers:
        for k, batch in enumerate(matches.batches):
            played = matches.played[:, k]
            writers["trace"].write(
                trace_table(Batch(batch.results[played], batch.deals[played], batch.records[played]))
            )
    tally.add_outcomes(matches.winner, matches.points, matches.standing)
    tally.deals_played += int(matches.played.sum())
    if tally.chiamata is not None:
        for k, batch in enumerate(matches.batches):
            tally.chiamata.add(batch.results[matches.played[:, k]], rotated(config, k).strategies)
    return matches.completed


def _next_batch_size(last_size: int, last_seconds: float) -> int:
    rate = last_size / max(last_seconds, 1e-3)
    return int(min(MAX_BATCH, max(MIN_BATCH, rate * SECONDS_PER_BATCH)))
