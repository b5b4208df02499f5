"""The built-in strategies: they play every table by the rules, the exact search of the
last tricks agrees with a brute-force search, and they are as reproducible as the engine."""

import itertools
import random

import numpy as np
import pytest

from sim.base import reference
from sim.base.config import RunConfig
from sim.runtime.play import play_batch
from strategies.endgame_nb import card_values_nb, new_hands_nb, new_stack_nb, search_nb
from strategies.library import BUILTIN
from tests.helpers import compare_tally, replay_and_compare

FAST = {"pimc": "pimc:samples=2:rollouts=1", "ismcts": "ismcts:iterations=12"}  # search, cut down to test the rules


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("name", [s.name for s in BUILTIN])
def test_every_builtin_plays_every_table_by_the_rules(name, players):
    spec = FAST.get(name, name)
    strategies = tuple(spec if seat % 2 == 0 else "random" for seat in range(players))
    config = RunConfig(players=players, strategies=strategies, deals=40, seed=17, threads=2)
    assert replay_and_compare(config, first_deal=1000, n_deals=40) == 40


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_pimc_modelling_good_opponents_plays_every_table_by_the_rules(players):
    spec = "pimc:samples=2:rollouts=1:opponent_random=0"  # its playouts and its 2-player end differ
    strategies = tuple(spec if seat % 2 == 0 else "random" for seat in range(players))
    config = RunConfig(players=players, strategies=strategies, deals=40, seed=17, threads=2)
    assert replay_and_compare(config, first_deal=1000, n_deals=40) == 40


def brute_force(hands, table, leader, players, trump, stock, max_side, sides=(0, 1, 0, 1, 0, 1)):
    """Points ``max_side`` takes from the table and the hands with best play: plain minimax,
    the seats' sides ``sides`` (seat % 2 unless given)."""
    if len(table) == players:
        winner = (leader + reference.trick_winner(table, trump)) % players
        gained = sum(reference.points(c) for c in table) if sides[winner] == max_side else 0
        hands = [list(h) for h in hands]
        if stock:
            for k in range(players):
                hands[(winner + k) % players].append(stock[k])
            stock = stock[players:]
        if not hands[winner]:
            return gained
        return gained + brute_force(hands, [], winner, players, trump, stock, max_side, sides)
    seat = (leader + len(table)) % players
    values = [
        brute_force(
            [h if s != seat else [c for c in h if c != card] for s, h in enumerate(hands)],
            table + [card],
            leader,
            players,
            trump,
            stock,
            max_side,
            sides,
        )  # fmt: skip
        for card in hands[seat]
    ]
    return max(values) if sides[seat] == max_side else min(values)


def random_position(rng, players, hand_size, n_table, with_stock):
    cards = rng.sample(range(40), players * hand_size + (players if with_stock else 0))
    leader = rng.randrange(players)
    hands = [cards[s * hand_size : (s + 1) * hand_size] for s in range(players)]
    stock = cards[players * hand_size :]
    table = []
    for k in range(n_table):  # the first seats of the trick have played one card each
        seat = (leader + k) % players
        table.append(hands[seat].pop())
    return hands, table, leader, stock


@pytest.mark.parametrize(
    "players, hand_size, with_stock", [(2, 3, False), (2, 3, True), (4, 2, False), (4, 2, True), (4, 3, False)]
)
def test_exact_search_agrees_with_brute_force(players, hand_size, with_stock):
    rng = random.Random(players * 10 + hand_size + with_stock)
    for case in range(60):
        n_table = case % players
        hands, table, leader, stock = random_position(rng, players, hand_size, n_table, with_stock)
        trump = rng.randrange(4)
        seat = (leader + n_table) % players
        work, n_hand = new_hands_nb()
        for s, hand in enumerate(hands):
            work[s, : len(hand)] = hand
            n_hand[s] = len(hand)
        values = np.zeros(3)
        card_values_nb(work, n_hand, np.array(table + [-1] * 6, dtype=np.int8), n_table, leader, players, trump,
                       np.array(stock, dtype=np.int64), len(stock), seat, values)  # fmt: skip
        for k, card in enumerate(hands[seat]):
            rest = [h if s != seat else [c for c in h if c != card] for s, h in enumerate(hands)]
            expected = brute_force(rest, table + [card], leader, players, trump, stock, seat % 2)
            assert values[k] == expected, (hands, table, leader, trump, stock, card)
        assert n_hand[:players].tolist() == [len(h) for h in hands]  # the search put everything back


