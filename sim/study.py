"""A study: the experiments of a plan, played as chunks that survive a crash.

The study's folder is one Parquet dataset and the record of what is done:

    FOLDER/_plan.toml                     the plan, as written
    FOLDER/_study.json                    status: per experiment its chunks, done or not
    FOLDER/experiment=NAME/part-000000000000.parquet          rows of one chunk
    FOLDER/experiment=NAME/pair=0_1/part-000000000000.parquet  (tournaments: per pair)
    FOLDER/experiment=NAME/_chunks/part-000000000000.json     a chunk's tally: it is done
    FOLDER/experiment=NAME/_summary.json  what the experiment's command prints with --json

A chunk counts as done once its record (``_chunks/*.json``) exists, written after its rows
and each under a temporary name first, so a killed run leaves nothing half-written that
counts. Summaries are always computed from the records on disk, so a resumed study ends
exactly as an uninterrupted one. Every part has the study's columns (the union of its
experiments', empty where an experiment has none), so ``pandas.read_parquet(FOLDER)``
reads the whole study, with an ``experiment`` column (``pair`` in tournaments).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from urllib.parse import quote

from sim import __version__
from sim.chunks import Chunk, ChunkResult, chunks_of, run_chunk
from sim.compare import SPRT_CHECK_DEALS, CompareOutcome, compare_schema, seating_config
from sim.config import ConfigError
from sim.experiments import Experiment, with_threads
from sim.files import check_output_path, is_temporary, temporary_path, write_atomically, write_json
from sim.plan import Plan, fingerprint, plan_hash
from sim.stats import CompareTally, RunTally, seatings

FORMAT = 1
STUDY_FILE, PLAN_FILE, SUMMARY_FILE, CHUNKS_DIR = "_study.json", "_plan.toml", "_summary.json", "_chunks"
CHUNK_SECONDS = 60.0  # a chunk is about this much work: a crash loses little, overhead stays small
MAX_CHUNK_UNITS = 2_000_000  # and at most this many deals (its rows are held in memory once)
MAX_SPRT_CHUNK_UNITS = 10 * SPRT_CHECK_DEALS  # an SPRT may decide early: at most this much is played past it
SAVE_SECONDS = 2.0  # how stale the status and summaries of a study in progress may get
CALIBRATION_SECONDS = 0.5
MAX_CHANGES = 3  # changes of a plan named in a refusal


def experiment_dir(folder: Path, name: str) -> Path:
    """An experiment's folder: ``experiment=NAME`` (NAME percent-encoded, as Parquet
    readers decode hive partitions, so the ``experiment`` column reads NAME itself)."""
    return folder / f"experiment={quote(name, safe='')}"


# ------------------------------------------------------------------ columns


COLUMN_ORDER = ("deal", "game", "a_side", *(f"strategy_{s}" for s in range(6)), "briscola", *(f"points_{s}" for s in range(6)),
                *(f"side_points_{s}" for s in range(3)), "winner_side",
                "bid", "caller", "called", "partner", "target", "made", "cappotto", "caller_strength",  # Chiamata
                *(f"game_points_{s}" for s in range(5)), "match", "match_deal", "match_winner_side")  # fmt: skip


def native_schema(experiment: Experiment):
    """The columns the experiment's own command writes."""
    config = experiment.config
    if experiment.kind == "simulate":
        from sim.results import results_schema

        return results_schema(config)
    return compare_schema(
        seating_config(config, experiment.strategies[0], experiment.strategies[1], seatings(config.players)[0])
    )


def study_schema(experiments):
    """Every experiment's columns, in one order: what every part of the study holds."""
    import pyarrow as pa

    fields = {}
    for experiment in experiments:
        for column in native_schema(experiment):
            fields.setdefault(column.name, column)
    return pa.schema([fields[name] for name in COLUMN_ORDER if name in fields])


