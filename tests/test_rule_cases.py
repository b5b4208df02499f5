"""Hand-made rule cases, each small and named after the rule it shows.

Deals are built card by card (DEAL_DTYPE) and played by the kernels with greedy on every
seat, which makes no random choice: the expected cards, trick winners and points below
were worked out by hand from the rules and greedy's definition. The reference engine
(sim.base.reference) gets the same cases, plus its own unit cases and doctests.
"""

from __future__ import annotations

import numpy as np
import pytest

from kernels.enums import DEAL_DTYPE
from sim.base import reference
from sim.base.config import Rules, RunConfig
from sim.base.reference import card
from sim.base.trace import trace_rows
from sim.runtime.play import play_batch, replay

# A few cards by name, for readable cases.
ACE_DENARI, KING_DENARI = card("Ace", "Denari"), card("King", "Denari")
FOUR_COPPE, FIVE_COPPE, JACK_COPPE, KING_COPPE, THREE_COPPE = (
    card("4", "Coppe"), card("5", "Coppe"), card("Jack", "Coppe"), card("King", "Coppe"), card("3", "Coppe"),
)  # fmt: skip
TWO_SPADE, SIX_SPADE, SEVEN_SPADE, KNIGHT_SPADE = (
    card("2", "Spade"), card("6", "Spade"), card("7", "Spade"), card("Knight", "Spade"),
)  # fmt: skip
THREE_BASTONI, FIVE_BASTONI = card("3", "Bastoni"), card("5", "Bastoni")


def make_deal(hands, briscola, stock_top=(), removed=()) -> np.ndarray:
    """A one-deal DEAL_DTYPE array: the given hands (one list per seat) and briscola; the
    stock starts with ``stock_top``, goes on with the rest of the pack in ascending order
    and ends with the briscola."""
    players = len(hands)
    used = [c for hand in hands for c in hand] + [briscola] + list(stock_top) + list(removed)
    assert len(set(used)) == len(used), "a card used twice in a hand-made deal"
    stock = list(stock_top) + [c for c in range(40) if c not in used] + [briscola]
    deal = np.zeros(1, dtype=DEAL_DTYPE)
    deal["players"] = players
    deal["hand_size"] = 3
    deal["hands"] = -1
    for seat, hand in enumerate(hands):
        deal["hands"][0, seat, :3] = hand
    deal["briscola"] = briscola
    deal["n_stock"] = len(stock)
    deal["stock"] = -1
    deal["stock"][0, : len(stock)] = stock
    deal["n_removed"] = len(removed)
    deal["removed"] = -1
    deal["removed"][0, : len(removed)] = list(removed)
    return deal


DEFAULT_RULES = Rules()


def play_greedy(deal: np.ndarray, rules: Rules = DEFAULT_RULES):
    """Plays a hand-made deal with greedy on every seat; checks it against the reference
    engine (which plays the same deal by itself) and returns its trace row and result."""
    players = int(deal["players"][0])
    config = RunConfig(players=players, strategies=("greedy",) * players, deals=1, seed=0, rules=rules, threads=1)
    batch = replay(config, deal)
    row = trace_rows(batch)[0]
    result = batch.results[0]
    # The reference plays the deal itself: the same cards, winners and points.
    hands = reference.hands_of(row)
    own = reference.play_deal(players, hands, row["briscola"], row["stock"], reference.greedy_player)
    assert row["plays"] == own["plays"]
    assert row["trick_winners"] == own["trick_winners"]
    assert row["seat_points"] == own["seat_points"] == result["seat_points"][:players].tolist()
    assert sum(row["seat_points"]) == 120
    return row, result


# ------------------------------------------------------------------ tricks, by the kernels


def test_trump_beats_a_higher_non_trump():
    # Trump Spade. Seat 0 holds one non-trump, the Ace of Denari, and leads it; seat 1 has
    # no Denari, the table holds 11 points, so greedy takes it with its cheapest trump.
    deal = make_deal([[ACE_DENARI, SIX_SPADE, SEVEN_SPADE], [KING_COPPE, TWO_SPADE, FIVE_BASTONI]], KNIGHT_SPADE)
    row, _ = play_greedy(deal)
    assert row["plays"][:2] == [ACE_DENARI, TWO_SPADE]
    assert row["trick_winners"][0] == 1  # the Two of trumps beats the Ace


