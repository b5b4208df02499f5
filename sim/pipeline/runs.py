"""A command's run: its experiment's chunks played in order, here, into one result file
(``simulate``, ``compare``) or a tournament's folder (a file per pair).

This is one of the two writers of the pipeline (``sim.pipeline.chunks``); the other is a study's
dataset (``sim.pipeline.study``), which any backend fills. A file appears only when complete, or,
after Ctrl-C or SIGTERM, complete up to where the run stopped (``"status": "partial"``
in its metadata); a run that fails leaves nothing behind.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from sim.base.config import ConfigError, RunConfig, side_of_seat
from sim.base.files import check_output_path, make_parent, replace_folder, temporary_path, through_link
from sim.base.interrupt import deferred_interrupt
from sim.base.results import FORMAT_VERSION, TRACE_ROW_GROUP, AtomicParquetWriter
from sim.base.version import __version__
from sim.pipeline.chunks import SPRT_CHECK_DEALS, Pace, SprtWatch, block_ends, part_chunks, play_chunk
from sim.runtime.compiling import warm_up
from sim.runtime.play import effective_threads, seat_specs


@dataclass
class RunOutcome:
    """How a command's run ended: its summary (what it prints), and what it wrote."""

    experiment: object  # sim.pipeline.experiments.Experiment
    summary: dict
    seconds: float
    interrupted: bool
    out: Path | None
    trace: Path | None
    units_done: int  # deals (or matches) of its first part: a tournament's are per pair
    parts_done: int  # parts begun (a tournament's pairs), the last maybe partial
    tallies: dict  # part -> tally
    warm_up_seconds: float = 0.0  # loading or compiling the kernels, before the timed run
    first_calls_seconds: float = 0.0  # its batched strategies' first decisions, before it too

    def notes(self, quiet: bool) -> list[str]:
        """Lines for people (none if quiet): the compile time of a first run, the files written."""
        if quiet:
            return []
        notes = []
        if self.warm_up_seconds > 2:
            notes.append(f"compiled the kernels in {self.warm_up_seconds:.1f} s (cached for later runs)")
        if self.first_calls_seconds > 2:
            notes.append(f"the batched strategies' first decisions took {self.first_calls_seconds:.1f} s (their own "
                         "start-up, at every run)")  # fmt: skip
        state = "partial (interrupted)" if self.interrupted else "complete"
        kind = self.experiment.run_kind
        if kind.folder is not None:  # a folder of parts (a tournament's pairs), and one trace of them all
            parts = f"{self.parts_done} {kind.parts_called}"
            if self.out is not None:
                notes.append(f"wrote {self.out}: {parts}, {state}")
            if self.trace is not None:
                notes.append(f"wrote {self.trace}: {parts} move by move, {state}")
            return notes
        match = self.experiment.config.match
        unit = "deals" if match == "deal" else f"{match} matches"
        written = [path for path in (self.out, self.trace) if path is not None]
        return notes + [f"wrote {path}: {self.units_done:,} {unit}, {state}" for path in written]


def run_command(experiment, out: Path | None, trace: Path | None = None, overwrite: bool = False,
                command: str | None = None, on_progress: Callable[[int], None] | None = None,
                stop=None) -> RunOutcome:  # fmt: skip
    """Plays the experiment here, writing ``out`` (None: the summary only) and with
    ``trace`` every move. Every output is checked before anything runs and folders are
    made once the run is known to be good: bad input writes nothing. ``stop``: the
    StopFlag of a caller's Ctrl-C handler, else the run installs one."""
    kind = experiment.run_kind
    players = {part: kind.player(experiment, part) for part in experiment.parts}  # bad strategies fail here
    output = (FileOutput if kind.folder is None else FolderOutput)(experiment, out, trace, command)
    output.check(overwrite)
    readied = [warm_up(config, tally=True) for player in players.values() for config in player.configs]
    warm_up_seconds, first_calls_seconds = (sum(seconds) for seconds in zip(*readied))
    started = time.perf_counter()
    try:
        with nullcontext(stop) if stop is not None else deferred_interrupt() as stop:
            output.open()
            tallies, units = {}, 0
            for part, player in players.items():  # once stopped, those left play nothing
                part_started = time.perf_counter()
                tally, done = _play_part(experiment, part, player, output, stop, on_progress)
                tallies[part] = tally
                units = units or done
                output.end_part(part, player, tally, done, stop.is_set(), time.perf_counter() - part_started)
            interrupted = stop.is_set()
            seconds = time.perf_counter() - started
            summary = kind.summary(experiment, tallies, seconds)
            output.close(summary, interrupted, seconds)
    except BaseException:
        output.abort()
        raise
    played = sum(tally.units > 0 for tally in tallies.values())
    return RunOutcome(experiment, summary, seconds, interrupted, out, trace, units, played, tallies, warm_up_seconds,
                      first_calls_seconds)  # fmt: skip


