"""Chunks of a study: an experiment's deals (or matches) cut into ranges.

A chunk is a pure function of its experiment and its range: whoever plays it, wherever
and whenever, in whatever order, its rows and its tally are the same, because every deal
draws from (seed, deal index) alone. Its rows are exactly those the experiment's own
command writes for those deals.

>>> from sim.experiments import make_experiment
>>> exp = make_experiment("tournament", players=2, strategies=["random", "greedy", "highest"], deals=2500, seed=1)
>>> [(c.pair, c.first, c.n) for c in chunks_of(exp, 1000)][:4]
[((0, 1), 0, 1000), ((0, 1), 1000, 1000), ((0, 1), 2000, 500), ((0, 2), 0, 1000)]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sim.compare import SPRT_CHECK_DEALS, _play_duplicates, compare_schema, seating_config
from sim.config import n_sides
from sim.experiments import Experiment
from sim.interrupt import StopFlag
from sim.results import results_schema
from sim.runner import batches, play_range
from sim.stats import CompareTally, RunTally, seatings


@dataclass(frozen=True)
class Chunk:
    experiment: str  # the experiment's name
    pair: tuple[int, int] | None  # a tournament's pair (indices of A and B), else None
    first: int  # its first unit: a deal, or a match with a match format
    n: int

    @property
    def label(self) -> str:
        """Its name in the study's folder: ``part-000000001000``, under ``pair=I_J/`` in a
        tournament."""
        part = f"part-{self.first:012d}"
        return part if self.pair is None else f"pair={self.pair[0]}_{self.pair[1]}/{part}"


def chunks_of(experiment: Experiment, units: int) -> list[Chunk]:
    """The experiment cut into chunks of ``units`` deals (or matches), in order; an SPRT
    comparison's chunks end on its checkpoints (multiples of SPRT_CHECK_DEALS)."""
    if experiment.sprt is not None:
        units = -(-units // SPRT_CHECK_DEALS) * SPRT_CHECK_DEALS
    total = experiment.config.deals
    ranges = [(first, min(units, total - first)) for first in range(0, total, units)]
    pairs = experiment.pairs if experiment.kind == "tournament" else [None]
    return [Chunk(experiment.name, pair, first, n) for pair in pairs for first, n in ranges]


@dataclass
class ChunkResult:
    """What a chunk played: its rows (None when only summaries are kept), its tally, and
    for an SPRT comparison the tally of each SPRT_CHECK_DEALS deals (``blocks``)."""

    chunk: Chunk
    table: object  # pyarrow.Table or None
    tally: RunTally | CompareTally
    completed: int  # units finished: all of them, unless a stop came first
    deals_played: int
    seconds: float
    blocks: list[CompareTally] = field(default_factory=list)


class _Rows:
    """Collects the tables a run writes (a writer's stand-in)."""

    def __init__(self):
        self.tables = []

    def write(self, table) -> None:
        self.tables.append(table)

    def table(self):
        import pyarrow as pa

        return pa.concat_tables(self.tables).combine_chunks() if self.tables else None


def run_chunk(
    experiment: Experiment, chunk: Chunk, rows: bool, stop: StopFlag | None = None, on_progress=None
) -> ChunkResult:
    """Plays one chunk (on this machine's threads, as ``experiment.config.threads`` says)."""
    stop = stop or StopFlag()
    started = time.perf_counter()
    collector = _Rows() if rows else None
    if experiment.kind == "simulate":
        tally, blocks, completed = _simulate_chunk(experiment, chunk, collector, stop, on_progress)
        played = tally.deals_played
    else:
        blocks, completed = _compare_chunk(experiment, chunk, collector, stop, on_progress)
        tally = CompareTally(blocks[0].n_games)
        for block in blocks:
            tally.merge(block)
        played = completed * len(seatings(experiment.config.players))
        blocks = blocks if experiment.sprt is not None else []
    table = collector.table() if collector is not None else None
    return ChunkResult(chunk, table, tally, completed, played, time.perf_counter() - started, blocks)


def _simulate_chunk(experiment, chunk, collector, stop, on_progress):
    config = experiment.config
    tally = RunTally(n_sides(config.players))
    writers = {"out": collector} if collector is not None else {}
    schema = results_schema(config) if collector is not None else None
    completed = 0
    for first, n in batches(chunk.n, stop, start=chunk.first):
        done = play_range(config, first, n, writers, schema, tally, stop)
        completed += done
        if on_progress is not None:
            on_progress(done)
    return tally, [], completed


def _compare_chunk(experiment, chunk, collector, stop, on_progress):
    """A comparison's (or a tournament pair's) deals; returns the tallies of each block of
    SPRT_CHECK_DEALS deals (one block without an SPRT) and the deals finished."""
    config = experiment.config
    i, j = chunk.pair or (0, 1)
    seating_list = seatings(config.players)
    configs = [seating_config(config, experiment.strategies[i], experiment.strategies[j], s) for s in seating_list]
    schema = compare_schema(configs[0]) if collector is not None else None
    sprt = experiment.sprt is not None
    blocks = [CompareTally(len(configs))]
    completed = 0
    for first, n in batches(chunk.n, stop, SPRT_CHECK_DEALS if sprt else None, start=chunk.first):
        if sprt and first > chunk.first and first % SPRT_CHECK_DEALS == 0:
            blocks.append(CompareTally(len(configs)))
        done = _play_duplicates(configs, seating_list, first, n, blocks[-1], collector, schema, stop)
        completed += done
        if on_progress is not None:
            on_progress(done)
    return blocks, completed
