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

    def __post_init__(self):
        if not self.sides:
            self.sides = [SideTally() for _ in range(self.n_sides)]

    @property
    def deals(self) -> int:
        return self.sides[0].deals

    def add(self, results: np.ndarray) -> None:
        """Adds a batch of RESULT_DTYPE rows. A side draws a drawn deal when it shares the
        highest total (both sides at 60-60; the tied leaders with 3 players)."""
        points = results["side_points"][:, : self.n_sides]
        top = points.max(axis=1)
        drawn = results["winner_side"] < 0
        for side, tally in enumerate(self.sides):
            won = int(np.count_nonzero(results["winner_side"] == side))
            shared = int(np.count_nonzero(drawn & (points[:, side] == top)))
            tally.wins += won
            tally.draws += shared
            tally.losses += len(results) - won - shared
            tally.points += int(points[:, side].sum(dtype=np.int64))
