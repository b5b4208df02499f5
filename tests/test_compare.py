"""``briscola compare``: duplicate deals, streams keyed by strategy, honest intervals,
the SPRT, and the command line."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from sim.base.config import RunConfig
from sim.base.results import read_results
from sim.base.stats import A, B, CompareTally, elo_from_score, seatings, sprt_llr, summary
from sim.pipeline.kinds.compare import seating_config
from sim.runtime.play import play_batch
from tests.helpers import compare_tally, data_bytes, fixed_batches, run_here

KEYS = ["a", "b", "players", "seed", "rules", "deals", "games", "score", "score_ci95", "elo", "elo_ci95", "los", "wins",
        "draws", "losses", "mean_margin", "mean_margin_ci95", "sprt"]  # fmt: skip


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_every_seat_is_played_by_both_strategies_on_the_same_cards(players):
    arrangement = seatings(players)
    for seat in range(players):  # A sits in every seat in some game
        assert any(s[seat] == A for s in arrangement) and any(s[seat] == B for s in arrangement)
    if players == 3:
        assert sorted(s.count(A) for s in arrangement) == [1, 1, 1]
    base = RunConfig(players=players, strategies=("random",) * players, deals=200, seed=9)
    deals = [play_batch(seating_config(base, "greedy", "random", s), 0, 200, trace=True).deals for s in arrangement]
    assert all(d.tobytes() == deals[0].tobytes() for d in deals)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_streams_follow_the_strategy_not_the_seat(players):
    base = RunConfig(players=players, strategies=("random",) * players, deals=10, seed=1)
    streams = {}
    for seating in seatings(players):
        config = seating_config(base, "x", "y", seating)
        for seat, who in enumerate(seating):
            streams.setdefault(who, []).append(config.streams[seat])
    a_streams, b_streams = set(streams[A]), set(streams[B])
    assert not a_streams & b_streams  # A against A: different coins
    for who in (A, B):  # each copy keeps its stream in every seating
        per_seating = len(streams[who]) // len(seatings(players))
        assert len(set(streams[who])) == per_seating


def test_seat_streams_drive_the_random_strategies():
    def points(streams):
        config = RunConfig(players=2, strategies=("random", "random"), deals=500, seed=4, streams=streams)
        return play_batch(config, 0, 500).results["seat_points"][:, 0]

    assert (points(()) == points((1, 2))).all()  # the default: seat s draws from stream 1 + s
    assert (points(()) != points((8, 2))).sum() > 100
    swapped = RunConfig(players=2, strategies=("random", "random"), deals=500, seed=4, streams=(2, 1))
    assert (points(()) != play_batch(swapped, 0, 500).results["seat_points"][:, 0]).sum() > 100


def test_a_strategy_against_itself_plays_different_games():
    tally = compare_tally("random", "random", 2, 2000, seed=3)
    halves = tally.score_counts[len(tally.score_counts) // 2]
    assert halves < 0.7 * tally.units  # the two games of a deal are not mirror images


def test_summary_of_a_known_histogram():
    tally = CompareTally(2)
    tally.score_counts[[0, 2, 4, 6, 8]] = [10, 20, 40, 20, 10]  # symmetric: score 1/2
    figures = summary(tally)
    assert figures["score"] == pytest.approx(0.5)
    sd = math.sqrt((10 * 0.25 + 20 * 0.0625 + 20 * 0.0625 + 10 * 0.25) / 100)
    assert figures["score_ci95"] == pytest.approx([0.5 - 1.96 * sd / 10, 0.5 + 1.96 * sd / 10], rel=1e-3)
    assert figures["elo"] == pytest.approx(0.0) and figures["los"] == pytest.approx(0.5)
    assert elo_from_score(0.75) == pytest.approx(-elo_from_score(0.25)) == pytest.approx(190.85, abs=0.01)


def test_llr_matches_the_normal_approximation_and_its_sign():
    values = np.linspace(0, 1, 5)
    counts = np.array([10, 200, 500, 260, 30])
    mean = (counts * values).sum() / counts.sum()
    var = (counts * (values - mean) ** 2).sum() / counts.sum()
    s0, s1 = 0.5, 1 / (1 + 10 ** (-5 / 400))
    approx = counts.sum() * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert sprt_llr(counts, values, 0, 5) == pytest.approx(approx, rel=0.02)
    assert sprt_llr(counts[::-1], values, 0, 5) < 0


@pytest.mark.slow  # statistical: its power takes many deals; CI runs it (-m slow)
@pytest.mark.parametrize("players, seeds", [(2, 300), (3, 120)])
def test_intervals_of_a_strategy_against_itself_are_honest(players, seeds):
    """Over many seeds, the 95% interval covers 1/2 about 95% of the time, and is as wide
    as the real spread of the score between seeds (not inflated)."""
    scores, half_widths = [], []
    for seed in range(seeds):
        figures = summary(compare_tally("random", "random", players, 1000, seed=1000 + seed))
        scores.append(figures["score"])
        lo, hi = figures["score_ci95"]
        half_widths.append((hi - lo) / 2)
    scores, half_widths = np.array(scores), np.array(half_widths)
    covered = np.mean(np.abs(scores - 0.5) <= half_widths)
    assert 0.90 <= covered <= 0.99
    assert 0.85 < (half_widths.mean() / 1.96) / scores.std() < 1.18


def compare_cli(*args):
    return run_here("compare", *args)


def test_json_has_exactly_the_keys_and_agrees_with_the_file(tmp_path):
    out = tmp_path / "cmp.parquet"
    code, stdout, _ = compare_cli("greedy", "random", "--players", "4", "--deals", "3000", "--seed", "5",
                                  "--out", str(out), "--json", "--quiet")  # fmt: skip
    assert code == 0
    row = json.loads(stdout)
    assert list(row) == KEYS
    assert row["deals"] == 3000 and row["games"] == 6000 and row["sprt"] is None
    assert row["score_ci95"][0] < row["score"] < row["score_ci95"][1] and row["score"] > 0.6
    run = read_results(out)
    frame = run.deals
    assert len(frame) == 6000 and sorted(frame["game"].unique()) == [0, 1]
    a_won = (frame["winner_side"] == frame["a_side"]).sum()
    assert a_won == row["wins"]
    assert run.config["compare"]["a"] == "greedy" and run.config["status"] == "complete"
    assert (frame.groupby("deal")["briscola"].nunique() == 1).all()  # the same cards in both games


def test_sprt_stops_early_with_the_right_verdict():
    code, stdout, _ = compare_cli("greedy", "random", "--deals", "100000", "--seed", "2",
                                  "--sprt", "0,10", "--summary-only", "--json", "--quiet")  # fmt: skip
    row = json.loads(stdout)
    assert code == 0 and row["sprt"]["result"] == "H1" and row["deals"] <= 2000  # checked every <= 1,000 deals
    assert row["sprt"]["llr"] >= row["sprt"]["bounds"][1]
    code, stdout, _ = compare_cli("random", "random", "--deals", "200000", "--seed", "2",
                                  "--sprt", "20,40", "--summary-only", "--json", "--quiet")  # fmt: skip
    row = json.loads(stdout)
    assert row["sprt"]["result"] == "H0" and row["deals"] < 200000
    assert row["sprt"]["llr"] <= row["sprt"]["bounds"][0]
    assert row["deals"] % 1000 == 0 or row["deals"] < 1000  # batches end on every thousand


@pytest.mark.parametrize(
    "args, message",
    [
        (["--sprt", "ten"], "--sprt 'ten' is not ELO0,ELO1"),
        (["--sprt", "10,0"], "ELO0 must be below ELO1"),
        (["--sprt", "0,10", "--alpha", "0.7"], "--alpha 0.7 must be between 0 and 0.5"),
        (["--players", "7"], "--players 7 is not a Briscola table"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    out = tmp_path / "x.parquet"
    code, stdout, stderr = compare_cli("greedy", "random", "--deals", "10", "--seed", "1",
                                       "--out", str(out), *args)  # fmt: skip
    assert code == 2 and message in stderr and len(stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_unknown_strategy_is_refused():
    code, _, stderr = compare_cli("greedy", "nosuch", "--deals", "10", "--seed", "1", "--summary-only")
    assert code == 2 and "unknown strategy 'nosuch'" in stderr


def test_sprt_decides_the_same_whatever_the_batches_and_threads(monkeypatch):
    """The SPRT is checked at fixed deal counts, not after every batch: the same seed gives
    the same decision, deal count and figures on a fast or slow machine."""
    rows = []
    for size, threads in ((8, "1"), (300, "2"), (5000, "2")):
        fixed_batches(monkeypatch, size)
        code, stdout, _ = compare_cli("expert", "greedy", "--deals", "100000", "--seed", "1", "--threads", threads,
                                      "--sprt", "0,20", "--summary-only", "--json", "--quiet")  # fmt: skip
        assert code == 0
        rows.append(json.loads(stdout))
    assert rows[0]["sprt"]["result"] == "H1"
    assert rows[0] == rows[1] == rows[2]


def test_compare_files_are_identical_whatever_the_batches_and_threads(tmp_path, monkeypatch):
    files = []
    for size, threads in ((7, "1"), (1000, "2")):
        fixed_batches(monkeypatch, size)
        out = tmp_path / f"cmp{size}.parquet"
        code, _, _ = compare_cli("greedy", "random", "--players", "3", "--deals", "600", "--seed", "4",
                                 "--threads", threads, "--out", str(out), "--quiet")  # fmt: skip
        assert code == 0
        files.append(out)
    assert data_bytes(files[0]) == data_bytes(files[1])
    frame = read_results(files[0]).deals
    assert list(zip(frame["deal"], frame["game"])) == [(d, g) for d in range(600) for g in range(3)]


def test_three_player_results_count_what_the_score_measures():
    """With 3 players A plays each copy of B apart: two results per game, whose mean is
    the score, so a strategy against itself wins as often as it loses."""
    code, stdout, _ = compare_cli("greedy", "greedy", "--players", "3", "--deals", "2000", "--seed", "3",
                                  "--summary-only", "--json", "--quiet")  # fmt: skip
    row = json.loads(stdout)
    counted = row["wins"] + row["draws"] + row["losses"]
    assert code == 0 and counted == 2 * row["games"]
    assert row["score"] == pytest.approx((row["wins"] + row["draws"] / 2) / counted, abs=1e-6)
    assert abs(row["wins"] - row["losses"]) < 0.05 * counted
