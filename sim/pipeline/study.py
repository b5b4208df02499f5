"""A study: the experiments of a plan, played as chunks that survive a crash.

The study's folder is one Parquet dataset and the record of what is done:

    FOLDER/_plan.toml                     the plan, as written
    FOLDER/_study.json                    status: per experiment its chunks, done or not
    FOLDER/experiment=NAME/part-000000000000.parquet          rows of one chunk
    FOLDER/experiment=NAME/pair=0_1/part-000000000000.parquet  (tournaments: per pair)
    FOLDER/experiment=NAME/_chunks/part-000000000000.json     a chunk's tally: it is done
    FOLDER/experiment=NAME/_traces/part-000000000000.parquet  its deals move by move
                                                              (a plan's ``trace = true``)
    FOLDER/experiment=NAME/_summary.json  what the experiment's command prints with --json
    FOLDER/_set_aside/...                 files briscola wrote that are no chunk of the plan,
                                          moved out of the dataset by --resume

A chunk counts as done once its record (``_chunks/*.json``) exists and is verified: the
record's own checksum, its chunk's identity (the experiment's name and everything that
decides its results, the range of deals), the checksums of its rows' part and of its
trace (when kept), which hold the same identity in their metadata, and its tallies,
which must be those its rows give. Each is written under a temporary name first,
rows before record, so a killed run leaves nothing half-written that counts; a chunk
that does not verify (a bit flipped, a part copied from elsewhere, a part gone) is not
done: ``status`` and ``sim.load`` name it, and a resumed study plays it again.
Summaries are always computed from the verified records, so a resumed study ends
exactly as an uninterrupted one. Every part has the study's columns (the union of its
experiments', empty where an experiment has none), so ``pandas.read_parquet(FOLDER)``
reads the whole study, with an ``experiment`` column (``pair`` in tournaments), and
only it while ``status`` names no file in the folder that is not the study's (``Stray``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import shlex
import shutil
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from sim.base.config import ConfigError, Rules, RunConfig
from sim.base.files import (
    METADATA_KEY,
    STUDY,
    check_output_path,
    is_result_file,
    is_temporary,
    remove_own,
    temporary_path,
    through_link,
    write_atomically,
    write_json,
)  # fmt: skip
from sim.base.results import RESULT_ROW_GROUP, card_columns, numpy_column, parquet_options
from sim.base.stats import Sprt
from sim.base.version import __version__
from sim.pipeline.chunks import (
    SPRT_CHECK_DEALS,
    Chunk,
    ChunkResult,
    SprtWatch,
    block_ends,
    chunks_of,
    run_chunk,
    wave_grid,
)
from sim.pipeline.experiments import Experiment, with_threads
from sim.pipeline.kinds import kind_of
from sim.pipeline.plan import Plan, experiment_folder, fingerprint, networks_provenance, plan_hash, read_plan
from strategies.errors import StrategyError

FORMAT = 2  # of the folder: 2 verifies every chunk (1 had no checksums)
STUDY_FILE, PLAN_FILE, SUMMARY_FILE, CHUNKS_DIR = "_study.json", "_plan.toml", "_summary.json", "_chunks"
TRACES_DIR = "_traces"  # "_": not part of the rows' dataset (Parquet readers skip such folders)
SET_ASIDE_DIR = "_set_aside"  # where --resume moves the files that are no chunk of the plan
CHUNK_SECONDS = 60.0  # a chunk is about this much work: a crash loses little, overhead stays small
MAX_CHUNK_UNITS = 2_000_000  # and at most this many deals (its rows are held in memory once)
MAX_SPRT_CHUNK_UNITS = 10 * SPRT_CHECK_DEALS  # an SPRT may decide early: at most this much is played past it
MAX_CHUNKS = 100_000  # chunks a study may hold: its lists of them stay small
SAVE_SECONDS = 2.0  # how stale the status and summaries of a study in progress may get
CALIBRATION_SECONDS = 0.5
MAX_CHANGES = 3  # changes of a plan named in a refusal
LOCK_WAIT_SECONDS = 2.0  # how long a run waits for a reader's instant look at the lock (status, sim.load)
REREAD_SECONDS = 0.2  # a reader that finds a chunk damaged while a run goes on looks again after this


def experiment_dir(folder: Path, name: str) -> Path:
    """An experiment's folder: ``experiment=NAME`` (NAME percent-encoded, as Parquet
    readers decode hive partitions, so the ``experiment`` column reads NAME itself)."""
    return folder / experiment_folder(name)


# ------------------------------------------------------------------ columns


COLUMN_ORDER = ("deal", "game", "a_side", *(f"strategy_{s}" for s in range(6)), "briscola", *(f"points_{s}" for s in range(6)),
                *(f"side_points_{s}" for s in range(3)), "winner_side",
                "bid", "caller", "called", "partner", "target", "made", "cappotto", "caller_strength",  # Chiamata
                *(f"game_points_{s}" for s in range(5)), *card_columns(6), "match", "match_deal",
                "match_winner_side")  # fmt: skip


def study_schema(experiments):
    """Every experiment's columns, in one order: what every part of the study holds."""
    import pyarrow as pa

    fields = {}
    for experiment in experiments:
        for column in experiment.run_kind.schema(experiment):
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


