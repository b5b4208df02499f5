"""Match formats (--match): which deals a match plays, who wins it, the dealer's rotation."""

from __future__ import annotations

import json

import numpy as np
import pytest

import sim
from sim.base.config import ConfigError, RunConfig
from sim.base.results import read_results
from sim.pipeline.matches import FORMATS, _best_of, rotated
from sim.runtime.play import play_batch
from tests.helpers import run_here


def test_best_of_three_stops_when_decided_and_counts_draws_as_nobodys():
    winners = np.array([[0, 0, 1], [0, 1, 1], [-1, 0, 0], [-1, -1, 1], [0, -1, 1]])
    played, won = _best_of(winners, sides=2, need=2)
    assert played.tolist() == [[1, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1]]
    assert won.tolist() == [[2, 0], [1, 2], [2, 0], [0, 1], [1, 1]]


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_dealer_rotates_and_players_keep_their_streams(players):
    config = RunConfig(players=players, strategies=tuple(f"s{p}" for p in range(players)), deals=1, seed=1)
    for k in range(4):
        seats = rotated(config, k)
        for player in range(players):
            seat = (player - k) % players  # deal k: the next player in playing order deals
            assert seats.strategies[seat] == f"s{player}" and seats.streams[seat] == 1 + player


def run_matches(tmp_path, match, players=2, strategies="greedy,random", n=3000):
    out = tmp_path / f"{match}.parquet"
    code, stdout, _ = run_here("simulate", "--players", str(players), "--strategies", strategies,
                               "--deals", str(n), "--seed", "4", "--match", match, "--out", str(out), "--json", "--quiet")  # fmt: skip
    assert code == 0
    return json.loads(stdout), read_results(out)


