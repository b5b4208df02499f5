"""Every move valued (sim/present/analyse.py): at 2 players once the stock is empty
nothing is hidden, and there each card's value must be a plain Python minimax's on the
reference engine's rules; the verdicts and sums follow the costs."""

import json

import pyarrow.parquet as pq
import pytest

import sim
from sim.base import reference
from sim.base.config import Rules
from sim.present.analyse import VERDICTS, _played, exact_end_values
from tests.helpers import run_here


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("analyse") / "t.parquet"
    done = run_here("compare", "expert", "greedy", "--deals", "40", "--seed", "8", "--trace", path, "--summary-only",
                    "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return path


def minimax(hands, table, leader, to_move, trump, points, seat):
    """The final points of ``seat``'s side with both sides playing perfectly (plain
    Python, on the reference engine's rules): ``hands`` per seat, ``table`` so far."""
    if len(table) == 2:
        winner = (leader + reference.trick_winner(table, trump)) % 2
        taken = points.copy()
        taken[winner] += sum(reference.points(c) for c in table)
        if not hands[0] and not hands[1]:
            return taken[seat % 2]
        return minimax(hands, [], winner, winner, trump, taken, seat)
    results = []
    for card in hands[to_move]:
        rest = [h if s != to_move else [c for c in h if c != card] for s, h in enumerate(hands)]
        results.append(minimax(rest, [*table, card], leader, 1 - to_move, trump, points, seat))
    return max(results) if to_move % 2 == seat % 2 else min(results)


def test_the_end_of_a_2_player_deal_is_valued_exactly(trace):
    checked = 0
    for row in pq.read_table(trace).to_pylist()[:20]:
        for deal, _ in _played(row, Rules()):
            view = deal.view()[0]
            if view["stock_size"] > 0 or view["n_hand"] < 2:
                continue
            seat, n, n_table = int(view["seat"]), int(view["n_hand"]), int(view["n_table"])
            own = [int(c) for c in view["hand"][:n]]
            table = [int(c) for c in view["table"][:n_table]]
            gone = {int(c) for c in view["history"][: int(view["n_played"])]} | set(own)
            other = [c for c in range(40) if c not in gone]
            hands = [own, other] if seat == 0 else [other, own]
            points = [int(view["points"][0]), int(view["points"][1])]
            leader, trump = int(view["leader"]), int(view["trump_suit"])
            finals = []
            for card in own:
                rest = [h if s != seat else [c for c in h if c != card] for s, h in enumerate(hands)]
                finals.append(minimax(rest, [*table, card], leader, 1 - seat, trump, points, seat))
            score, margin = exact_end_values(view)
            assert list(margin) == [2 * f - 120 for f in finals]
            assert list(score) == [1.0 if f > 60 else 0.5 if f == 60 else 0.0 for f in finals]
            checked += 1
    assert checked > 30


def test_costs_verdicts_and_sums(trace):
    moves = sim.analyse(trace)
    assert len(moves) == len(sim.moves(trace)) and (moves["score_cost"] >= 0).all()
    best = moves["card"] == moves["best_card"]
    assert (moves.loc[best, "score_cost"] == 0).all() and set(moves.loc[best, "verdict"]) <= {"best"}
    for name, threshold in VERDICTS:
        assert (moves.loc[moves["verdict"] == name, "score_cost"] >= threshold).all()
    one_card = moves["trick"] >= 19  # the last trick: no choice
    assert (moves.loc[one_card, "score_cost"] == 0).all()
    costs = sim.move_costs(moves)
    assert costs["moves"].sum() == len(moves)
    expert_stock = costs[(costs["strategy"] == "expert") & (costs["phase"] == "stock")]
    assert expert_stock["total_score_cost"].sum() == pytest.approx(
        moves[(moves["strategy"] == "expert") & (moves["phase"] == "stock")]["score_cost"].sum()
    )
    again = sim.analyse(trace)
    assert again["score_cost"].equals(moves["score_cost"])  # the same draws: the same figures


def test_the_command_writes_the_moves_and_prints_the_costs(trace, tmp_path):
    out = tmp_path / "moves.parquet"
    done = run_here("analyse", trace, "--samples", "8", "--out", out)
    assert done.returncode == 0, done.stderr
    assert "expert" in done.stdout and "blunder" in done.stdout and "against the par" in done.stdout
    assert len(pq.read_table(out)) == len(sim.moves(trace))
    printed = json.loads(run_here("analyse", trace, "--samples", "8", "--json").stdout)
    assert {row["strategy"] for row in printed["par_shortfall"]} == set(sim.moves(trace)["strategy"])
    assert all(row["par_shortfall"] >= 0 for row in printed["par_shortfall"])  # a cost is never negative
    done = run_here("analyse", tmp_path / "none.parquet")
    assert done.returncode == 2 and "Traceback" not in done.stderr
