"""One way to run, what the command line and ``sim.app.api`` both call.

- ``run(experiment, how)`` plays a ``simulate``, ``compare`` or ``tournament`` experiment:
  on a backend in this process (``local``) into its own file (``sim.pipeline.runs``); on any other
  as a study of one experiment, which the backend fills (``sim.pipeline.study``).
- ``run_plan(plan, how)`` runs a study plan (``briscola batch``) on any backend.

``HowToRun`` says how: where the output goes, the backend and its own options, threads.
A ``Reporter`` hears what happens as it goes: the command line's prints it, this one
(the notebook API's) keeps quiet.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sim.base.config import ChunkFailed, ConfigError
from sim.base.files import STUDY, WriteFailed, refuse_foreign, remove_own, through_link
from sim.base.interrupt import STUDY_STOPPING, deferred_interrupt
from sim.pipeline.backends import Backend, checked_backend
from sim.pipeline.runs import RunOutcome, run_command

if TYPE_CHECKING:  # the study's modules are imported when a study runs: a command here starts without them
    from sim.pipeline.plan import Plan
    from sim.pipeline.study import Study, TimeLeft


@dataclass(frozen=True)
class HowToRun:
    """How a run is run, whatever it plays."""

    # A command: its file, or a folder/ (or a folder there, for a file) for its default name
    # inside; None: its default path (under results/). A plan: the study's folder; None:
    # the plan's own ``out``, else results/PLAN.
    out: str | Path | None = None
    overwrite: bool = False  # a command: replace an existing output (briscola's own only)
    summary_only: bool = False  # a command: write nothing, only the summary; a plan: keep no rows
    backend: str = "local"  # a name in sim.pipeline.backends.BACKENDS
    backend_options: Mapping[str, object] = field(default_factory=dict)  # its own: {"workers": 2}; None: not given
    threads: int | None = None  # a plan's experiments' (a command's are its experiment's); on Dask, a worker's
    trace: Path | None = None  # a command played here: also every deal move by move
    resume: bool = False  # a plan: continue the study in ``out``
    chunk_deals: int | None = None  # a plan: deals (or matches) per chunk; None: about a minute of work
    command: str | None = None  # the command line, kept in a result file's metadata


class Reporter:
    """What a run tells people as it goes. This one tells nothing but what must not go
    unsaid (as a warning); the command line's prints it all."""

    def note(self, text: str) -> None:
        """Something people may like to know (the command line's ``--quiet`` drops it)."""

    def alert(self, text: str) -> None:
        """Something people must know (said even with ``--quiet``): a study repaired."""
        warnings.warn(text, stacklevel=3)

    def playing_here(self, experiments) -> None:
        """This process is about to play ``experiments`` (and may first compile the kernels)."""

    def progress(self, total: int, done: int = 0, time_left: TimeLeft | None = None, lines: bool = False):
        """A context manager around the playing, yielding what hears its progress: called
        with (units done, experiment's name or None), ``.status(text)``, ``.note(text)``
        (see ``sim.pipeline.backends.base.Backend.run``). ``total``, ``done``: units in all and
        done before; ``time_left``: a study's; ``lines``: a study's log may say each tenth."""
        return contextlib.nullcontext(Silent())


class Silent:
    """Progress that nobody watches."""

    def __call__(self, n: int, experiment: str | None = None) -> None:
        pass

    def status(self, text: str | None) -> None:
        pass

    def note(self, text: str) -> None:
        pass


@dataclass
class StudyCommand:
    """How a command run as a study of one experiment ended: its summary (what it prints),
    and the study's own outcome (what ``briscola status --json`` prints)."""

    experiment: object  # sim.pipeline.experiments.Experiment
    summary: dict | None
    interrupted: bool
    out: Path | None  # the study's folder (None with summary_only: it is gone)
    study: dict
    seconds = None  # its chunks may play anywhere, at once: no one run time

    def notes(self, quiet: bool) -> list[str]:
        """Lines for people: how to continue it if partial (said even if quiet), where it is."""
        notes = []
        if self.out is not None and self.study["resume"]:
            notes.append(f"briscola: the study is partial; continue it with {self.study['resume']}")
        if self.out is not None and not quiet:
            notes.append(f"wrote the study {self.out} ({self.study['status']}); read it with sim.load")
        return notes


