"""A strategy sees only what its player may see, and sees it right.

The real engine code runs as plain Python (NUMBA_DISABLE_JIT=1) with a spy in place of
the strategy dispatch; every view handed to a strategy is checked against the true
state of the deal rebuilt from its trace.
"""

import json
import os
import subprocess
import sys

import pytest

from kernels.enums import VIEW_DTYPE
from tests.helpers import REPO

VISIBLE_FIELDS = {
    "seat", "players", "trump_suit", "briscola", "face_up", "face_up_holder", "removed_two", "stock_size", "trick",
    "leader", "n_table", "n_hand", "table", "hand", "partner_hands", "partner_trumps", "points", "played_by", "n_played", "history",
    "trick_winners", "bid", "bidder", "seat_bids", "passed", "max_bid", "caller", "called", "target", "partner",
}  # fmt: skip
CHIAMATA_FIELDS = {"bid", "bidder", "seat_bids", "passed", "max_bid", "caller", "called", "target", "partner"}
POINTS = {0: 11, 2: 10, 9: 4, 8: 3, 7: 2}


def test_the_view_has_no_field_beyond_what_a_player_may_see():
    assert set(VIEW_DTYPE.names) == VISIBLE_FIELDS


def signal_of(hand, trump_suit):
    """The trump honours of a hand as signals=trumps shows them (written apart from the engine's)."""
    bits = {0: 1, 2: 2, 9: 4, 8: 8, 7: 16}
    return sum(bits.get(c % 10, 0) for c in hand if c // 10 == trump_suit)


def spy_run(players, partner_view, n_deals=6, signals="none"):
    result = subprocess.run(
        [sys.executable, str(REPO / "tests" / "view_spy.py"), str(players), partner_view, str(n_deals), signals],
        cwd=REPO, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def true_states(trace):
    """Yields, for every decision of a traced deal, what the seat to play truly faces."""
    players = trace["players"]
    size = len(trace["hands"]) // players
    hands = [list(trace["hands"][size * s : size * (s + 1)]) for s in range(players)]
    stock = list(trace["stock"]) + ([trace["briscola"]] if trace["briscola"] >= 0 else [])  # none at Chiamata
    played_by = [-1] * 40
    points = [0] * players
    history, winners = [], []
    leader, plays, face_up_holder = 0, iter(trace["plays"]), -1
    for trick, winner in enumerate(trace["trick_winners"]):
        table = []
        for k in range(players):
            seat = (leader + k) % players
            yield {"seat": seat, "trick": trick, "leader": leader, "table": list(table),
                   "hands": [list(h) for h in hands], "stock_size": len(stock),
                   "played_by": list(played_by), "points": list(points), "history": list(history),
                   "trick_winners": list(winners), "face_up_holder": face_up_holder}  # fmt: skip
            card = next(plays)
            hands[seat].remove(card)
            table.append(card)
            played_by[card] = seat
            history.append(card)
        points[winner] += sum(POINTS.get(c % 10, 0) for c in table)
        winners.append(winner)
        if stock:
            for k in range(players):
                hands[(winner + k) % players].append(stock.pop(0))
            face_up_holder = (winner + players - 1) % players if not stock else -1  # the last card, the face-up one
        leader = winner


@pytest.mark.parametrize(
    "players, partner_view, signals",
    [(2, "last3", "none"), (3, "last3", "none"), (4, "last3", "none"), (4, "none", "trumps"), (6, "last3", "trumps"),
     (6, "none", "none")],
)  # fmt: skip
def test_every_view_shows_exactly_the_players_information(players, partner_view, signals):
    run = spy_run(players, partner_view, signals=signals)
    views = iter(run["views"])
    partners_seen = signals_seen = 0
    for trace in run["traces"]:
        for truth in true_states(trace):
            view = next(views)
            assert view["phase"] == "play" and view["caller"] == view["partner"] == view["bid"] == -1
            seat = truth["seat"]
            assert view["seat"] == seat and view["players"] == players
            assert view["rng_shape"] == [1]
            assert view["trick"] == truth["trick"] and view["leader"] == truth["leader"]
            own = truth["hands"][seat]
            assert view["n_hand"] == len(own)
            assert view["hand"] == own + [-1] * (8 - len(own))
            assert view["n_table"] == len(truth["table"])
            assert view["table"] == truth["table"] + [-1] * (6 - len(truth["table"]))
            assert view["played_by"] == truth["played_by"]
            assert view["n_played"] == len(truth["history"])
            assert view["history"] == truth["history"] + [-1] * (40 - len(truth["history"]))
            assert view["trick_winners"] == truth["trick_winners"] + [-1] * (20 - len(truth["trick_winners"]))
            assert view["points"][:players] == truth["points"]
            assert view["stock_size"] == truth["stock_size"]
            assert view["trump_suit"] == trace["briscola"] // 10
            assert view["briscola"] == (trace["briscola"] if truth["stock_size"] else -1)
            assert view["face_up"] == trace["briscola"] and view["face_up_holder"] == truth["face_up_holder"]
            taker = truth["face_up_holder"]
            assert (
                taker == -1
                or trace["briscola"] in truth["hands"][taker]
                or truth["played_by"][trace["briscola"]] == taker
            )
            assert view["removed_two"] == (trace["removed"][0] if players == 3 else -1)
            for other in range(6):
                shown = view["partner_hands"][other]
                visible = (partner_view == "last3" and players >= 4 and truth["stock_size"] == 0
                           and other < players and other != seat and other % 2 == seat % 2)  # fmt: skip
                if visible:
                    hand = truth["hands"][other]
                    assert shown == hand + [-1] * (3 - len(hand))
                    partners_seen += 1
                else:
                    assert shown == [-1] * 3, f"seat {seat} sees seat {other}'s cards"
                partner = other < players and players >= 4 and other != seat and other % 2 == seat % 2
                if signals == "trumps" and partner and truth["trick"] > 0:
                    assert view["partner_trumps"][other] == signal_of(truth["hands"][other], trace["briscola"] // 10)
                    signals_seen += view["partner_trumps"][other] > 0
                else:
                    assert view["partner_trumps"][other] == -1, f"seat {seat} sees seat {other}'s trump signal"
    assert next(views, None) is None
    if partner_view == "last3" and players >= 4:
        assert partners_seen > 0
    if signals == "trumps":
        assert signals_seen > 0


def test_the_hostile_plug_in_scribbles_over_every_field():
    from tests.hostile_strategy import SCRIBBLED

    assert set(SCRIBBLED) == set(VIEW_DTYPE.names)


HOSTILE_FILE = str(REPO / "tests" / "hostile_strategy.py")
# Seat 0 is hostile (or its polite twin); the others read their views closely: plug-ins
# (expert counts cards from played_by and points; highest reads table and hand) and an
# inlined strategy (greedy).
OTHERS = ["expert", "greedy", "highest", "expert", "greedy"]


@pytest.mark.parametrize(
    "players, partner_view, signals",
    [(2, "last3", "none"), (3, "last3", "none"), (4, "last3", "trumps"), (4, "none", "none"), (5, "last3", "none"),
     (6, "last3", "none"), (6, "none", "trumps")],
)  # fmt: skip
def test_a_strategy_scribbling_over_its_view_changes_nothing_for_anyone_else(players, partner_view, signals):
    from sim.base.config import Rules, RunConfig
    from sim.base.trace import trace_rows
    from sim.runtime.play import play_batch

    rules = Rules(partner_view=partner_view, signals=signals) if players in (4, 6) else Rules()
    plays = {}
    for first in ("hostile", "polite"):
        strategies = (first, *OTHERS[: players - 1])
        config = RunConfig(players=players, strategies=strategies, deals=300, seed=4, rules=rules,
                           strategy_files=(HOSTILE_FILE,), threads=2)  # fmt: skip
        batch = play_batch(config, 0, 300, trace=True)
        decisions = [(row["auction"], row["called"], row["plays"]) for row in trace_rows(batch)]
        plays[first] = (decisions, batch.results)
    assert plays["hostile"][0] == plays["polite"][0]  # every decision
    assert plays["hostile"][1].tobytes() == plays["polite"][1].tobytes()  # every result


def auction_states(trace):
    """Yields what each seat truly faces at each auction decision of a Chiamata deal,
    then at the call: (phase, seat, bid, bidder, seat_bids, passed)."""
    bid, bidder, seat_bids, passed, seat = -1, -1, [-1] * 6, [0] * 6, 0
    for action in trace["auction"]:
        while passed[seat]:
            seat = (seat + 1) % 5
        yield "bid", seat, bid, bidder, list(seat_bids), list(passed)
        if action == -1:
            passed[seat] = 1
        else:
            bid, bidder, seat_bids[seat] = action, seat, action
        seat = (seat + 1) % 5
    if trace["called"] >= 0:
        yield "call", bidder, bid, bidder, list(seat_bids), list(passed)


def test_every_chiamata_view_shows_exactly_the_players_information():
    """At 5 players: the auction so far while bidding; then the caller, the card called
    and the target for all, and the partner only to itself until the card is played."""
    run = spy_run(5, "last3", n_deals=12)
    views = iter(run["views"])
    hidden_partners = revealed = 0
    for trace in run["traces"]:
        hands = [trace["hands"][8 * s : 8 * (s + 1)] for s in range(5)]
        for phase, seat, bid, bidder, seat_bids, passed in auction_states(trace):
            view = next(views)
            assert view["phase"] == phase and view["seat"] == seat and view["players"] == 5
            assert view["hand"] == hands[seat] and view["n_hand"] == 8 and view["rng_shape"] == [1]
            assert (view["bid"], view["bidder"], view["seat_bids"], view["passed"]) == (bid, bidder, seat_bids, passed)
            assert view["max_bid"] == 68 and view["trump_suit"] == -1 and view["briscola"] == -1
            assert view["face_up"] == view["face_up_holder"] == -1
            assert view["caller"] == (seat if phase == "call" else -1)
            assert view["called"] == view["target"] == view["partner"] == -1
            assert view["history"] == [-1] * 40 and view["points"] == [0] * 6
        if trace["called"] < 0:
            continue
        called, caller = trace["called"], bidder
        holder = next(s for s in range(5) if called in hands[s])
        target = 61 if bid <= 9 else bid + 52
        for truth in true_states(trace):
            view = next(views)
            seat = truth["seat"]
            assert view["phase"] == "play" and seat == view["seat"]
            assert view["hand"] == truth["hands"][seat] + [-1] * (8 - len(truth["hands"][seat]))
            assert view["table"] == truth["table"] + [-1] * (6 - len(truth["table"]))
            assert view["history"] == truth["history"] + [-1] * (40 - len(truth["history"]))
            assert view["played_by"] == truth["played_by"] and view["points"][:5] == truth["points"]
            assert (view["caller"], view["called"], view["target"], view["bid"]) == (caller, called, target, bid)
            assert view["trump_suit"] == called // 10 and view["briscola"] == -1 and view["stock_size"] == 0
            assert view["face_up"] == view["face_up_holder"] == -1
            out = truth["played_by"][called] >= 0
            assert view["partner"] == (holder if out or seat == holder else -1), f"seat {seat} learns the partner"
            hidden_partners += view["partner"] == -1
            revealed += out
            assert view["partner_hands"] == [[-1] * 3] * 6 and view["partner_trumps"] == [-1] * 6
    assert next(views, None) is None
    assert hidden_partners > 0 and revealed > 0
