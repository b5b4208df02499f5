"""Inference of hidden hands from the plays seen (strategies/inference_nb.py), as ``pimc``
samples with it: with flat weights every consistent deal is equally likely; with the
opponent model's weights, the hands it samples follow the exact posterior, worked out
here by brute force over every hand and every draw history."""

from __future__ import annotations

import collections
import itertools
import math

import numpy as np
import pytest

from kernels.enums import VIEW_DTYPE
from kernels.inlined_strategies_nb import hand_suit_value_nb
from sim.app.check import view_record
from sim.base.config import Rules, RunConfig
from sim.runtime.play import play_batch, view_after_plays
from strategies.endgame_nb import new_hands_nb
from strategies.inference_nb import by_rules_nb, past_view_nb, weighing_nb, world_log_weights_nb
from strategies.knowledge_nb import UNSEEN, card_places_nb, hand_sizes_nb
from strategies.nets import search_data
from strategies.policy_nb import model_share_nb, play_probability_nb
from strategies.worlds_nb import deal_world_nb, infer_worlds_nb, world_sides_nb
from tests.helpers import deal_views
from tests.test_knowledge import chi_square_critical, consistent_deals, late_position, positions

SIDES_2P = np.array([0, 1, 0, 0, 0, 0], dtype=np.int64)


def sampled_worlds(view, weighing, batches, per_batch, seed=4242):
    """The deals ``pimc`` would play out, weighed by ``weighing``: ``batches`` calls,
    each keeping ``per_batch`` deals; yields each deal's hands (rows by seat)."""
    places, sizes = np.empty(40, dtype=np.int64), np.zeros(6, dtype=np.int64)
    card_places_nb(view, places)
    hand_sizes_nb(view, sizes)
    hands, n_hand = new_hands_nb()
    stock, sides = np.empty(40, dtype=np.int64), np.zeros(6, dtype=np.int64)
    rng = np.array([seed], dtype=np.uint64)
    worlds, randomness = np.empty(per_batch, dtype=np.uint64), np.zeros(6)
    for _ in range(batches):
        infer_worlds_nb(view, places, sizes, rng, hands, n_hand, stock, False, sides, weighing, False, worlds,
                        randomness)  # fmt: skip
        for state in worlds:
            deal_world_nb(view, places, sizes, np.array([state]), hands, n_hand, stock, False)
            yield [hands[s, : n_hand[s]].tolist() for s in range(int(view["players"]))]


def test_with_flat_weights_every_consistent_deal_is_equally_likely():
    """Trust 0: every play is equally likely in every deal, so the weights are flat and
    the 90 ways six hidden cards can lie in three 2-card hands come up alike."""
    view, game = late_position(Rules(partner_view="none"))
    seat = int(view["seat"])
    counts = collections.Counter()
    for hands in sampled_worlds(view, by_rules_nb(0.0), batches=150, per_batch=60):
        counts[tuple(frozenset(hands[s]) for s in range(4) if s != seat)] += 1
    consistent = consistent_deals(game, seat, (seat + 2) % 4, int(view["trump_suit"]), "none")
    assert set(counts) == consistent
    expected = 9000 / len(consistent)
    chi_square = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi_square < chi_square_critical(len(consistent) - 1), chi_square


def exact_posterior(view, trust):
    """P(card in the opponent's hand) for every unseen card, 2 players, by brute force:
    the sum over every hand it may hold and every order in which it may have drawn its
    cards of the model's probability of its plays (all such histories equally likely
    a priori)."""
    other, players = 1 - int(view["seat"]), 2
    trump = int(view["trump_suit"])
    history = [int(c) for c in view["history"][: int(view["n_played"])]]
    tricks = int(view["trick"])
    plays = {}  # trick -> (table before the play, the card) for the opponent's plays
    for trick in range(tricks + 1):
        if trick == tricks:
            leader = int(view["leader"])
        else:
            leader = int(view["played_by"][history[0]]) if trick == 0 else int(view["trick_winners"][trick - 1])
        position = (other - leader) % players
        start = trick * players
        if start + position < len(history):
            plays[trick] = (history[start : start + position], history[start + position], leader)
    places = np.empty(40, dtype=np.int64)
    card_places_nb(view, places)
    unseen = [c for c in range(40) if places[c] == UNSEEN]
    marginal = collections.Counter()
    total = 0.0
    for hand in itertools.combinations(unseen, 3):
        likelihood = sum(history_probability(list(hand), draws, plays, tricks, trump, trust)
                         for draws in itertools.product(range(3), repeat=tricks))  # fmt: skip
        total += likelihood
        for card in hand:
            marginal[card] += likelihood
    return {card: marginal[card] / total for card in unseen}


