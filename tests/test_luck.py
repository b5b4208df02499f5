"""Luck against skill (sim/present/luck.py): its figures against direct counts of the
rows, its variance shares and regression on games whose truth is known, and the command."""

import json

import numpy as np
import pandas as pd
import pytest

import sim
from sim.present.luck import _regression, _variance_shares
from sim.present.par import PAR_KEYS
from tests.helpers import run_here


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    out = tmp_path_factory.mktemp("luck") / "c.parquet"
    sim.compare("expert", "greedy", players=2, deals=3000, seed=21, out=out)
    return out


def test_the_figures_are_those_the_rows_give(comparison):
    report = sim.luck(comparison, par_deals=0)  # the par: tests/test_par.py
    deals = sim.load(comparison).deals
    winners = deals.pivot(index="deal", columns="game", values="winner_side")
    decided = ((winners[0] == winners[1]) & (winners[0] >= 0)).mean()
    assert report["cards_decide"]["value"] == pytest.approx(decided)
    assert report["better"] == "expert" and report["deals"] == 3000
    a_won = deals["winner_side"] == deals["a_side"]
    a_lost = (deals["winner_side"] >= 0) & ~a_won
    assert report["better_loses"]["value"] == pytest.approx(a_lost.mean())
    assert report["a_score"]["ci_low"] < report["a_score"]["value"] < report["a_score"]["ci_high"]
    held = report["by_feature"].set_index(["feature", "held"])
    assert held.loc[("A's side leads the first trick", True), "games"] == 3000  # one seating of each deal


def test_variance_shares_of_known_games():
    deals = np.repeat(np.arange(500), 2)
    game = np.tile([0, 1], 500)  # A on side 0, then on side 1
    by_cards = np.repeat(np.arange(500) % 2, 2).astype(float)  # side 0 wins every seating of odd deals
    shares = _variance_shares(pd.DataFrame({"deal": deals, "game": game, "side0_score": by_cards}))
    assert shares[0]["value"] == pytest.approx(1.0) and shares[1]["value"] == pytest.approx(0.0)
    by_strategy = (game == 0).astype(float)  # A wins every game, wherever it sits
    shares = _variance_shares(pd.DataFrame({"deal": deals, "game": game, "side0_score": by_strategy}))
    assert shares[0]["value"] == pytest.approx(0.0) and shares[1]["value"] == pytest.approx(1.0)


