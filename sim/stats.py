"""Summary statistics of a run, accumulated batch by batch in constant memory."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

Z_95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (well-behaved near 0 and 1).

    >>> lo, hi = wilson_interval(50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.404, 0.596)
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # The interval always holds p; min/max only undo floating-point rounding at 0 and 1.
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


@dataclass
class SideTally:
    """Wins, draws, losses and points of one side over the deals seen so far."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0

    @property
    def deals(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass
class RunTally:
    n_sides: int
    sides: list[SideTally] = field(default_factory=list)
    deals_played: int = 0  # with a match format, more than the games (matches) tallied

    def __post_init__(self):
        if not self.sides:
            self.sides = [SideTally() for _ in range(self.n_sides)]

    @property
    def deals(self) -> int:
        """Games tallied: deals, or matches with a match format."""
        return self.sides[0].deals

    def merge(self, other: RunTally) -> None:
        """Adds another tally's games (of other deals of the same run)."""
        for mine, theirs in zip(self.sides, other.sides):
            mine.wins += theirs.wins
            mine.draws += theirs.draws
            mine.losses += theirs.losses
            mine.points += theirs.points
        self.deals_played += other.deals_played

    def to_dict(self) -> dict:
        return {"sides": [vars(side).copy() for side in self.sides], "deals_played": self.deals_played}

    @classmethod
    def from_dict(cls, data: dict) -> RunTally:
        return cls(len(data["sides"]), [SideTally(**side) for side in data["sides"]], data["deals_played"])

    def add(self, results: np.ndarray) -> None:
        """Adds a batch of RESULT_DTYPE rows. A side draws a drawn deal when it shares the
        highest total (both sides at 60-60; the tied leaders with 3 players)."""
        points = results["side_points"][:, : self.n_sides]
        self.add_outcomes(results["winner_side"], points, points)
        self.deals_played += len(results)

    def add_outcomes(self, winner: np.ndarray, points: np.ndarray, standing: np.ndarray) -> None:
        """Adds games (deals or matches): the winning side (-1: drawn), points per side,
        and the standing that decided them (a drawn game is drawn by the sides sharing
        the top standing)."""
        top = standing.max(axis=1)
        drawn = winner < 0
        for side, tally in enumerate(self.sides):
            won = int(np.count_nonzero(winner == side))
            shared = int(np.count_nonzero(drawn & (standing[:, side] == top)))
            tally.wins += won
            tally.draws += shared
            tally.losses += len(winner) - won - shared
            tally.points += int(points[:, side].sum(dtype=np.int64))


def score_against_copies(standing: np.ndarray, a: np.ndarray) -> np.ndarray:
    """With 3 players: A's score against each copy of B apart (a higher standing wins,
    equal ones draw), averaged; ``a`` is A's column in each row of ``standing``."""
    mine = standing[np.arange(len(a)), a][:, None]
    return (((mine > standing) + 0.5 * (mine == standing)).sum(axis=1) - 0.5) / 2  # A's tie with itself out


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def elo_from_score(score: float) -> float | None:
    """Logistic Elo difference of an expected score; None (no finite value) at 0 and 1.

    >>> round(elo_from_score(0.64), 1)
    100.0
    """
    if not 0.0 < score < 1.0:
        return None
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def sprt_llr(counts, values, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (logistic Elo ``elo1``) against H0 (``elo0``) for
    independent outcomes: ``counts[i]`` of them scored ``values[i]`` (in [0, 1]).

    The generalized SPRT of fishtest: each hypothesis fixes the expected score, and the
    outcome distribution is the one closest to the observed frequencies with that
    expectation (a maximum-likelihood fit), so no model of draws is assumed. Empty
    categories get a tiny count, as fishtest does, so the fit always exists.
    """
    counts = np.asarray(counts, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    n = counts.sum()
    if n == 0:
        return 0.0
    freqs = np.where(counts > 0, counts, 1e-3)
    freqs /= freqs.sum()
    fit0 = _closest_with_mean(freqs, values, score_from_elo(elo0))
    fit1 = _closest_with_mean(freqs, values, score_from_elo(elo1))
    return float(n * (freqs * (np.log(fit1) - np.log(fit0))).sum())


def _closest_with_mean(freqs: np.ndarray, values: np.ndarray, mean: float) -> np.ndarray:
    """The distribution over ``values`` of expectation ``mean`` that maximizes the
    likelihood of ``freqs``: ``freqs / (1 + lam (values - mean))``, with ``lam`` the root
    of its (decreasing) expectation condition, found by bisection."""
    shifted = values - mean
    low = -1.0 / shifted.max() if shifted.max() > 0 else -1e12
    high = -1.0 / shifted.min() if shifted.min() < 0 else 1e12
    low, high = low + 1e-12 * abs(low), high - 1e-12 * abs(high)
    for _ in range(200):
        lam = 0.5 * (low + high)
        if (freqs * shifted / (1.0 + lam * shifted)).sum() > 0:
            low = lam
        else:
            high = lam
    return freqs / (1.0 + lam * shifted)