@pytest.mark.parametrize("players, hand_size", [(3, 3), (5, 2)])
def test_exact_search_between_any_two_sides_agrees_with_brute_force(players, hand_size):
    """The search ``pimc`` runs at every table: at 3 players this seat against the other
    two together, at Briscola Chiamata the caller's side (any seats) against the rest."""
    rng = random.Random(players * 100 + hand_size)
    for case in range(40):
        n_table = case % players
        hands, table, leader, stock = random_position(rng, players, hand_size, n_table, False)
        trump, seat = rng.randrange(4), (leader + n_table) % players
        if players == 3:
            sides = [0 if s == seat else 1 for s in range(players)]
        else:
            callers = set(rng.sample(range(players), rng.choice((1, 2))))
            sides = [0 if s in callers else 1 for s in range(players)]
        work, n_hand = new_hands_nb()
        for s, hand in enumerate(hands):
            work[s, : len(hand)] = hand
            n_hand[s] = len(hand)
        plays, stack = np.full(46, -1, dtype=np.int64), new_stack_nb()
        plays[:n_table] = table
        for k, card in enumerate(list(hands[seat])):
            work[seat, k], work[seat, len(hands[seat]) - 1] = work[seat, len(hands[seat]) - 1], card
            n_hand[seat] -= 1
            plays[n_table] = card
            value = search_nb(work, n_hand, plays, n_table + 1, 0, leader, players, trump, np.zeros(0, dtype=np.int64),
                              0, 0, np.array(sides + [0] * (6 - players)), sides[seat], stack)  # fmt: skip
            n_hand[seat] += 1
            work[seat, len(hands[seat]) - 1], work[seat, k] = work[seat, k], card
            rest = [h if s != seat else [c for c in h if c != card] for s, h in enumerate(hands)]
            assert value == brute_force(rest, table + [card], leader, players, trump, [], sides[seat], sides), (
                hands, table, leader, trump, sides, card)  # fmt: skip
        assert n_hand[:players].tolist() == [len(h) for h in hands]