def write_part(path: Path, table, identity: dict) -> str:
    """Writes a chunk's rows, with its identity in the file's metadata; returns the SHA-256
    of the bytes written (the record keeps it)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = table.replace_schema_metadata({METADATA_KEY: json.dumps({"format": FORMAT, "chunk": identity})})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, row_group_size=RESULT_ROW_GROUP, **parquet_options(table.schema))
    data = memoryview(sink.getvalue())

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as handle:
            handle.write(data)

    write_atomically(path, write)
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def record_checksum(record: dict) -> str:
    """The checksum a record carries of its own contents (all but the checksum)."""
    canonical = json.dumps({key: value for key, value in record.items() if key != "checksum"}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def part_identity(path: Path) -> dict | None:
    """The chunk identity a part holds in its metadata (None if it holds none)."""
    import pyarrow.parquet as pq

    try:
        raw = (pq.read_schema(path).metadata or {}).get(METADATA_KEY.encode())
        return json.loads(raw)["chunk"] if raw else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class Damage:
    """A chunk whose record is there but does not verify: it is not done."""

    chunk: Chunk
    problem: str

    def to_dict(self) -> dict:
        return {"chunk": self.chunk.label, "problem": self.problem}


@dataclass(frozen=True)
class Stray:
    """A file in a study's folder that is not the study's: no chunk of its plan has its
    name (copied in, or left by another chunk size), or it holds rows of a chunk not
    done (a run stopped between writing them and their record)."""

    path: Path  # relative to the study's folder
    problem: str
    read: bool  # pandas.read_parquet(FOLDER) reads it: the rows would be counted beside the study's
    ours: bool  # briscola wrote it (a part, a trace, a record, a result file): --resume may move it

    @property
    def resume(self) -> str:
        """What ``--resume`` does with it."""
        if self.problem == UNRECORDED:
            return "removes it and plays its chunk again"
        return f"sets it aside in {SET_ASIDE_DIR}/" if self.ours else "leaves it: briscola did not write it"

    def to_dict(self) -> dict:
        return {"path": self.path.as_posix(), "problem": self.problem, "read_by_pandas": self.read,
                "resume": self.resume}  # fmt: skip


NOT_OF_PLAN, UNRECORDED = "is no chunk of the plan", "holds rows of a chunk not done (no record)"


# ------------------------------------------------------------------ one experiment's state


@dataclass
class ExperimentState:
    """An experiment of the study, its chunks and the records of those done."""

    experiment: Experiment
    units_per_chunk: int
    directory: Path
    fingerprint: dict  # what decides its results, as the study began
    networks: dict = field(default_factory=dict)  # its networks' provenance (their files: in the fingerprint)
    records: dict = field(default_factory=dict)  # Chunk -> its record, for the chunks done
    sprt_stop: int | None = None  # the deal count where its SPRT decided
    sized: float | None = None  # seconds a unit took when the study was sized (None: not sized)
    playing: bool = False  # a run plays some of its chunks now

    @cached_property
    def chunks(self) -> list[Chunk]:
        return chunks_of(self.experiment, self.units_per_chunk)

    @cached_property
    def columns(self) -> list[str]:
        return self.experiment.run_kind.schema(self.experiment).names

    @cached_property
    def identity(self) -> str:
        """What its chunks' records and parts must name: the experiment and everything
        that decides its results, with the version and folder format that wrote them."""
        canonical = json.dumps([__version__, FORMAT, self.experiment.name, self.fingerprint], sort_keys=True)
        return hashlib.sha256(canonical.encode()).hexdigest()[:32]

    def chunk_identity(self, chunk: Chunk) -> dict:
        pair = None if chunk.pair is None else list(chunk.pair)
        return {"experiment": self.experiment.name, "identity": self.identity, "pair": pair, "first": chunk.first,
                "n": chunk.n}  # fmt: skip

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

    def trace_part(self, chunk: Chunk) -> Path:
        return self.directory / TRACES_DIR / f"{chunk.label.replace('/', '-')}.parquet"

    def record_path(self, chunk: Chunk) -> Path:
        return self.directory / CHUNKS_DIR / f"{chunk.label.replace('/', '-')}.json"

    def seconds(self) -> float:
        return sum(record["seconds"] for record in self.records.values())

    def seconds_per_unit(self) -> float | None:
        """A unit's work on one worker: over its chunks done, else as measured when the
        study was sized (a few deals: a rough figure); None if neither is known."""
        return self.measured_seconds_per_unit() or self.sized

    def measured_seconds_per_unit(self) -> float | None:
        done = self.units_done()
        return self.seconds() / done if done else None

    def files(self) -> set[Path]:
        """Every file its chunks may have: parts, records, traces; and its summary."""
        files = {self.directory / SUMMARY_FILE}
        for chunk in self.chunks:
            files.update((self.part(chunk), self.record_path(chunk), self.trace_part(chunk)))
        return files

    # -- what is done, verified

    def load_records(self, rows: bool) -> list[Damage]:
        """Reads the records of the chunks done, each verified (with its rows' part, when
        the study keeps rows); returns the chunks whose record does not verify."""
        self.records, damaged = {}, []
        for chunk in self.chunks:
            record, problem = self.verify(chunk, rows)
            if record is not None:
                self.records[chunk] = record
            elif problem is not None:
                damaged.append(Damage(chunk, problem))
        return damaged

    def verify(self, chunk: Chunk, rows: bool) -> tuple[dict | None, str | None]:
        """A chunk's record if it verifies, else None and what is wrong (None: no record)."""
        path = self.record_path(chunk)
        if not path.exists():
            return None, None
        try:
            record = json.loads(path.read_text())
            whole = isinstance(record, dict) and record.get("checksum") == record_checksum(record)
        except (OSError, ValueError):
            whole = False
        if not whole:
            return None, f"its record {path.name} was damaged or changed since it was written"
        if record.get("identity") != self.chunk_identity(chunk):
            return None, f"its record {path.name} is another chunk's or another experiment's"
        kept = [("rows", self.part(chunk), "part_sha256")] if rows else []
        if self.experiment.trace:
            kept.append(("trace", self.trace_part(chunk), "trace_sha256"))
        for what, part, checksum in kept:
            problem = _part_problem(part, record.get(checksum), record["identity"])
            if problem is not None:
                return None, f"its {what} {part.name} {problem}"
        if rows and not self.tallies_are_its_rows(chunk, record):
            return None, f"its record {path.name} holds tallies its rows do not give (edited since it was written)"
        return record, None

    def tallies_are_its_rows(self, chunk: Chunk, record: dict) -> bool:
        """Whether a record's tallies are those of the rows of its part (a record edited,
        its checksum made again, verifies on its own): its tally, and with an SPRT each
        block of SPRT_CHECK_DEALS whose rows are kept (those past a decision are not)."""
        import pyarrow.parquet as pq

        from sim.base.recount import RowsDisagree, counted

        experiment = self.experiment
        kind, unit = experiment.run_kind, "match" if experiment.config.match != "deal" else "deal"
        blocks = [kind.read_tally(experiment, block) for block in record["blocks"]]
        merged = kind.new_tally(experiment)
        for block in blocks:
            merged.merge(block)
        if blocks and merged.to_dict() != record["tally"]:
            return False
        ends = block_ends(chunk, blocks) if blocks else [chunk.first + chunk.n]
        tallies = blocks or [kind.read_tally(experiment, record["tally"])]
        part = pq.ParquetFile(self.part(chunk)).read(columns=counted(self.columns, experiment.config.players))
        rows = {name: numpy_column(part.column(name)) for name in part.column_names}  # (pyarrow's would load pandas)
        try:
            for first, end, tally in zip([chunk.first, *ends], ends, tallies):
                if first >= record.get("cut_at", math.inf):
                    break  # past where its SPRT decided: those rows are not kept
                block = (rows[unit] >= first) & (rows[unit] < end)
                if kind.recount(experiment, {name: c[block] for name, c in rows.items()}).to_dict() != tally.to_dict():
                    return False
        except (KeyError, RowsDisagree):  # a column gone, seatings that disagree
            return False
        return True

    def sprt_decision(self) -> tuple[Chunk, int] | None:
        """Where its SPRT decided, over the chunks done from the first on, at the
        checkpoints ``briscola compare`` uses: (the deciding chunk, the deal count)."""
        experiment = self.experiment
        if experiment.sprt is None:
            return None
        watch = SprtWatch(experiment.sprt, experiment.run_kind.new_tally(experiment).n_games)
        for chunk in self.chunks:
            record = self.records.get(chunk)
            if record is None:
                return None
            blocks = [experiment.run_kind.read_tally(experiment, block) for block in record["blocks"]]
            if watch.add_all(zip(block_ends(chunk, blocks), blocks)):
                return chunk, watch.stop
        return None


