"""A person's table (sim/web/table.py): whole deals played from the person's seat at
every table, and in every message before the deal ends, no card the seat may not see:
none of another seat's hand (but a partner's the rules show), none of the stock."""

import json
import random

import pytest

from sim.base.cards import short_name
from sim.base.config import ConfigError, Rules
from sim.web.table import PERSON, PersonTable

TABLES = [
    (2, Rules()), (3, Rules()), (4, Rules()), (4, Rules(partner_view="none", signals="trumps")), (5, Rules()),
    (6, Rules()),
]  # fmt: skip


def hidden_cards(table: PersonTable) -> set[int]:
    """What the person's seat may not see now, from the seam's own views of every seat:
    the other hands (less a partner's cards its view shows) and the stock face down."""
    deal, seat = table._deal, table.seat  # the ground truth, read beside what the table shows
    mine = deal.view(seat)[0]
    players = int(mine["players"])
    held = {int(c) for s in range(players) for c in deal.view(s)[0]["hand"] if c >= 0}
    played = {int(c) for c in mine["history"][: mine["n_played"]]}
    public = {int(c) for c in (mine["face_up"], mine["removed_two"], mine["called"]) if c >= 0}
    shown = {int(c) for c in mine["partner_hands"].ravel() if c >= 0} | {int(c) for c in mine["hand"] if c >= 0}
    stock = set(range(40)) - held - played - public
    removed = set(range(40)) - held - played - stock if players == 5 else set()
    return (held - shown - public) | (stock - removed - public)


@pytest.mark.parametrize("players, rules", TABLES)
def test_a_whole_deal_from_every_seat_shows_no_hidden_card(players, rules):
    rng = random.Random(players)
    for seat in range(players):
        table = PersonTable.new(players=players, seat=seat, others=["expert"], rules=rules, seed=seat, deal=seat)
        messages = 0
        while not table.done:
            shown = table.seen()
            calling = shown["phase"] == "call"  # the cards one may call, named whoever holds them: no leak
            text = json.dumps({key: value for key, value in shown.items() if not (calling and key == "legal")})
            leaked = [short_name(c) for c in hidden_cards(table) if f'"{short_name(c)}"' in text]
            assert not leaked, (players, seat, leaked)
            table.play(rng.choice(shown["legal"]))
            messages += 1
        final = table.seen()
        assert messages >= 3 and final["names"][seat] == PERSON
        whole = [card for hand in final["deal"]["hands"] for card in hand] + final["deal"]["stock"]
        pack = {3: 39, 6: 36}.get(players, 40)  # twos leave the pack at 3 and 6 players
        assert len(set(whole)) == len(whole) == pack and sorted(final["deal"]["plays"]) == sorted(whole)


def test_wrong_turns_and_cards_are_refused_and_change_nothing():
    table = PersonTable.new(players=2, seat=1, others=["greedy"], seed=4)
    before = table.seen()
    outside = next(short_name(c) for c in range(40) if short_name(c) not in before["hand"])
    with pytest.raises(ConfigError, match="cannot play"):
        table.play(outside)
    assert table.seen() == before
    with pytest.raises(ConfigError, match="valid"):
        PersonTable.new(players=4, seat=4, others=["greedy"])
    with pytest.raises(ConfigError, match="one per seat"):
        PersonTable.new(players=4, seat=0, others=["greedy", "random"])


def test_best_plays_its_tables_setting():
    table = PersonTable.new(players=2, seat=0, others=["best"], seed=2)
    assert table.seen()["names"] == [PERSON, "best"] and table._deal.config.resolved[0][0] == "best"
