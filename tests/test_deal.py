"""The one-deal seam (sim/runtime/deal.py): a Deal driven from outside ends as the engine ends the
same deal, at every table and through Briscola Chiamata's auction; a traced deal replays
move by move to its row; an illegal decision is refused naming the legal ones; and a
seat's view never shows another seat's hidden cards."""

from __future__ import annotations

import numpy as np
import pytest

from sim.base.config import ConfigError, Rules, RunConfig
from sim.base.trace import trace_rows
from sim.runtime.deal import Deal, IllegalMoveError
from sim.runtime.play import play_batch, seat_specs
from strategies.observation import encode_flat, legal_mask
from tests.batched_strategies import random_cards
from tests.helpers import REPO

BATCHED = str(REPO / "tests" / "batched_strategies.py")
TABLES = [2, 3, 4, 5, 6]
DEALS = 6


def engine_rows(config: RunConfig):
    batch = play_batch(config, first_deal=0, n_deals=config.deals, trace=True)
    return batch.results, trace_rows(batch)


def lineup_of(players: int, names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(names[seat % len(names)] for seat in range(players))


def own_decision(spec, deal: Deal) -> int:
    """What the seat's jitted strategy decides, asked from outside the kernels with the
    view the Deal shows the seat to move."""
    strategy = spec.strategy
    function = (
        strategy.compiled()
        if deal.phase == "play"
        else dict(zip(("bid", "call"), strategy.compiled_auction()))[deal.phase]
    )
    rng = np.array([deal.key], dtype=np.uint64)
    return int(function(deal.view()[0], spec.param_vector(), rng))


@pytest.mark.parametrize("players", TABLES)
def test_every_seat_driven_from_outside_by_its_strategys_own_decisions_ends_as_the_engines_row(players):
    """expert and greedy decide from their view alone (no draw from their stream): asked
    from outside, at every decision, the auction's included, they play the engine's deals."""
    config = RunConfig(players=players, strategies=lineup_of(players, ("expert", "greedy")), deals=DEALS, seed=11)
    results, rows = engine_rows(config)
    specs = seat_specs(config)
    for index in range(DEALS):
        deal = Deal.new(config, index, outside=range(players), auction_outside=True)
        phases = set()
        while not deal.done:
            phases.add(deal.phase)
            deal.play(own_decision(specs[deal.to_move], deal))
        assert deal.trace() == rows[index]
        assert deal.result.tobytes() == results[index].tobytes()
        assert phases == (
            {"bid", "call", "play"} if rows[index]["called"] >= 0 else {"play"} if players != 5 else {"bid"}
        )


@pytest.mark.parametrize("players", TABLES)
def test_a_seat_driven_from_outside_beside_batched_seats_plays_the_jitted_twins_deals(players):
    """Seat 0 from outside (``random``'s draw, from the key the Deal gives it), the others
    by a batched strategy called by the Deal: the deals ``random`` (``jrandom`` at 5 players,
    whose auction is the batched strategy's) plays in the engine."""
    twin = "jrandom" if players == 5 else "random"
    files = (BATCHED,)
    engine = RunConfig(players=players, strategies=(twin,) * players, deals=DEALS, seed=5, strategy_files=files)
    _, rows = engine_rows(engine)
    config = RunConfig(players=players, strategies=("brandom",) * players, deals=1, seed=5, strategy_files=files)
    for index in range(DEALS):
        deal = Deal.new(config, index, outside=(0,))
        while not deal.done:
            assert deal.to_move == 0 and deal.phase == "play"
            view = deal.view()
            deal.play(random_cards(view, legal_mask(view), {}, np.array([deal.key], dtype=np.uint64))[0])
        assert deal.trace() == rows[index]


@pytest.mark.parametrize(
    ("players", "rules"),
    [(2, Rules()), (3, Rules()), (4, Rules(signals="trumps")), (5, Rules(first_lead="caller")), (6, Rules())],
)
def test_a_traced_deal_replays_move_by_move_to_its_row(players, rules):
    config = RunConfig(players=players, strategies=("random",) * players, deals=DEALS, seed=2, rules=rules)
    _, rows = engine_rows(config)
    for row in rows:
        steps = 0
        for deal, move in Deal.replay(row, rules):
            assert move in deal.legal()
            steps += 1
        assert deal.done and deal.trace() == row
        assert steps == len(row["plays"]) + len(row["auction"]) + (row["called"] >= 0)


def test_an_illegal_decision_is_refused_in_one_line_naming_the_legal_ones():
    config = RunConfig(players=2, strategies=("greedy", "greedy"), deals=1, seed=3)
    deal = Deal.new(config, 0, outside=(0, 1))
    legal, seat = deal.legal(), deal.to_move
    card = next(c for c in range(40) if c not in legal)
    with pytest.raises(IllegalMoveError) as refused:
        deal.play(card)
    message = str(refused.value)
    assert "\n" not in message and f"seat {seat} cannot play card {card}" in message
    assert message.endswith("legal: " + ", ".join(f"{c} ({name})" for c, name in zip(legal, _names(legal))))
    assert (deal.to_move, deal.legal()) == (seat, legal)  # nothing played
    with pytest.raises(IllegalMoveError, match=r"cannot play card 40 now; legal: "):
        deal.play(40)
    auction = Deal.new(RunConfig(players=5, strategies=("greedy",) * 5, deals=1, seed=1), 0, outside=range(5),
                       auction_outside=True)  # fmt: skip
    assert auction.phase == "bid"
    with pytest.raises(IllegalMoveError, match=r"cannot bid 99 now; legal: -1, "):
        auction.play(99)
    while not auction.done:
        auction.play(auction.legal()[-1])
    with pytest.raises(ConfigError, match="is over"):
        auction.play(0)


def _names(cards):
    from sim.base.cards import short_name

    return [short_name(c) for c in cards]


@pytest.mark.parametrize(
    ("players", "rules"),
    [(2, Rules()), (3, Rules()), (4, Rules()), (4, Rules(partner_view="none", signals="trumps")), (5, Rules()),
     (6, Rules())],
)  # fmt: skip
def test_a_seats_view_never_shows_another_seats_hidden_cards(players, rules):
    """At every decision, every seat's view: its own hand; the cards of no other seat's
    hand anywhere but in ``partner_hands``, and there only a partner's, where the rules
    show it (partner_view=last3, once the stock is out, at 4 and 6 players). The view of
    the seat to move is the one the step encoded."""
    config = RunConfig(players=players, strategies=("random",) * players, deals=1, seed=9, rules=rules)
    for index in range(3):
        deal = Deal.new(config, index, outside=range(players), auction_outside=True)
        while not deal.done:
            views = [deal.view(seat)[0] for seat in range(players)]
            hands = [set(v["hand"][: v["n_hand"]].tolist()) for v in views]
            assert all(v["seat"] == seat for seat, v in enumerate(views))
            for seat, view in enumerate(views):
                public = set(view["table"][: view["n_table"]].tolist()) | set(
                    view["history"][: view["n_played"]].tolist()
                )
                for other in range(players):
                    if other == seat:
                        continue
                    assert not hands[other] & (hands[seat] | public)
                    shown = set(view["partner_hands"][other].tolist()) - {-1}
                    partner = players in (4, 6) and other % 2 == seat % 2 and rules.partner_view == "last3"
                    assert shown <= (hands[other] if partner else set())
            if deal.phase == "play":
                np.testing.assert_array_equal(encode_flat(deal.view()), deal.observation()[None])
            deal.play(deal.legal()[deal.key % len(deal.legal())])
