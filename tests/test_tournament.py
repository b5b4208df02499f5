"""``briscola tournament``: every pair on the same deals, the score matrix, the ratings."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from sim.base.stats import PairResult, elo_from_score, fit_ratings
from tests.helpers import REPO, compare_tally, run_here


def tournament_cli(*args):
    return run_here("tournament", *args)


def test_json_matrix_ratings_and_dataset(tmp_path):
    out = tmp_path / "tour"
    args = ["random", "greedy", "highest", "--deals", "4000", "--seed", "3", "--out", str(out), "--json", "--quiet"]
    code, stdout, _ = tournament_cli(*args)
    assert code == 0
    row = json.loads(stdout)
    assert list(row) == ["players", "seed", "rules", "deals", "strategies", "anchor", "matrix", "ratings"]
    assert row["seed"] == 3 and row["rules"] == {"trump_redeal": "off"} and row["anchor"] == "random"
    assert row["players"] == 2 and row["deals"] == 4000 and row["strategies"] == ["random", "greedy", "highest"]
    matrix = row["matrix"]
    for i in range(3):
        assert matrix[i][i] is None
        for j in range(3):
            if i != j:
                assert matrix[i][j] + matrix[j][i] == pytest.approx(1.0)
    assert matrix[1][0] > 0.85 and matrix[1][2] > 0.8  # greedy beats both
    ratings = {r["strategy"]: r for r in row["ratings"]}
    assert ratings["random"]["rating"] == 0 and ratings["random"]["ci95"] == [0, 0]  # the anchor
    assert ratings["greedy"]["rating"] > ratings["highest"]["rating"] > ratings["random"]["rating"]
    lo, hi = ratings["greedy"]["ci95"]
    assert lo < ratings["greedy"]["rating"] < hi
    frame = pd.read_parquet(out)  # one dataset for the whole tournament
    assert len(frame) == 3 * 4000 * 2
    assert json.loads((out / "_tournament.json").read_text())["status"] == "complete"
    code, again, _ = tournament_cli(*args[:-4], "--summary-only", "--json", "--quiet")
    assert json.loads(again) == row  # the same seed gives the same numbers


def test_two_strategies_rate_apart_by_the_elo_of_their_score():
    tally = compare_tally("greedy", "random", 2, 3000, seed=8)
    pair = PairResult(0, 1, tally)
    ratings = fit_ratings(["greedy", "random"], [pair])
    assert ratings[1]["rating"] == 0
    assert ratings[0]["rating"] == pytest.approx(elo_from_score(pair.score), abs=1e-6)


@pytest.mark.parametrize(
    "names, message", [(["greedy"], "two or more different"), (["greedy", "greedy"], "two or more different")]
)
def test_bad_strategy_lists_are_refused(tmp_path, names, message):
    out = tmp_path / "t"
    code, _, stderr = tournament_cli(*names, "--deals", "10", "--seed", "1", "--out", str(out))
    assert code == 2 and message in stderr and not out.exists()


def test_a_pair_won_every_time_still_gets_a_finite_rating():
    from sim.base.stats import CompareTally

    tally = CompareTally(2)
    tally.score_counts[-1] = 500  # A won both games of all 500 deals
    ratings = fit_ratings(["strong", "random"], [PairResult(0, 1, tally)])
    assert 500 < ratings[0]["rating"] < 2000  # half a game lost: score 0.9995
    assert ratings[0]["rating"] == pytest.approx(elo_from_score(1 - 0.5 / 1000), abs=1e-3)


def test_strategies_not_linked_to_the_anchor_have_no_rating():
    tally = compare_tally("greedy", "highest", 2, 500, seed=2)
    ratings = fit_ratings(["random", "greedy", "highest"], [PairResult(1, 2, tally)])  # random has not played
    assert ratings[0]["rating"] == 0
    assert ratings[1]["rating"] is None and ratings[2]["ci95"] is None


def test_a_pair_won_every_time_has_a_real_interval():
    from sim.base.stats import CompareTally

    tally = CompareTally(2)
    tally.score_counts[-1] = 500
    lo, hi = fit_ratings(["strong", "random"], [PairResult(0, 1, tally)])[0]["ci95"]
    assert hi - lo > 50


def test_the_notebook_api_reads_and_rates_without_the_run_machinery(tmp_path):
    """Statistics live apart from running: reading a tournament (its kind's reading) and
    fitting its ratings imports neither the kernels nor the runners."""
    out = tmp_path / "league"
    made = run_here("tournament", "random", "greedy", "highest", "--deals", "300", "--seed", "2", "--out", out,
                    "--quiet")  # fmt: skip
    assert made.returncode == 0, made.stderr
    probe = (
        "import sys, sim; run = sim.load(sys.argv[1]); table = sim.ratings(run); "
        "summary = sim.compare_summary(run); "
        "print(len(table), sorted(m for m in ('numba', 'kernels', 'sim.runtime.play', 'sim.pipeline.runs', 'sim.pipeline.chunks') "
        "if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe, str(out)], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split(maxsplit=1) == ["3", "[]\n"]
