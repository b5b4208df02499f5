"""The face-up briscola in the view: the card for the whole deal (``face_up``) and the seat
that took it with the last draw (``face_up_holder``, -1 while it lies under the stock),
beside ``briscola`` as it always was (the card only while it lies under the stock). Hand-
made deals worked out by hand, and the kernels' views equal to the reference engine's,
field by field, at every table."""

from __future__ import annotations

import numpy as np
import pytest

import sim.runtime.play
from kernels.enums import DEAL_DTYPE, VIEW_DTYPE
from sim.app.check import view_record
from sim.base import reference
from sim.base.config import Rules, RunConfig
from sim.base.reference import card
from sim.base.trace import trace_rows
from sim.runtime.play import play_batch, replay, views_along_plays
from tests.helpers import REPO

FILE = str(REPO / "tests" / "batched_strategies.py")


def watched(config: RunConfig, play) -> tuple[np.ndarray, np.ndarray, object]:
    """Every view the batched strategy of ``config`` (every seat's) was shown while
    ``play()`` ran, in the order of the deals and their plays, and what ``play`` returned."""
    seen = []
    strategy = sim.runtime.play.lineup(config).batched[0].spec.strategy
    original = strategy.choose

    def watching(views, legal, params, keys, where):
        seen.append((views.copy(), where["deal"].copy()))
        return original(views, legal, params, keys)

    object.__setattr__(strategy, "choose", watching)
    try:
        played = play()
    finally:
        object.__setattr__(strategy, "choose", original)
    views = np.concatenate([v for v, _ in seen])
    deals = np.concatenate([d for _, d in seen])
    order = np.lexsort((views["n_played"], deals))
    return views[order], deals[order], played


def short_deal(hands, stock_top, briscola) -> np.ndarray:
    """A deal with a short stock, ``stock_top`` then the face-up ``briscola`` (drawn last):
    a few tricks, worked out by hand."""
    deal = np.zeros(1, dtype=DEAL_DTYPE)
    deal["players"], deal["hand_size"], deal["hands"], deal["stock"], deal["removed"] = len(hands), 3, -1, -1, -1
    for seat, hand in enumerate(hands):
        deal["hands"][0, seat, :3] = hand
    deal["briscola"] = briscola
    deal["n_stock"] = len(stock_top) + 1
    deal["stock"][0, : len(stock_top) + 1] = [*stock_top, briscola]
    return deal


def first_card_views(deal: np.ndarray) -> np.ndarray:
    """The views of a hand-made deal played by ``bfirst`` at every seat (the first card of
    its hand: dealt cards in order, then those drawn)."""
    players = int(deal["players"][0])
    config = RunConfig(players=players, strategies=("bfirst",) * players, deals=1, seed=0, threads=1,
                       strategy_files=(FILE,))  # fmt: skip
    views, _, _ = watched(config, lambda: replay(config, deal))
    return views


def test_at_2_players_the_last_to_draw_takes_the_face_up_card():
    """Trump Bastoni (the King face up). Trick 0: the Ace of Denari takes the 4 of Coppe,
    seat 0 draws first. Trick 1: seat 1 trumps the 2 of Denari with its Ace of Bastoni,
    draws the stock's last face-down card, and seat 0, drawing last, takes the King."""
    king = card("King", "Bastoni")
    hands = [[card("Ace", "Denari"), card("2", "Denari"), card("3", "Denari")],
             [card("4", "Coppe"), card("Ace", "Bastoni"), card("6", "Coppe")]]  # fmt: skip
    views = first_card_views(short_deal(hands, [card("Ace", "Spade"), card("2", "Spade"), card("3", "Spade")], king))
    assert len(views) == 10 and views["seat"].tolist() == [0, 1, 0, 1, 1, 0, 1, 0, 0, 1]  # tricks 2, 3 led by seat 1
    stocked = views["n_played"] < 4  # tricks 0 and 1: the King under the stock
    assert (views["face_up"] == king).all()
    assert (views["briscola"][stocked] == king).all() and (views["briscola"][~stocked] == -1).all()
    assert (views["face_up_holder"][stocked] == -1).all() and (views["face_up_holder"][~stocked] == 0).all()
    holder = views[(views["seat"] == 0) & ~stocked][0]
    assert king in holder["hand"][: holder["n_hand"]]  # in the holder's hand, as the view says


