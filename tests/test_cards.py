"""Card names in both styles, and back."""

import pytest

from sim.base.cards import french_name, italian_name, parse_card, short_name


def test_every_card_has_distinct_names_in_every_style():
    for name in (italian_name, short_name, french_name):
        assert len({name(code) for code in range(40)}) == 40


@pytest.mark.parametrize("code", range(40))
def test_every_name_reads_back_as_its_card(code):
    for name in (italian_name, short_name, french_name):
        assert parse_card(name(code)) == code
        assert parse_card(name(code).upper()) == code


def test_names_follow_the_conventions():
    assert italian_name(12) == "Tre di Coppe" and short_name(12) == "3C" and french_name(12) == "3♥"
    assert italian_name(37) == "Fante di Bastoni" and short_name(37) == "8B" and french_name(37) == "J♣"
    assert italian_name(29) == "Re di Spade" and short_name(29) == "10S" and french_name(29) == "K♠"


@pytest.mark.parametrize("bad", ["", "11D", "Asso di Picche", "40", "Z♦"])
def test_a_wrong_name_is_refused_with_what_is_valid(bad):
    with pytest.raises(ValueError, match="is not a card"):
        parse_card(bad)


def test_a_wrong_code_is_refused():
    with pytest.raises(ValueError, match="0..39"):
        italian_name(40)
