"""Runs in process, for notebooks and training loops: the command line's ``simulate``
and ``compare`` without a subprocess, through the same pipeline (same chunks, same
files, same summaries), giving back the summary and the deals as pandas.

>>> run = compare("greedy", "random", players=2, deals=200, seed=1)
>>> run.summary["a"], run.summary["score"] > 0.8, len(run.results.deals)  # a row per deal and seating
('greedy', True, 400)
"""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from sim.analysis import Results, load
from sim.experiments import make_experiment
from sim.interrupt import StopFlag
from sim.runs import run_command


@dataclass
class Run:
    """A finished run: what the command prints, and its file read back (verified)."""

    summary: dict
    results: Results  # .deals (a DataFrame), .config (the run's configuration)
    path: Path | None  # where the file is kept, if ``out`` was given
    interrupted: bool


def compare(a: str, b: str, *, players: int = 2, deals: int = 10_000, seed: int = 0, rules=(),
            threads: int | None = None, strategy_files=(), sprt=None, out: str | Path | None = None) -> Run:  # fmt: skip
    """``briscola compare A B``: duplicate deals, the score of A with its interval (and the
    SPRT's verdict with ``sprt=(elo0, elo1)``). Strategies are ``NAME[:key=value...]``,
    plug-ins (batched ones included) from ``strategy_files``."""
    experiment = make_experiment("compare", players=players, strategies=[a, b], deals=deals, seed=seed, rules=rules,
                                 threads=threads, strategy_files=strategy_files, sprt=sprt)  # fmt: skip
    return _run(experiment, out)


def simulate(strategies, *, players: int = 2, deals: int = 10_000, seed: int = 0, rules=(),
             threads: int | None = None, strategy_files=(), out: str | Path | None = None) -> Run:  # fmt: skip
    """``briscola simulate``: ``strategies`` one per seat (or fewer, repeated round the
    table), as a list or a comma list."""
    experiment = make_experiment("simulate", players=players, strategies=strategies, deals=deals, seed=seed,
                                 rules=rules, threads=threads, strategy_files=strategy_files)  # fmt: skip
    return _run(experiment, out)


def _run(experiment, out) -> Run:
    # Off the main thread no signal handler can be installed: the caller stops the run.
    stop = None if threading.current_thread() is threading.main_thread() else StopFlag()
    with tempfile.TemporaryDirectory(prefix="briscola-run-") as folder:
        path = Path(out) if out is not None else Path(folder) / f"{experiment.kind}.parquet"
        outcome = run_command(experiment, path, stop=stop)
        results = load(path)
    return Run(outcome.summary, results, Path(out) if out is not None else None, outcome.interrupted)