@dataclass
class StudyRun:
    """How a run of a study plan ended: the study's outcome (what ``briscola batch --json``
    prints: a partial one's says how to continue it), and whether a stop ended it."""

    outcome: dict
    interrupted: bool
    folder: Path


def run(experiment, how: HowToRun | None = None, reporter: Reporter | None = None, **changes) -> RunOutcome | StudyCommand:  # fmt: skip
    """Plays a command's experiment as ``how`` says (``changes``: fields of HowToRun, over
    ``how``'s), on its backend; returns how it ended. Bad options are refused before
    anything is written."""
    how = replace(how or HowToRun(), **changes)
    reporter = reporter or Reporter()
    backend, given = checked_backend(how.backend, how.backend_options)
    if how.trace is not None and not backend.in_this_process:
        raise ConfigError("--trace is for --backend local: a trace is for auditing small runs")
    if how.trace is not None and experiment.run_kind.trace_refusal(experiment.config):
        raise ConfigError(f"--trace: {experiment.run_kind.trace_refusal(experiment.config)}")
    if backend.in_this_process:
        return _run_here(experiment, how, reporter)
    return _run_as_study(experiment, how, reporter)


def _run_here(experiment, how: HowToRun, reporter: Reporter) -> RunOutcome:
    kind = experiment.run_kind
    out = output_path(how.out, how.summary_only, lambda: kind.default_path(experiment), dataset=kind.folder is not None)
    reporter.playing_here([experiment])
    with reporter.progress(experiment.units) as progress:
        return run_command(experiment, out, how.trace, how.overwrite, how.command, progress)


def output_path(out: str | Path | None, summary_only: bool, default, dataset: bool = False) -> Path | None:
    """The output path: ``out``; the default name inside ``out`` when it ends with a
    slash, or names an existing folder where a file is written; the default path; or
    None with ``summary_only``."""
    _refuse_out_if_summary_only(out, summary_only)
    if summary_only:
        return None
    if out is None:
        return default()
    if str(out).endswith(("/", os.sep)) or (not dataset and Path(out).is_dir()):
        return Path(out) / default().name
    return Path(out)


def _refuse_out_if_summary_only(out, summary_only: bool) -> None:
    if summary_only and out is not None:
        raise ConfigError("--summary-only writes no output; drop --out or --summary-only")


def _run_as_study(experiment, how: HowToRun, reporter: Reporter) -> StudyCommand:
    """A command's experiment as a study of one experiment, in ``out`` (a folder), or with
    ``summary_only`` in a temporary one that goes when done."""
    from sim.pipeline.plan import Plan, plan_text
    from sim.pipeline.study import resume_command, running

    _refuse_out_if_summary_only(how.out, how.summary_only)
    experiment = replace(experiment, name=experiment.kind)
    folder = _study_folder(experiment, how.out) if not how.summary_only else Path(tempfile.mkdtemp(prefix="briscola-")) / "study"  # fmt: skip
    if folder.exists() and not how.overwrite:
        raise ConfigError(f"{folder} already exists; pass --overwrite to start again, or continue it with "
                          f"{resume_command(folder)}")  # fmt: skip
    if folder.exists():
        refuse_foreign(folder, STUDY, "--out")
        if running(folder):
            raise ConfigError(f"{folder} is being run by another briscola process; wait for it, or stop it")
        remove_own(through_link(folder), STUDY)  # where a link points: the link stays
    text = plan_text(
        experiment,
        f"briscola {experiment.kind}, run as a study: briscola batch _plan.toml --out FOLDER --resume continues it",
    )
    plan = Plan(folder / "_plan.toml", text, None, (experiment,))
    try:  # a ChunkFailed says how to finish: as a batch of the plan in its folder
        done = run_plan(plan, replace(how, out=folder, resume=False, chunk_deals=None), reporter)
    finally:
        if how.summary_only:
            shutil.rmtree(folder.parent, ignore_errors=True)
    summary = done.outcome["experiments"][0]["summary"]
    return StudyCommand(experiment, summary, done.interrupted, None if how.summary_only else folder, done.outcome)