def _written_by_briscola(path: Path) -> bool:
    """Whether a file is one briscola writes: Parquet with its metadata (a chunk's part
    or trace, a command's file) or a chunk's record."""
    if path.suffix != ".json":
        return is_result_file(path)
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and {"identity", "checksum"} <= record.keys()


def _free_path(path: Path) -> Path:
    """``path``, or ``path.1``, ``path.2`` ... : the first that does not exist."""
    found, number = path, 0
    while found.exists():
        number += 1
        found = path.with_name(f"{path.name}.{number}")
    return found


def _counted(strays: list[Stray]) -> str:
    """``3 files (experiment=a/part-000000005000.parquet and 2 more)``."""
    more = f" and {len(strays) - 1} more" if len(strays) > 1 else ""
    return f"{len(strays)} file{'s' if len(strays) > 1 else ''} ({strays[0].path.as_posix()}{more})"


def _part_problem(part: Path, checksum: str | None, identity: dict) -> str | None:
    """What is wrong with a chunk's part (rows or trace), from its record's checksum and
    identity; None if it verifies."""
    if not part.exists():
        return "is missing"
    try:
        whole = file_sha256(part) == checksum and part_identity(part) == identity
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    return None if whole else "was damaged, changed or copied from elsewhere since it was written"


def chunk_record(result: ChunkResult, state: ExperimentState, rows: int | None, part_sha256: str | None,
                 trace_sha256: str | None = None) -> dict:  # fmt: skip
    """A finished chunk's record: its identity, its tally, its rows' (and trace's)
    checksum; and its own."""
    chunk = result.chunk
    record = {
        "identity": state.chunk_identity(chunk), "rows": rows, "part_sha256": part_sha256,
        "deals_played": result.deals_played, "seconds": round(result.seconds, 3), "tally": result.tally.to_dict(),
        "blocks": [block.to_dict() for block in result.blocks],
        **({"trace_sha256": trace_sha256} if trace_sha256 is not None else {}),
    }  # fmt: skip
    return {**record, "checksum": record_checksum(record)}


def experiment_of(entry: dict) -> Experiment:
    """An experiment as a study's status holds it (no plug-in is loaded: it is not played)."""
    print_ = entry["fingerprint"]
    labels = tuple(print_["strategies"])
    players = print_["players"]
    config = RunConfig(
        players=players, strategies=kind_of(print_["kind"]).seat_labels(labels, players),
        deals=print_["deals"], seed=print_["seed"], rules=Rules(**print_["rules"]), threads=entry["threads"],
        match=print_["match"],
    )  # fmt: skip
    sprt = Sprt(*print_["sprt"]) if print_["sprt"] else None
    factors = tuple(entry.get("factors", {}).items())
    return Experiment(print_["kind"], config, labels, sprt, entry["name"], print_.get("trace", False), factors)


# ------------------------------------------------------------------ the study