def test_off_suit_card_never_wins():
    # Seat 0 leads the 4 of Coppe; seat 1 has neither Coppe nor trumps (Spade), so it throws
    # its cheapest card, the King of Denari, which cannot take a 4 of the suit led.
    deal = make_deal([[FOUR_COPPE, SIX_SPADE, SEVEN_SPADE], [ACE_DENARI, THREE_BASTONI, KING_DENARI]], KNIGHT_SPADE)
    row, _ = play_greedy(deal)
    assert row["plays"][:2] == [FOUR_COPPE, KING_DENARI]
    assert row["trick_winners"][0] == 0


def test_winner_draws_first_with_two_players():
    # Seat 1 wins trick 1 (as above), draws the 4 of Coppe and leads it (its cheapest
    # non-trump); seat 0 draws the Jack of Coppe and takes the trick with it.
    deal = make_deal(
        [[ACE_DENARI, SIX_SPADE, SEVEN_SPADE], [KING_COPPE, TWO_SPADE, FIVE_BASTONI]],
        KNIGHT_SPADE,
        stock_top=[FOUR_COPPE, JACK_COPPE],
    )
    row, _ = play_greedy(deal)
    assert row["plays"][:4] == [ACE_DENARI, TWO_SPADE, FOUR_COPPE, JACK_COPPE]
    assert row["trick_winners"][:2] == [1, 0]


def test_highest_card_of_the_suit_led_wins_three_players():
    # Trump Denari, the Two of Coppe out. 5 of Coppe led, King of Coppe on it (greedy's
    # cheapest non-trump winner), then the 3 of Coppe, which outranks the King: seat 2
    # wins 4 + 10 points.
    deal = make_deal(
        [[FIVE_COPPE, card("5", "Denari"), card("7", "Denari")],
         [KING_COPPE, card("4", "Bastoni"), card("7", "Bastoni")],
         [THREE_COPPE, card("Jack", "Bastoni"), card("Knight", "Bastoni")]],
        briscola=card("6", "Denari"),
        removed=[card("2", "Coppe")],
    )  # fmt: skip
    row, _ = play_greedy(deal, Rules(removed_two="coppe"))
    assert row["plays"][:3] == [FIVE_COPPE, KING_COPPE, THREE_COPPE]
    assert row["trick_winners"][0] == 2
    assert len(row["plays"]) == 39 and len(row["trick_winners"]) == 13


def test_drawing_order_after_a_trick_won_by_seat_2_of_4():
    # Trump Bastoni. Trick 1: 4 of Coppe, 5 of Spade (thrown), Jack of Coppe (wins), 4 of
    # Denari (thrown): seat 2 wins. Seat 2 draws the 4 of Spade, seat 3 the 6, seat 0 the
    # 7 and seat 1 the Jack of Spade. Trick 2: seat 2 leads its only non-trump, the 4 of
    # Spade, and each seat in turn takes the trick with the Spade it drew.
    four_spade, five_spade, jack_spade = card("4", "Spade"), card("5", "Spade"), card("Jack", "Spade")
    deal = make_deal(
        [[FOUR_COPPE, card("7", "Bastoni"), card("Jack", "Bastoni")],
         [five_spade, card("King", "Bastoni"), card("Ace", "Bastoni")],
         [JACK_COPPE, card("4", "Bastoni"), FIVE_BASTONI],
         [card("4", "Denari"), card("6", "Denari"), card("7", "Denari")]],
        briscola=card("6", "Bastoni"),
        stock_top=[four_spade, SIX_SPADE, SEVEN_SPADE, jack_spade],
    )  # fmt: skip
    row, _ = play_greedy(deal)
    assert row["plays"][:4] == [FOUR_COPPE, five_spade, JACK_COPPE, card("4", "Denari")]
    assert row["plays"][4:8] == [four_spade, SIX_SPADE, SEVEN_SPADE, jack_spade]
    assert row["trick_winners"][:2] == [2, 1]