def conform(table, schema):
    """``table`` with the study's columns: its own, and empty ones for the rest."""
    import pyarrow as pa

    columns = [
        table.column(f.name) if f.name in table.column_names else pa.nulls(table.num_rows, f.type) for f in schema
    ]
    return pa.Table.from_arrays(columns, schema=schema)


# ------------------------------------------------------------------ files


def write_parquet(path: Path, table) -> None:
    import pyarrow.parquet as pq

    from sim.results import RESULT_ROW_GROUP

    write_atomically(
        path, lambda temporary: pq.write_table(table, temporary, compression="zstd", row_group_size=RESULT_ROW_GROUP)
    )


# ------------------------------------------------------------------ one experiment's state


@dataclass
class ExperimentState:
    """An experiment of the study, its chunks and the records of those done."""

    experiment: Experiment
    units_per_chunk: int
    directory: Path
    fingerprint: dict  # what decides its results, as the study began
    records: dict = field(default_factory=dict)  # Chunk -> its record, for the chunks done
    sprt_stop: int | None = None  # the deal count where its SPRT decided

    @cached_property
    def chunks(self) -> list[Chunk]:
        return chunks_of(self.experiment, self.units_per_chunk)

    @cached_property
    def columns(self) -> list[str]:
        return native_schema(self.experiment).names

    def needed(self) -> list[Chunk]:
        """The chunks its result needs: all of them, or those before its SPRT decided."""
        stop = self.sprt_stop
        return [c for c in self.chunks if stop is None or c.first < stop]

    def pending(self) -> list[Chunk]:
        return [c for c in self.needed() if c not in self.records]

    def wants(self, chunk: Chunk) -> bool:
        """Whether the chunk is still to be played (at once: no list is built)."""
        return chunk not in self.records and (self.sprt_stop is None or chunk.first < self.sprt_stop)

    @property
    def status(self) -> str:
        done = sum(c in self.records for c in self.needed())
        return "complete" if done == len(self.needed()) else "partial" if done else "pending"

    def units_done(self) -> int:
        stop = self.sprt_stop or math.inf
        return sum(min(c.n, stop - c.first) for c in self.needed() if c in self.records)

    def part(self, chunk: Chunk) -> Path:
        return self.directory / f"{chunk.label}.parquet"

    def record_path(self, chunk: Chunk) -> Path:
        return self.directory / CHUNKS_DIR / f"{chunk.label.replace('/', '-')}.json"

    def seconds(self) -> float:
        return sum(record["seconds"] for record in self.records.values())


def chunk_record(result: ChunkResult, rows: int | None) -> dict:
    chunk = result.chunk
    return {
        "experiment": chunk.experiment, "pair": chunk.pair, "first": chunk.first, "n": chunk.n, "rows": rows,
        "deals_played": result.deals_played, "seconds": round(result.seconds, 3), "tally": result.tally.to_dict(),
        "blocks": [block.to_dict() for block in result.blocks],
    }  # fmt: skip


# ------------------------------------------------------------------ the study


