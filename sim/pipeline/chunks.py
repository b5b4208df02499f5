"""Chunks: an experiment's deals (or matches) cut into ranges, and how one is played.

Every run goes through here: a command plays its experiment's chunks in order into one
file (``sim.pipeline.runs``), a study plays them anywhere, in any order, into its dataset
(``sim.pipeline.study``, here or on Dask). A chunk is a pure function of its experiment and its
range: whoever plays it, wherever and whenever, its rows and its tally are the same,
because every deal draws from (seed, deal index) alone.

>>> from sim.pipeline.experiments import make_experiment
>>> exp = make_experiment("tournament", players=2, strategies=["random", "greedy", "highest"], deals=2500, seed=1)
>>> [(c.pair, c.first, c.n) for c in chunks_of(exp, 1000)][:4]
[((0, 1), 0, 1000), ((0, 1), 1000, 1000), ((0, 1), 2000, 500), ((0, 2), 0, 1000)]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sim.base.interrupt import StopFlag
from sim.base.stats import CompareTally
from sim.runtime import lockstep
from sim.runtime.play import lineup

SPRT_CHECK_DEALS = 1000  # an SPRT is checked after every multiple of this many deals, and only there
FIRST_BATCH = 64  # small: the first batch of a slow strategy (pimc) must not stall progress
MIN_BATCH = 8
MAX_BATCH = 2_000_000
SECONDS_PER_BATCH = 0.5


@dataclass(frozen=True)
class Chunk:
    experiment: str  # the experiment's name
    pair: tuple[int, int] | None  # its part: a tournament's pair (indices of A and B), else None
    first: int  # its first unit: a deal, or a match with a match format
    n: int

    @property
    def label(self) -> str:
        """Its name in the study's folder: ``part-000000001000``, under ``pair=I_J/`` in a
        tournament."""
        part = f"part-{self.first:012d}"
        return part if self.pair is None else f"pair={self.pair[0]}_{self.pair[1]}/{part}"


def chunks_of(experiment, units: int) -> list[Chunk]:
    """The experiment cut into chunks of ``units`` deals (or matches), part by part, in
    order; an SPRT comparison's chunks end on its checkpoints."""
    return [chunk for part in experiment.parts for chunk in part_chunks(experiment, part, units)]


