"""The par (strategies/solve_nb.py, strategies/par_nb.py, sim/present/par.py): a whole
2-player deal solved exactly, agreeing with the end-game search wherever that reaches;
each card's face-up value exact against plain minimax; the same position from a result
row's deck and from the one-deal seam; a game's par costs adding up to its result; and
the par's figures of a comparison against direct counts."""

import json
import random

import numpy as np
import pytest

import sim
from sim.base.config import RunConfig
from sim.base.results import card_matrix, deal_columns
from sim.present.analyse import par_shortfall
from sim.present.par import EXACT_CARDS, exact_face_up_values, par, par_figures
from sim.runtime.deal import Deal
from strategies.endgame_nb import SEAT_SIDES, new_hands_nb, new_stack_nb, search_nb
from strategies.par_nb import face_up_values_nb, new_positions_nb, play_nb
from strategies.solve_nb import exact_pars_2p_nb, new_solving_nb, solve_2p_nb
from tests.helpers import run_here
from tests.test_strategies import brute_force, random_position


def position_of(hands, table, leader, players, trump, stock, drawn=0):
    positions = new_positions_nb(2)
    p = positions[0]
    p["players"], p["trump"] = players, trump
    p["hands"][:] = -1
    for seat, hand in enumerate(hands):
        p["hands"][seat, : len(hand)] = hand
        p["n_hand"][seat] = len(hand)
    p["plays"][: len(table)] = table
    p["n_table"], p["leader"] = len(table), leader
    p["stock"][: len(stock)] = stock
    p["n_stock"], p["drawn"] = len(stock), drawn
    return positions


def mask(cards) -> int:
    return sum(1 << int(card) for card in cards)


@pytest.mark.parametrize("stock_size", [0, 2, 6, 10])
def test_the_solver_agrees_with_the_end_game_search(stock_size):
    """From trick starts with up to 16 cards left, where the end-game search (itself
    checked against minimax in test_strategies) still runs: the same points."""
    rng = random.Random(stock_size)
    for _ in range(25):
        cards = rng.sample(range(40), 6 + stock_size)
        hands, stock = [cards[:3], cards[3:6]], np.array(cards[6:], dtype=np.int64)
        leader, trump = rng.randrange(2), rng.randrange(4)
        solved = solve_2p_nb(mask(hands[0]), mask(hands[1]), leader, 0, new_solving_nb(stock, stock_size, trump))
        work, n_hand = new_hands_nb()
        for seat, hand in enumerate(hands):
            work[seat, :3], n_hand[seat] = hand, 3
        plays = np.empty(46, dtype=np.int64)
        searched = search_nb(work, n_hand, plays, 0, 0, leader, 2, trump, stock, 0, stock_size, SEAT_SIDES, 0,
                             new_stack_nb())  # fmt: skip
        assert solved == searched, (hands, stock.tolist(), leader, trump)


def two_player_decks(n, seed=3):
    config = RunConfig(players=2, strategies=("random",) * 2, deals=n, seed=seed)
    return card_matrix(deal_columns(np.arange(n), config)[0]).astype(np.int64)


def test_a_whole_deal_seen_from_either_seat_shares_its_120_points():
    """Seat 1's hand given to seat 0 and the lead to seat 1: the same deal, its par mirrored."""
    decks = two_player_decks(3)
    swapped = decks.copy()
    swapped[:, 0:6:2], swapped[:, 1:6:2] = decks[:, 1:6:2], decks[:, 0:6:2]
    pars, mirrored = np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64)
    exact_pars_2p_nb(decks, np.zeros(3, dtype=np.int64), pars)
    exact_pars_2p_nb(swapped, np.ones(3, dtype=np.int64), mirrored)
    assert ((pars >= 0) & (pars <= 120)).all() and (pars + mirrored == 120).all()


@pytest.mark.parametrize("players, hand_size", [(2, 3), (3, 2), (4, 2), (6, 2)])
def test_each_cards_face_up_value_is_exact(players, hand_size):
    """At 3 players the mover against the two others together (what the search maximises)."""
    rng = random.Random(players * 11 + hand_size)
    for case in range(30):
        n_table = case % players
        hands, table, leader, stock = random_position(rng, players, hand_size, n_table, players in (2, 4))
        trump, seat = rng.randrange(4), (leader + n_table) % players
        sides = [0 if s == seat else 1 for s in range(players)] if players == 3 else [s % 2 for s in range(players)]
        positions = position_of(hands, table, leader, players, trump, stock)
        values = np.zeros(8, dtype=np.int64)
        face_up_values_nb(positions[0], values, positions[1:], new_stack_nb())
        for k, card in enumerate(hands[seat]):
            rest = [h if s != seat else [c for c in h if c != card] for s, h in enumerate(hands)]
            expected = brute_force(rest, table + [card], leader, players, trump, stock, sides[seat], sides + [0] * 3)
            assert values[k] == expected, (hands, table, leader, stock, card)