def history_probability(hand, draws, plays, tricks, trump, trust):
    """The model's probability of the opponent's plays going back from ``hand``, the
    card drawn after trick t being ``hand[draws[t]]`` at that point."""
    probability = 1.0
    for trick in range(tricks, -1, -1):
        if trick < tricks:
            hand.pop(draws[trick])
        if trick in plays:
            table, card, leader = plays[trick]
            hand.append(card)
            probability *= play_probability_nb(
                np.array(hand, dtype=np.int64), len(hand), card, np.array(table, dtype=np.int64), len(table),
                trump, 2, leader, (leader + len(table)) % 2, SIDES_2P, trust,
            )  # fmt: skip
    return probability


def informative_position(trust):
    """An early 2-player decision (the opponent has made two or three plays) whose exact
    posterior is far from uniform: the plays told something."""
    for record, _game, _deal in positions(2, Rules(), deals=30):
        view = record[0]
        if int(view["trick"]) == 2:
            posterior = exact_posterior(view, trust)
            if max(abs(p - 3 / len(posterior)) for p in posterior.values()) > 0.1:
                return view, posterior
    pytest.fail("no informative position")


@pytest.mark.slow  # statistical: its power takes many deals; CI runs it (-m slow)
def test_with_the_models_weights_sampled_hands_follow_the_exact_posterior():
    """Each unseen card's chance to be in the opponent's hand, over 20,000 sampled deals
    (at least 5,000 independent: a fourth of the candidates are kept), within 4
    standard errors of the exact posterior; a position where that posterior is far
    (0.1 or more for some card) from uniform sampling's 3 in 32."""
    trust = 0.9
    view, posterior = informative_position(trust)
    other = 1 - int(view["seat"])
    counts, draws = collections.Counter(), 0
    for hands in sampled_worlds(view, by_rules_nb(trust), batches=400, per_batch=50):
        counts.update(hands[other])
        draws += 1
    for card, exact in posterior.items():
        sampled = counts[card] / draws
        assert abs(sampled - exact) < 4 * math.sqrt(exact * (1 - exact) / 5000), (card, sampled, exact)


def inferred_randomness(opponent: str, learned: bool = False) -> float:
    """The mean randomness ``pimc`` (adapt on) infers for its 2-player opponent from the
    opponent's plays, at the decisions of tricks 6 to 12 of deals against ``opponent``;
    the plays weighed by the hand-written policy, or by the learned one (``learned``)."""
    weighing = weighing_nb(0.6, search_data(2), learned, False, 0.0)
    config = RunConfig(players=2, strategies=("expert", opponent), deals=6, seed=8, threads=1)
    batch = play_batch(config, 0, 6, trace=True)
    estimates = []
    for deal, record in zip(batch.deals, batch.records):
        plays = [int(c) for c in record["plays"] if c >= 0]
        for play in range(len(plays)):
            view = view_record(view_after_plays(config, deal, plays[:play]), 2, deal)[0]
            if view["seat"] == 0 and 6 <= view["trick"] <= 12:
                places, sizes = np.empty(40, dtype=np.int64), np.zeros(6, dtype=np.int64)
                card_places_nb(view, places)
                hand_sizes_nb(view, sizes)
                hands, n_hand = new_hands_nb()
                randomness = np.zeros(6)
                infer_worlds_nb(view, places, sizes, np.array([play], dtype=np.uint64), hands, n_hand,
                                 np.empty(40, dtype=np.int64), False, np.zeros(6, dtype=np.int64), weighing, True,
                                 np.empty(32, dtype=np.uint64), randomness)  # fmt: skip
                estimates.append(randomness[1])
    return float(np.mean(estimates))


def test_the_inferred_randomness_tells_a_random_player_from_a_good_one():
    """The chance that a seat plays at random, inferred from its plays: far higher for a
    player at random than for ``expert``, whose plays the model follows."""
    at_random, good = inferred_randomness("random"), inferred_randomness("expert")
    assert at_random > 0.4 and good < 0.2, (at_random, good)


