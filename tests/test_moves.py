"""A trace read back as moves (sim/present/moves.py): who played each card is the seat the
engine's own one-deal seam (Deal.replay) has to move, at every table; a comparison's
trace holds every seating, its strategies where the seating put them."""

import pyarrow.parquet as pq
import pytest

import sim
from sim.base.config import Rules
from sim.runtime.deal import Deal
from tests.helpers import run_here

TABLES = [(2, ()), (3, ()), (4, ()), (5, ("first_lead=caller",)), (6, ())]


@pytest.mark.parametrize("players, rules", TABLES)
def test_each_card_is_played_by_the_seat_the_deal_has_to_move(tmp_path, players, rules):
    strategies = ",".join(["expert", "greedy"] * 3)
    rule_args = [arg for rule in rules for arg in ("--rule", rule)]
    done = run_here("simulate", "--players", players, "--strategies", ",".join(strategies.split(",")[:players]),
                    "--deals", "25", "--seed", "4", "--trace", tmp_path / "t.parquet", "--summary-only", "--quiet",
                    *rule_args)  # fmt: skip
    assert done.returncode == 0, done.stderr
    moves = sim.moves(tmp_path / "t.parquet")
    parsed = Rules(**dict(rule.split("=") for rule in rules))
    for row in pq.read_table(tmp_path / "t.parquet").to_pylist():
        seats = [deal.to_move for deal, _ in Deal.replay(row, parsed) if deal.phase == "play"]
        mine = moves[moves["deal"] == row["deal"]]
        assert mine["seat"].tolist() == seats
        assert mine["card"].tolist() == row["plays"]
        strategy = {seat: strategies.split(",")[seat] for seat in range(players)}
        assert (mine["strategy"] == mine["seat"].map(strategy)).all()
    if players in (2, 4, 6):  # two sides: one wins, or both draw
        per_deal = moves.groupby(["deal", "side"])["deal_score"].first().groupby("deal").sum()
        assert (per_deal == 1).all()


def test_a_comparisons_trace_holds_every_seating_with_its_strategies(tmp_path):
    done = run_here("compare", "expert", "greedy", "--players", "4", "--deals", "20", "--seed", "2",
                    "--trace", tmp_path / "t.parquet", "--out", tmp_path / "c.parquet", "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    moves = sim.moves(tmp_path / "t.parquet")
    assert sorted(moves.groupby(["deal", "game"]).size().unique()) == [40]
    a_seats = moves[moves["strategy"] == "expert"].groupby("game")["seat"].unique()
    assert sorted(a_seats[0]) == [0, 2] and sorted(a_seats[1]) == [1, 3]
    rows = sim.load(tmp_path / "c.parquet").deals  # the trace's outcome is the result file's
    points = moves[moves["seat"] == 0].groupby(["deal", "game"])["deal_points"].first()
    assert (rows.set_index(["deal", "game"])["side_points_0"].sort_index() == points.sort_index()).all()


def test_a_comparison_by_matches_is_refused_a_trace_in_one_line(tmp_path):
    done = run_here("compare", "expert", "greedy", "--deals", "20", "--seed", "2", "--match", "best-of-3",
                    "--trace", tmp_path / "t.parquet", "--summary-only")  # fmt: skip
    assert done.returncode == 2 and "keeps traces deal by deal" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "t.parquet").exists()


def test_a_plans_comparison_keeps_its_traces_by_seating(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text('seed = 3\n[[compare]]\nname = "eg"\na = "expert"\nb = "greedy"\ndeals = 30\ntrace = true\n')
    done = run_here("batch", plan, "--out", tmp_path / "study", "--quiet")
    assert done.returncode == 0, done.stderr
    traces = sim.load(tmp_path / "study").traces("eg")
    assert len(traces) == 60 and set(traces["game"]) == {0, 1}
    assert traces.groupby("deal")["hands"].apply(lambda h: (h.iloc[0] == h.iloc[1]).all()).all()  # one deal, two games
