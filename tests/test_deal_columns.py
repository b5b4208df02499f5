"""The deal in every result row: the deck as dealt and each seat's hand, dealt again at
the boundary (kernels/decks_nb.py), are the cards the engine played with."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import sim
from sim.base.config import Rules, RunConfig, n_sides
from sim.base.results import DECK_SIZE, card_matrix, deal_columns, hand_size, rows_frame
from sim.present.analysis import Results
from sim.present.features import deal_features, hand_features
from sim.runtime.play import play_batch

TABLES = [
    (2, Rules()),
    (2, Rules(trump_redeal="ace-three")),
    (3, Rules()),  # a random two leaves the pack
    (4, Rules()),
    (5, Rules()),
    (6, Rules()),
]


@pytest.mark.parametrize("players, rules", TABLES)
def test_the_deck_and_hands_are_the_cards_the_engine_dealt(players, rules):
    config = RunConfig(players=players, strategies=("random",) * players, deals=300, seed=7, rules=rules)
    batch = play_batch(config, 1000, 300, trace=True, deal_step=3)  # deal indices 1000, 1003, ...
    deck, *hands = (card_matrix(column) for column in deal_columns(batch.results["deal"], config))
    dealt = batch.deals
    size, n_stock = hand_size(players), int(dealt["n_stock"][0])
    for seat in range(players):
        assert (hands[seat] == dealt["hands"][:, seat, :size]).all()
        assert (deck[:, seat : size * players : players] == dealt["hands"][:, seat, :size]).all()
    stock = deck[:, size * players : size * players + n_stock]
    assert (stock == dealt["stock"][:, :n_stock]).all()
    if n_stock:
        assert (stock[:, -1] == dealt["briscola"]).all()  # the face-up card is drawn last
    n_cards = DECK_SIZE - int(dealt["n_removed"][0])
    assert (deck[:, n_cards:] == -1).all()
    in_pack = np.sort(deck[:, :n_cards], axis=1)
    removed = dealt["removed"][:, : DECK_SIZE - n_cards]
    whole = np.sort(np.concatenate([in_pack, removed], axis=1), axis=1)
    assert (whole == np.arange(DECK_SIZE)).all()  # every card once, the removed twos aside


def test_both_games_of_a_duplicate_deal_hold_the_same_cards_and_files_carry_them(tmp_path):
    out = tmp_path / "c.parquet"
    sim.compare("expert", "greedy", players=4, deals=50, seed=3, out=out)
    deals = sim.read_results(out).deals
    assert {"deck", *(f"hand_{seat}" for seat in range(4))} <= set(deals.columns)
    by_game = [deals[deals["game"] == game].sort_values("deal") for game in sorted(deals["game"].unique())]
    assert len(by_game) == 2
    first, second = (card_matrix(games["deck"]) for games in by_game)
    assert (first == second).all()
    assert len({tuple(deck) for deck in first}) == 50  # and each deal its own


def hands_frame(hands: list[list[list[int]]], briscola: list[int]) -> pd.DataFrame:
    """Rows of a 2-player run holding only what ``deal_features`` reads."""
    columns = {"briscola": pa.array(briscola, pa.int8())}
    for seat in range(len(hands[0])):
        cards = np.array([row[seat] for row in hands], dtype=np.int8)
        columns[f"hand_{seat}"] = pa.FixedSizeListArray.from_arrays(pa.array(cards.ravel()), 3)
    return rows_frame(pa.table(columns))


def test_deal_features_of_hand_made_deals():
    # Trumps are Denari (suit 0: codes 0-9). Seat 0: Ace and Three of trumps and the King
    # of Coppe (19); seat 1: the Jack of trumps (7), the Two of Coppe (11), the Ace of Spade (20).
    deals = hands_frame([[[0, 2, 19], [7, 11, 20]]], briscola=[5])
    features = hand_features(deals, 2, {})
    row = features.iloc[0]
    assert (row.trumps_0, row.trump_points_0, row.trump_ace_0, row.trump_three_0) == (2, 21, True, True)
    assert (row.trumps_1, row.trump_points_1, row.trump_ace_1, row.trump_three_1) == (1, 2, False, False)
    assert (row.dealt_points_0, row.dealt_points_1) == (25, 13)
    assert (row.side_trumps_0, row.side_trumps_1, row.briscola_points, row.trump_suit, row.leader) == (2, 1, 0, 0, 0)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_every_trump_is_dealt_to_a_seat_or_left_in_the_stock(players):
    run = sim.simulate(",".join(["random"] * players), players=players, deals=200, seed=5)
    loaded = Results(run.results.deals, {"players": players, "seed": 5}, "simulate")
    features = deal_features(loaded)
    deck = card_matrix(run.results.deals["deck"])
    trump = run.results.deals["briscola"].to_numpy() // 10
    in_pack = (deck // 10 == trump[:, None]) & (deck >= 0)
    dealt = sum(features[f"trumps_{seat}"].to_numpy().astype(int) for seat in range(players))
    stock_trumps = in_pack[:, 3 * players :].sum(axis=1)
    assert (dealt + stock_trumps == in_pack.sum(axis=1)).all()
    assert set(in_pack.sum(axis=1)) <= {9, 10}  # a suit, less its two where twos leave the pack
    assert (sum(features[f"side_trumps_{side}"] for side in range(n_sides(players))) == dealt).all()