class Study:
    """A study's folder and what is done in it (see the module's docstring)."""

    def __init__(self, folder: Path, plan: Plan, rows: bool, states: list[ExperimentState]):
        self.folder, self.plan, self.rows, self.states = folder, plan, rows, states
        self.schema = study_schema([state.experiment for state in states])
        self.by_name = {state.experiment.name: state for state in states}
        self.plan_hash = plan_hash([(state.experiment.name, state.fingerprint) for state in states])
        self._saved_at = time.monotonic()

    # -- opening

    @classmethod
    def open(
        cls, folder: Path, plan: Plan, rows: bool, resume: bool, chunk_units: int | None, threads: int | None
    ) -> Study:
        """A new study in ``folder`` (which must not exist), or the one there to resume
        (made by this plan: a changed plan is refused, saying what changed). The study is
        locked for this process until ``close``: two runs never write one study."""
        folder = Path(folder)
        if resume:
            return cls._resume(folder, plan, rows, chunk_units, threads)
        if folder.exists():
            raise ConfigError(f"{folder} already exists; pass --resume to continue the study in it")
        check_output_path(folder, False, "--out", layout="study")
        experiments = [e if threads is None else with_threads(e, threads) for e in plan.experiments]
        states = [
            ExperimentState(e, chunk_units or calibrate(e), experiment_dir(folder, e.name), fingerprint(e))
            for e in experiments
        ]
        staging = temporary_path(folder)  # the folder appears with its plan and status, or not at all
        staging.mkdir(parents=True)
        (staging / PLAN_FILE).write_text(plan.text)
        write_json(staging / STUDY_FILE, cls(staging, plan, rows, states).status())
        os.replace(staging, folder)
        study = cls(folder, plan, rows, states)
        study._lock()
        return study

    @classmethod
    def _resume(cls, folder: Path, plan: Plan, rows: bool, chunk_units: int | None, threads: int | None) -> Study:
        status_file = folder / STUDY_FILE
        if not status_file.is_file():
            raise ConfigError(f"{folder} holds no study to resume (no {STUDY_FILE}); run without --resume")
        status = json.loads(status_file.read_text())
        if status.get("version") != __version__:
            raise ConfigError(f"{folder} was made by briscola {status.get('version')}, this is {__version__}: "
                              "its chunks may differ; start a new study")  # fmt: skip
        if status["rows"] != rows:
            keeps = "rows" if status["rows"] else "summaries only"
            raise ConfigError(
                f"{folder} keeps {keeps}: resume it {'without' if status['rows'] else 'with'} --summary-only"
            )
        changes = _changes(status["experiments"], plan.experiments)
        if changes:
            raise ConfigError(f"the plan changed since {folder} began ({'; '.join(changes)}); "
                              "run it as a new study, or restore the plan (a copy is in " + PLAN_FILE + ")")  # fmt: skip
        recorded = {entry["name"]: entry for entry in status["experiments"]}
        sizes = {entry["units_per_chunk"] for entry in status["experiments"]}
        if chunk_units is not None and sizes != {chunk_units}:
            raise ConfigError(f"{folder} is cut in chunks of {', '.join(map(str, sorted(sizes)))}: "
                              "--chunk-deals cannot change when a study resumes")  # fmt: skip
        states = []
        for experiment in plan.experiments:
            entry = recorded[experiment.name]
            experiment = with_threads(experiment, threads or entry["threads"])
            states.append(
                ExperimentState(experiment, entry["units_per_chunk"], folder / entry["directory"], entry["fingerprint"])
            )
        study = cls(folder, plan, rows, states)
        study._lock()
        study._load_records()
        return study

    def _lock(self) -> None:
        """Holds the study for this process (before anything in it is read or removed)."""
        self._lock_file = open(self.folder / ".lock", "w")  # noqa: SIM115 - held until close
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_file.close()
            raise ConfigError(
                f"{self.folder} is being run by another briscola process; wait for it, or stop it"
            ) from None

    def close(self) -> None:
        """Saves the status and summaries, and lets other processes have the study."""
        try:
            self.save()
        finally:
            self._lock_file.close()

    def _load_records(self) -> None:
        """Reads what is done: every chunk whose record is whole and whose rows are there;
        leftovers (temporary files, rows without a record, chunks past an SPRT's stop)
        are removed."""
        for temporary in self.folder.rglob(".*.tmp"):
            if is_temporary(temporary.name) and temporary.is_file():  # the study is locked: no one writes them now
                temporary.unlink(missing_ok=True)
        for state in self.states:
            for chunk in state.chunks:
                record = self._read_record(state, chunk)
                if record is not None:
                    state.records[chunk] = record
                elif state.part(chunk).exists():
                    state.part(chunk).unlink()  # rows whose record never came: redone
            self._check_sprt(state)

    def _read_record(self, state: ExperimentState, chunk: Chunk) -> dict | None:
        try:
            record = json.loads(state.record_path(chunk).read_text())
        except (OSError, ValueError):
            return None
        if (record.get("first"), record.get("n")) != (chunk.first, chunk.n):
            return None
        if self.rows:
            import pyarrow.parquet as pq

            try:
                if pq.read_metadata(state.part(chunk)).num_rows != record["rows"]:
                    return None
            except (OSError, ValueError):
                return None
        return record

    # -- recording

    def record(self, result: ChunkResult) -> None:
        """Keeps a finished chunk: its rows, then its record; then, for an SPRT
        comparison, checks whether the test has decided."""
        state = self.by_name[result.chunk.experiment]
        chunk = result.chunk
        if not state.wants(chunk):
            return  # done already, or past where its SPRT decided
        rows = None
        if self.rows:
            table = conform(result.table, self.schema)
            write_parquet(state.part(chunk), table)
            rows = table.num_rows
        record = chunk_record(result, rows)
        write_json(state.record_path(chunk), record)
        state.records[chunk] = record
        self._check_sprt(state)
        if time.monotonic() - self._saved_at > SAVE_SECONDS or state.status == "complete":
            self.save(state)

    def _check_sprt(self, state: ExperimentState) -> None:
        """Runs the SPRT over the chunks done from the first on, at its checkpoints, as
        ``briscola compare`` does; once it decides, drops the rows and chunks past it."""
        sprt = state.experiment.sprt
        if sprt is None or state.sprt_stop is not None:
            return
        tally = CompareTally(len(seatings(state.experiment.config.players)))
        for chunk in state.chunks:
            record = state.records.get(chunk)
            if record is None:
                return
            for k, block in enumerate(record["blocks"]):
                tally.merge(CompareTally.from_dict(block))
                units = min(chunk.first + (k + 1) * SPRT_CHECK_DEALS, chunk.first + chunk.n)
                if units % SPRT_CHECK_DEALS == 0 and sprt.decision(tally) != "none":
                    self._stop_at(state, chunk, units)
                    return

    def _stop_at(self, state: ExperimentState, deciding: Chunk, stop: int) -> None:
        state.sprt_stop = stop
        for chunk in state.chunks:
            if chunk.first >= stop:
                state.records.pop(chunk, None)
                state.part(chunk).unlink(missing_ok=True)
                state.record_path(chunk).unlink(missing_ok=True)
        record = state.records[deciding]
        if self.rows and stop < deciding.first + deciding.n and record.get("cut_at") != stop:
            import pyarrow.compute as pc
            import pyarrow.parquet as pq

            table = pq.read_table(state.part(deciding), schema=self.schema)
            unit = "match" if state.experiment.config.match != "deal" else "deal"
            table = table.filter(pc.less(table[unit], stop))
            write_parquet(state.part(deciding), table)
            record.update(rows=table.num_rows, cut_at=stop)  # the rows past the decision are not the study's
            write_json(state.record_path(deciding), record)

    # -- reporting

    def pending(self) -> list[tuple[Experiment, Chunk]]:
        return [(state.experiment, chunk) for state in self.states for chunk in state.pending()]

    def save(self, *changed: ExperimentState) -> None:
        """Writes ``_study.json`` and the ``_summary.json`` of the ``changed`` experiments
        (of every one when none is named). The records are what counts: this is what
        ``briscola status`` shows of a study in progress, kept at most SAVE_SECONDS old."""
        for state in changed or self.states:
            summary = experiment_summary(state)
            if summary is not None:
                write_json(state.directory / SUMMARY_FILE, summary)
        write_json(self.folder / STUDY_FILE, self.status())
        self._saved_at = time.monotonic()

    def status(self) -> dict:
        return {
            "format": FORMAT, "version": __version__, "plan_hash": self.plan_hash, "rows": self.rows,
            "status": _overall([state.status for state in self.states]),
            "experiments": [_experiment_status(state) for state in self.states],
        }  # fmt: skip

    def outcome(self) -> dict:
        """What ``briscola batch --json`` prints (once saved)."""
        return read_outcome(self.folder)