def part_chunks(experiment, part, units: int):
    """One part's chunks, in order, one at a time (a command's may be many)."""
    if experiment.sprt is not None:
        units = -(-units // SPRT_CHECK_DEALS) * SPRT_CHECK_DEALS
    total = experiment.config.deals
    for first in range(0, total, units):
        yield Chunk(experiment.name, part, first, min(units, total - first))


# ------------------------------------------------------------------ the SPRT's checkpoints


class SprtWatch:
    """Where an SPRT decides, the one place that says: at the first checkpoint (a multiple
    of SPRT_CHECK_DEALS) at which the tally of every deal before it decides. It is fed
    the tallies of consecutive ranges of deals from deal 0 on (a chunk's ``blocks``)."""

    def __init__(self, sprt, games: int):
        self.sprt = sprt
        self.total = CompareTally(games)
        self.stop: int | None = None  # the deal count where it decided

    def add(self, end: int, block: CompareTally) -> bool:
        """The tally of the deals up to ``end``; True once the SPRT has decided."""
        if self.stop is None:
            self.total.merge(block)
            if end % SPRT_CHECK_DEALS == 0 and self.sprt.decision(self.total) != "none":
                self.stop = end
        return self.stop is not None

    def add_all(self, blocks) -> bool:
        """``add`` for each ``(end, block)``, up to a decision."""
        return any(self.add(end, block) for end, block in blocks)


def block_ends(chunk: Chunk, blocks: list) -> list[int]:
    """Where each of a chunk's blocks ends (its last one at the chunk's end)."""
    return [min(chunk.first + (k + 1) * SPRT_CHECK_DEALS, chunk.first + chunk.n) for k in range(len(blocks))]


# ------------------------------------------------------------------ playing a chunk


class Pace:
    """Cuts ranges into batches of about SECONDS_PER_BATCH each, timed on the work done
    between two of them: memory stays flat, progress moves smoothly and Ctrl-C is heard
    within a batch. One Pace serves a run's consecutive chunks of one part.

    A run with batched strategies is cut on the lock-step waves' grid (``of``): batches
    end on multiples of LANES units, never between two, so the same units share each
    call of a strategy on every run, resume and backend. A float
    network's answer for a view can depend on what else shares its call (BLAS sums a
    batch of another size in another order), so a clock-cut wave changed a near-tie."""

    def __init__(self, grid: int | None = None):
        self.size = FIRST_BATCH
        self.grid = grid

    @classmethod
    def of(cls, player) -> Pace:
        """The pace of a part played by ``player`` (a run kind's player)."""
        return cls(wave_grid(player))

    def batches(self, first: int, total: int, stop: StopFlag, boundary: int | None = None):
        """Yields ``(first, n)`` over ``total`` units from ``first`` on; stops early once
        ``stop`` is set; with ``boundary``, batches also end on its multiples."""
        done, end = first, first + total
        while done < end and not stop.is_set():
            limit = boundary - done % boundary if boundary else MAX_BATCH
            size = self.size
            if self.grid:  # as many units as the clock says, up to the grid's next multiple
                size = -(-(done + size) // self.grid) * self.grid - done
            n = min(size, limit, end - done)
            started = time.perf_counter()
            yield done, n
            done += n
            self.size = next_batch_size(n, time.perf_counter() - started)


def wave_grid(player) -> int | None:
    """LANES if ``player`` (a run kind's player) plays batched strategies in lock-step:
    its batches, and a study's chunks, then end on multiples of it."""
    return lockstep.LANES if any(lineup(config).batched for config in player.configs) else None


def next_batch_size(last_size: int, last_seconds: float) -> int:
    rate = last_size / max(last_seconds, 1e-3)
    return int(min(MAX_BATCH, max(MIN_BATCH, rate * SECONDS_PER_BATCH)))


@dataclass
class ChunkResult:
    """What a chunk played: its rows (None when only summaries are kept), its tally, and
    for an SPRT comparison the tally of each SPRT_CHECK_DEALS deals (``blocks``)."""

    chunk: Chunk
    table: object  # pyarrow.Table or None
    tally: object  # the kind's tally: RunTally or CompareTally
    completed: int  # units finished: all of them, unless a stop came first
    deals_played: int
    seconds: float
    blocks: list = field(default_factory=list)
    trace: object = None  # pyarrow.Table of its deals move by move, when the experiment keeps them


def play_chunk(experiment, chunk: Chunk, player, stop: StopFlag, rows=None, trace=None, on_progress=None,
               pace: Pace | None = None) -> ChunkResult:  # fmt: skip
    """Plays one chunk with its part's ``player`` (``RunKind.player``), its rows written
    to ``rows`` and its moves to ``trace`` (writers: anything with ``write(table)``)."""
    pace = pace or Pace.of(player)
    started = time.perf_counter()
    sprt = experiment.sprt is not None
    blocks, completed = [player.new_tally()], 0
    for first, n in pace.batches(chunk.first, chunk.n, stop, SPRT_CHECK_DEALS if sprt else None):
        if sprt and first > chunk.first and first % SPRT_CHECK_DEALS == 0:
            blocks.append(player.new_tally())
        done = player.play(first, n, blocks[-1], stop, rows, trace)
        completed += done
        if on_progress is not None:
            on_progress(done)
    tally = player.new_tally()
    for block in blocks:
        tally.merge(block)
    played = player.deals_played(tally, completed)
    return ChunkResult(chunk, None, tally, completed, played, time.perf_counter() - started, blocks if sprt else [])


class Rows:
    """Collects a chunk's tables (a writer's stand-in: a study writes them as its part)."""

    def __init__(self):
        self.tables = []

    def write(self, table) -> None:
        self.tables.append(table)

    def table(self):
        import pyarrow as pa

        return pa.concat_tables(self.tables).combine_chunks() if self.tables else None


def run_chunk(experiment, chunk: Chunk, rows: bool, stop: StopFlag | None = None, on_progress=None) -> ChunkResult:
    """Plays one chunk of a study (on this machine's threads, as ``experiment.config.threads``
    says), its rows collected when ``rows``, its trace when the experiment keeps one."""
    collector = Rows() if rows else None
    traces = Rows() if experiment.trace else None
    player = experiment.run_kind.player(experiment, chunk.pair)
    result = play_chunk(experiment, chunk, player, stop or StopFlag(), collector, traces, on_progress=on_progress)
    result.table = collector.table() if collector is not None else None
    result.trace = traces.table() if traces is not None else None
    return result