def deck_position(deck, players):
    """The first position of a deal from a result row's deck, written independently of
    the one-deal seam: the hands round by round, then the stock, the briscola last."""
    stock = [int(c) for c in deck[3 * players :] if c >= 0]
    hands = [[int(deck[k * players + seat]) for k in range(3)] for seat in range(players)]
    return position_of(hands, [], 0, players, stock[-1] // 10, stock)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_seam_and_the_rows_deck_give_the_same_positions(players):
    """``exact_face_up_values`` builds its position from the one-deal seam's views: along a
    deal played on both, wherever the search is exact, its values agree card for card
    with those of the position built from the row's deck."""
    config = RunConfig(players=players, strategies=("random",) * players, deals=3, seed=8)
    decks = card_matrix(deal_columns(np.arange(3), config)[0])
    compared = 0
    for index, deck in enumerate(decks):
        deal = Deal.new(config, deal=index, outside=range(players))
        stock = [int(c) for c in deck[3 * players :] if c >= 0]
        positions = deck_position(deck, players)
        while not deal.done:
            mover = deal.to_move
            from_seam = exact_face_up_values(deal, stock)
            hand = [int(c) for c in positions[0]["hands"][mover, : positions[0]["n_hand"][mover]]]
            if from_seam is not None:
                from_deck = np.zeros(8, dtype=np.int64)
                face_up_values_nb(positions[0], from_deck, positions[1:], new_stack_nb())
                seam_hand = [int(c) for c in deal.view(mover)[0]["hand"][: len(hand)]]
                assert dict(zip(seam_hand, from_seam.tolist())) == dict(zip(hand, from_deck[: len(hand)].tolist()))
                compared += 1
            card = deal.legal()[-1]
            deal.play(card)
            play_nb(positions[0], hand.index(card))
    assert compared >= 3 * EXACT_CARDS[players] - 3 * players  # the last tricks of every deal


def test_along_a_game_the_par_less_the_result_is_a_costs_less_b_costs(tmp_path):
    """Over the tricks searched exactly, every move's par cost is what it changed of its
    side's par: from the first such decision to the end they add up to the result."""
    trace = tmp_path / "t.parquet"
    sim.compare("expert", "greedy", players=2, deals=12, seed=6, out=tmp_path / "c.parquet", trace=trace)
    moves = sim.analyse(trace, samples=4)
    for (deal, game), played in moves.groupby(["deal", "game"]):
        exact = played[played["par_cost"].notna()]
        first = exact.iloc[0]
        side_0_par = first["par_points"] if first["side"] == 0 else 120 - first["par_points"]
        costs = exact.groupby("side")["par_cost"].sum().reindex([0, 1], fill_value=0.0)
        side_0_points = played.loc[played["side"] == 0, "deal_points"].iloc[0]
        assert side_0_par - costs[0] + costs[1] == side_0_points, (deal, game)


def test_the_par_of_a_comparison_and_its_figures(tmp_path):
    out = tmp_path / "c.parquet"
    sim.compare("expert", "greedy", players=2, deals=8, seed=4, out=out)
    run = sim.load(out)
    pars = par(run, deals=4)
    first = run.deals.drop_duplicates("deal").iloc[:4]
    solved = np.zeros(4, dtype=np.int64)
    exact_pars_2p_nb(card_matrix(first["deck"]).astype(np.int64), np.zeros(4, dtype=np.int64), solved)
    assert pars.index.tolist() == first["deal"].tolist() and (pars["par_0"].to_numpy() == solved).all()
    figures = par_figures(run, deals=4)
    games = run.deals[run.deals["deal"].isin(pars.index)]
    a_points = np.where(games["a_side"] == 0, games["side_points_0"], games["side_points_1"])
    a_par = np.where(games["a_side"] == 0, pars.loc[games["deal"], "par_0"], pars.loc[games["deal"], "par_1"])
    assert figures["a_over_par"]["value"] == pytest.approx((a_points - a_par).mean())  # two games a deal
    assert figures["par_deals"] == 4 and 0 <= figures["par_share"]["value"] <= 1
    four = tmp_path / "four.parquet"
    sim.compare("expert", "greedy", players=4, deals=4, seed=4, out=four)
    with pytest.raises(ValueError, match="solved at 2 players"):
        par(four)
    assert par_figures(sim.load(four)) == {}


def test_luck_reports_the_par_at_2_players_and_says_why_not_elsewhere(tmp_path):
    two, four = tmp_path / "two.parquet", tmp_path / "four.parquet"
    sim.compare("expert", "greedy", players=2, deals=60, seed=5, out=two)  # enough for luck's regression
    sim.compare("expert", "greedy", players=4, deals=60, seed=5, out=four)
    report = sim.luck(two, par_deals=3)
    assert report["par_deals"] == 3 and report["a_over_par"] == par_figures(sim.load(two), deals=3)["a_over_par"]
    assert sim.luck(two, par_deals=0)["left_out"]["par_share"].endswith("(--par-deals 0)")
    assert "2 players only" in sim.luck(four)["left_out"]["par_agrees"]
    printed = run_here("luck", two, "--par-deals", "2", "--json")
    assert printed.returncode == 0 and json.loads(printed.stdout)["par_deals"] == 2


def test_a_tournaments_par_shortfall_is_per_game_of_each_pair(tmp_path):
    """A deal is played by every pair: a game is a pair's seating of it, not the deal."""
    trace = tmp_path / "t.parquet"
    sim.tournament(["expert", "greedy", "random"], players=2, deals=3, seed=2, out=tmp_path / "t", trace=trace)
    moves = sim.analyse(trace, samples=2)
    shortfall = par_shortfall(moves).set_index("strategy")["par_shortfall"]
    per_game = moves[moves["strategy"] == "expert"].groupby(["pair", "deal", "game"])["par_cost"].sum()
    assert shortfall["expert"] == pytest.approx(per_game.groupby("deal").mean().mean())
    assert moves.groupby(["pair", "deal", "game"]).ngroups == 3 * 3 * 2  # pairs, deals, seatings