@pytest.mark.parametrize("players", [2, 4])
def test_search_based_play_is_the_same_on_any_number_of_threads(players):
    strategies = ("pimc:samples=4", "expert") * (players // 2)
    runs = [play_batch(RunConfig(players=players, strategies=strategies, deals=64, seed=9, threads=t), 0, 64)
            for t in (1, 2)]  # fmt: skip
    assert np.array_equal(runs[0].results, runs[1].results)


def test_expert_beats_greedy_from_either_seat():
    scores = []
    for pair in itertools.permutations(("expert", "greedy")):
        config = RunConfig(players=2, strategies=pair, deals=3000, seed=21, threads=2)
        results = play_batch(config, 0, 3000).results
        expert_side = pair.index("expert")
        wins = np.mean(results["winner_side"] == expert_side)
        draws = np.mean(results["winner_side"] == -1)
        scores.append(wins + draws / 2)
    assert min(scores) > 0.55, scores


@pytest.mark.parametrize("players", [3, 4, 6])
def test_expert_beats_greedy_at_every_bigger_table(players):
    """On duplicate deals, ``expert`` against copies of ``greedy`` (``briscola compare``)
    scores above 1/2 by more than 3 standard errors."""
    tally = compare_tally("expert", "greedy", players, 3000, seed=31)
    mean, sd = tally.mean_sd()
    assert mean - 3 * sd / np.sqrt(tally.units) > 0.5, (mean, sd)


@pytest.mark.parametrize("seed", range(20))
def test_pimc_stops_early_alike_whatever_the_rollouts_for_the_same_playouts(seed):
    """The early stop weighs gaps a playout: the same per-playout results, totalled over 1
    or 8 rollouts a deal, stop the search alike (a fixed gap a deal would let 1 rollout
    stop on gaps 8 times as wide)."""
    from strategies.pimc_nb import _clearly_best_nb

    chance = np.random.default_rng(seed)
    per_playout = 0.5 + chance.normal(0, 0.03, (24, 3)) + np.array([0.004, 0.0, -0.01])
    stops = {rollouts: _clearly_best_nb(per_playout * rollouts, 24, 3, rollouts) for rollouts in (1, 4, 8)}
    assert len(set(stops.values())) == 1, stops


def test_a_playout_cut_short_is_scored_as_a_game_would_be():
    """The expected score of a 2-player playout stopped with points left: zero-sum
    (wins and margins), rising with this seat's points, and sure once the points left
    cannot overturn the lead."""
    from strategies.playout_nb import expected_score_2p_nb

    chance = np.random.default_rng(2)
    for _ in range(500):
        points = chance.multinomial(chance.integers(0, 119), [0.5, 0.5])
        weight = chance.uniform(0.1, 2)
        mine, theirs = expected_score_2p_nb(points, 0, weight), expected_score_2p_nb(points, 1, weight)
        assert mine + theirs == pytest.approx(1.0)
        assert expected_score_2p_nb(points + [min(10, 120 - points.sum()), 0], 0, weight) > mine
        lead, rest = points[0] - points[1], 120 - points.sum()
        if abs(lead) > rest:
            assert mine - weight * lead / 120 == pytest.approx(1.0 if lead > 0 else 0.0)


@pytest.mark.parametrize("called_card_out", [False, True])
def test_at_briscola_chiamata_a_playout_seat_knows_its_partner_only_once_the_called_card_is_out(called_card_out):
    """Seat 2, a defender, wins the trick with a plain 7 (no points on the table); seat 3,
    a defender too, plays last with a plain Ace and two plain cards worth nothing. Knowing
    seat 2 is its partner, the policy would load the Ace on it (11 points to seat 2); while
    the called card (the King of trumps) is still in seat 4's hand nobody but seat 4
    knows the sides, so seat 3 throws a card worth nothing. The last two tricks are then
    searched exactly, which leaves seat 2's points as the trick left them."""
    from kernels.enums import MAX_PLAYERS, VIEW_DTYPE
    from strategies.playout_nb import new_playout_nb, no_learning_nb, play_out_nb

    trump, called = 3, 3 * 10 + 9  # cards are suit * 10 + face: Ace 0, Two 1, Three 2, 4 .. 7 at 3 .. 6
    view = np.zeros(1, dtype=VIEW_DTYPE)[0]
    view["players"], view["trump_suit"], view["seat"], view["called"], view["caller"], view["target"] = (
        5,
        trump,
        0,
        called,
        1,
        61,
    )
    view["n_played"], view["n_table"] = 29, 4
    hands = {0: [14, 15], 1: [16, 17], 2: [25, 26], 3: [10, 23, 24], 4: [38 if called_card_out else called, 13]}
    playout = new_playout_nb()
    for seat, cards in hands.items():
        playout.n_hand[seat] = len(cards)
        playout.hands[seat, : len(cards)] = cards
    playout.plays[:4] = [3, 4, 5, 6]  # the 4, 5, 6 and 7 of suit 0, led by seat 4: seat 2's 7 wins
    playout.points[:] = 0
    sides = np.array([1, 0, 1, 1, 0, 1][:MAX_PLAYERS], dtype=np.int64)  # the caller 1 and the holder 4
    playout.sides[:], playout.search_sides[:] = sides, (sides != sides[0]).astype(np.int64)
    play_out_nb(view, playout.hands, playout.n_hand, playout.plays, 4, 4, np.empty(0, dtype=np.int64), 0, 0,
                playout.points, 1.0, playout.stack, playout.sides, playout.search_sides, np.zeros(MAX_PLAYERS),
                np.array([1], dtype=np.uint64), no_learning_nb())  # fmt: skip
    assert playout.points[2] == (11 if called_card_out else 0)