def _play_part(experiment, part, player, output, stop, on_progress):
    """Plays one part's chunks in order into its tally; returns it and the units done. With
    an SPRT, chunks end on its checkpoints, where it is checked: it stops at the first
    that decides."""
    sprt = experiment.sprt
    units = SPRT_CHECK_DEALS if sprt is not None else experiment.config.deals
    watch = SprtWatch(sprt, player.games) if sprt is not None else None
    tally, done, pace = player.new_tally(), 0, Pace.of(player)
    rows, trace = output.writers(part)
    for chunk in part_chunks(experiment, part, units):
        result = play_chunk(experiment, chunk, player, stop, rows, trace, on_progress, pace)
        tally.merge(result.tally)
        done += result.completed
        if result.completed < chunk.n:
            break
        if watch is not None and watch.add_all(zip(block_ends(chunk, result.blocks), result.blocks)):
            break
    return tally, done


# ------------------------------------------------------------------ metadata


def run_metadata(config: RunConfig, command: str | None) -> dict:
    """What goes into a file's metadata: everything needed to reproduce the run."""
    return {
        "format": FORMAT_VERSION,
        "version": __version__,
        "seed": config.seed,
        "players": config.players,
        "rules": config.rules.for_table(config.players),
        "strategies": [
            {"seat": seat, "side": side_of_seat(seat, config.players), **spec.to_dict(config.players)}
            for seat, spec in enumerate(seat_specs(config))
        ],
        "strategy_files": [str(Path(p).resolve()) for p in config.strategy_files],
        "deals": config.deals,
        "match": config.match,
        "threads": effective_threads(config),
        "command": command,
        **({"resolved": dict(config.resolved)} if config.resolved else {}),  # best: the setting it played
    }


def final_metadata(config: RunConfig, command: str | None, partial: bool, completed: int, seconds: float) -> dict:
    """``run_metadata`` plus how the run ended: complete or partial (Ctrl-C), how far, how long."""
    metadata = run_metadata(config, command)
    metadata.update(status="partial" if partial else "complete", deals_completed=completed, seconds=round(seconds, 3))
    return metadata


def part_metadata(experiment, part, player, tally, done: int, partial: bool, seconds: float, command) -> dict:
    """A part's file's metadata: the run (as its first seating plays it), how it ended,
    the kind its file is read as, the kind's own keys and the summary its command prints
    (for ``briscola report``)."""
    kind = experiment.run_kind
    metadata = final_metadata(player.configs[0], command, partial, done, seconds)
    metadata["kind"] = kind.file_kind
    metadata.update(kind.file_metadata(experiment, part, tally))
    metadata["summary"] = kind.part_summary(experiment, part, tally, seconds)
    return metadata


# ------------------------------------------------------------------ the two outputs of a command


class FileOutput:
    """One result file (and a trace file), or nothing with ``out`` None; a path that is a
    link is written where it points."""

    def __init__(self, experiment, out: Path | None, trace: Path | None, command: str | None):
        self.experiment, self.out, self.trace, self.command = experiment, out, trace, command
        self._writers = {}

    def check(self, overwrite: bool) -> None:
        """Checks every output path before anything runs, so bad input writes nothing."""
        if self.out is not None:
            check_output_path(self.out, overwrite, "--out")
        if self.trace is not None:
            check_output_path(self.trace, overwrite, "--trace")
        if self.out is not None and self.trace is not None and self.out.resolve() == self.trace.resolve():
            raise ConfigError("--out and --trace name the same file; give two paths")

    def open(self) -> None:
        out = through_link(self.out)
        make_parent(out)
        if out is not None:
            self._writers["out"] = AtomicParquetWriter(out, self.experiment.run_kind.schema(self.experiment))
        if self.trace is not None:
            self._writers["trace"] = trace_writer(self.experiment, self.trace)

    def writers(self, part):
        return self._writers.get("out"), self._writers.get("trace")

    def end_part(self, part, player, tally, done: int, partial: bool, seconds: float) -> None:
        self._metadata = part_metadata(self.experiment, part, player, tally, done, partial, seconds, self.command)

    def close(self, summary: dict, partial: bool, seconds: float) -> None:
        for writer in self._writers.values():  # every file complete before any is renamed
            writer.close(self._metadata)
        for writer in self._writers.values():
            writer.commit()

    def abort(self) -> None:
        for writer in self._writers.values():
            writer.abort()


