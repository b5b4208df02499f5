"""Properties every run must have, checked over many deals with NumPy (no reference
engine): every card played once, 120 points, points from the tricks, a consistent
winner, and results that depend on (seed, deal index) alone, not on threads or batches.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.base.config import Rules, RunConfig
from sim.runtime.play import play_batch, replay

# Points of each card code (suit * 10 + face), written out from the rules:
# Ace 11, 2 0, 3 10, 4..7 0, Jack 2, Knight 3, King 4.
POINTS = np.tile(np.array([11, 0, 10, 0, 0, 0, 0, 2, 3, 4]), 4)
TABLES = [
    (2, ("greedy", "random")),
    (3, ("random", "greedy", "random")),
    (4, ("random", "greedy", "greedy", "random")),
    (6, ("greedy", "random", "random", "greedy", "random", "greedy")),
]
TABLE_IDS = [f"{players}p" for players, _ in TABLES]


def n_sides(players):
    return 3 if players == 3 else 2


def check_batch(batch, players):
    """Every invariant of a traced batch, all deals at once."""
    deals, records, results = batch.deals, batch.records, batch.results
    n = len(results)
    tricks = {2: 20, 3: 13, 4: 10, 6: 6}[players]
    n_cards = tricks * players
    plays = records["plays"].astype(int)
    winners = records["trick_winners"].astype(int)

    # Every card dealt is played exactly once, and nothing after the last play.
    assert (plays[:, :n_cards] >= 0).all() and (plays[:, n_cards:] == -1).all()
    dealt = np.concatenate(
        [deals["hands"][:, :players, :3].reshape(n, -1), deals["stock"][:, : deals["n_stock"][0]]], axis=1
    ).astype(int)
    assert (np.sort(plays[:, :n_cards], axis=1) == np.sort(dealt, axis=1)).all()
    removed = deals["removed"][:, : deals["n_removed"][0]].astype(int)
    assert (np.sort(np.concatenate([dealt, removed], axis=1), axis=1) == np.arange(40)).all()
    assert (deals["stock"][np.arange(n), deals["n_stock"].astype(int) - 1] == deals["briscola"]).all()

    # Seat points are the points of the tricks each seat won.
    assert ((winners[:, :tricks] >= 0) & (winners[:, :tricks] < players)).all()
    assert (winners[:, tricks:] == -1).all()
    trick_points = POINTS[plays[:, :n_cards]].reshape(n, tricks, players).sum(axis=2)
    seat_points = np.zeros((n, players), dtype=int)
    for seat in range(players):
        seat_points[:, seat] = (trick_points * (winners[:, :tricks] == seat)).sum(axis=1)
    assert (results["seat_points"][:, :players] == seat_points).all()
    assert (results["seat_points"][:, players:] == -1).all()

    # Side points sum to 120; the winner is the side with strictly the most points.
    sides = n_sides(players)
    side_points = np.zeros((n, sides), dtype=int)
    for seat in range(players):
        side_points[:, seat % sides] += seat_points[:, seat]
    assert (results["side_points"][:, :sides] == side_points).all()
    assert (results["side_points"][:, sides:] == -1).all()
    assert (side_points.sum(axis=1) == 120).all()
    top = side_points.max(axis=1, keepdims=True)
    shared = (side_points == top).sum(axis=1) > 1
    expected_winner = np.where(shared, -1, side_points.argmax(axis=1))
    assert (results["winner_side"] == expected_winner).all()
    assert (results["briscola"] == deals["briscola"]).all()


@pytest.mark.parametrize("players, strategies", TABLES, ids=TABLE_IDS)
@pytest.mark.parametrize("redeal", ["off", "ace-three"])
def test_invariants_over_many_deals(players, strategies, redeal):
    config = RunConfig(players=players, strategies=strategies, deals=5000, seed=2024, rules=Rules(trump_redeal=redeal))
    check_batch(play_batch(config, 0, 5000, trace=True), players)


@settings(max_examples=30)
@given(
    table=st.sampled_from(TABLES),
    seed=st.integers(0, 2**63 - 1),
    first_deal=st.integers(0, 2**50),
    n_deals=st.integers(1, 600),
)
def test_invariants_for_any_seed(table, seed, first_deal, n_deals):
    players, strategies = table
    config = RunConfig(players=players, strategies=strategies, deals=n_deals, seed=seed)
    batch = play_batch(config, first_deal, n_deals, trace=True)
    assert (batch.results["deal"] == np.arange(first_deal, first_deal + n_deals)).all()
    check_batch(batch, players)


# ------------------------------------------------------------------ reproducibility


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads to compare with 1")
@pytest.mark.parametrize("players, strategies", TABLES, ids=TABLE_IDS)
def test_same_results_on_one_and_two_threads(players, strategies):
    def run(threads):
        config = RunConfig(players=players, strategies=strategies, deals=20_000, seed=77, threads=threads)
        return play_batch(config, 0, 20_000).results

    one, two = run(1), run(2)
    assert same(one, two)
    assert len(np.unique(one["seat_points"][:, 0])) > 10  # a real run, not a constant


@pytest.mark.parametrize("players, strategies", TABLES, ids=TABLE_IDS)
def test_batch_splits_give_the_same_deals(players, strategies):
    config = RunConfig(players=players, strategies=strategies, deals=1000, seed=5)
    whole = play_batch(config, 0, 1000, trace=True)
    parts = [play_batch(config, 0, 300, trace=True), play_batch(config, 300, 700, trace=True)]
    for field in ("results", "deals", "records"):
        assert same(getattr(whole, field), np.concatenate([getattr(p, field) for p in parts])), field


@settings(max_examples=20)
@given(
    table=st.sampled_from(TABLES),
    seed=st.integers(0, 2**63 - 1),
    first_deal=st.integers(0, 2**50),
    n_deals=st.integers(2, 700),
    cut=st.floats(0, 1),
    threads=st.sampled_from([1, 2]),
)
def test_any_split_gives_the_same_deals(table, seed, first_deal, n_deals, cut, threads):
    players, strategies = table
    config = RunConfig(players=players, strategies=strategies, deals=n_deals, seed=seed, threads=threads)
    split = 1 + int(cut * (n_deals - 2))
    whole = play_batch(config, first_deal, n_deals, trace=True)
    head = play_batch(config, first_deal, split, trace=True)
    tail = play_batch(config, first_deal + split, n_deals - split, trace=True)
    for field in ("results", "deals", "records"):
        joined = np.concatenate([getattr(head, field), getattr(tail, field)])
        assert same(getattr(whole, field), joined), field


def test_different_seeds_give_different_deals():
    config = RunConfig(players=2, strategies=("random", "random"), deals=100, seed=1)
    other = RunConfig(players=2, strategies=("random", "random"), deals=100, seed=2)
    a, b = play_batch(config, 0, 100, trace=True), play_batch(other, 0, 100, trace=True)
    assert (a.deals["hands"] != b.deals["hands"]).any(axis=(1, 2)).sum() > 95


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_deal_does_not_depend_on_the_strategies(players):
    """The dealer has its own random stream: the same seed deals the same cards whoever
    plays them."""

    def deals(strategies):
        config = RunConfig(players=players, strategies=strategies, deals=300, seed=31)
        return play_batch(config, 0, 300, trace=True).deals

    assert same(deals(("random",) * players), deals(("greedy",) * players))


@pytest.mark.parametrize("players", [4, 6])
def test_partner_view_does_not_change_random_or_greedy(players):
    """Neither built-in strategy looks at partners' hands, so partner_view=none and
    last3 must play every deal the same."""
    strategies = ("greedy", "random") * (players // 2)

    def run(view):
        config = RunConfig(players=players, strategies=strategies, deals=3000, seed=19, rules=Rules(partner_view=view))
        return play_batch(config, 0, 3000, trace=True)

    last3, none = run("last3"), run("none")
    assert same(last3.records, none.records) and same(last3.results, none.results)


def test_greedy_is_deterministic_and_random_is_not():
    """Greedy seats play the same cards under any seed for the same deal; random seats
    depend on their own streams."""
    deal_config = RunConfig(players=2, strategies=("random", "random"), deals=200, seed=3)
    deals = play_batch(deal_config, 0, 200, trace=True).deals

    greedy = [replay(RunConfig(players=2, strategies=("greedy", "greedy"), deals=200, seed=s), deals) for s in (1, 2)]
    assert same(greedy[0].records, greedy[1].records)
    random = [replay(RunConfig(players=2, strategies=("random", "random"), deals=200, seed=s), deals) for s in (1, 2)]
    assert not same(random[0].records, random[1].records)
