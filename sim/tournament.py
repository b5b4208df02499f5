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

import math
from dataclasses import dataclass

import numpy as np

from sim.compare import CompareTally, summary
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
        return summary(self.tally)["score"]

    @property
    def score_variance(self) -> float:
        """Variance of the pair's mean score, from the spread of its deal scores."""
        tally = self.tally
        p = tally.score_counts / tally.deals
        mean = float((p * tally.score_values).sum())
        return float((p * (tally.score_values - mean) ** 2).sum()) / tally.deals


def score_matrix(n: int, pairs: list[PairResult]) -> list[list[float | None]]:
    """Score of the row strategy against the column strategy; None on the diagonal."""
    matrix = [[None] * n for _ in range(n)]
    for pair in pairs:
        matrix[pair.i][pair.j] = pair.score
        matrix[pair.j][pair.i] = 1.0 - pair.score
    return matrix


def fit_ratings(names: list[str], pairs: list[PairResult]) -> list[dict]:
    """Bradley-Terry ratings with 95% intervals, anchored (see the module's docstring)."""
    n = len(names)
    anchor = names.index("random") if "random" in names else 0
    free = [k for k in range(n) if k != anchor]
    ratings = np.zeros(n)
    for _ in range(100):  # Newton's method on the free ratings
        gradient, hessian = _derivatives(ratings, pairs, n)
        step = np.linalg.solve(hessian[np.ix_(free, free)] + 1e-12 * np.eye(len(free)), gradient[free])
        ratings[free] += step
        if np.abs(step).max() < 1e-9:
            break
    covariance = _sandwich(ratings, pairs, n, free)
    rows = []
    for k, name in enumerate(names):
        half = 0.0 if k == anchor else Z_95 * math.sqrt(max(0.0, covariance[free.index(k), free.index(k)]))
        rows.append({"strategy": name, "rating": float(ratings[k]), "ci95": [float(ratings[k] - half), float(ratings[k] + half)]})
    return rows


def _expected(ratings: np.ndarray, pair: PairResult) -> float:
    return 1.0 / (1.0 + 10.0 ** ((ratings[pair.j] - ratings[pair.i]) / 400.0))


def _derivatives(ratings, pairs, n):
    """Gradient of the log-likelihood and minus its Hessian (the information)."""
    gradient, information = np.zeros(n), np.zeros((n, n))
    for pair in pairs:
        expected = _expected(ratings, pair)
        direction = _direction(pair, n)
        gradient += ELO_SCALE * pair.games * (pair.score - expected) * direction
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
