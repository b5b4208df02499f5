"""Runs in process, for notebooks and training loops: the command line's ``simulate``,
``compare``, ``tournament`` and ``batch`` without a subprocess, through the same run
(``sim.pipeline.running.run``: same chunks, same files, same summaries), on any backend, giving
back the summary and the deals as pandas.

>>> run = compare("greedy", "random", players=2, deals=200, seed=1)
>>> run.summary["a"], run.summary["score"] > 0.8, len(run.results.deals)  # a row per deal and seating
('greedy', True, 400)

``backend="dask"`` with its options (``workers=2``, or ``scheduler="tcp://HOST:8786"``)
plays the same deals on a Dask cluster, as ``--backend dask`` does.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from sim.pipeline.experiments import make_experiment
from sim.pipeline.plan import read_plan
from sim.pipeline.running import HowToRun, run, run_plan
from sim.present.analysis import Results, load, load_run


@dataclass
class Run:
    """A finished run: what the command prints, and its file read back (verified)."""

    summary: dict  # a study's (``batch``): what ``briscola batch --json`` prints
    results: Results  # .deals (a DataFrame), .config (the run's configuration)
    path: Path | None  # where the file is kept, if ``out`` was given (``batch``: the study's folder)
    interrupted: bool


def compare(a: str, b: str, *, players: int = 2, deals: int = 10_000, seed: int = 0, rules=(),
            threads: int | None = None, strategy_files=(), sprt=None, match: str = "deal",
            out: str | Path | None = None, trace: str | Path | None = None, backend: str = "local",
            **backend_options) -> Run:  # fmt: skip
    """``briscola compare A B``: duplicate deals, the score of A with its interval (and the
    SPRT's verdict with ``sprt=(elo0, elo1)``). Strategies are ``NAME[:key=value...]``,
    plug-ins (batched ones included) from ``strategy_files``; ``trace`` also keeps every
    game move by move (``sim.moves`` reads it)."""
    experiment = make_experiment("compare", players=players, strategies=[a, b], deals=deals, seed=seed, rules=rules,
                                 threads=threads, strategy_files=strategy_files, match=match, sprt=sprt)  # fmt: skip
    return _run(experiment, out, backend, backend_options, threads, trace)


def simulate(strategies, *, players: int = 2, deals: int = 10_000, seed: int = 0, rules=(),
             threads: int | None = None, strategy_files=(), match: str = "deal", out: str | Path | None = None,
             trace: str | Path | None = None, backend: str = "local", **backend_options) -> Run:  # fmt: skip
    """``briscola simulate``: ``strategies`` one per seat (or fewer, repeated round the
    table), as a list or a comma list; ``trace`` also keeps every deal move by move."""
    experiment = make_experiment("simulate", players=players, strategies=strategies, deals=deals, seed=seed,
                                 rules=rules, threads=threads, strategy_files=strategy_files, match=match)  # fmt: skip
    return _run(experiment, out, backend, backend_options, threads, trace)


def tournament(strategies, *, players: int = 2, deals: int = 10_000, seed: int = 0, rules=(),
               threads: int | None = None, strategy_files=(), match: str = "deal", out: str | Path | None = None,
               trace: str | Path | None = None, backend: str = "local", **backend_options) -> Run:  # fmt: skip
    """``briscola tournament``: every pair of ``strategies`` on the same duplicate deals;
    the summary holds the score matrix and the ratings, the deals a ``pair`` column;
    ``trace`` also keeps every game of every pair move by move, in one file
    (``sim.moves`` reads it)."""
    experiment = make_experiment("tournament", players=players, strategies=strategies, deals=deals, seed=seed,
                                 rules=rules, threads=threads, strategy_files=strategy_files, match=match)  # fmt: skip
    return _run(experiment, out, backend, backend_options, threads, trace)


def batch(plan: str | Path, *, out: str | Path | None = None, resume: bool = False, chunk_deals: int | None = None,
          threads: int | None = None, summary_only: bool = False, backend: str = "local", **backend_options) -> Run:  # fmt: skip
    """``briscola batch PLAN``: a study plan's experiments, into the study's folder
    (``out``; by default the plan's own, else results/PLAN; ``resume=True`` continues it).
    The summary is the study's (each experiment's in ``summary["experiments"]``); the
    results, the study read back (``.experiment(NAME)`` reads one)."""
    how = HowToRun(out=out, summary_only=summary_only, backend=backend, backend_options=backend_options,
                   threads=threads, resume=resume, chunk_deals=chunk_deals)  # fmt: skip
    done = run_plan(read_plan(plan), how)
    return Run(done.outcome, load(done.folder), done.folder, done.interrupted)


def _run(experiment, out, backend: str, backend_options: dict, threads: int | None, trace=None) -> Run:
    """Runs a command's experiment into ``out`` (and its moves into ``trace``), or into a
    temporary folder that goes once its file is read back."""
    with tempfile.TemporaryDirectory(prefix="briscola-run-") as folder:
        path = out if out is not None else Path(folder) / f"{experiment.kind}.parquet"
        trace = Path(trace) if trace is not None else None
        how = HowToRun(out=path, backend=backend, backend_options=backend_options, threads=threads, trace=trace)
        outcome = run(experiment, how)
        results = load_run(outcome.out)
    return Run(outcome.summary, results, outcome.out if out is not None else None, outcome.interrupted)