class Study:
    """A study's folder and what is done in it (see the module's docstring). ``notes``:
    what opening it repaired, for the user."""

    def __init__(self, folder: Path, plan: Plan | None, rows: bool, states: list[ExperimentState]):
        self.folder, self.plan, self.rows, self.states = folder, plan, rows, states
        self.plan_file = None if plan is None else str(Path(plan.path).absolute())  # the plan it is run with
        self.backend_options: tuple[str, ...] = ()  # how it is run (--backend dask --workers 2): resumed alike
        self.schema = study_schema([state.experiment for state in states])
        self.by_name = {state.experiment.name: state for state in states}
        self.plan_hash = plan_hash([(state.experiment.name, state.fingerprint) for state in states])
        self.replayed: list[tuple[str, Damage]] = []  # found damaged by a run: removed, played again
        self.damaged: list[tuple[str, Damage]] = []  # found damaged by a reader: not done
        self.notes: list[str] = []
        self._lock_file = None
        self._saved_at = time.monotonic()

    # -- opening

    @classmethod
    def open(
        cls, folder: Path, plan: Plan, rows: bool, resume: bool, chunk_units: int | None, threads: int | None,
        on_sizing=None,
    ) -> Study:  # fmt: skip
        """A new study in ``folder`` (which must not exist), or the one there to resume
        (made by this plan: a changed plan is refused, saying what changed). The study is
        locked for this process until ``close``: two runs never write one study.
        ``on_sizing()`` is called before chunks are sized by playing a few deals."""
        folder = Path(folder)
        if resume:
            return cls._resume(folder, plan, rows, chunk_units, threads)
        if folder.exists():
            raise ConfigError(f"{folder} already exists; pass --resume to continue the study in it")
        check_output_path(folder, False, "--out", layout=STUDY)
        check_fits(plan, chunk_units)
        if chunk_units is None and on_sizing is not None:
            on_sizing()
        experiments = [e if threads is None else with_threads(e, threads) for e in plan.experiments]
        sizes = [Sizing(chunk_units, None) if chunk_units else calibrate(e) for e in experiments]
        states = [
            ExperimentState(e, size.units, experiment_dir(folder, e.name), fingerprint(e), networks_provenance(e),
                            sized=size.seconds_per_unit)
            for e, size in zip(experiments, sizes)
        ]  # fmt: skip
        _check_size(states)
        cls._create(through_link(folder), plan, rows, states)  # a link stays, naming the study
        study = cls(folder, plan, rows, states)
        study._lock()
        return study

    @classmethod
    def _create(cls, folder: Path, plan: Plan, rows: bool, states: list[ExperimentState]) -> None:
        """The folder appears with its plan and status, or not at all; if another run made
        it meanwhile, this one is refused."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = temporary_path(folder, STUDY)
        try:
            staging.mkdir()
            (staging / PLAN_FILE).write_text(plan.text)
            write_json(staging / STUDY_FILE, cls(staging, plan, rows, states).status())
            os.replace(staging, folder)
        except OSError as error:
            shutil.rmtree(staging, ignore_errors=True)
            if folder.exists():
                raise ConfigError(f"{folder} already exists (another briscola run made it just now); "
                                  "pass --resume to continue the study in it") from None  # fmt: skip
            raise error
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    @classmethod
    def _resume(cls, folder: Path, plan: Plan, rows: bool, chunk_units: int | None, threads: int | None) -> Study:
        if not (folder / STUDY_FILE).is_file() and (folder / PLAN_FILE).is_file():
            return cls._rebuild(folder, plan, rows, chunk_units, threads)
        status = read_status(folder)
        if status["rows"] != rows:
            keeps = "rows" if status["rows"] else "summaries only"
            raise ConfigError(
                f"{folder} keeps {keeps}: resume it {'without' if status['rows'] else 'with'} --summary-only"
            )
        changes, of_the_plan = _changes(status["experiments"], plan.experiments)
        if changes and not of_the_plan:  # the plan is the same: what its strategies play is not
            raise ConfigError(f"what {folder}'s experiments play changed since it began ({'; '.join(changes)})")
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
            experiment = experiment if threads is None else with_threads(experiment, threads)  # this machine's
            states.append(
                ExperimentState(
                    experiment,
                    entry["units_per_chunk"],
                    folder / entry["directory"],
                    entry["fingerprint"],
                    networks_provenance(experiment),
                    sized=entry.get("seconds_per_unit_sized"),
                )
            )
        return cls._opened(folder, plan, rows, states)

    @classmethod
    def _rebuild(cls, folder: Path, plan: Plan, rows: bool, chunk_units: int | None, threads: int | None) -> Study:
        """A study whose status file is gone: rebuilt from its plan (which must be the one
        it began with) and the records of its chunks (which must verify)."""
        if (folder / PLAN_FILE).read_text() != plan.text:
            raise ConfigError(f"{folder} lost its {STUDY_FILE}, and this plan is not the one it began with "
                              f"({folder / PLAN_FILE}): resume it with that plan")  # fmt: skip
        states = []
        for experiment in plan.experiments:
            experiment = experiment if threads is None else with_threads(experiment, threads)
            directory = experiment_dir(folder, experiment.name)
            recorded_units, recorded_rows = _recorded_shape(directory)
            if recorded_rows is not None and recorded_rows != rows:
                keeps = "rows" if recorded_rows else "summaries only"
                raise ConfigError(f"{folder} keeps {keeps}: resume it {'without' if recorded_rows else 'with'} "
                                  "--summary-only")  # fmt: skip
            if chunk_units is not None and recorded_units not in (None, chunk_units):
                raise ConfigError(f"{folder} is cut in chunks of {recorded_units}: --chunk-deals cannot change "
                                  "when a study resumes")  # fmt: skip
            size = (
                Sizing(recorded_units or chunk_units, None) if recorded_units or chunk_units else calibrate(experiment)
            )
            states.append(
                ExperimentState(experiment, size.units, directory, fingerprint(experiment), networks_provenance(experiment),
                                sized=size.seconds_per_unit)
            )  # fmt: skip
        _check_size(states)
        study = cls._opened(folder, plan, rows, states)
        study.notes.append(f"{folder / STUDY_FILE} was missing: rebuilt from {PLAN_FILE} and the chunks' records")
        study.save()
        return study

    @classmethod
    def _opened(cls, folder: Path, plan: Plan, rows: bool, states: list[ExperimentState]) -> Study:
        study = cls(folder, plan, rows, states)
        study._lock()
        try:
            study._load_records()
        except BaseException:
            study._unlock()
            raise
        return study

    @classmethod
    def read(cls, folder: Path) -> Study:
        """The study in ``folder`` as it is now, verified, for reading (``status``,
        ``sim.load``): nothing is changed, and no lock is held (a run may go on beside
        it: a chunk that looks damaged while one does is looked at again)."""
        folder = Path(folder)
        status = read_status(folder)
        states = [
            ExperimentState(experiment_of(entry), entry["units_per_chunk"], folder / entry["directory"],
                            entry["fingerprint"], entry.get("provenance", {}), sized=entry.get("seconds_per_unit_sized"),
                            playing=entry.get("playing", False))
            for entry in status["experiments"]
        ]  # fmt: skip
        study = cls(folder, None, status["rows"], states)
        study.plan_file = status.get("plan")
        study.backend_options = tuple(status.get("backend_options", ()))
        for state in states:
            damaged = state.load_records(study.rows)
            if damaged and running(folder):  # a run may be rewriting a part and its record: look again
                time.sleep(REREAD_SECONDS)
                damaged = state.load_records(study.rows)
            study.damaged += [(state.experiment.name, damage) for damage in damaged]
            decided = state.sprt_decision()
            state.sprt_stop = None if decided is None else decided[1]
        return study

    def _lock(self) -> None:
        """Holds the study for this process (before anything in it is read or removed);
        waits a moment for a reader's instant look at the lock (``running``) to end."""
        self._lock_file = open(self.folder / ".lock", "a")  # noqa: SIM115 - held until close
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    self._unlock()
                    raise ConfigError(
                        f"{self.folder} is being run by another briscola process; wait for it, or stop it"
                    ) from None
                time.sleep(0.05)

    def _unlock(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def close(self) -> None:
        """Saves the status and summaries (no chunk is being played any more), and lets
        other processes have the study."""
        for state in self.states:
            state.playing = False
        try:
            self.save()
        finally:
            self._unlock()

    def discard(self) -> None:
        """Removes a study that did nothing (a new one whose start failed): its files,
        while it is still held, then its lock and the folder, as if it was never made."""
        remove_own(self.folder, STUDY, keep=(".lock",))
        self._unlock()
        remove_own(self.folder, STUDY)

    def _load_records(self) -> None:
        """Reads what is done: every chunk whose record and rows verify. Leftovers
        (temporary files, rows without a record, chunks past an SPRT's stop) are removed,
        and so are the damaged chunks (``replayed``): they are played again. What briscola
        wrote that is no chunk of the plan is set aside (``_set_aside``)."""
        for temporary in self.folder.rglob(".*.tmp"):
            if is_temporary(temporary.name) and temporary.is_file():  # the study is locked: no one writes them now
                temporary.unlink(missing_ok=True)
        for state in self.states:
            damaged = state.load_records(self.rows)
            for damage in damaged:
                state.record_path(damage.chunk).unlink(missing_ok=True)
            self.replayed += [(state.experiment.name, damage) for damage in damaged]
            for chunk in state.chunks:
                if chunk not in state.records:  # rows (and traces) whose record never came, or damaged: redone
                    state.part(chunk).unlink(missing_ok=True)
                    state.trace_part(chunk).unlink(missing_ok=True)
            self._check_sprt(state)
        self._set_aside(self.strays())

    def _set_aside(self, strays: list[Stray]) -> None:
        """Moves the files briscola wrote that are no chunk of the plan into
        ``_set_aside/`` (which Parquet readers skip), keeping their paths; names the others."""
        moved = [stray for stray in strays if stray.problem == NOT_OF_PLAN and stray.ours]
        for stray in moved:
            target = _free_path(self.folder / SET_ASIDE_DIR / stray.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.folder / stray.path, target)
        if moved:
            self.notes.append(f"set aside {_counted(moved)}, no chunk of the plan (copied in, or left by another "
                              f"chunk size), in {self.folder / SET_ASIDE_DIR}: the study's dataset holds its own rows "
                              "alone")  # fmt: skip
        kept = [stray for stray in strays if stray.problem == NOT_OF_PLAN and stray.read and not stray.ours]
        if kept:
            self.notes.append(f"{_counted(kept)} that briscola did not write lie in the study's dataset: "
                              "pandas.read_parquet reads them beside its rows; move them out of the folder")  # fmt: skip

    def strays(self) -> list[Stray]:
        """The files in the folder that are not the study's (``Stray``): what
        ``pandas.read_parquet(FOLDER)`` reads beside its rows, and the records and traces
        of no chunk of the plan; not the study's own files, temporaries, or what was set
        aside."""
        own = {self.folder / name for name in (PLAN_FILE, STUDY_FILE, ".lock")}
        unrecorded = set()
        for state in self.states:
            own |= state.files()
            damaged = {damage.chunk for name, damage in self.damaged if name == state.experiment.name}
            unrecorded |= {state.part(c) for c in state.chunks if c not in state.records and c not in damaged}
        found = []
        for root, folders, files in os.walk(self.folder):
            folders[:] = [name for name in folders if Path(root, name) != self.folder / SET_ASIDE_DIR]
            for name in files:
                path = Path(root, name)
                relative = path.relative_to(self.folder)
                read = not any(part.startswith(("_", ".")) for part in relative.parts)
                if path in unrecorded:
                    found.append(Stray(relative, UNRECORDED, read, True))
                elif (
                    path not in own
                    and not is_temporary(name)
                    and (read or path.parent.name in (CHUNKS_DIR, TRACES_DIR))
                ):
                    found.append(Stray(relative, NOT_OF_PLAN, read, _written_by_briscola(path)))
        return sorted(found, key=lambda stray: stray.path)

    # -- recording

    def record(self, result: ChunkResult) -> None:
        """Keeps a finished chunk: its rows, then its record; then, for an SPRT
        comparison, checks whether the test has decided."""
        state = self.by_name[result.chunk.experiment]
        chunk = result.chunk
        if not state.wants(chunk):
            return  # done already, or past where its SPRT decided
        rows, checksum = None, None
        if self.rows:
            table = conform(result.table, self.schema)
            checksum = write_part(state.part(chunk), table, state.chunk_identity(chunk))
            rows = table.num_rows
        trace_checksum = None
        if result.trace is not None:  # written before the record too: no record, no trace
            trace_checksum = write_part(state.trace_part(chunk), result.trace, state.chunk_identity(chunk))
        record = chunk_record(result, state, rows, checksum, trace_checksum)
        write_json(state.record_path(chunk), record)
        state.records[chunk] = record
        self._check_sprt(state)
        if time.monotonic() - self._saved_at > SAVE_SECONDS or state.status == "complete":
            self.save(state)

    def _check_sprt(self, state: ExperimentState) -> None:
        """Once its SPRT decides (as ``briscola compare`` would), drops the rows and
        chunks past the decision."""
        if state.sprt_stop is not None:
            return
        decided = state.sprt_decision()
        if decided is not None:
            self._stop_at(state, *decided)

    def _stop_at(self, state: ExperimentState, deciding: Chunk, stop: int) -> None:
        state.sprt_stop = stop
        for chunk in state.chunks:
            if chunk.first >= stop:
                state.records.pop(chunk, None)
                state.part(chunk).unlink(missing_ok=True)
                state.trace_part(chunk).unlink(missing_ok=True)
                state.record_path(chunk).unlink(missing_ok=True)
        record = state.records[deciding]
        if self.rows and stop < deciding.first + deciding.n and record.get("cut_at") != stop:
            import pyarrow.compute as pc
            import pyarrow.parquet as pq

            table = pq.read_table(state.part(deciding), schema=self.schema)
            unit = "match" if state.experiment.config.match != "deal" else "deal"
            table = table.filter(pc.less(table[unit], stop))
            checksum = write_part(state.part(deciding), table, record["identity"])
            record = {key: value for key, value in record.items() if key != "checksum"}
            record.update(rows=table.num_rows, part_sha256=checksum, cut_at=stop)  # past the decision: not the study's
            record["checksum"] = record_checksum(record)
            write_json(state.record_path(deciding), record)
            state.records[deciding] = record

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
            "plan": self.plan_file, "backend_options": list(self.backend_options),
            "status": _overall([state.status for state in self.states]),
            "experiments": [_experiment_status(state) for state in self.states],
        }  # fmt: skip

    def play(self, names) -> None:
        """Notes the experiments whose chunks a run plays now (``briscola status`` shows
        them as playing); the status file is written when that changes."""
        changed = [state for state in self.states if (state.experiment.name in names) != state.playing]
        for state in changed:
            state.playing = not state.playing
        if changed:
            write_json(self.folder / STUDY_FILE, self.status())

    def resume_command(self) -> str:
        """The command that finishes the study: with the plan it is run with, or (read by
        ``status``) the plan it was last run with if that file still holds the plan the
        study began with, else the copy in its folder (whose relative plug-in paths, if
        any, would not be found from there)."""
        if self.plan is not None:
            return resume_command(self.folder, self.plan.path, self.backend_options)
        return resume_command(self.folder, self.last_plan(), self.backend_options)

    def last_plan(self) -> Path | None:
        """The plan file the study was last run with, if it still holds the plan the
        study began with."""
        recorded = Path(self.plan_file) if self.plan_file else None
        try:
            same = recorded is not None and recorded.read_text() == (self.folder / PLAN_FILE).read_text()
        except OSError:
            same = False
        return recorded if same else None

    def changed_since_begun(self) -> list[str]:
        """What its experiments play that changed since it began (a strategy's code or
        data, a plug-in file), read through the plan it was last run with (which names
        its plug-ins); nothing if that plan is gone or changed (a resume then says)."""
        plan = self.last_plan()
        if plan is None:
            return []
        recorded = [{"name": s.experiment.name, "fingerprint": s.fingerprint} for s in self.states]
        try:
            return _changes(recorded, read_plan(plan).experiments)[0]
        except (OSError, ConfigError, StrategyError) as error:  # a plug-in moved or broken: say so, show the rest
            return [f"its strategies could not be loaded to check them ({error})"]

    def outcome(self) -> dict:
        """How far the study has come (what ``batch --json`` and ``status --json`` print):
        per experiment its status (``playing`` while a run plays its chunks), chunks and
        deals (done and in all), the work time of its chunks done and a unit's (measured
        on them, else when the study was sized), its summary (computed from its verified
        records) and the chunks found damaged; the files in the folder not the study's,
        what its experiments play that changed since it began (read from its folder
        alone: a run checks it as it begins), and the command that finishes it (None
        once complete)."""
        damaged = {}
        for name, damage in self.damaged:
            damaged.setdefault(name, []).append(damage.to_dict())
        experiments, now = [], running(self.folder)
        for state in self.states:
            playing = now and state.playing and state.status != "complete"
            cost = state.seconds_per_unit()
            experiments.append({
                "name": state.experiment.name, "kind": state.experiment.kind,
                "factors": dict(state.experiment.factors), "status": "playing" if playing else state.status,
                "chunks": len(state.needed()), "chunks_done": sum(c in state.records for c in state.needed()),
                "units": state.experiment.units, "units_done": state.units_done(), "seconds": round(state.seconds(), 3),
                "seconds_per_unit": None if cost is None else float(f"{cost:.4g}"),
                "summary": experiment_summary(state), "damaged": damaged.get(state.experiment.name, []),
            })  # fmt: skip
        status = _overall([e["status"] for e in experiments])
        return {"out": str(self.folder), "status": status, "running": now, "experiments": experiments,
                "strays": [stray.to_dict() for stray in self.strays()],
                "changed": [] if self.plan is not None else self.changed_since_begun(),  # a run checked it as it began
                "resume": None if status == "complete" else self.resume_command()}  # fmt: skip


