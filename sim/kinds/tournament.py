"""``briscola tournament S1 S2 ...``: every pair compared on the same duplicate deals,
and one rating per strategy (the ratings' statistics: sim/stats.py). Each pair is a part
of its own: a comparison, with a file of its own in the tournament's folder."""

from __future__ import annotations

import itertools
from pathlib import Path

from sim import summaries
from sim.config import ConfigError
from sim.kinds.base import default_path
from sim.kinds.compare import DuplicateDeals
from sim.stats import PairResult


class Tournament(DuplicateDeals):
    name = "tournament"
    layout = "tournament"

    def check(self, labels, sprt) -> None:
        super().check(labels, sprt)
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise ConfigError(f"a tournament takes two or more different strategies, not {', '.join(labels)}")

    def parts(self, experiment) -> list[tuple[int, int]]:
        return list(itertools.combinations(range(len(experiment.strategies)), 2))

    def summary(self, experiment, tallies, seconds: float) -> dict:
        """Over the pairs played (a pair not begun is left out)."""
        pairs = [PairResult(i, j, tally) for (i, j), tally in tallies.items() if tally.units > 0]
        return summaries.tournament(experiment.config, list(experiment.strategies), pairs)

    def part_summary(self, experiment, part, tally, seconds: float) -> dict:
        """A pair's file holds its comparison's summary."""
        i, j = part
        a, b = experiment.strategies[i], experiment.strategies[j]
        return summaries.compare(experiment.config, a, b, tally, None)

    def default_path(self, experiment) -> Path:
        return default_path(experiment.config, "-".join(experiment.strategies), prefix="tournament_", suffix="")