def test_the_regression_finds_a_known_effect():
    rng = np.random.default_rng(3)
    n = 40_000
    features = {
        "trump_imbalance": rng.integers(-3, 4, n), "trump_ace": rng.random(n) < 0.3, "trump_three": rng.random(n) < 0.3,
        "points_imbalance": rng.integers(-20, 21, n), "leads": rng.random(n) < 0.5,
    }  # fmt: skip
    logit = 0.2 + 0.8 * features["trump_ace"] + 0.1 * features["trump_imbalance"]
    won = rng.random(n) < 1 / (1 + np.exp(-logit))
    games = pd.DataFrame({"deal": np.arange(n) // 2, "a_score": won.astype(float), **features})
    fitted = _regression(games).set_index("term")
    for term, truth in (("intercept", 0.2), ("trump_ace", 0.8), ("trump_imbalance", 0.1), ("leads", 0.0)):
        assert fitted.loc[term, "ci_low"] < truth < fitted.loc[term, "ci_high"], term


def test_at_3_players_a_side_is_a_seat_and_the_cards_decide_when_one_seat_wins_every_seating(tmp_path):
    out = tmp_path / "c3.parquet"
    sim.compare("expert", "greedy", players=3, deals=400, seed=6, out=out)
    report = sim.luck(out)
    winners = sim.load(out).deals.pivot(index="deal", columns="game", values="winner_side")
    decided = ((winners.nunique(axis=1) == 1) & (winners[0] >= 0)).mean()
    assert report["cards_decide"]["value"] == pytest.approx(decided)
    assert report["deals"] == 400 and 0 < report["deal_share"]["value"] < 1
    games = sim.luck_games(out)
    assert games.groupby("deal")["leads"].sum().eq(1).all()  # A's seat leads in one seating of three
    assert games.groupby("deal")["trump_imbalance"].sum().abs().max() < 1e-9  # A holds each seat's cards once


def test_the_command_prints_json_and_refuses_what_it_does_not_read(comparison, tmp_path):
    done = run_here("luck", comparison, "--json", "--par-deals", "0")
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert row["better"] == "expert" and {r["term"] for r in row["regression"]} >= {"trump_ace", "leads"}
    sim.simulate("expert,greedy", deals=100, seed=1, out=tmp_path / "s.parquet")
    done = run_here("luck", tmp_path / "s.parquet")
    assert done.returncode == 2 and "luck reads a comparison" in done.stderr and "Traceback" not in done.stderr


def test_the_report_of_a_comparison_shows_its_luck(comparison, tmp_path):
    import shutil

    copy = tmp_path / "c.parquet"
    shutil.copy(comparison, copy)
    done = run_here("report", copy, "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["luck"]["cards_decide"]["value"] == pytest.approx(sim.luck(copy, par_deals=0)["cards_decide"]["value"])
    assert "deals the cards decide" in (tmp_path / "c_report" / "index.html").read_text()


@pytest.fixture(scope="module")
def chiamata(tmp_path_factory):
    """Two close strategies at 5 players: their auctions often make the same sides, so
    some deals are decided by the cards."""
    out = tmp_path_factory.mktemp("luck5") / "c5.parquet"
    sim.compare("expert", "expert:bid_threshold=0", players=5, deals=400, seed=6, out=out)
    return out


def test_at_5_players_the_figures_are_those_the_rows_give(chiamata):
    report = sim.luck(chiamata)
    deals = sim.load(chiamata).deals
    game_points = deals[[f"game_points_{seat}" for seat in range(5)]].to_numpy()
    above = pd.Series([tuple(row) for row in game_points > 0], index=deals.index)  # the seats that won
    same = above.groupby(deals["deal"]).nunique().eq(1) & deals.groupby("deal")["caller"].min().ge(0)
    assert 0 < report["cards_decide"]["value"] == pytest.approx(same.mean())
    a_points = game_points[np.arange(len(deals)), deals["a_side"].to_numpy()]
    lost = a_points < 0 if report["better"] == "expert" else a_points > 0  # A's seat on the side that lost
    assert report["better_loses"]["value"] == pytest.approx(lost.mean())
    assert report["deals"] == 400 and 0 < report["deal_share"]["value"] < 1 and set(report["left_out"]) == set(PAR_KEYS)
    a_first = sim.luck_games(chiamata).query("leads")  # first_lead=eldest: seat 0 leads, once per deal
    assert (deals.loc[a_first.index, "a_side"] == 0).all() and len(a_first) == 400
    assert report["a_leads"]["value"] == pytest.approx(a_first["a_score"].mean())
    games = sim.luck_games(chiamata)
    for dealt in ("value_imbalance", "points_imbalance"):  # A holds each seat's hand once
        assert games.groupby("deal")[dealt].sum().abs().max() < 1e-9
    assert list(report["regression"]["term"]) == ["intercept", "value_imbalance", "points_imbalance", "leads"]


def test_at_5_players_a_game_is_won_by_the_seats_above_0_game_points():
    from sim.present.luck import _winners

    standing = np.array([[2, 1, -1, -1, -1], [-2, -1, 1, 1, 1], [2, -1, 1, -1, -1], [1, -1, 2, -1, -1], [0] * 5])
    winner_side = np.array([0, 1, 0, 0, -1])  # the caller's side (0) or the defenders' (1); -1 thrown in
    assert list(_winners(winner_side, standing, chiamata=True)) == [0b00011, 0b11100, 0b00101, 0b00101, -1]
    assert list(_winners(winner_side, standing, chiamata=False)) == list(winner_side)  # a side per team elsewhere


def test_a_hand_is_valued_at_its_best_suit_as_the_auction_values_it(chiamata):
    from sim.present.features import _best_suit_values

    # Ace, Three, King of suit 0 (25 points; 15 + 14 + 13 as trumps) and five blanks of suit 1 (6 to 10 as trumps)
    hand = np.array([[0, 2, 9, 11, 13, 14, 15, 16]], dtype=np.int8)
    assert list(_best_suit_values(hand)) == [25 + 42]
    run = sim.load(chiamata)
    features, deals = sim.deal_features(run), run.deals[run.deals["caller"] >= 0]
    caller_value = features.to_numpy()[
        [features.index.get_loc(i) for i in deals.index],
        [features.columns.get_loc(f"hand_value_{seat}") for seat in deals["caller"]],
    ]
    assert (caller_value >= deals["caller_strength"]).all()  # the engine's value of the suit it called, at most
    assert (caller_value > deals["caller_strength"]).any() and (caller_value == deals["caller_strength"]).any()


def test_the_command_reads_5_players_and_says_what_it_leaves_out(chiamata, tmp_path):
    done = run_here("luck", chiamata, "--json")
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert row["players"] == 5 and row["lead_gain"] is not None
    assert row["cards_decide"]["value"] == pytest.approx(sim.luck(chiamata)["cards_decide"]["value"])
    out = tmp_path / "caller.parquet"
    sim.compare("expert", "greedy", players=5, deals=60, seed=6, rules=["first_lead=caller"], out=out)
    done = run_here("luck", out)
    assert done.returncode == 0, done.stderr
    assert "lead_gain left out: under first_lead=caller" in " ".join(done.stdout.split())
    assert "leads" not in {r["term"] for r in sim.luck(out)["regression"].to_dict("records")}


def test_the_report_of_a_5_player_comparison_shows_its_luck(chiamata, tmp_path):
    import shutil

    copy = tmp_path / "c5.parquet"
    shutil.copy(chiamata, copy)
    done = run_here("report", copy, "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["luck"]["players"] == 5
    assert found["luck"]["deal_share"]["value"] == pytest.approx(sim.luck(copy)["deal_share"]["value"])
    page = (tmp_path / "c5_report" / "index.html").read_text()
    assert "deals the cards decide (the same seats win every seating)" in page