class TimeLeft:
    """How long a run of a study has left: the work its experiments have left (their
    units left, each at its seconds a unit: measured on its chunks done, else as this run
    sees its units go between two reports, else as measured when the study was sized,
    else the mean of the others') at the pace this run keeps (its work done per second
    of wall time: every worker counts). A run that plays a cheap experiment first then a
    dear one is not fooled, as counting deals is."""

    REFRESH_SECONDS = 1.0  # how often the chunks done are looked at again (they are recorded meanwhile)

    def __init__(self, study: Study):
        self.study, self.started = study, time.monotonic()
        self.left = {s.experiment.name: max(0, s.experiment.units - s.units_done()) for s in study.states}
        self.done = dict.fromkeys(self.left, 0)  # units done by this run
        self.seen = {name: [0.0, 0] for name in self.left}  # wall seconds and units between reports, by experiment
        self._last, self._measured, self._measured_at = self.started, {}, -math.inf

    def add(self, units: int, experiment: str) -> None:
        """``units`` more of ``experiment`` done (the wall time since the last report: its)."""
        now = time.monotonic()
        self.seen[experiment][0] += now - self._last
        self.seen[experiment][1] += units
        self._last = now
        self.left[experiment] = max(0, self.left[experiment] - units)
        self.done[experiment] += units

    def costs(self) -> dict[str, float]:
        """Each experiment's seconds a unit (a guess where none is known)."""
        if time.monotonic() - self._measured_at > self.REFRESH_SECONDS:
            self._measured = {s.experiment.name: s.measured_seconds_per_unit() for s in self.study.states}
            self._measured_at = time.monotonic()
        known = {s.experiment.name: self._measured[s.experiment.name] or self._seen(s.experiment.name) or s.sized
                 for s in self.study.states}  # fmt: skip
        found = [cost for cost in known.values() if cost]
        guess = sum(found) / len(found) if found else 1.0
        return {name: cost or guess for name, cost in known.items()}

    def _seen(self, experiment: str) -> float | None:
        seconds, units = self.seen[experiment]
        return seconds / units if units else None

    def seconds(self) -> float | None:
        """The wall time left, at this run's pace so far (None before any unit is done)."""
        costs = self.costs()
        work_done = sum(units * costs[name] for name, units in self.done.items())
        if work_done <= 0:
            return None
        work_left = sum(units * costs[name] for name, units in self.left.items())
        return work_left * (time.monotonic() - self.started) / work_done


