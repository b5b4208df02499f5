"""What a player can work out from its view (strategies/knowledge_nb.py), checked against
the true state of real deals; and ``pimc``'s deals of the hidden cards, checked to make
every consistent deal equally likely."""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

from sim.app.check import view_record
from sim.base import reference
from sim.base.config import Rules, RunConfig
from sim.runtime.play import deal_cards, play_batch, view_after_plays
from strategies.endgame_nb import new_hands_nb
from strategies.knowledge_nb import (
    MINE,
    OUT,
    PLAYED,
    SIGNALLED,
    UNSEEN,
    VISIBLE,
    card_places_nb,
    hand_sizes_nb,
    mark_signalled_nb,
)
from strategies.worlds_nb import deal_world_nb

TABLES = [(2, Rules()), (3, Rules()), (4, Rules()), (4, Rules(partner_view="none")), (6, Rules())]


def positions(players: int, rules: Rules, deals: int = 12):
    """Every decision of some real deals: (the view as a record, the truth) where the
    truth is every seat's hand and the face-down stock (the briscola last)."""
    config = RunConfig(players=players, strategies=("greedy",) * players, deals=deals, seed=6, rules=rules, threads=1)
    batch = play_batch(config, 0, deals, trace=True)
    for deal, record in zip(batch.deals, batch.records):
        game = reference.Game(players, *deal_cards(deal))
        plays = [int(c) for c in record["plays"] if c >= 0]
        for play, card in enumerate(plays):
            view = view_after_plays(config, deal, plays[:play])
            yield view_record(view, players, deal), game, deal
            game.play(card)
            if len(game.table) == players:
                game.end_trick()


@pytest.mark.parametrize("players, rules", TABLES)
def test_card_places_and_hand_sizes_match_the_truth(players, rules):
    places = np.empty(40, dtype=np.int64)
    sizes = np.zeros(6, dtype=np.int64)
    for record, game, deal in positions(players, rules):
        view = record[0]
        seat = int(view["seat"])
        unseen = card_places_nb(view, places)
        shown = {int(c) for row in view["partner_hands"] for c in row if c >= 0}
        briscola = {int(view["briscola"])} if view["briscola"] >= 0 else set()
        hidden = {c for s in range(players) if s != seat for c in game.hands[s] if c not in shown}
        hidden |= set(game.draw_pile) - briscola  # the face-down stock
        assert {c for c in range(40) if places[c] == UNSEEN} == hidden and unseen == len(hidden)
        assert {c for c in range(40) if places[c] == MINE} == set(game.hands[seat])
        assert {c for c in range(40) if places[c] == VISIBLE} == shown | briscola
        assert {c for c in range(40) if places[c] == PLAYED} == {int(c) for c in view["history"] if c >= 0}
        out = {c for c in range(40) if places[c] == OUT}
        assert out == set(int(c) for c in deal["removed"][: int(deal["n_removed"])])
        hand_sizes_nb(view, sizes)
        assert list(sizes[:players]) == [len(hand) for hand in game.hands]


def chi_square_critical(dof: int, z: float = 3.09) -> float:
    """The chi-square value exceeded with probability about 0.001 (Wilson-Hilferty)."""
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def late_position(rules: Rules, wanted=lambda view: True):
    """A 4-player decision once the stock is empty, every hand holding two cards, leading."""
    for record, game, _ in positions(4, rules, deals=40):
        view = record[0]
        if view["stock_size"] == 0 and view["n_table"] == 0 and view["n_hand"] == 2 and wanted(view):
            return view, game
    pytest.fail("no position with two cards in every hand")


def signal_of(hand, trump_suit):
    return reference.trump_signal(hand, trump_suit)


@pytest.mark.parametrize("signals", ["none", "trumps"])
def test_pimc_deals_every_consistent_hidden_deal_equally_often(signals):
    """At a 4-player table without partners' cards shown, once the stock is empty and
    the three other seats hold two cards each, the six hidden cards can lie in 90 ways:
    ``pimc``'s deals must make each equally likely. Under signals=trumps only the ways
    where the partner holds exactly the trump honours it signals are consistent: those
    alone must happen, equally often."""
    rules = Rules(partner_view="none", signals=signals)

    def trumps_hidden(view):  # a position where the signal has something to say
        trump = int(view["trump_suit"])
        honours = [c for c in range(40) if view["played_by"][c] < 0 and signal_of([c], trump)]
        return signals == "none" or len(set(honours) - {int(c) for c in view["hand"]}) >= 2

    view, game = late_position(rules, trumps_hidden)
    seat, partner, trump = int(view["seat"]), (int(view["seat"]) + 2) % 4, int(view["trump_suit"])
    places, sizes = np.empty(40, dtype=np.int64), np.zeros(6, dtype=np.int64)
    card_places_nb(view, places)
    marked = mark_signalled_nb(view, places) if signals == "trumps" else 0
    assert marked == bin(signal_of(game.hands[partner], trump)).count("1") * (signals == "trumps")
    assert {c for c in range(40) if places[c] == SIGNALLED} == (
        {c for c in game.hands[partner] if signal_of([c], trump)} if signals == "trumps" else set()
    )
    hand_sizes_nb(view, sizes)
    hands, n_hand = new_hands_nb()
    stock = np.empty(40, dtype=np.int64)
    rng = np.array([12345], dtype=np.uint64)
    draws = 9000
    counts = collections.Counter()
    for _ in range(draws):
        deal_world_nb(view, places, sizes, rng, hands, n_hand, stock, signals == "trumps")
        counts[tuple(frozenset(hands[s, : n_hand[s]].tolist()) for s in range(4) if s != seat)] += 1
        assert sorted(hands[seat, : n_hand[seat]].tolist()) == sorted(game.hands[seat])
    consistent = consistent_deals(game, seat, partner, trump, signals)
    assert set(counts) == consistent  # every consistent deal happens, and nothing else
    expected = draws / len(consistent)
    chi_square = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi_square < chi_square_critical(len(consistent) - 1), chi_square
    if signals == "trumps":
        assert len(consistent) < 90  # the signal did rule some deals out


def consistent_deals(game, seat, partner, trump, signals):
    """Every way the others' cards could lie, seen from ``seat``, by brute force."""
    import itertools

    others = [s for s in range(4) if s != seat]
    hidden = sorted(c for s in others for c in game.hands[s])
    deals = set()
    for order in itertools.permutations(hidden):
        hands = {s: frozenset(order[2 * k : 2 * k + 2]) for k, s in enumerate(others)}
        if signals == "none" or signal_of(hands[partner], trump) == signal_of(game.hands[partner], trump):
            deals.add(tuple(hands[s] for s in others))
    return deals
