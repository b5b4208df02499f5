"""Briscola Chiamata (5 players): hand-made rule cases through the real engine, every
traced deal replayed by the reference engine, and invariants over many deals."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.enums import DEAL_DTYPE
from sim.base import reference
from sim.base.config import IllegalDecisionError, Rules, RunConfig
from sim.base.trace import trace_rows
from sim.runtime.play import play_batch, replay
from tests.helpers import REPO

SCRIPTED_FILE = str(REPO / "tests" / "chiamata_strategies.py")
HANDS = [list(range(8 * seat, 8 * seat + 8)) for seat in range(5)]  # seat s holds cards 8s .. 8s+7
ACE_SPADE, ACE_BASTONI, KNIGHT_SPADE, TWO_COPPE = 20, 30, 28, 11  # held by seats 2, 3, 3, 1


def chiamata_deal(hands=HANDS) -> np.ndarray:
    deal = np.zeros(1, dtype=DEAL_DTYPE)
    deal["players"], deal["hand_size"], deal["n_stock"], deal["n_removed"] = 5, 8, 0, 0
    deal["briscola"] = -1
    deal["stock"] = deal["removed"] = deal["hands"] = -1
    for seat, hand in enumerate(hands):
        deal["hands"][0, seat, :8] = hand
    return deal


def scripted(tops, card=ACE_BASTONI, raw=None) -> tuple[str, ...]:
    """Each seat bids up to its level in ``tops`` (-1: passes) and calls ``card``."""
    return tuple(
        f"scripted:top={top}:card={card}" + (f":raw={raw[seat]}" if raw and raw[seat] is not None else "")
        for seat, top in enumerate(tops)
    )


def play_scripted(tops, card=ACE_BASTONI, rules=None, raw=None):
    """Plays the hand-made deal; returns its trace row (replayed by the reference) and result."""
    rules = rules or Rules()
    config = RunConfig(players=5, strategies=scripted(tops, card, raw), deals=1, seed=1, rules=rules,
                       strategy_files=(SCRIPTED_FILE,), threads=1)  # fmt: skip
    batch = replay(config, chiamata_deal())
    row, result = trace_rows(batch)[0], batch.results[0]
    replayed = reference.replay_chiamata(row, rules.first_lead, rules.bid_multiplier, rules.auction)
    assert replayed["game_points"] == result["game_points"][:5].tolist()
    return row, result


def test_everyone_passing_throws_the_deal_in():
    row, result = play_scripted([-1] * 5)
    assert row["auction"] == [-1] * 5 and row["plays"] == [] and row["called"] == -1
    assert (result["caller"], result["made"], result["bid"], result["winner_side"]) == (-1, -1, -1, -1)
    assert result["game_points"][:5].tolist() == [0] * 5 and result["seat_points"][:5].tolist() == [0] * 5


def test_the_last_bidder_calls_and_the_holder_of_the_card_is_its_partner():
    row, result = play_scripted([-1, -1, 0, -1, -1], card=ACE_BASTONI)
    assert row["auction"] == [-1, -1, 0, -1, -1]  # seat 2 bids the Ace; all the others pass
    assert (result["caller"], result["partner"], result["called"], result["bid"]) == (2, 3, ACE_BASTONI, 0)
    assert result["target"] == 61
    side = int(result["seat_points"][2] + result["seat_points"][3])
    made = side >= 61
    assert result["made"] == made and result["side_points"][:2].tolist() == [side, 120 - side]
    sign = 1 if made else -1
    expected = [-sign, -sign, 2 * sign, sign, -sign]
    if result["cappotto"]:
        expected = [2 * x for x in expected]
    assert result["game_points"][:5].tolist() == expected


def test_calling_a_card_of_its_own_hand_plays_alone_against_four():
    row, result = play_scripted([-1, -1, 0, -1, -1], card=ACE_SPADE)
    assert result["caller"] == result["partner"] == 2
    made = int(result["seat_points"][2]) >= 61
    sign = (1 if made else -1) * (2 if result["cappotto"] else 1)
    assert result["game_points"][:5].tolist() == [-sign, -sign, 4 * sign, -sign, -sign]


def test_bidding_goes_round_until_every_seat_but_the_last_bidder_has_passed():
    row, result = play_scripted([2, 5, -1, -1, -1], card=KNIGHT_SPADE)
    assert row["auction"] == [0, 1, -1, -1, -1, 2, 3, -1]  # seat 0 stops at 2, seat 1 takes it at 3
    assert (result["caller"], result["bid"], result["called"]) == (1, 3, KNIGHT_SPADE)  # 3: the Knight


@pytest.mark.parametrize("auction, caller, bid, target", [("ranks", 1, 9, 61), ("points", 0, 68, 120)])
def test_the_auction_ends_at_the_highest_bid_the_rules_allow(auction, caller, bid, target):
    """Two seats outbid each other for ever: under auction=ranks the Two (level 9) ends
    it, else a bid of 120 points (level 68), which calls a Two."""
    row, result = play_scripted([68, 68, -1, -1, -1], card=TWO_COPPE, rules=Rules(auction=auction))
    assert (result["caller"], result["bid"], result["target"]) == (caller, bid, target)
    assert row["auction"][-1] == bid and len([a for a in row["auction"] if a >= 0]) == bid + 1


@pytest.mark.parametrize("first_lead, leader", [("eldest", 0), ("caller", 2)])
def test_first_lead(first_lead, leader):
    row, _ = play_scripted([-1, -1, 0, -1, -1], rules=Rules(first_lead=first_lead))
    assert row["plays"][0] == HANDS[leader][0]  # scripted plays its first card


@pytest.mark.parametrize("multiplier, factor", [("off", 1), ("on", 5)])
def test_bid_multiplier_multiplies_game_points_by_the_points_bid(multiplier, factor):
    _, result = play_scripted([68, 68, -1, -1, -1], card=TWO_COPPE, rules=Rules(bid_multiplier=multiplier))
    assert result["target"] == 120 and result["made"] == 0  # 120 points: nobody takes every point here
    assert abs(int(result["game_points"][0])) == 2 * factor * (2 if result["cappotto"] else 1)


def test_cappotto_doubles_the_game_points():
    """By the rules (the reference): a side taking every trick doubles everything."""
    plain, _ = reference.chiamata_game_points(0, 1, [60, 10, 20, 20, 10], [0, 2] * 4, 61)
    swept, made = reference.chiamata_game_points(0, 1, [100, 20, 0, 0, 0], [0, 1] * 4, 61)
    lost, _ = reference.chiamata_game_points(0, 1, [0, 0, 60, 40, 20], [2, 3, 4] * 2 + [2, 2], 61)
    assert made and swept == [4, 2, -2, -2, -2] and plain == [2, 1, -1, -1, -1] and lost == [-4, -2, 2, 2, 2]


@pytest.mark.parametrize(
    "raw, card, message",
    [([None, 0, None, None, None], ACE_BASTONI, "bid 0 at auction action 1"), ([70] + [None] * 4, 0, "bid 70"),
     ([None] * 5, 35, "called card 35 (6B): a call names a card of the bid's face")],
)  # fmt: skip
def test_an_illegal_bid_or_call_is_refused_in_one_line(raw, card, message):
    with pytest.raises(IllegalDecisionError, match=re.escape(message)) as error:
        play_scripted([0, -1, -1, -1, -1], card=card, raw=raw)
    assert "\n" not in str(error.value) and "scripted" in str(error.value)


# ------------------------------------------------------------------ the reference replays every deal

MIXES = [("random",) * 5, ("greedy", "random", "expert", "greedy", "random"), ("expert",) * 5]
VARIANTS = [Rules(), Rules(first_lead="caller", bid_multiplier="on"), Rules(auction="ranks")]


@pytest.mark.parametrize(
    "rules", VARIANTS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.changed().items()) or "default"
)
@pytest.mark.parametrize("strategies", MIXES, ids=lambda s: ",".join(x[0] for x in s))
def test_the_reference_engine_replays_every_traced_deal(rules, strategies):
    config = RunConfig(players=5, strategies=strategies, deals=300, seed=21, rules=rules, threads=2)
    batch = play_batch(config, 0, 300, trace=True)
    for row, result in zip(trace_rows(batch), batch.results):
        replayed = reference.replay_chiamata(row, rules.first_lead, rules.bid_multiplier, rules.auction)
        assert replayed["game_points"] == result["game_points"][:5].tolist()
        if replayed["caller"] is not None:
            fields = ("caller", "bid", "called", "partner", "target", "made")
            assert [int(result[f]) for f in fields] == [int(replayed[f]) for f in fields], row["deal"]


def test_a_tampered_trace_is_caught():
    config = RunConfig(players=5, strategies=("expert",) * 5, deals=20, seed=3, threads=1)
    row = next(r for r in trace_rows(play_batch(config, 0, 20, trace=True)) if r["called"] >= 0)
    with pytest.raises(reference.RuleViolation, match="game points"):
        reference.replay_chiamata(dict(row, game_points=[-x for x in row["game_points"]]))
    with pytest.raises(reference.RuleViolation):
        reference.replay_chiamata(dict(row, auction=row["auction"] + [-1]))
    with pytest.raises(reference.RuleViolation, match="face"):
        reference.replay_chiamata(dict(row, called=(row["called"] + 1) % 40))


# ------------------------------------------------------------------ invariants


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), strategy=st.sampled_from(["random", "greedy", "expert"]))
def test_invariants_over_many_deals(seed, strategy):
    config = RunConfig(players=5, strategies=(strategy,) * 5, deals=400, seed=seed, threads=2)
    batch = play_batch(config, 0, 400, trace=True)
    results, deals, records = batch.results, batch.deals, batch.records
    points = results["game_points"][:, :5].astype(int)
    assert (points.sum(axis=1) == 0).all()  # zero-sum
    called = results["caller"] >= 0
    assert (results["seat_points"][called, :5].sum(axis=1) == 120).all()
    hands = deals["hands"][:, :5, :8].reshape(len(deals), 40)
    assert (np.sort(hands, axis=1) == np.arange(40)).all()  # the whole pack, 8 to each
    for i in np.flatnonzero(called):
        plays = records["plays"][i]
        assert sorted(plays.tolist()) == list(range(40))  # every card played once
        holder = int(np.flatnonzero((deals["hands"][i, :5, :8] == results["called"][i]).any(axis=1))[0])
        assert holder == results["partner"][i]
        side = int(results["side_points"][i, 0])
        assert bool(results["made"][i]) == (side >= results["target"][i])
        assert reference.bid_face(int(results["bid"][i])) == results["called"][i] % 10
    assert (records["plays"][~called] == -1).all() and (points[~called] == 0).all()


def test_an_illegal_card_at_chiamata_is_refused_in_one_line():
    config = RunConfig(players=5, strategies=("grabber:top=0:card=30",) * 5, deals=1, seed=1,
                       strategy_files=(SCRIPTED_FILE,), threads=1)  # fmt: skip
    with pytest.raises(IllegalDecisionError, match=re.escape("returned card 39 (10B), not in its hand, at play 0")):
        replay(config, chiamata_deal())
