"""``briscola tournament S1 S2 ...``: every pair compared on the same duplicate deals,
and one rating per strategy (the ratings' statistics: sim/stats.py)."""

from __future__ import annotations

import itertools
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from sim.compare import run_comparison
from sim.config import RunConfig
from sim.files import check_output_path, replace_folder, temporary_path
from sim.interrupt import deferred_interrupt
from sim.play import seat_specs
from sim.runner import default_path
from sim.stats import PairResult, fit_ratings, score_matrix

# ------------------------------------------------------------------ running a tournament


@dataclass
class TournamentOutcome:
    config: RunConfig
    names: list[str]
    pairs: list  # sim.stats.PairResult, in play order
    seconds: float
    interrupted: bool
    out: Path | None

    @cached_property
    def matrix(self) -> list[list[float | None]]:
        return score_matrix(len(self.names), self.pairs)

    @cached_property
    def ratings(self) -> list[dict]:
        return fit_ratings(self.names, self.pairs)


def default_tournament_path(config: RunConfig, names: list[str]) -> Path:
    return default_path(config, "-".join(names), prefix="tournament_", suffix="")


def run_tournament(
    base: RunConfig,
    names: list[str],
    out: Path | None,
    overwrite: bool = False,
    command: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> TournamentOutcome:
    """Compares every pair of ``names`` on the same duplicate deals; with ``out``, writes a
    Parquet dataset there: one file per pair and ``_tournament.json``. The folder
    appears only when complete (or, after Ctrl-C, holding the pairs played so far)."""
    from sim.report import tournament_dict

    for name in names:
        seat_specs(replace_strategies(base, name))  # unknown strategies fail before anything runs
    if out is not None:
        check_output_path(out, overwrite, "--out", layout="tournament")
    staging = None if out is None else temporary_path(out)
    pairs, started = [], time.perf_counter()
    try:
        if staging is not None:
            staging.mkdir(parents=True)
        interrupted = _play_pairs(base, names, staging, pairs, command, on_progress)
        outcome = TournamentOutcome(base, names, pairs, time.perf_counter() - started, interrupted, out)
        if staging is not None:
            # What the command prints with --json, and how the tournament ended.
            summary = {**tournament_dict(outcome), "status": "partial" if interrupted else "complete",
                       "seconds": round(outcome.seconds, 3), "command": command,
                       "pairs": [f"{pair.i}_{pair.j}" for pair in pairs]}  # the files it holds: a reader checks them  # fmt: skip
            (staging / "_tournament.json").write_text(json.dumps(summary, indent=1))
            replace_folder(staging, out, "tournament")
    except BaseException:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        raise
    return outcome


def _play_pairs(base, names, staging, pairs: list, command, on_progress) -> bool:
    """Plays every pair into ``pairs`` (and pair files in ``staging``); True if Ctrl-C
    stopped the tournament, during a pair (which then ends its batch) or between two."""
    with deferred_interrupt() as stop:
        for i, j in itertools.combinations(range(len(names)), 2):
            if stop.is_set():
                return True
            pair_out = None if staging is None else staging / f"pair_{i}_{j}.parquet"
            outcome = run_comparison(
                base, names[i], names[j], pair_out, command=command, on_progress=on_progress, stop=stop
            )
            if outcome.units_done == 0:  # stopped before its first deal was done: nothing to keep
                if pair_out is not None:
                    pair_out.unlink(missing_ok=True)
                return True
            pairs.append(PairResult(i, j, outcome.tally))
            if outcome.interrupted:
                return True
    return False


def replace_strategies(base: RunConfig, name: str) -> RunConfig:
    return replace(base, strategies=(name,) * base.players)
