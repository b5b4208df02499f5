"""Card names for people, in both styles, and back to card codes.

Card code = suit * 10 + face; suits 0..3 = Denari, Coppe, Spade, Bastoni; faces 0..9 =
Ace, 2, 3, 4, 5, 6, 7, Jack (Fante), Knight (Cavallo), King (Re).

Italian style: the full name, and the short form "face number 1..10 + suit initial"
(Fante 8, Cavallo 9, Re 10). French-pack style: Denari = ♦, Coppe = ♥, Spade = ♠,
Bastoni = ♣; Jack J, Knight Q, King K.

>>> italian_name(0), short_name(0), french_name(0)
('Asso di Denari', '1D', 'A♦')
>>> french_name(28), italian_name(28)
('Q♠', 'Cavallo di Spade')
>>> [parse_card(text) for text in ("1D", "A♦", "Re di Bastoni", "10b", "q♠")]
[0, 0, 39, 39, 28]
"""

from __future__ import annotations

import numpy as np

from sim.base.config import CHIAMATA

SUITS_ITALIAN = ("Denari", "Coppe", "Spade", "Bastoni")
SUITS_FRENCH = ("♦", "♥", "♠", "♣")
FACES_ITALIAN = ("Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette", "Fante", "Cavallo", "Re")
FACES_FRENCH = ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
N_CARDS = 40


def _check(code: int) -> tuple[int, int]:
    if not 0 <= code < N_CARDS:
        raise ValueError(f"card code {code} is not a card; valid codes: 0..39 (suit * 10 + face)")
    return divmod(code, 10)


def italian_name(code: int) -> str:
    """'Asso di Denari', 'Re di Bastoni', ..."""
    suit, face = _check(code)
    return f"{FACES_ITALIAN[face]} di {SUITS_ITALIAN[suit]}"


def short_name(code: int) -> str:
    """'1D' for the Ace of Denari, '10B' for the King of Bastoni."""
    suit, face = _check(code)
    return f"{face + 1}{SUITS_ITALIAN[suit][0]}"


def french_name(code: int) -> str:
    """'A♦' for the Ace of Denari, 'Q♠' for the Knight of Spade."""
    suit, face = _check(code)
    return f"{FACES_FRENCH[face]}{SUITS_FRENCH[suit]}"


def _all_names() -> dict[str, int]:
    names = {}
    for code in range(N_CARDS):
        for name in (italian_name(code), short_name(code), french_name(code), str(code)):
            names[name.casefold()] = code
    return names


_NAMES = _all_names()


def parse_card(text: str) -> int:
    """The code of a card named in any style (case does not matter)."""
    try:
        return _NAMES[" ".join(text.split()).casefold()]
    except KeyError:
        raise ValueError(f"{text!r} is not a card; write e.g. 'Asso di Denari', '1D', 'A♦' or a code 0..39") from None


# Briscola Chiamata's bids (levels 0..68): the ranks, lowest bid first, then points.
BID_RANK_NAMES = ("Ace", "Three", "King", "Knight", "Jack", "Seven", "Six", "Five", "Four", "Two")


def bid_name(level: int) -> str:
    """A bid for people: the rank it calls, or the points it promises.

    >>> bid_name(0), bid_name(9), bid_name(10), bid_name(68)
    ('Ace', 'Two', '62', '120')
    """
    return BID_RANK_NAMES[level] if level < len(BID_RANK_NAMES) else str(bid_target(level))


def bid_target(level: int) -> int:
    """The points a bid promises: 61 for a rank, else its points.

    >>> bid_target(0), bid_target(9), bid_target(10), bid_target(68)
    (61, 61, 62, 120)
    """
    return 61 if level < len(BID_RANK_NAMES) else level + 52


def trump_suits(rows, players: int) -> np.ndarray:
    """Each deal's trump suit in ``rows`` (result rows or trace rows: a frame or an Arrow
    table): the face-up briscola's; at Briscola Chiamata the called card's, -1 for a deal
    thrown in (nothing called)."""
    card = np.asarray(rows["called" if players == CHIAMATA else "briscola"].to_numpy())
    return np.where(card >= 0, card // len(FACES_FRENCH), -1).astype(np.int8)
