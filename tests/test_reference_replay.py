"""The kernels' deals, replayed card by card by the plain reference engine (sim.base.reference).

For every table and rule option, with random and greedy seats mixed, hundreds of traced
deals are replayed: the pack, every card played, the drawing order, trick winners,
greedy's every move, seat and side points and the winner must all agree.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.base import reference
from sim.base.config import Rules, RunConfig
from sim.base.trace import trace_rows
from sim.runtime.play import play_batch
from tests.helpers import replay_and_compare

DEALS_PER_CASE = 300

STRATEGY_MIXES = {
    2: [("random", "random"), ("greedy", "random"), ("random", "greedy"), ("greedy", "greedy")],
    3: [("greedy", "random", "random"), ("random", "greedy", "greedy"), ("greedy", "greedy", "greedy")],
    4: [("greedy", "random", "random", "greedy"), ("random", "greedy", "greedy", "random"), ("greedy",) * 4],
    6: [("greedy", "random") * 3, ("random", "random", "greedy", "greedy", "greedy", "random"), ("greedy",) * 6],
}


def rule_variants(players: int) -> list[Rules]:
    """Every combination of the rule options that apply to the table."""
    redeals = ("off", "ace-three")
    if players == 3:
        twos = ("random", "denari", "coppe", "spade", "bastoni")
        return [Rules(trump_redeal=r, removed_two=t) for r, t in itertools.product(redeals, twos)]
    if players in (4, 6):
        views = ("last3", "none")
        return [Rules(trump_redeal=r, partner_view=v) for r, v in itertools.product(redeals, views)]
    return [Rules(trump_redeal=r) for r in redeals]


CASES = [
    (players, rules, strategies)
    for players in (2, 3, 4, 6)
    for rules in rule_variants(players)
    for strategies in STRATEGY_MIXES[players]
]


def case_id(case) -> str:
    players, rules, strategies = case
    options = [f"redeal={rules.trump_redeal}"]
    if players == 3:
        options.append(f"two={rules.removed_two}")
    if players in (4, 6):
        options.append(f"view={rules.partner_view}")
    return f"{players}p-{'-'.join(options)}-{','.join(s[0] for s in strategies)}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_kernel_deals_follow_the_rules(case):
    players, rules, strategies = case
    index = CASES.index(case)
    config = RunConfig(players=players, strategies=strategies, deals=DEALS_PER_CASE, seed=1000 + index, rules=rules)
    first_deal = index * 7919  # a different stretch of deals for each case
    assert replay_and_compare(config, first_deal, DEALS_PER_CASE) == DEALS_PER_CASE


@settings(max_examples=25)
@given(
    players=st.sampled_from([2, 3, 4, 6]),
    seed=st.integers(0, 2**63 - 1),
    first_deal=st.integers(0, 2**40),
    greedy_mask=st.integers(0, 63),
    redeal=st.sampled_from(["off", "ace-three"]),
)
def test_any_seed_and_deal_offset_follows_the_rules(players, seed, first_deal, greedy_mask, redeal):
    strategies = tuple("greedy" if greedy_mask >> seat & 1 else "random" for seat in range(players))
    config = RunConfig(players=players, strategies=strategies, deals=20, seed=seed, rules=Rules(trump_redeal=redeal))
    replay_and_compare(config, first_deal, 20)


def test_random_removed_two_takes_every_suit():
    config = RunConfig(players=3, strategies=("random",) * 3, deals=2000, seed=42)
    rows = trace_rows(play_batch(config, 0, 2000, trace=True))
    removed = [row["removed"][0] for row in rows]
    counts = {two: removed.count(two) for two in (1, 11, 21, 31)}
    assert sum(counts.values()) == len(rows)
    # Each suit has probability 1/4: 500 expected, standard deviation about 19.4.
    assert all(400 < count < 600 for count in counts.values()), counts


# ------------------------------------------------------------------ the checks can fail


@pytest.fixture(scope="module")
def team_rows():
    """Traced 4-player deals, greedy against random."""
    config = RunConfig(players=4, strategies=("greedy", "random", "greedy", "random"), deals=50, seed=9)
    rows = trace_rows(play_batch(config, 0, 50, trace=True))
    for row in rows:
        reference.replay_trace(row, greedy_seats=(0, 2))
    return rows


def test_reference_catches_a_card_dealt_twice(team_rows):
    row = dict(team_rows[0])
    row["stock"] = [row["hands"][0]] + row["stock"][1:]
    with pytest.raises(reference.RuleViolation, match="dealt"):
        reference.replay_trace(row)


def test_reference_catches_a_wrong_drawing_order(team_rows):
    for row in team_rows[:20]:
        stock = list(row["stock"])
        stock[0], stock[1] = stock[1], stock[0]  # the winner's card goes to the next seat
        with pytest.raises(reference.RuleViolation, match="not in the hand"):
            reference.replay_trace(dict(row, stock=stock))


def test_reference_catches_the_briscola_drawn_first(team_rows):
    for row in team_rows[:20]:
        stock = [row["briscola"]] + list(row["stock"][:-1])
        moved = dict(row, stock=stock, briscola=row["stock"][-1])
        with pytest.raises(reference.RuleViolation):
            reference.replay_trace(moved)


def test_reference_catches_a_card_played_out_of_turn(team_rows):
    row = team_rows[0]
    plays = list(row["plays"])
    plays[0], plays[1] = plays[1], plays[0]  # seat 1's card played in seat 0's turn
    with pytest.raises(reference.RuleViolation, match="trick 0, seat 0") as caught:
        reference.replay_trace(dict(row, plays=plays))
    assert caught.value.deal == row["deal"] and caught.value.card == plays[0]


def test_reference_catches_a_wrong_trick_winner(team_rows):
    for row in team_rows[:20]:
        winners = list(row["trick_winners"])
        trick = 3
        winners[trick] = (winners[trick] + 1) % 4
        with pytest.raises(reference.RuleViolation, match=f"trick {trick}, .*trace says seat {winners[trick]}"):
            reference.replay_trace(dict(row, trick_winners=winners))


def test_reference_catches_wrong_points(team_rows):
    row = team_rows[0]
    points = list(row["seat_points"])
    points[0] += 1
    points[1] -= 1
    with pytest.raises(reference.RuleViolation, match="seat points"):
        reference.replay_trace(dict(row, seat_points=points))


def test_reference_catches_a_move_greedy_would_not_make(team_rows):
    caught = 0
    for row in team_rows:
        try:
            reference.replay_trace(row, greedy_seats=(1, 3))  # random seats, checked as greedy
        except reference.RuleViolation as error:
            assert "greedy should play" in str(error) and error.seat in (1, 3)
            caught += 1
    assert caught > len(team_rows) // 2


def test_reference_catches_a_missing_or_wrong_two():
    config = RunConfig(players=3, strategies=("random",) * 3, deals=10, seed=3, rules=Rules(removed_two="spade"))
    row = trace_rows(play_batch(config, 0, 1, trace=True))[0]
    assert row["removed"] == [21]
    reference.replay_trace(row, removed_two="spade")
    with pytest.raises(reference.RuleViolation, match="twos removed should be \\[11\\]"):
        reference.replay_trace(row, removed_two="coppe")


def test_reference_catches_a_two_removed_at_two_players():
    row = {"deal": 5, "players": 2, "hands": [0, 2, 3, 4, 5, 6], "briscola": 7, "stock": list(range(8, 40))}
    wrong_two = "deal 5: 2 players: the twos removed should be \\[\\], not \\[1\\]"
    with pytest.raises(reference.RuleViolation, match=wrong_two):
        reference.check_pack(dict(row, removed=[1]))
    with pytest.raises(reference.RuleViolation, match="deal 5, card 1 \\(2 of Denari\\): dealt 0 times"):
        reference.check_pack(dict(row, removed=[]))


def test_reference_catches_an_ace_or_three_face_up():
    config = RunConfig(players=2, strategies=("random",) * 2, deals=10, seed=4)
    rows = trace_rows(play_batch(config, 0, 200, trace=True))
    face_up = [row for row in rows if row["briscola"] % 10 in (0, 2)]  # an Ace or a Three
    assert face_up, "with no redeal, about one deal in five turns up an Ace or a Three"
    for row in face_up:
        reference.replay_trace(row, trump_redeal="off")
        with pytest.raises(reference.RuleViolation, match="Ace or a Three"):
            reference.replay_trace(row, trump_redeal="ace-three")


def test_reference_outcome_matches_numpy_scoring():
    """The reference's scoring against a second, vectorised computation."""
    config = RunConfig(players=3, strategies=("greedy", "random", "random"), deals=10, seed=12)
    batch = play_batch(config, 0, 500, trace=True)
    seat_points = batch.results["seat_points"][:, :3]
    top = seat_points.max(axis=1, keepdims=True)
    shared = (seat_points == top).sum(axis=1) > 1
    winner = np.where(shared, -1, seat_points.argmax(axis=1))
    for row, expected_winner in zip(trace_rows(batch), winner):
        assert reference.replay_trace(row).winner_side == expected_winner