def read_outcome(folder: Path) -> dict:
    """How far a study has come, from its folder alone (what ``batch --json`` and
    ``status --json`` print): per experiment its status, chunks and deals (done and in
    all), the work time of its chunks done, and its summary."""
    folder = Path(folder)
    try:
        status = json.loads((folder / STUDY_FILE).read_text())
    except (OSError, ValueError):
        raise ConfigError(f"{folder} is not a study's folder (no readable {STUDY_FILE})") from None
    experiments = []
    for entry in status["experiments"]:
        directory = folder / entry["directory"]
        records = [_read_json(path) for path in sorted((directory / CHUNKS_DIR).glob("*.json"))]
        records = [record for record in records if record is not None]
        stop = entry["sprt_stop"] or math.inf
        done = len(records)
        experiments.append({
            "name": entry["name"], "kind": entry["kind"],
            "status": "complete" if done >= entry["chunks"] else "partial" if done else "pending",
            "chunks": entry["chunks"], "chunks_done": done, "units": entry["units"],
            "units_done": sum(min(r["n"], stop - r["first"]) for r in records),
            "seconds": round(sum(r["seconds"] for r in records), 3), "summary": _read_json(directory / SUMMARY_FILE),
        })  # fmt: skip
    status = _overall([e["status"] for e in experiments])
    return {"out": str(folder), "status": status, "running": _running(folder), "experiments": experiments}