def test_highest_trump_wins_six_players():
    # Trump Denari, no twos. The Ace of Coppe is led (11 points on the table, so trumps
    # come out): 5 of trumps, 7 of trumps over it, a 6 of trumps thrown (cheapest: no
    # points, weaker than the 7 of Bastoni), a 4 of Coppe thrown, then the Jack of trumps,
    # the cheapest card over the 7. Seat 5 takes 11 + 2 points.
    deal = make_deal(
        [[card("Ace", "Coppe"), card("3", "Denari"), card("4", "Denari")],
         [card("5", "Denari"), card("5", "Spade"), SIX_SPADE],
         [card("7", "Denari"), card("4", "Bastoni"), FIVE_BASTONI],
         [card("6", "Denari"), card("7", "Bastoni"), card("Jack", "Bastoni")],
         [THREE_COPPE, FOUR_COPPE, FIVE_COPPE],
         [card("Jack", "Denari"), card("Knight", "Denari"), card("Knight", "Bastoni")]],
        briscola=KING_DENARI,
        removed=[card("2", suit) for suit in reference.SUIT_NAMES],
    )  # fmt: skip
    row, _ = play_greedy(deal)
    assert row["plays"][:6] == [
        card("Ace", "Coppe"), card("5", "Denari"), card("7", "Denari"),
        card("6", "Denari"), FOUR_COPPE, card("Jack", "Denari"),
    ]  # fmt: skip
    assert row["trick_winners"][0] == 5
    assert len(row["plays"]) == 36 and len(row["trick_winners"]) == 6


def test_hand_order_does_not_change_greedy():
    deal = make_deal(
        [[ACE_DENARI, SIX_SPADE, SEVEN_SPADE], [KING_COPPE, TWO_SPADE, FIVE_BASTONI]],
        KNIGHT_SPADE,
        stock_top=[FOUR_COPPE, JACK_COPPE],
    )
    shuffled = deal.copy()
    shuffled["hands"][0, 0, :3] = [SEVEN_SPADE, ACE_DENARI, SIX_SPADE]
    shuffled["hands"][0, 1, :3] = [FIVE_BASTONI, KING_COPPE, TWO_SPADE]
    assert play_greedy(deal)[0]["plays"] == play_greedy(shuffled)[0]["plays"]


# ------------------------------------------------------------------ the score


@pytest.mark.parametrize("players", [2, 4, 6])
def test_60_60_is_a_draw(players):
    config = RunConfig(players=players, strategies=("random",) * players, deals=10, seed=60)
    results = play_batch(config, 0, 4000).results
    sides = results["side_points"][:, :2]
    draws = (sides == 60).all(axis=1)
    assert draws.any(), "a 60-60 deal in 4000 is a near-certainty"
    assert (results["winner_side"][draws] == -1).all()
    assert (results["winner_side"][~draws] == np.argmax(sides[~draws], axis=1)).all()


def test_three_players_shared_top_total_is_a_draw():
    config = RunConfig(players=3, strategies=("random", "greedy", "random"), deals=10, seed=33)
    results = play_batch(config, 0, 4000).results
    points = results["side_points"][:, :3]
    shared = (points == points.max(axis=1, keepdims=True)).sum(axis=1) >= 2
    assert shared.any()
    assert (results["winner_side"][shared] == -1).all()
    assert (results["winner_side"][~shared] == np.argmax(points[~shared], axis=1)).all()
    # A draw only where the top is shared, not whenever two seats tie lower down.
    low_tie = ~shared & (np.sort(points, axis=1)[:, 0] == np.sort(points, axis=1)[:, 1])
    assert (results["winner_side"][low_tie] >= 0).all()