def resume_command(folder, plan=None, backend_options=()) -> str:
    """The command that finishes the study in ``folder``: with its ``plan`` (by default the
    copy kept in the folder), on the backend it was last run on (``backend_options``)."""
    return shlex.join(["briscola", "batch", str(plan or Path(folder) / PLAN_FILE), "--out", str(folder), "--resume",
                       *backend_options])  # fmt: skip


def read_status(folder: Path) -> dict:
    """A study's ``_study.json``, checked to be one this briscola reads."""
    path = Path(folder) / STUDY_FILE
    if not path.is_file():
        raise ConfigError(f"{folder} is not a study's folder (no {STUDY_FILE})")
    try:
        status = json.loads(path.read_text())
        status["experiments"], status["rows"]  # noqa: B018 - the keys every status has
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"{path} does not read ({type(error).__name__}: {error}); if its plan is there, "
                          f"remove {path} and resume: it is rebuilt from the plan and the chunks' records") from None  # fmt: skip
    if status.get("format") != FORMAT or status.get("version") != __version__:
        raise ConfigError(f"{folder} was made by briscola {status.get('version')} (study format "
                          f"{status.get('format')}); this is {__version__} (format {FORMAT}): its chunks may differ, "
                          "start a new study")  # fmt: skip
    return status