def _running(folder: Path) -> bool:
    """Whether a briscola process holds the study now (else a partial study was stopped)."""
    try:
        with open(folder / ".lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


def recorded_parts(directory: Path) -> list[Path]:
    """An experiment's part files whose chunks have their record, in order."""
    parts = []
    for record in sorted((directory / CHUNKS_DIR).glob("*.json")):
        part = directory / f"{record.stem.replace('-part-', '/part-')}.parquet"
        if part.exists():
            parts.append(part)
    return parts


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _overall(statuses: list[str]) -> str:
    if all(s == "complete" for s in statuses):
        return "complete"
    return "pending" if all(s == "pending" for s in statuses) else "partial"


def _experiment_status(state: ExperimentState) -> dict:
    experiment = state.experiment
    return {
        "name": experiment.name, "kind": experiment.kind, "status": state.status,
        "directory": state.directory.name, "fingerprint": state.fingerprint,
        "columns": state.columns, "threads": experiment.config.threads,
        "units_per_chunk": state.units_per_chunk, "chunks": len(state.needed()),
        "chunks_done": sum(c in state.records for c in state.needed()), "units": experiment.units,
        "units_done": state.units_done(), "seconds": round(state.seconds(), 3), "sprt_stop": state.sprt_stop,
    }  # fmt: skip


def _changes(recorded: list[dict], experiments) -> list[str]:
    """What differs between the experiments a study began with and a plan's (at most
    MAX_CHANGES of them named)."""
    before = {entry["name"]: entry["fingerprint"] for entry in recorded}
    after = {e.name: fingerprint(e) for e in experiments}
    changes = [f"experiment {name!r} is new" for name in after if name not in before]
    changes += [f"experiment {name!r} is gone" for name in before if name not in after]
    for name in sorted(before.keys() & after.keys()):
        for key in before[name]:
            if before[name][key] == after[name].get(key):
                continue
            if key == "strategy_files":
                changes.append(
                    f"experiment {name!r}: a --strategy-file's contents changed (restore the file, or start a new study)"
                )
            else:
                changes.append(f"experiment {name!r}: {key} {before[name][key]} -> {after[name].get(key)}")
    changes = sorted(changes)
    return (
        changes if len(changes) <= MAX_CHANGES else [*changes[:MAX_CHANGES], f"and {len(changes) - MAX_CHANGES} more"]
    )


# ------------------------------------------------------------------ summaries


def experiment_summary(state: ExperimentState) -> dict | None:
    """The experiment's summary from its chunk records, as its command's --json."""
    from sim.report import compare_dict, summary_dict, tournament_dict

    experiment, records = state.experiment, state.records
    if not records:
        return None
    seconds = state.seconds()
    partial = state.status != "complete"
    if experiment.kind == "simulate":
        from sim.config import n_sides
        from sim.runner import RunOutcome

        tally = RunTally(n_sides(experiment.config.players))
        for record in records.values():
            tally.merge(RunTally.from_dict(record["tally"]))
        return summary_dict(RunOutcome(experiment.config, tally, seconds, partial, None, None))
    if experiment.kind == "compare":
        a, b = experiment.strategies
        return compare_dict(
            CompareOutcome(
                experiment.config, a, b, _compare_tally(state, None), experiment.sprt, seconds, partial, None
            )
        )
    from sim.stats import PairResult
    from sim.tournament import TournamentOutcome

    pairs = [PairResult(i, j, _compare_tally(state, (i, j))) for i, j in experiment.pairs]
    pairs = [pair for pair in pairs if pair.tally.units > 0]
    outcome = TournamentOutcome(experiment.config, list(experiment.strategies), pairs, seconds, partial, None)
    return tournament_dict(outcome)


def _compare_tally(state: ExperimentState, pair) -> CompareTally:
    """A comparison's tally over its chunks done (up to where its SPRT decided)."""
    tally = CompareTally(len(seatings(state.experiment.config.players)))
    stop = state.sprt_stop
    for chunk in state.chunks:
        record = state.records.get(chunk)
        if record is None or chunk.pair != pair:
            continue
        if stop is None:
            tally.merge(CompareTally.from_dict(record["tally"]))
            continue
        for k, block in enumerate(record["blocks"]):
            if chunk.first + k * SPRT_CHECK_DEALS < stop:
                tally.merge(CompareTally.from_dict(block))
    return tally


# ------------------------------------------------------------------ running


def run_locally(study: Study, stop, on_progress=None) -> None:
    """Plays the study's pending chunks on this machine, in order. A chunk that a stop
    cuts short is not kept: it is played again when the study is resumed."""
    for experiment, chunk in study.pending():
        if stop.is_set():
            return
        if not study.by_name[experiment.name].wants(chunk):
            continue  # its SPRT has decided meanwhile
        result = run_chunk(experiment, chunk, study.rows, stop, on_progress)
        if result.completed < chunk.n:
            return
        study.record(result)


# ------------------------------------------------------------------ chunk sizes


def calibrate(experiment: Experiment) -> int:
    """Units per chunk: about CHUNK_SECONDS of this machine's work, measured by playing a
    few deals (which also readies the kernels), rounded down to 1, 2 or 5 times a power
    of ten, at most MAX_CHUNK_UNITS. Measuring stops as soon as the answer is known: at
    CALIBRATION_SECONDS, or once even the fastest rate seen would fill the largest chunk."""
    chunk = chunks_of(experiment, experiment.config.deals)[0]
    total = experiment.config.deals
    run_chunk(experiment, Chunk(chunk.experiment, chunk.pair, 0, 1), rows=False)  # compiles or loads: not measured
    n, seconds, rate = 2, 0.0, 0.0
    while seconds < CALIBRATION_SECONDS and n < total and rate * CHUNK_SECONDS < MAX_CHUNK_UNITS:
        n = min(4 * n, total)
        started = time.perf_counter()
        run_chunk(experiment, Chunk(chunk.experiment, chunk.pair, 0, n), rows=False)
        seconds = time.perf_counter() - started
        rate = n / max(seconds, 1e-6)
    largest = MAX_SPRT_CHUNK_UNITS if experiment.sprt is not None else MAX_CHUNK_UNITS
    return _round_down(min(largest, max(1, rate * CHUNK_SECONDS)))


def _round_down(units: float) -> int:
    power = 10 ** int(math.floor(math.log10(units)))
    return max(step * power for step in (1, 2, 5) if step * power <= units)