# ------------------------------------------------------------------ dealing


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_ace_three_redeal_never_leaves_an_ace_or_three_face_up(players):
    rules = Rules(trump_redeal="ace-three")
    config = RunConfig(players=players, strategies=("random",) * players, deals=10, seed=7, rules=rules)
    briscola = play_batch(config, 0, 3000).results["briscola"]
    faces = briscola % 10
    assert not np.isin(faces, [0, 2]).any()
    assert set(np.unique(briscola // 10)) == {0, 1, 2, 3}


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_ace_three_redeal_returns_the_card_to_the_middle_of_the_stock(players):
    """Same seed, with and without the rule: the same hands; where an Ace or a Three was
    turned, the next card that is neither is turned instead, and the returned cards lie
    in the middle of the stock."""

    def deals(redeal):
        rules = Rules(trump_redeal=redeal)
        config = RunConfig(players=players, strategies=("random",) * players, deals=10, seed=8, rules=rules)
        return trace_rows(play_batch(config, 0, 600, trace=True))

    redealt = 0
    for off, on in zip(deals("off"), deals("ace-three")):
        assert on["hands"] == off["hands"] and on["removed"] == off["removed"]
        assert sorted(on["stock"] + [on["briscola"]]) == sorted(off["stock"] + [off["briscola"]])
        if off["briscola"] % 10 not in (0, 2):
            assert on == off
            continue
        redealt += 1
        turned = [off["briscola"]] + off["stock"]
        returned = [c for c in turned[: turned.index(on["briscola"])]]
        assert all(c % 10 in (0, 2) for c in returned)
        middle = (len(on["stock"]) - 1) / 2
        for c in returned:
            assert abs(on["stock"].index(c) - middle) <= len(returned), (on["deal"], c, on["stock"])
    assert 60 < redealt < 180  # about one deal in five turns up an Ace or a Three


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_no_redeal_leaves_aces_and_threes_face_up(players):
    config = RunConfig(players=players, strategies=("random",) * players, deals=10, seed=9)
    briscola = play_batch(config, 0, 4000).results["briscola"]
    share = np.isin(briscola % 10, [0, 2]).mean()
    assert abs(share - 8 / (40 - {3: 1, 6: 4}.get(players, 0))) < 0.035  # 5 standard deviations


@pytest.mark.parametrize("suit, two", [("denari", 1), ("coppe", 11), ("spade", 21), ("bastoni", 31)])
def test_removed_two_rule_takes_out_that_two(suit, two):
    rules = Rules(removed_two=suit)
    config = RunConfig(players=3, strategies=("random", "greedy", "random"), deals=10, seed=11, rules=rules)
    for row in trace_rows(play_batch(config, 0, 200, trace=True)):
        assert row["removed"] == [two]
        assert two not in row["plays"] and len(row["plays"]) == 39
        assert sorted(row["plays"]) == [c for c in range(40) if c != two]


def test_six_players_play_without_twos():
    config = RunConfig(players=6, strategies=("greedy", "random") * 3, deals=10, seed=12)
    for row in trace_rows(play_batch(config, 0, 200, trace=True)):
        assert row["removed"] == [1, 11, 21, 31]
        assert sorted(row["plays"]) == [c for c in range(40) if c % 10 != 1]
        assert len(row["trick_winners"]) == 6 and len(row["stock"]) == 17


@pytest.mark.parametrize("players, stock, tricks", [(2, 33, 20), (3, 29, 13), (4, 27, 10), (6, 17, 6)])
def test_table_sizes(players, stock, tricks):
    config = RunConfig(players=players, strategies=("random",) * players, deals=10, seed=13)
    for row in trace_rows(play_batch(config, 0, 50, trace=True)):
        assert len(row["hands"]) == 3 * players
        assert len(row["stock"]) == stock  # the briscola apart
        assert len(row["trick_winners"]) == tricks
        assert row["plays"][0] in row["hands"][:3]  # seat 0 leads the first trick


# ------------------------------------------------------------------ the reference engine alone


def test_reference_strength_and_points():
    order = ["Ace", "3", "King", "Knight", "Jack", "7", "6", "5", "4", "2"]
    for suit in reference.SUIT_NAMES:
        strengths = [reference.strength(card(face, suit)) for face in order]
        assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == 10
    assert [reference.points(card(f, "Coppe")) for f in order] == [11, 10, 4, 3, 2, 0, 0, 0, 0, 0]
    assert sum(reference.points(c) for c in range(40)) == 120


def test_reference_trick_winner_cases():
    spade = 2
    # A trump beats any non-trump, the highest trump beats the others.
    assert reference.trick_winner([ACE_DENARI, TWO_SPADE], spade) == 1
    assert reference.trick_winner([TWO_SPADE, ACE_DENARI], spade) == 0
    assert reference.trick_winner([ACE_DENARI, TWO_SPADE, KNIGHT_SPADE, SIX_SPADE], spade) == 2
    # Without trumps the highest card of the suit led wins; other suits never win.
    assert reference.trick_winner([FOUR_COPPE, ACE_DENARI, THREE_BASTONI], spade) == 0
    assert reference.trick_winner([FOUR_COPPE, ACE_DENARI, KING_COPPE, THREE_COPPE], spade) == 3
    assert reference.trick_winner([KING_COPPE, JACK_COPPE], spade) == 0


def test_reference_drawing_order_four_players():
    # Seat 2 wins trick 1 with the Jack of Coppe; the draws go to seats 2, 3, 0, 1.
    hands = [[FOUR_COPPE, 36, 37], [24, 39, 30], [JACK_COPPE, 33, 34], [3, 5, 6]]
    game = reference.Game(4, hands, briscola=35, stock=[23, 25, 26, 27])
    for c in (FOUR_COPPE, 24, JACK_COPPE, 3):
        game.play(c)
    assert game.end_trick() == 2
    assert game.points == [0, 0, 2, 0]
    assert [h[-1] for h in game.hands] == [26, 27, 23, 25]
    assert game.leader == 2 and game.to_play == 2
    assert game.draw_pile == [35]  # the briscola comes last


def test_reference_outcome_cases():
    assert reference.outcome([60, 60]).winner_side == -1
    assert reference.outcome([61, 59]).winner_side == 0
    assert reference.outcome([10, 50, 20, 40]).side_points == (30, 90)
    assert reference.outcome([30, 20, 30, 40]).winner_side == -1  # 60-60 between teams
    assert reference.outcome([25, 10, 20, 15, 15, 35]).side_points == (60, 60)
    assert reference.outcome([40, 40, 40]).winner_side == -1
    assert reference.outcome([50, 50, 20]).winner_side == -1
    assert reference.outcome([50, 20, 50]).winner_side == -1
    assert reference.outcome([20, 20, 80]).winner_side == 2  # a tie below the top is no draw


def test_reference_greedy_cases():
    spade = 2
    greedy = reference.greedy_choice
    # Leading: the weakest non-trump; with only trumps, the weakest trump.
    assert greedy([KING_COPPE, FOUR_COPPE, TWO_SPADE], [], spade) == FOUR_COPPE
    assert greedy([ACE_DENARI, FIVE_BASTONI], [], spade) == FIVE_BASTONI
    assert greedy([KNIGHT_SPADE, TWO_SPADE, SIX_SPADE], [], spade) == TWO_SPADE
    # Following: a non-trump winner first, the cheapest one.
    assert greedy([THREE_COPPE, KING_COPPE, TWO_SPADE], [JACK_COPPE], spade) == KING_COPPE
    # 10+ points on the table and no plain winner: the cheapest trump that wins.
    assert greedy([KNIGHT_SPADE, SIX_SPADE, KING_DENARI], [THREE_COPPE], spade) == SIX_SPADE
    # Fewer points: no trump spent to win; the cheapest card goes (which may be a trump).
    assert greedy([KNIGHT_SPADE, FOUR_COPPE], [JACK_COPPE], spade) == FOUR_COPPE
    assert greedy([KNIGHT_SPADE, FOUR_COPPE], [THREE_COPPE], spade) == KNIGHT_SPADE  # 10 points
    assert greedy([ACE_DENARI, KING_DENARI, SIX_SPADE], [JACK_COPPE], spade) == SIX_SPADE
    # More players: the card must beat the card winning so far, not just the lead.
    table = [FIVE_COPPE, THREE_COPPE]
    assert greedy([KING_COPPE, TWO_SPADE], table, spade) == TWO_SPADE  # the King cannot win
    # The 10 points may come from several cards.
    four_denari = card("4", "Denari")
    table = [FIVE_COPPE, SIX_SPADE, KING_COPPE, card("Knight", "Coppe"), card("Jack", "Bastoni")]
    assert sum(reference.points(c) for c in table) == 9
    assert greedy([KNIGHT_SPADE, four_denari], table, spade) == four_denari
    table[-1] = card("King", "Bastoni")
    assert sum(reference.points(c) for c in table) == 11
    assert greedy([KNIGHT_SPADE, four_denari], table, spade) == KNIGHT_SPADE
    assert greedy([SEVEN_SPADE, card("5", "Spade"), four_denari], table, spade) == SEVEN_SPADE
