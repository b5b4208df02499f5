"""A tournament's trace (``briscola tournament --trace``, ``sim.tournament(trace=...)``, a
plan's ``trace = true``): every game of every pair in one file, a ``pair`` column naming
A and B by their indices. Each deal replays by the rules with the strategies ``sim.moves``
names, both games of a deal (and every pair) hold the same cards, the outcome is the
pair file's, and a stopped run keeps the pairs it finished."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import sim
from sim.base import reference
from sim.base.config import Rules
from sim.base.interrupt import StopFlag
from sim.base.results import card_matrix, read_results
from sim.pipeline.experiments import make_experiment
from sim.pipeline.runs import run_command
from sim.runtime.deal import Deal
from tests.helpers import run_here

STRATEGIES = ["expert", "greedy", "random"]


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """A 2-player tournament of three strategies, its folder and its trace."""
    folder = tmp_path_factory.mktemp("traced")
    done = run_here("tournament", *STRATEGIES, "--deals", "12", "--seed", "7", "--out", folder / "tour",
                    "--trace", folder / "trace.parquet", "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder / "tour", folder / "trace.parquet"


def test_every_game_of_every_pair_replays_by_the_rules_with_the_strategies_named(traced):
    _, trace = traced
    moves = sim.moves(trace)
    assert sorted(moves["pair"].unique()) == ["0_1", "0_2", "1_2"]
    for row in pq.read_table(trace).to_pylist():
        mine = moves[(moves["pair"] == row["pair"]) & (moves["deal"] == row["deal"]) & (moves["game"] == row["game"])]
        seats = [deal.to_move for deal, _ in Deal.replay(row, Rules()) if deal.phase == "play"]
        assert mine["seat"].tolist() == seats and mine["card"].tolist() == row["plays"]
        named = mine.groupby("seat")["strategy"].unique()
        i, j = map(int, row["pair"].split("_"))
        a_seat = row["game"]  # A sits in seat 0 in game 0, in seat 1 in game 1
        assert list(named[a_seat]) == [STRATEGIES[i]] and list(named[1 - a_seat]) == [STRATEGIES[j]]
        greedy = tuple(seat for seat in (0, 1) if named[seat][0] == "greedy")  # the reference checks its choices
        assert list(reference.replay_trace(row, "off", None, greedy).seat_points) == row["seat_points"]


def test_a_deal_holds_the_same_cards_in_both_games_and_every_pair_and_the_rows_outcome(traced):
    folder, trace = traced
    table = pq.read_table(trace).to_pandas()
    dealt = table.assign(cards=[(tuple(h), b, tuple(s)) for h, b, s in zip(table.hands, table.briscola, table.stock)])
    assert (dealt.groupby("deal")["cards"].nunique() == 1).all()  # both seatings, all three pairs
    rows = sim.load(folder).deals.set_index(["pair", "deal", "game"]).sort_index()
    by_game = table.set_index(["pair", "deal", "game"]).sort_index()
    assert list(by_game.index) == list(rows.index)  # every game of the folder, and only those
    hands = np.stack(by_game["hands"].to_list())
    assert (hands[:, :3] == card_matrix(rows["hand_0"])).all() and (hands[:, 3:] == card_matrix(rows["hand_1"])).all()
    points = sim.moves(trace).groupby(["pair", "deal", "game", "seat"])["deal_points"].first().unstack("seat")
    assert (points[0].sort_index() == rows["side_points_0"]).all() and (points[1] == rows["side_points_1"]).all()


def test_the_notebook_writes_the_commands_trace(traced, tmp_path):
    _, trace = traced
    sim.tournament(STRATEGIES, deals=12, seed=7, trace=tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t.parquet"), pd.read_parquet(trace))
    config = read_results(tmp_path / "t.parquet").config
    assert config["kind"] == "tournament" and config["strategies"] == STRATEGIES and config["seatings"] == ["AB", "BA"]
    assert config["pairs"] == ["0_1", "0_2", "1_2"] and config["status"] == "complete"


def test_a_four_player_trace_names_each_team(tmp_path):
    done = run_here("tournament", "expert", "greedy", "--players", "4", "--deals", "6", "--seed", "2",
                    "--trace", tmp_path / "t.parquet", "--summary-only", "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    moves = sim.moves(tmp_path / "t.parquet")
    a_seats = moves[moves["strategy"] == "expert"].groupby("game")["seat"].unique()
    assert sorted(a_seats[0]) == [0, 2] and sorted(a_seats[1]) == [1, 3]
    assert set(moves["pair"]) == {"0_1"} and moves.groupby(["deal", "game"]).size().eq(40).all()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--match", "best-of-3"], "a tournament keeps traces deal by deal, not with --match best-of-3"),
        (["--out", "{tmp}/tour"], "is inside --out"),
        (["--backend", "dask", "--workers", "1"], "--trace is for --backend local"),
    ],
)
def test_a_trace_it_cannot_keep_is_refused_in_one_line_and_nothing_written(tmp_path, args, message):
    trace = tmp_path / "tour" / "t.parquet" if "--out" in args else tmp_path / "t.parquet"
    args = [arg.format(tmp=tmp_path) for arg in args]
    summary_only = [] if "--out" in args else ["--summary-only"]
    done = run_here("tournament", "expert", "greedy", "--deals", "10", "--seed", "2", "--trace", trace, *args,
                    *summary_only)  # fmt: skip
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


class StopAfter(StopFlag):
    """Set once ``units`` deals are reported done, as a Ctrl-C then would."""

    def __init__(self, units: int):
        super().__init__()
        self.left = units

    def count(self, done: int) -> None:
        self.left -= done
        if self.left <= 0:
            self.set()


def test_a_stopped_tournament_keeps_the_trace_of_the_pairs_it_played(traced, tmp_path):
    _, whole = traced
    experiment = make_experiment("tournament", players=2, strategies=STRATEGIES, deals=12, seed=7)
    stop = StopAfter(12)  # the first pair's deals: the others do not begin
    out, trace = tmp_path / "tour", tmp_path / "t.parquet"
    ran = run_command(experiment, out, trace, stop=stop, on_progress=stop.count)
    assert ran.interrupted
    kept = read_results(trace)
    assert kept.config["status"] == "partial" and kept.config["pairs"] == ["0_1"]
    assert json.loads((out / "_tournament.json").read_text())["pairs"] == ["0_1"]
    first = pd.read_parquet(whole).query("pair == '0_1'").reset_index(drop=True)
    pd.testing.assert_frame_equal(kept.deals, first)  # the finished pair as a whole run traced it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet", "tour"]  # no temporary file left


PLAN = """
seed = 7