@pytest.mark.parametrize("match", ["best-of-3", "best-of-5"])
def test_best_of_files_hold_exactly_the_deals_each_match_needed(tmp_path, match):
    summary, run = run_matches(tmp_path, match)
    frame, most = run.deals, FORMATS[match]
    assert run.config["match"] == match and summary["matches"] == 3000 and summary["deals"] == len(frame)
    assert ((frame["deal"] // most) == frame["match"]).all() and ((frame["deal"] % most) == frame["match_deal"]).all()
    need = (most + 1) // 2
    for _, deals in list(frame.groupby("match"))[:300]:
        player_winner = np.where(deals["winner_side"] < 0, -1, (deals["winner_side"] + deals["match_deal"]) % 2)
        wins = [np.cumsum(player_winner == side) for side in (0, 1)]
        decided_at = [k for k in range(len(deals)) if max(w[k] for w in wins) >= need]
        assert decided_at[:1] in ([len(deals) - 1], []) and (decided_at or len(deals) == most)
        final = [w[-1] for w in wins]
        expected = -1 if final[0] == final[1] else int(np.argmax(final))
        assert (deals["match_winner_side"] == expected).all()
        assert (
            deals["strategy_0"].astype(str).to_numpy() == np.where(deals["match_deal"] % 2 == 0, "greedy", "random")
        ).all()
    sides = summary["sides"]
    assert sum(sides[0][key] for key in ("wins", "draws", "losses")) == 3000
    assert sides[0]["wins"] == frame.groupby("match")["match_winner_side"].first().eq(0).sum()


def test_two_deals_to_120_are_won_on_points_over_both(tmp_path):
    summary, run = run_matches(tmp_path, "two-deals-120", players=4)
    frame = run.deals
    assert len(frame) == 2 * 3000
    side0 = np.where(frame["match_deal"] == 0, frame["side_points_0"], frame["side_points_1"])  # team 0's points
    totals = (
        frame.assign(team0=side0).groupby("match").agg(team0=("team0", "sum"), winner=("match_winner_side", "first"))
    )
    expected = np.where(totals["team0"] > 120, 0, np.where(totals["team0"] < 120, 1, -1))
    assert (totals["winner"] == expected).all()
    assert summary["sides"][0]["wins"] == int((expected == 0).sum())


def test_a_match_deals_the_cards_of_its_deal_indices(tmp_path):
    _, run = run_matches(tmp_path, "best-of-3", n=500)
    plain = play_batch(RunConfig(players=2, strategies=("random", "random"), deals=1500, seed=4), 0, 1500).results
    frame = run.deals
    assert (plain["briscola"][frame["deal"].to_numpy()] == frame["briscola"].to_numpy()).all()


def test_unknown_match_format_is_refused():
    code, _, stderr = run_here("simulate", "--players", "2", "--strategies", "greedy", "--deals", "5",
                               "--seed", "1", "--match", "best-of-4", "--summary-only")  # fmt: skip
    assert code == 2 and "--match 'best-of-4' is not a match format; valid: deal, best-of-3" in stderr
    with pytest.raises(ConfigError):
        RunConfig(players=2, strategies=("greedy",) * 2, deals=1, seed=1, match="bo3")


def test_compare_plays_whole_matches_from_both_seatings(tmp_path):
    out = tmp_path / "cmp.parquet"
    code, stdout, _ = run_here("compare", "greedy", "random", "--deals", "2000", "--seed", "2",
                               "--match", "best-of-3", "--out", str(out), "--json", "--quiet")  # fmt: skip
    row = json.loads(stdout)
    assert code == 0 and row["matches"] == 2000 and row["games"] == 4000 and "deals" not in row  # the unit is named
    frame = read_results(out).deals
    per_match = frame.groupby(["game", "match"])["match_winner_side"].first()
    a_side = frame.groupby(["game", "match"])["a_side"].first()
    assert int((per_match == a_side).sum()) == row["wins"]
    seatings_per_deal = frame.groupby("deal")["game"].nunique()
    lead = sim.first_lead(sim.load(out))  # balanced over seatings: only deals both matches reached
    assert lead["games"] == int((seatings_per_deal == 2).sum()) < len(seatings_per_deal)


@pytest.mark.parametrize("players, match", [(3, "best-of-3"), (3, "two-deals-120"), (2, "best-of-5")])
def test_the_notebook_api_reads_match_files_as_the_command_line(tmp_path, players, match):
    import sim

    out = tmp_path / "tour"
    code, stdout, _ = run_here("tournament", "greedy", "random", "lowest", "--players", str(players),
                               "--deals", "1500", "--seed", "3", "--match", match, "--out", str(out), "--json", "--quiet")  # fmt: skip
    printed = json.loads(stdout)
    assert printed["matches"] == 1500 and "deals" not in printed
    run = sim.load(out)
    summary = sim.compare_summary(run)
    assert (summary["matches"] == 1500).all() and "deals" not in summary
    for row in summary.itertuples():
        i, j = printed["strategies"].index(row.a), printed["strategies"].index(row.b)
        assert row.score == pytest.approx(printed["matrix"][i][j], abs=1e-6)  # JSON: 6 decimals
    ratings = sim.ratings(run)
    for row in printed["ratings"]:
        assert ratings.loc[row["strategy"], "rating"] == pytest.approx(row["rating"], abs=0.0051)  # JSON: 2 decimals
    greedy_vs_random = run.where(run.deals["pair"] == "0_1")
    margins = sim.margins(greedy_vs_random).groupby(greedy_vs_random.deals["match_deal"]).mean()
    assert (margins > 10).all()  # A's margin, whoever deals: the rotation is followed


def test_reports_of_match_comparisons_and_tournaments_name_matches(tmp_path):
    cmp, tour = tmp_path / "cmp.parquet", tmp_path / "tour"
    common = ("--deals", "200", "--seed", "1", "--match", "best-of-3", "--quiet")
    assert run_here("compare", "greedy", "random", "--out", str(cmp), *common)[0] == 0
    assert run_here("tournament", "greedy", "random", "--out", str(tour), *common)[0] == 0
    for path in (cmp, tour):
        code, stdout, stderr = run_here("report", str(path))
        assert code == 0, stderr
        assert "200 duplicate best-of-3 matches" in stdout
