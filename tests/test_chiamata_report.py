"""What a Briscola Chiamata analyst reads: role tables, bids and the caller alone split
by strategy at a mixed table, each with its interval, and agreeing with the rows; a
report that names its pairwise score and draws game points where they fall."""

from __future__ import annotations

import json

import numpy as np
import pytest

import sim
from sim.present.plots import margin_bars
from tests.helpers import run_here

TABLE = "expert,random,greedy,random,expert"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    out = tmp_path_factory.mktemp("chiamata") / "mixed.parquet"
    assert sim.app.cli.main(["simulate", "--players", "5", "--strategies", TABLE, "--deals", "4000", "--seed", "8",
                         "--out", str(out), "--quiet"]) == 0  # fmt: skip
    return out


def caller_rows(deals, strategy):
    called = deals[deals["caller"] >= 0]
    seat = called["caller"].to_numpy()
    names = np.stack([called[f"strategy_{s}"].astype(str) for s in range(5)], axis=1)[np.arange(len(called)), seat]
    points = np.stack([called[f"game_points_{s}"] for s in range(5)], axis=1)[np.arange(len(called)), seat]
    mine = names == strategy
    return called[mine], points[mine]


def test_role_tables_bids_and_the_caller_alone_are_per_strategy_and_agree_with_the_rows(mixed):
    run = sim.load(mixed)
    figures = run.config["summary"]["chiamata"]
    assert {row["strategy"] for row in figures["roles"]} == {"expert", "random", "greedy"}
    for strategy in ("expert", "random", "greedy"):
        called, points = caller_rows(run.deals, strategy)
        caller = next(r for r in figures["roles"] if r["strategy"] == strategy and r["role"] == "caller")
        assert caller["deals"] == len(called) and caller["mean_game_points"] == pytest.approx(points.mean(), abs=1e-4)
        low, high = caller["mean_game_points_ci95"]
        assert low < caller["mean_game_points"] < high
        assert sum(b["deals"] for b in figures["bids"] if b["strategy"] == strategy) == len(called)
        alone = next(a for a in figures["alone"] if a["strategy"] == strategy)
        alone_rows = called["caller"] == called["partner"]
        assert alone["deals"] == alone_rows.sum()
        if alone["deals"] > 1:
            lo, hi = alone["mean_game_points_ci95"]
            assert lo <= points[alone_rows.to_numpy()].mean() <= hi and lo < hi  # the alone mean has its interval


def test_caller_by_strength_is_game_points_per_strategy(mixed):
    bands = sim.caller_by_strength(sim.load(mixed))
    assert list(bands.columns) == ["games", "game_points", "ci_low", "ci_high", "made", "alone"]
    assert set(bands.index.get_level_values("strategy")) == {"expert", "random", "greedy"}
    _, points = caller_rows(sim.load(mixed).deals, "random")
    random_bands = bands.loc["random"]
    assert random_bands["games"].sum() == len(points)
    assert (random_bands["game_points"] * random_bands["games"]).sum() == pytest.approx(points.sum())


def test_the_margin_plot_draws_game_points_where_they_fall():
    margins = np.array([2.5] * 7 + [-1.25] * 3 + [5.0])  # game points: multiples of 1.25
    centres, counts, _ = margin_bars(margins)
    assert dict(zip(centres.tolist(), counts.tolist())) == {-1.25: 3, 2.5: 7, 5.0: 1}
    card_points = np.arange(-100, 101)  # many margins: binned, every one counted
    centres, counts, width = margin_bars(card_points.astype(float))
    assert counts.sum() == len(card_points) and width == 2


def test_the_report_names_its_pairwise_score_and_the_page_keeps_every_chiamata_line(mixed):
    code, out, _ = run_here("report", str(mixed), "--overwrite")
    assert code == 0 and "score against each other seat apart on game points" in out and "not the win rate" in out
    page = (mixed.parent / "mixed_report" / "index.html").read_text()
    figures = sim.load(mixed).config["summary"]["chiamata"]
    assert f"thrown in (all passed): {figures['thrown_in']:,} deals; cappotto: {figures['cappotti']:,}" in page
    assert all(f"{a['strategy']} calling alone: {a['deals']:,} deals" in page for a in figures["alone"])
    assert (mixed.parent / "mixed_report" / "caller_strength.png").stat().st_size > 10_000
    found = json.loads(run_here("report", str(mixed), "--json")[1])
    assert found["players"] == 5