class FolderOutput:
    """A kind's folder (a tournament's): a file per part played and its index file,
    staged under a temporary name and put in place whole (where it points, if ``out``
    is a link); and a trace file of every part, a ``part_column`` naming each row's."""

    def __init__(self, experiment, out: Path | None, trace: Path | None, command: str | None):
        self.experiment, self.out, self.trace, self.command = experiment, out, trace, command
        self.kind = experiment.run_kind
        self.target = through_link(out)
        self.staging = None if out is None else temporary_path(self.target, self.kind.folder)
        self.parts: list[str] = []  # the labels of the parts written
        self.traced: list[str] = []  # and of those the trace holds (also without --out)
        self._writer = None
        self._trace = None

    def check(self, overwrite: bool) -> None:
        if self.out is not None:
            check_output_path(self.out, overwrite, "--out", layout=self.kind.folder)
        if self.trace is not None:
            check_output_path(self.trace, overwrite, "--trace")
        if self.out is not None and self.trace is not None and self.trace.resolve().is_relative_to(self.out.resolve()):
            raise ConfigError(f"--trace {self.trace} is inside --out {self.out}, which holds the {self.kind.name}'s "
                              "own files only; give a trace path outside it")  # fmt: skip

    def open(self) -> None:
        if self.staging is not None:
            self.staging.mkdir(parents=True)
        if self.trace is not None:
            self._trace = trace_writer(self.experiment, self.trace)

    def writers(self, part):
        if self.staging is not None:
            schema = self.kind.schema(self.experiment)
            self._writer = AtomicParquetWriter(self.staging / self.kind.part_file(part), schema)
        return self._writer, self._trace

    def end_part(self, part, player, tally, done: int, partial: bool, seconds: float) -> None:
        writer, self._writer = self._writer, None
        if done == 0 and partial:  # stopped before its first deal was done: nothing to keep
            if writer is not None:
                writer.abort()
            return
        self.traced.append(self.kind.part_label(part))
        if writer is None:
            return
        writer.close(part_metadata(self.experiment, part, player, tally, done, partial, seconds, self.command))
        writer.commit()
        self.parts.append(self.kind.part_label(part))

    def close(self, summary: dict, partial: bool, seconds: float) -> None:
        status = {"status": "partial" if partial else "complete", "seconds": round(seconds, 3)}
        if self._trace is not None:  # complete before the folder is put in place, in place after it
            metadata = {**run_metadata(self.experiment.config, self.command), **status, "summary": summary}
            self._trace.close({**metadata, **self.kind.trace_metadata(self.experiment, self.traced)})
        if self.staging is not None:
            # What the command prints with --json, how the tournament ended, and the files it holds (a reader checks them).
            record = {**summary, **status, "command": self.command, self.kind.parts_called: self.parts}
            (self.staging / self.kind.index_file).write_text(json.dumps(record, indent=1))
            replace_folder(self.staging, self.target, self.kind.folder)
        if self._trace is not None:
            self._trace.commit()

    def abort(self) -> None:
        for writer in (self._writer, self._trace):
            if writer is not None:
                writer.abort()
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)


def trace_writer(experiment, trace: Path) -> AtomicParquetWriter:
    """The writer of a command's trace file (where it points, if a link), its folder made."""
    trace = through_link(trace)
    make_parent(trace)
    return AtomicParquetWriter(trace, experiment.run_kind.trace_schema(), row_group=TRACE_ROW_GROUP)