[[tournament]]
name = "egr"
strategies = ["expert", "greedy", "random"]
deals = 12
trace = true
"""


def test_a_plans_tournament_keeps_the_commands_trace_and_plays_a_lost_one_again(traced, tmp_path):
    _, whole = traced
    (tmp_path / "plan.toml").write_text(PLAN)
    study = tmp_path / "study"
    done = run_here("batch", tmp_path / "plan.toml", "--out", study, "--chunk-deals", "6", "--quiet")
    assert done.returncode == 0, done.stderr
    expected = pd.read_parquet(whole)

    def kept() -> pd.DataFrame:
        return sim.load(study).traces("egr").sort_values(["pair", "deal", "game"], ignore_index=True)

    pd.testing.assert_frame_equal(kept(), expected)
    (study / "experiment=egr" / "_traces" / "pair=1_2-part-000000000006.parquet").unlink()
    code, out, _ = run_here("status", study, "--json")
    damaged = json.loads(out)["experiments"][0]["damaged"]
    assert [d["chunk"] for d in damaged] == ["pair=1_2/part-000000000006"] and "trace" in damaged[0]["problem"]
    done = run_here("batch", tmp_path / "plan.toml", "--out", study, "--resume", "--quiet")
    assert done.returncode == 0 and "played again" in done.stderr, done.stderr
    pd.testing.assert_frame_equal(kept(), expected)