def _study_folder(experiment, out: str | Path | None) -> Path:
    """A one-experiment study's folder: ``out``, or the command's default name as a folder."""
    if out is not None:
        return Path(out)
    default = experiment.run_kind.default_path(experiment)
    return default.with_suffix("") if default.suffix == ".parquet" else default


def run_plan(plan: Plan, how: HowToRun | None = None, reporter: Reporter | None = None, **changes) -> StudyRun:
    """Opens (or with ``resume`` resumes) the plan's study, plays what is missing on the
    backend; returns how far it came. A new study that fails before its first chunk is
    done leaves no folder behind."""
    from sim.pipeline.study import Study

    how = replace(how or HowToRun(), **changes)
    reporter = reporter or Reporter()
    backend, given = checked_backend(how.backend, how.backend_options)
    folder = Path(how.out) if how.out is not None else Path(plan.out or Path("results") / plan.path.stem)
    if how.chunk_deals is not None and how.chunk_deals < 1:
        raise ConfigError(f"--chunk-deals {how.chunk_deals} must be at least 1")
    if not how.resume and folder.exists():
        raise ConfigError(f"{folder} already exists; pass --resume to continue the study in it")
    backend.reach(given)
    study = Study.open(folder, plan, rows=not how.summary_only, resume=how.resume, chunk_units=how.chunk_deals,
                       threads=how.threads, on_sizing=lambda: reporter.note("sizing chunks: a few deals of every experiment"))  # fmt: skip
    study.backend_options = backend.resume_options(given)
    for note in study.notes:
        reporter.alert(note)
    for name, damage in study.replayed:  # said even when quiet: the study held something wrong
        reporter.alert(f"experiment {name!r} {damage.chunk.label}: {damage.problem}; it is played again")
    stop = _play(study, backend, given, how, reporter)
    return StudyRun(study.outcome(), stop.is_set(), folder)  # a partial one's says how to continue it


def _play(study: Study, backend: Backend, given: dict, how: HowToRun, reporter: Reporter):
    """Plays the study's pending chunks on the backend and closes it; returns the StopFlag
    (set if Ctrl-C or SIGTERM stopped it). What a failure leaves is kept, and the error
    says how to finish; a new study with nothing done is removed."""
    from sim.pipeline.study import TimeLeft

    total = sum(state.experiment.units for state in study.states)
    done = sum(state.units_done() for state in study.states)
    resume_hint = study.resume_command()
    try:
        with (
            deferred_interrupt(STUDY_STOPPING) as stop,
            reporter.progress(total, done, time_left=TimeLeft(study), lines=True) as progress,
        ):
            if backend.in_this_process:
                reporter.playing_here([state.experiment for state in study.states])
            backend.run(study, stop, progress, given, how.threads)
        study.close()
    except BaseException as error:
        if not how.resume and not any(state.records for state in study.states):
            study.discard()  # nothing was done: the folder goes, as if never made
            raise
        with contextlib.suppress(OSError):  # a full disk refuses the status file too: the records are what count
            study.close()
        if isinstance(error, WriteFailed):
            raise ChunkFailed(f"{error}; the chunks done are kept: free some space, then {resume_hint}") from None
        if isinstance(error, ChunkFailed):
            raise ChunkFailed(f"{error}; to finish the study: {resume_hint}") from None
        raise
    return stop