def read_outcome(folder: Path) -> dict:
    """How far a study has come, from its folder alone, every chunk verified
    (``Study.outcome``)."""
    return Study.read(folder).outcome()


def check_fits(plan: Plan, chunk_units: int | None) -> None:
    """Refuses, before chunks are sized, a plan too large for a study even in the largest
    chunks."""
    _check_size([ExperimentState(e, chunk_units or largest_chunk(e), Path(), {}) for e in plan.experiments])


def largest_chunk(experiment: Experiment) -> int:
    return MAX_SPRT_CHUNK_UNITS if experiment.sprt is not None else MAX_CHUNK_UNITS


def _check_size(states: list[ExperimentState]) -> None:
    """Refuses a study too large to list its chunks, before any list is made."""
    counts = [math.ceil(s.experiment.config.deals / s.units_per_chunk) * len(s.experiment.parts) for s in states]
    if sum(counts) > MAX_CHUNKS:
        state, count = max(zip(states, counts), key=lambda item: item[1])
        raise ConfigError(f"the study would hold {sum(counts):,} chunks (experiment {state.experiment.name!r}: "
                          f"{count:,} of {state.units_per_chunk:,} deals); a study holds at most {MAX_CHUNKS:,}: "
                          "play fewer deals, or larger chunks (--chunk-deals)")  # fmt: skip


def _recorded_shape(directory: Path) -> tuple[int | None, bool | None]:
    """What an experiment's records tell of its study: its chunk size (that of its first
    chunk) and whether it keeps rows; None for what no record tells."""
    for path in sorted((directory / CHUNKS_DIR).glob("*.json")):
        try:
            record = json.loads(path.read_text())
            if record["identity"]["first"] == 0:
                return int(record["identity"]["n"]), record["part_sha256"] is not None
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None, None


def running(folder: Path) -> bool:
    """Whether a briscola process holds the study now (else a partial study was stopped).
    A shared lock tells, taken for an instant: a reader never blocks a run."""
    try:
        handle = open(folder / ".lock", "rb")  # noqa: SIM115 - closed below
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


def _overall(statuses: list[str]) -> str:
    """The study's status from its experiments' (``playing`` is partial, or pending)."""
    if all(s == "complete" for s in statuses):
        return "complete"
    return "pending" if all(s == "pending" for s in statuses) else "partial"


