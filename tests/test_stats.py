"""Summary statistics: intervals and the per-side tally."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernels.enums import RESULT_DTYPE
from kernels.tally_nb import tally_results_nb
from sim.base.stats import RunTally, wilson_interval
from sim.runtime.play import NOT_PLAYED


@given(st.integers(0, 10_000), st.integers(1, 10_000))
def test_wilson_interval_holds_the_estimate_inside_0_1(successes, extra):
    n = successes + extra
    lo, hi = wilson_interval(successes, n)
    assert 0.0 <= lo <= successes / n <= hi <= 1.0


def test_wilson_interval_narrows_with_more_deals():
    lo1, hi1 = wilson_interval(500, 1000)
    lo2, hi2 = wilson_interval(50_000, 100_000)
    assert hi2 - lo2 < (hi1 - lo1) / 5


def test_wilson_interval_covers_at_its_nominal_rate():
    rng = np.random.default_rng(7)
    p, n, trials = 0.3, 400, 4000
    hits = rng.binomial(n, p, size=trials)
    covered = sum(lo <= p <= hi for lo, hi in (wilson_interval(h, n) for h in hits))
    assert 0.93 < covered / trials < 0.97


def rows(side_points, winners):
    results = np.zeros(len(winners), dtype=RESULT_DTYPE)
    results["side_points"] = -1
    for i, (points, winner) in enumerate(zip(side_points, winners)):
        results["side_points"][i, : len(points)] = points
        results["winner_side"][i] = winner
    return results


def tallied(n_sides: int, results: np.ndarray) -> RunTally:
    """A RunTally of result rows, counted as simulate counts them (by the kernel)."""
    tally = RunTally(n_sides)
    completed, counts = tally_results_nb(results, n_sides, NOT_PLAYED)
    tally.add_counts(counts, completed)
    return tally


def test_two_sides_share_a_60_60_draw():
    tally = tallied(2, rows([(61, 59), (60, 60), (30, 90)], [0, -1, 1]))
    assert [(s.wins, s.draws, s.losses) for s in tally.sides] == [(1, 1, 1), (1, 1, 1)]
    assert [s.points for s in tally.sides] == [151, 209]


def test_three_players_draw_only_for_the_tied_leaders():
    tally = tallied(3, rows([(50, 50, 20), (60, 30, 30), (40, 40, 40)], [-1, 0, -1]))
    assert [(s.wins, s.draws, s.losses) for s in tally.sides] == [(1, 2, 0), (0, 2, 1), (0, 1, 2)]
    assert tally.units == 3


@pytest.mark.parametrize("n_sides", [2, 3])
def test_every_deal_counts_once_per_side(n_sides):
    rng = np.random.default_rng(n_sides)
    points = rng.integers(0, 60, size=(500, n_sides))
    top = points.max(axis=1)
    winners = np.where((points == top[:, None]).sum(axis=1) > 1, -1, points.argmax(axis=1))
    tally = tallied(n_sides, rows([tuple(p) for p in points], winners))
    for side in tally.sides:
        assert side.wins + side.draws + side.losses == 500
    by_outcomes = RunTally(n_sides)  # the count of matches, by numpy: the same rule
    by_outcomes.add_outcomes(winners, points, points)
    assert tally.sides == by_outcomes.sides


def test_the_tally_stops_at_the_first_deal_not_played():
    results = rows([(70, 50), (60, 60), (0, 0), (90, 30)], [0, -1, -1, 0])
    results["deal"][2] = NOT_PLAYED  # a stop cut the batch here: the deal after is not counted either
    tally = tallied(2, results)
    assert tally.units == tally.deals_played == 2
    assert [(s.wins, s.draws, s.losses, s.points) for s in tally.sides] == [(1, 1, 0, 130), (0, 1, 1, 110)]