def test_the_learned_policy_explains_net_s_plays_better_than_the_hand_written_one():
    """``net`` plays the learned policy's card: weighed by that policy, its plays look
    less random than weighed by the hand-written rules, and a player at random still
    looks random."""
    by_policy, by_rules = inferred_randomness("net", learned=True), inferred_randomness("net")
    assert by_policy < by_rules and by_policy < 0.2, (by_policy, by_rules)
    assert inferred_randomness("random", learned=True) > 0.4


# What a rebuilt past view leaves out: what the sampled world does not say.
NOT_REBUILT = ("partner_hands", "partner_trumps")


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_past_view_rebuilt_from_today_s_view_is_the_view_that_seat_had(players):
    """The learned opponent model weighs each play from the view its seat had then:
    rebuilt from the present view and the hand, it equals the engine's view of the time,
    field by field (the face-up card and who had taken it by then, and ``briscola`` while
    the present view still shows it)."""
    config = RunConfig(players=players, strategies=("expert",) * players, deals=4, seed=11, threads=1)
    rebuilt = np.empty(1, dtype=VIEW_DTYPE)
    checked = 0
    for views in deal_views(config):
        for cut in (players + 1, len(views) // 2, len(views) - 1):
            now = views[cut][0]
            for then in views[:cut]:
                then = then[0]
                card = now["history"][then["n_played"]]
                hand = [c for c in then["hand"][: then["n_hand"]] if c != card] + [card]
                past_view_nb(now, then["seat"], then["trick"], then["n_table"], np.array(hand), len(hand), rebuilt)
                for name in VIEW_DTYPE.names:
                    expected = then[name] if name != "hand" else np.array(hand + [-1] * (len(then["hand"]) - len(hand)))
                    if name in NOT_REBUILT or (name == "briscola" and now["briscola"] < 0):
                        continue
                    assert np.array_equal(rebuilt[0][name], expected), (players, cut, name)
                checked += 1
    assert checked > 30 * players


def test_at_briscola_chiamata_a_past_view_knows_the_partner_once_the_called_card_is_out():
    """Seat 2 plays the called card in trick 1: before that only seat 2 itself, holding
    it, knows its partner; from then on every seat does."""
    now = np.zeros(1, dtype=VIEW_DTYPE)[0]
    now["players"], now["trick"], now["n_played"], now["called"] = 5, 3, 15, 7
    now["history"], now["played_by"], now["trick_winners"] = -1, -1, -1
    plays = [c for c in range(20, 35)]
    plays[5 + 2] = 7  # trick 1, seat 2 (each trick led by seat 0)
    for k, card in enumerate(plays):
        now["history"][k], now["played_by"][card] = card, k % 5
    now["trick_winners"][:3] = 0
    rebuilt = np.empty(1, dtype=VIEW_DTYPE)
    partners = {}
    for seat, trick, hand in ((4, 0, [1, 2, 20 + 4]), (2, 0, [7, 3, 22]), (4, 1, [1, 2, 25 + 4]), (4, 2, [1, 2, 34])):
        past_view_nb(now, seat, trick, seat, np.array(hand), len(hand), rebuilt)
        partners[seat, trick] = int(rebuilt[0]["partner"])
    assert partners == {(4, 0): -1, (2, 0): 2, (4, 1): 2, (4, 2): 2}


def sampled_caller_values(auction: bool, deals: int = 24) -> tuple[float, float]:
    """At Briscola Chiamata with ``expert`` at every seat, at the first card played by a
    seat that is not the caller: the mean worth of the caller's dealt hand with the trump
    suit as trump (``hand_suit_value_nb``, what the bidding model reads) over the deals
    the search samples, weighed by the auction (``auction``) or not; and its true worth."""
    config = RunConfig(players=5, strategies=("expert",) * 5, deals=deals, seed=5, threads=1)
    weighing = weighing_nb(0.6, np.empty(0, dtype=np.float32), False, auction, -0.6)
    sampled, true = [], []
    for views in deal_views(config):
        caller = int(views[0][0]["caller"])
        view = next(v[0] for v in views if v[0]["seat"] != caller)
        dealt_to_caller = next(v[0] for v in views if v[0]["seat"] == caller)  # its first play: 8 cards
        trump = int(view["trump_suit"])
        true.append(hand_suit_value_nb(dealt_to_caller["hand"].astype(np.int64), 8, trump))
        for hands in sampled_worlds(view, weighing, batches=1, per_batch=32, seed=31):
            dealt = hands[caller] + [c for c in range(40) if view["played_by"][c] == caller]
            sampled.append(hand_suit_value_nb(np.array(dealt), len(dealt), trump))
    return float(np.mean(sampled)), float(np.mean(true))


def test_at_briscola_chiamata_the_auction_tells_how_strong_the_caller_is_in_trumps():
    """The caller called its best suit, worth bidding: weighed by the auction, the
    caller's sampled hands are far stronger in trumps than uniform deals make them, and
    nearer the hands it was really dealt (the bidding model is ``expert``'s own here)."""
    uniform, true = sampled_caller_values(auction=False)
    weighed, _ = sampled_caller_values(auction=True)
    assert weighed > uniform + 8 and abs(true - weighed) < abs(true - uniform), (uniform, weighed, true)


def test_at_briscola_chiamata_plays_before_the_called_card_is_out_are_weighed_as_made_without_knowing_the_sides():
    """Until the called card is played only its holder knows who the caller's partner is
    (``same_side_nb``): the model weighs every other seat's plays as made by a seat on
    its own, so moving the called card from one hand to another changes none of their
    weights, though the sides it sets would change the model's choice in many of them."""
    config = RunConfig(players=5, strategies=("expert",) * 5, deals=12, seed=3, threads=1)
    trusts = np.array([0.6])
    checked, sides_matter = 0, 0
    for views in deal_views(config):
        for view in (v[0] for v in views):
            called, seat = int(view["called"]), int(view["seat"])
            if view["played_by"][called] >= 0 or view["n_played"] < 5:
                continue
            for hands, n_hand in swapped_holders(view):
                weights = []
                for h in hands:
                    sides = np.zeros(6, dtype=np.int64)
                    world_sides_nb(view, h, n_hand, sides)
                    log_weights = np.zeros((6, 1))
                    world_log_weights_nb(view, h, n_hand, sides, trusts, log_weights, np.array([1], np.uint64),
                                         by_rules_nb(0.6))  # fmt: skip
                    weights.append((log_weights, sides))
                (first, sides_a), (second, sides_b) = weights
                for other in range(5):
                    if other != seat and called not in hands[0][other, : n_hand[other]] and \
                            called not in hands[1][other, : n_hand[other]]:  # fmt: skip
                        assert first[other, 0] == pytest.approx(second[other, 0], abs=1e-12), (other, view["n_played"])
                        checked += 1
                        sides_matter += known_sides_change_a_share(view, other, hands[0], n_hand, sides_a, sides_b)
    assert checked > 200 and sides_matter > 100, (checked, sides_matter)


def swapped_holders(view):
    """Pairs of deals consistent with ``view`` that differ only in two other seats' hands
    swapped, one of them holding the called card (each: hands by seat, and sizes)."""
    places, sizes = np.empty(40, dtype=np.int64), np.zeros(6, dtype=np.int64)
    card_places_nb(view, places)
    hand_sizes_nb(view, sizes)
    hands, n_hand = new_hands_nb()
    deal_world_nb(view, places, sizes, np.array([9], dtype=np.uint64), hands, n_hand, np.empty(40, np.int64), False)
    holder = next(s for s in range(5) if int(view["called"]) in hands[s, : n_hand[s]])
    for other in range(5):
        if other not in (holder, int(view["seat"])) and n_hand[other] == n_hand[holder]:
            swapped = hands.copy()
            swapped[[holder, other]] = swapped[[other, holder]]
            yield (hands.copy(), swapped), n_hand.copy()


def known_sides_change_a_share(view, seat, hands, n_hand, sides_a, sides_b) -> int:
    """How many of ``seat``'s plays the model would weigh differently under the sides of
    one deal and of the other, had the seat known them (its hand then: its hand now and
    the cards it played since; nothing is drawn at 5 players)."""
    history = [int(c) for c in view["history"][: view["n_played"]]]
    changed = 0
    for k, card in enumerate(history):
        if view["played_by"][card] != seat:
            continue
        trick, position = divmod(k, 5)
        leader = (seat - position) % 5
        later = [c for c in history[k:] if view["played_by"][c] == seat]
        hand = np.array(list(hands[seat, : n_hand[seat]]) + later, dtype=np.int64)
        table = np.array(history[trick * 5 : k], dtype=np.int64)
        shares = [model_share_nb(hand, len(hand), card, table, position, int(view["trump_suit"]), 5, leader, seat, s)
                  for s in (sides_a, sides_b)]  # fmt: skip
        changed += abs(shares[0] - shares[1]) > 1e-9
    return changed