def _experiment_status(state: ExperimentState) -> dict:
    experiment = state.experiment
    return {
        "name": experiment.name, "kind": experiment.kind, "factors": dict(experiment.factors),
        "status": state.status, "directory": state.directory.name, "fingerprint": state.fingerprint,
        "columns": state.columns, "threads": experiment.config.threads,
        "units_per_chunk": state.units_per_chunk, "chunks": len(state.needed()),
        "chunks_done": sum(c in state.records for c in state.needed()), "units": experiment.units,
        "units_done": state.units_done(), "seconds": round(state.seconds(), 3), "sprt_stop": state.sprt_stop,
        "seconds_per_unit_sized": state.sized, "playing": state.playing,
        **({"provenance": state.networks} if state.networks else {}),
    }  # fmt: skip


def _changes(recorded: list[dict], experiments) -> tuple[list[str], bool]:
    """What differs between the experiments a study began with and a plan's (at most
    MAX_CHANGES of them named), and whether any is the plan's own (not only what its
    strategies' files hold)."""
    before = {entry["name"]: entry["fingerprint"] for entry in recorded}
    after = {e.name: fingerprint(e) for e in experiments}
    changes = [f"experiment {name!r} is new" for name in after if name not in before]
    changes += [f"experiment {name!r} is gone" for name in before if name not in after]
    of_the_plan = bool(changes)
    for name in sorted(before.keys() & after.keys()):
        for key in before[name]:
            if before[name][key] == after[name].get(key):
                continue
            if key == "strategy_files":
                changes.append(
                    f"experiment {name!r}: a --strategy-file's contents changed (restore the file, or start a new study)"
                )
            elif key == "fingerprints":
                changed = [k for k in after[name].get(key, {}) if before[name][key].get(k) != after[name][key][k]]
                changes.append(f"experiment {name!r}: the code or data of {', '.join(changed)} changed (restore "
                               "them, or start a new study)")  # fmt: skip
            else:
                changes.append(f"experiment {name!r}: {key} {before[name][key]} -> {after[name].get(key)}")
                of_the_plan = True
    changes = sorted(changes)
    named = (
        changes if len(changes) <= MAX_CHANGES else [*changes[:MAX_CHANGES], f"and {len(changes) - MAX_CHANGES} more"]
    )
    return named, of_the_plan


# ------------------------------------------------------------------ summaries


def experiment_summary(state: ExperimentState) -> dict | None:
    """The experiment's summary from its chunk records, as its command's --json."""
    if not state.records:
        return None
    experiment = state.experiment
    tallies = {part: _part_tally(state, part) for part in experiment.parts}
    return experiment.run_kind.summary(experiment, tallies, state.seconds())


def _part_tally(state: ExperimentState, part):
    """A part's tally over its chunks done (up to where its SPRT decided)."""
    experiment = state.experiment
    kind, stop = experiment.run_kind, state.sprt_stop
    tally = kind.new_tally(experiment)
    for chunk in state.chunks:
        record = state.records.get(chunk)
        if record is None or chunk.pair != part:
            continue
        if stop is None:
            tally.merge(kind.read_tally(experiment, record["tally"]))
            continue
        for k, block in enumerate(record["blocks"]):
            if chunk.first + k * SPRT_CHECK_DEALS < stop:
                tally.merge(kind.read_tally(experiment, block))
    return tally


# ------------------------------------------------------------------ chunk sizes


class Sizing(NamedTuple):
    units: int  # per chunk
    seconds_per_unit: float | None  # as measured (None: too few deals to measure)


def calibrate(experiment: Experiment) -> Sizing:
    """Units per chunk: about CHUNK_SECONDS of this machine's work, measured by playing a
    few deals (which also readies the kernels), rounded down to 1, 2 or 5 times a power
    of ten, at most MAX_CHUNK_UNITS (with batched strategies, then to a multiple of the
    lock-step waves' grid, ``wave_grid``); and the seconds a unit took. Measuring stops as soon
    as the answer is known: at CALIBRATION_SECONDS, or once even the fastest rate seen
    would fill the largest chunk."""
    chunk = chunks_of(experiment, experiment.config.deals)[0]
    total = experiment.config.deals
    run_chunk(experiment, Chunk(chunk.experiment, chunk.pair, 0, 1), rows=False)  # compiles or loads: not measured
    n, seconds, rate, timed = 2, 0.0, 0.0, []
    while seconds < CALIBRATION_SECONDS and n < total and rate * CHUNK_SECONDS < MAX_CHUNK_UNITS:
        n = min(4 * n, total)
        started = time.perf_counter()
        run_chunk(experiment, Chunk(chunk.experiment, chunk.pair, 0, n), rows=False)
        seconds = time.perf_counter() - started
        rate = n / max(seconds, 1e-6)
        timed.append((n, seconds))
    units = _round_down(min(largest_chunk(experiment), max(1, rate * CHUNK_SECONDS)))
    grid = wave_grid(experiment.run_kind.player(experiment, chunk.pair))
    if grid and units < total:  # chunks end where waves do: the same deals share each call on any machine
        units = max(grid, units - units % grid)
    return Sizing(units, _seconds_per_unit(timed))


def _seconds_per_unit(timed: list[tuple[int, float]]) -> float | None:
    """A unit's cost from runs of (units, seconds): what the last run took beyond the one
    before (a run's fixed cost, which dwarfs a few deals of a fast strategy, cancels),
    else the last run's average; None if none ran."""
    if not timed:
        return None
    (n, seconds), before = timed[-1], timed[-2] if len(timed) > 1 else (0, 0.0)
    extra = (seconds - before[1]) / (n - before[0])
    return extra if extra > 0 else seconds / n


def _round_down(units: float) -> int:
    power = 10 ** int(math.floor(math.log10(units)))
    return max(step * power for step in (1, 2, 5) if step * power <= units)
