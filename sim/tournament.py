"""``briscola tournament S1 S2 ...``: every pair compared on the same duplicate deals,
and one rating per strategy.

Ratings are a Bradley-Terry model on the logistic Elo scale, fitted by maximum
likelihood to all games (a draw counts half a win): P(i beats j) = 1 / (1 + 10^((r_j -
r_i) / 400)). They are anchored at ``random`` = 0 when it plays, else at the first
strategy named. Intervals are 95% and robust to how the games were played: the spread of
each pair's score is measured from its deal scores (duplicate deals make it smaller
than for independent games), and enters through a sandwich estimate of the covariance.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from sim.compare import CompareTally, run_comparison
from sim.config import RunConfig
from sim.engine import seat_specs
from sim.interrupt import deferred_interrupt
from sim.results import check_output_path, temporary_path
from sim.runner import default_path
from sim.stats import Z_95

ELO_SCALE = math.log(10) / 400  # d/dr of the logistic in Elo units


@dataclass
class PairResult:
    i: int  # index of A among the strategies
    j: int  # index of B
    tally: CompareTally

    @property
    def games(self) -> int:
        return self.tally.deals * self.tally.n_games

    @property
    def score(self) -> float:
        return self.tally.mean_sd()[0]

    @property
    def fit_score(self) -> float:
        """The score the ratings are fitted to: kept half a game away from 0 and 1, so
        that a pair won every time still gets a finite rating difference."""
        half_game = 0.5 / self.games
        return min(max(self.score, half_game), 1.0 - half_game)

    @property
    def score_variance(self) -> float:
        """Variance of the pair's mean score, from the spread of its deal scores; for a
        pair won (or lost) every time, that of a coin with the fitted score instead of 0."""
        measured = self.tally.mean_sd()[1] ** 2 / self.tally.deals
        if self.fit_score != self.score:
            return max(measured, self.fit_score * (1 - self.fit_score) / self.games)
        return measured


def score_matrix(n: int, pairs: list[PairResult]) -> list[list[float | None]]:
    """Score of the row strategy against the column strategy; None on the diagonal."""
    matrix = [[None] * n for _ in range(n)]
    for pair in pairs:
        matrix[pair.i][pair.j] = pair.score
        matrix[pair.j][pair.i] = 1.0 - pair.score
    return matrix


def fit_ratings(names: list[str], pairs: list[PairResult]) -> list[dict]:
    """Bradley-Terry ratings with 95% intervals, anchored (see the module's docstring).
    A strategy with no games linking it to the anchor (a tournament stopped early) has
    no rating: None."""
    n = len(names)
    anchor = names.index(anchor_of(names))
    linked = _linked_to(anchor, pairs)
    free = [k for k in range(n) if k != anchor and k in linked]
    pairs = [pair for pair in pairs if pair.i in linked and pair.games > 0]
    ratings = np.zeros(n)
    for _ in range(100 if free else 0):  # Newton's method on the free ratings
        gradient, hessian = _derivatives(ratings, pairs, n)
        step = np.linalg.solve(hessian[np.ix_(free, free)] + 1e-12 * np.eye(len(free)), gradient[free])
        ratings[free] += step
        if np.abs(step).max() < 1e-9:
            break
    covariance = _sandwich(ratings, pairs, n, free) if free else np.zeros((0, 0))
    rows = []
    for k, name in enumerate(names):
        if k not in linked:
            rows.append({"strategy": name, "rating": None, "ci95": None})
            continue
        half = 0.0 if k == anchor else Z_95 * math.sqrt(max(0.0, covariance[free.index(k), free.index(k)]))
        rows.append(
            {
                "strategy": name,
                "rating": float(ratings[k]),
                "ci95": [float(ratings[k] - half), float(ratings[k] + half)],
            }
        )
    return rows


def anchor_of(names: list[str]) -> str:
    """The strategy rated 0: ``random`` when it plays, else the first named."""
    return "random" if "random" in names else names[0]


def _linked_to(anchor: int, pairs: list[PairResult]) -> set[int]:
    """The strategies joined to ``anchor`` by pairs that played."""
    linked, grew = {anchor}, True
    while grew:
        grew = False
        for pair in pairs:
            if pair.games > 0 and (pair.i in linked) != (pair.j in linked):
                linked |= {pair.i, pair.j}
                grew = True
    return linked


def _expected(ratings: np.ndarray, pair: PairResult) -> float:
    return 1.0 / (1.0 + 10.0 ** ((ratings[pair.j] - ratings[pair.i]) / 400.0))


def _derivatives(ratings, pairs, n):
    """Gradient of the log-likelihood and minus its Hessian (the information)."""
    gradient, information = np.zeros(n), np.zeros((n, n))
    for pair in pairs:
        expected = _expected(ratings, pair)
        direction = _direction(pair, n)
        gradient += ELO_SCALE * pair.games * (pair.fit_score - expected) * direction
        information += ELO_SCALE**2 * pair.games * expected * (1 - expected) * np.outer(direction, direction)
    return gradient, information


def _sandwich(ratings, pairs, n, free):
    """Covariance of the free ratings: H^-1 J H^-1, with J from the measured score spread."""
    _, information = _derivatives(ratings, pairs, n)
    spread = np.zeros((n, n))
    for pair in pairs:
        direction = _direction(pair, n)
        spread += (ELO_SCALE * pair.games) ** 2 * pair.score_variance * np.outer(direction, direction)
    inverse = np.linalg.pinv(information[np.ix_(free, free)])
    return inverse @ spread[np.ix_(free, free)] @ inverse


def _direction(pair: PairResult, n: int) -> np.ndarray:
    direction = np.zeros(n)
    direction[pair.i], direction[pair.j] = 1.0, -1.0
    return direction


# ------------------------------------------------------------------ running a tournament


@dataclass
class TournamentOutcome:
    config: RunConfig
    names: list[str]
    pairs: list  # sim.tournament.PairResult, in play order
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
        check_output_path(out, overwrite, "--out", folder=True)
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
                       "seconds": round(outcome.seconds, 3), "command": command}  # fmt: skip
            (staging / "_tournament.json").write_text(json.dumps(summary, indent=1))
            if out.exists():
                shutil.rmtree(out)
            os.replace(staging, out)
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
            if outcome.deals_done == 0:  # stopped before its first deal was done: nothing to keep
                if pair_out is not None:
                    pair_out.unlink(missing_ok=True)
                return True
            pairs.append(PairResult(i, j, outcome.tally))
            if outcome.interrupted:
                return True
    return False


def replace_strategies(base: RunConfig, name: str) -> RunConfig:
    return replace(base, strategies=(name,) * base.players)