def test_at_4_players_the_seat_before_the_last_draws_winner_takes_it():
    """Trump Coppe (the King face up). Trick 0: seat 1's 4 of Coppe is the only trump.
    Trick 1, led by seat 1: seat 2's 7 of Coppe beats its 5. Seat 2 draws first, then 3,
    then 0; seat 1 draws last, the King."""
    king = card("King", "Coppe")
    hands = [[card("Ace", "Denari"), card("2", "Denari"), card("3", "Denari")],
             [card("4", "Coppe"), card("5", "Coppe"), card("6", "Coppe")],
             [card("4", "Spade"), card("7", "Coppe"), card("6", "Spade")],
             [card("4", "Bastoni"), card("5", "Bastoni"), card("6", "Bastoni")]]  # fmt: skip
    stock_top = [card(face, "Denari") for face in ("4", "5", "6", "7", "Jack", "Knight", "King")]
    views = first_card_views(short_deal(hands, stock_top, king))
    assert len(views) == 20
    stocked = views["n_played"] < 8
    assert (views["face_up"] == king).all()
    assert (views["briscola"][stocked] == king).all() and (views["briscola"][~stocked] == -1).all()
    assert (views["face_up_holder"][stocked] == -1).all() and (views["face_up_holder"][~stocked] == 1).all()
    assert views["leader"][views["n_played"] == 8][0] == 2  # seat 2 won trick 1


def test_briscola_chiamata_turns_no_card():
    config = RunConfig(players=5, strategies=("brandom",) * 5, deals=20, seed=3, threads=1, strategy_files=(FILE,))
    views, _, _ = watched(config, lambda: play_batch(config, 0, 20))
    assert len(views) > 0 and (views["face_up"] == -1).all() and (views["face_up_holder"] == -1).all()


@pytest.mark.parametrize(
    "players, rules",
    [(2, Rules()), (2, Rules(trump_redeal="ace-three")), (3, Rules()), (4, Rules(partner_view="last3", signals="trumps")),
     (4, Rules(partner_view="none")), (5, Rules()), (6, Rules(partner_view="last3", signals="trumps"))],
)  # fmt: skip
def test_the_kernels_views_are_the_reference_engines_field_by_field(players, rules):
    """Every view the kernels show a strategy (in lock-step: the engine's own steps) is
    the view the reference engine rebuilds from the deal's trace, every field of
    VIEW_DTYPE to the byte, the face-up card and its holder included."""
    config = RunConfig(players=players, strategies=("brandom",) * players, deals=40, seed=11, rules=rules, threads=1,
                       strategy_files=(FILE,))  # fmt: skip
    views, deals, batch = watched(config, lambda: play_batch(config, 0, 40, trace=True))
    expected = _reference_views(config, batch)
    assert len(views) == len(expected) > 0
    assert players == 5 or len(views) == 40 * reference.pack_size(players)  # (at 5 players a deal may be thrown in)
    for got, want, deal in zip(views, expected, deals):
        different = [name for name in VIEW_DTYPE.names if not np.array_equal(got[name], want[name])]
        assert not different, f"deal {deal}, play {got['n_played']}: {different} differ"
    held = views["face_up_holder"][views["stock_size"] == 0]
    assert players == 5 or len(set(held.tolist())) == players  # every seat took it in some deal


def _reference_views(config: RunConfig, batch) -> np.ndarray:
    """The views of every play of the batch's deals, as the reference engine rebuilds them."""
    players, records = config.players, []
    for i, row in enumerate(trace_rows(batch)):
        if players == 5:
            rules = config.rules
            views = [v for phase, v, _ in reference.chiamata_decisions(row, rules.first_lead, rules.auction)
                     if phase == "play"]  # fmt: skip
        else:
            plays = batch.records[i]["plays"]
            views = views_along_plays(config, batch.deals[i], plays[plays >= 0])
        records += [view_record(view, players, batch.deals[i]) for view in views]
    return np.concatenate(records)
