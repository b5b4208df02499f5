"""A slow, plainly written rules engine, used to check the fast kernels.

It knows Briscola only from its rulebook, written out below in short functions, and
shares no code with the kernels (it needs neither NumPy nor Numba). It can:

- replay a kernel trace row (``sim.trace.trace_rows``) and check it deal by deal:
  :func:`replay_trace` raises :class:`RuleViolation` at the first departure from the
  rules, naming the deal, trick, seat and card;
- play a dealt deal itself with a choice function per seat: :func:`play_deal`;
- make the yardstick's greedy decision: :func:`greedy_choice`.

Cards are integers ``suit * 10 + face``: suits 0..3 are Denari, Coppe, Spade, Bastoni;
faces 0..9 are Ace, 2, 3, 4, 5, 6, 7, Jack, Knight, King.

>>> card_name(0), card_name(12), card_name(39)
('Ace of Denari', '3 of Coppe', 'King of Bastoni')
>>> sum(points(card) for card in range(40))
120
"""

from __future__ import annotations

from dataclasses import dataclass

# ------------------------------------------------------------------ the cards

SUIT_NAMES = ("Denari", "Coppe", "Spade", "Bastoni")
FACE_NAMES = ("Ace", "2", "3", "4", "5", "6", "7", "Jack", "Knight", "King")
ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, JACK, KNIGHT, KING = range(10)
RULE_SUITS = ("denari", "coppe", "spade", "bastoni")  # as spelt in removed_two=...

# The faces from the strongest to the weakest.
STRENGTH_ORDER = (ACE, THREE, KING, KNIGHT, JACK, SEVEN, SIX, FIVE, FOUR, TWO)
FACE_POINTS = {ACE: 11, THREE: 10, KING: 4, KNIGHT: 3, JACK: 2}

PLAYER_COUNTS = (2, 3, 4, 6)
HAND_SIZE = 3


def card(face_name: str, suit_name: str) -> int:
    """The code of a card from its names.

    >>> card("Ace", "Denari"), card("2", "Coppe"), card("King", "Bastoni")
    (0, 11, 39)
    """
    return SUIT_NAMES.index(suit_name) * 10 + FACE_NAMES.index(face_name)


def suit(card: int) -> int:
    return card // 10


def face(card: int) -> int:
    return card % 10


def card_name(card: int) -> str:
    """The name of a card.

    >>> card_name(27)
    'Jack of Spade'
    """
    return f"{FACE_NAMES[face(card)]} of {SUIT_NAMES[suit(card)]}"


def strength(card: int) -> int:
    """How strong a card is within its suit: 9 for an Ace, 0 for a Two.

    >>> [FACE_NAMES[face(c)] for c in sorted(range(10), key=strength, reverse=True)]
    ['Ace', '3', 'King', 'Knight', 'Jack', '7', '6', '5', '4', '2']
    """
    return len(STRENGTH_ORDER) - 1 - STRENGTH_ORDER.index(face(card))


def points(card: int) -> int:
    """Points a card is worth: Ace 11, Three 10, King 4, Knight 3, Jack 2, others 0.

    >>> points(card("Ace", "Spade")), points(card("3", "Spade")), points(card("7", "Spade"))
    (11, 10, 0)
    """
    return FACE_POINTS.get(face(card), 0)


# ------------------------------------------------------------------ the table


def n_sides(players: int) -> int:
    """Every player alone with 2 or 3 players; two teams with 4 or 6.

    >>> [n_sides(p) for p in PLAYER_COUNTS]
    [2, 3, 2, 2]
    """
    return 2 if players in (4, 6) else players


def side_of(seat: int, players: int) -> int:
    """With 4 and 6 players the even seats play against the odd ones.

    >>> [side_of(seat, 4) for seat in range(4)], [side_of(seat, 3) for seat in range(3)]
    ([0, 1, 0, 1], [0, 1, 2])
    """
    return seat % 2 if players in (4, 6) else seat


def removed_twos(players: int, removed_two: str = "random") -> list[int] | None:
    """The twos taken out of the pack: none with 2 or 4 players, all four with 6, one
    with 3 (the ``removed_two`` rule's suit; None when it is chosen at random).

    >>> removed_twos(2), removed_twos(3, "coppe"), removed_twos(6)
    ([], [11], [1, 11, 21, 31])
    >>> removed_twos(3) is None
    True
    """
    if players == 6:
        return [s * 10 + TWO for s in range(4)]
    if players == 3:
        if removed_two == "random":
            return None
        return [RULE_SUITS.index(removed_two) * 10 + TWO]
    return []


def pack_size(players: int) -> int:
    """Cards in play at a table (the twos taken out are not).

    >>> [pack_size(p) for p in PLAYER_COUNTS]
    [40, 39, 40, 36]
    """
    return 40 - {3: 1, 6: 4}.get(players, 0)


def n_tricks(players: int) -> int:
    """Tricks in a deal: every card in play is played.

    >>> [n_tricks(p) for p in PLAYER_COUNTS]
    [20, 13, 10, 6]
    """
    return pack_size(players) // players


def seats_from(first: int, players: int) -> list[int]:
    """The seats in playing order, starting from ``first``.

    >>> seats_from(2, 4)
    [2, 3, 0, 1]
    """
    return [(first + k) % players for k in range(players)]


# ------------------------------------------------------------------ tricks


def trick_winner(table: list[int], trump_suit: int) -> int:
    """Position (0 = the lead) of the card that wins the trick: the highest trump; with
    no trump, the highest card of the suit led. Other cards never win.

    >>> trump = 2  # Spade
    >>> trick_winner([card("Ace", "Denari"), card("4", "Spade")], trump)  # a trump beats an Ace
    1
    >>> trick_winner([card("2", "Coppe"), card("Ace", "Denari")], trump)  # off-suit: no use
    0
    >>> trick_winner([card("5", "Coppe"), card("King", "Coppe"), card("3", "Coppe")], trump)
    2
    """
    trumps = [c for c in table if suit(c) == trump_suit]
    if trumps:
        best = max(trumps, key=strength)
    else:
        led_suit = suit(table[0])
        best = max((c for c in table if suit(c) == led_suit), key=strength)
    return table.index(best)


def takes_trick(card: int, table: list[int], trump_suit: int) -> bool:
    """True if ``card``, played now, would win the trick over every card on the table.

    >>> takes_trick(card("Ace", "Coppe"), [card("3", "Coppe")], trump_suit=0)
    True
    >>> takes_trick(card("Ace", "Coppe"), [card("2", "Denari")], trump_suit=0)
    False
    """
    return trick_winner(table + [card], trump_suit) == len(table)


# ------------------------------------------------------------------ the score


@dataclass(frozen=True)
class Outcome:
    """How a deal ended."""

    seat_points: tuple[int, ...]
    side_points: tuple[int, ...]
    winner_side: int  # -1 for a draw


def outcome(seat_points: list[int] | tuple[int, ...]) -> Outcome:
    """Side points and the winner from the points of each seat. The side with the most
    points wins; when the highest total is shared the deal is a draw (-1).

    >>> outcome([70, 50]).winner_side, outcome([60, 60]).winner_side
    (0, -1)
    >>> outcome([20, 45, 10, 45])  # teams: seats 0 and 2 against 1 and 3
    Outcome(seat_points=(20, 45, 10, 45), side_points=(30, 90), winner_side=1)
    >>> outcome([50, 50, 20]).winner_side  # 3 players: the top total is shared
    -1
    """
    players = len(seat_points)
    side_points = [0] * n_sides(players)
    for seat, taken in enumerate(seat_points):
        side_points[side_of(seat, players)] += taken
    top = max(side_points)
    leaders = [side for side, total in enumerate(side_points) if total == top]
    winner = leaders[0] if len(leaders) == 1 else -1
    return Outcome(tuple(seat_points), tuple(side_points), winner)


# ------------------------------------------------------------------ the greedy yardstick


def greedy_choice(hand: list[int], table: list[int], trump_suit: int) -> int:
    """The card the yardstick's greedy heuristic plays (briscola_ref.c, extended to any
    table: "the led card is worth 10+" reads "the cards on the table are worth 10+").

    Leading: the weakest non-trump card (then the lowest suit); with only trumps in
    hand, the weakest trump.

    Following: a card *wins* if it would take the trick from every card on the table.
      1. if some non-trump card wins, the cheapest such card;
      2. else, if the table holds 10 points or more and some (trump) card wins, the
         cheapest winning card;
      3. else the cheapest card.
    "Cheapest" = fewest points, then weakest, then non-trump before trump, then the
    lowest suit. No two cards tie, so the order of the hand never matters.

    >>> spade = 2
    >>> greedy_choice([card("King", "Coppe"), card("4", "Denari"), card("2", "Spade")], [], spade)
    3
    >>> greedy_choice([card("2", "Spade"), card("King", "Coppe")], [card("Ace", "Denari")], spade)
    21
    >>> greedy_choice([card("2", "Spade"), card("King", "Coppe")], [card("Jack", "Denari")], spade)
    21
    >>> greedy_choice([card("Ace", "Spade"), card("King", "Coppe")], [card("Jack", "Denari")], spade)
    19
    """

    def is_trump(c):
        return suit(c) == trump_suit

    if not table:
        return min(hand, key=lambda c: (is_trump(c), strength(c), suit(c)))

    def cheapness(c):
        return (points(c), strength(c), is_trump(c), suit(c))

    winners = [c for c in hand if takes_trick(c, table, trump_suit)]
    plain_winners = [c for c in winners if not is_trump(c)]
    if plain_winners:
        return min(plain_winners, key=cheapness)
    if winners and sum(points(c) for c in table) >= 10:
        return min(winners, key=cheapness)
    return min(hand, key=cheapness)


# ------------------------------------------------------------------ a deal in play


class RuleViolation(AssertionError):
    """A trace that breaks the rules; the message names the deal, trick, seat and card."""

    def __init__(self, what: str, deal=None, trick=None, seat=None, card=None):
        self.what, self.deal, self.trick, self.seat, self.card = what, deal, trick, seat, card
        where = []
        if deal is not None:
            where.append(f"deal {deal}")
        if trick is not None:
            where.append(f"trick {trick}")
        if seat is not None:
            where.append(f"seat {seat}")
        if card is not None:
            where.append(f"card {card} ({card_name(card)})" if 0 <= card < 40 else f"card {card}")
        super().__init__(", ".join(where) + ": " + what if where else what)


class Game:
    """A deal in progress: the hands, the stock (briscola last), the trick on the table
    and the points taken, moved on one card at a time by :meth:`play`.

    >>> game = Game(2, [[0, 1, 2], [10, 11, 12]], briscola=39, stock=[20, 21, 22])  # a short stock
    >>> game.to_play, game.play(0), game.play(12)
    (0, None, None)
    >>> game.end_trick(), game.points, game.hands
    (0, [21, 0], [[1, 2, 20], [10, 11, 21]])
    """

    def __init__(self, players, hands, briscola, stock, deal=None):
        self.players = players
        self.hands = [list(hand) for hand in hands]
        self.trump_suit = suit(briscola)
        self.draw_pile = list(stock) + [briscola]  # the briscola lies under the stock
        self.deal = deal
        self.trick = 0
        self.leader = 0  # seat 0 leads the first trick
        self.table: list[int] = []  # the current trick, from the leader on
        self.points = [0] * players

    @property
    def to_play(self) -> int:
        """The seat whose turn it is."""
        return (self.leader + len(self.table)) % self.players

    @property
    def over(self) -> bool:
        return not self.draw_pile and not any(self.hands)

    def violation(self, what, seat=None, card=None) -> RuleViolation:
        return RuleViolation(what, deal=self.deal, trick=self.trick, seat=seat, card=card)

    def play(self, card: int) -> None:
        """The seat to play puts ``card`` on the table; it must be in that seat's hand."""
        seat = self.to_play
        if card not in self.hands[seat]:
            raise self.violation(f"not in the hand of the seat to play {sorted(self.hands[seat])}", seat, card)
        self.hands[seat].remove(card)
        self.table.append(card)

    def end_trick(self) -> int:
        """Once everyone has played: the winner takes the points, everyone draws (the
        winner first), and the winner leads the next trick. Returns the winner."""
        if len(self.table) != self.players:
            raise self.violation(f"trick ends with {len(self.table)} cards for {self.players} players")
        winner = seats_from(self.leader, self.players)[trick_winner(self.table, self.trump_suit)]
        self.points[winner] += sum(points(c) for c in self.table)
        self.draw(winner)
        self.leader = winner
        self.table = []
        self.trick += 1
        return winner

    def draw(self, winner: int) -> None:
        """While the stock lasts, each seat draws one card: the winner first, then the
        others in playing order."""
        if not self.draw_pile:
            return
        if len(self.draw_pile) < self.players:
            raise self.violation(f"{len(self.draw_pile)} cards left to draw for {self.players} players")
        for seat in seats_from(winner, self.players):
            self.hands[seat].append(self.draw_pile.pop(0))


# ------------------------------------------------------------------ checking a deal


def check_pack(row: dict, trump_redeal: str | None = None, removed_two: str | None = None) -> None:
    """Checks the cards dealt in a trace row: the right twos taken out, every other card
    exactly once across hands, briscola and stock, and, with trump_redeal=ace-three, no
    Ace or Three face up. A rule left as None is not checked.

    >>> row = {"deal": 0, "players": 2, "hands": [0, 1, 2, 3, 4, 5], "briscola": 6,
    ...        "stock": list(range(7, 40)), "removed": []}
    >>> check_pack(row)
    >>> check_pack(dict(row, stock=list(range(7, 39)) + [5]))
    Traceback (most recent call last):
    ...
    sim.reference.RuleViolation: deal 0, card 5 (6 of Denari): dealt 2 times
    """
    deal, players = row["deal"], row["players"]
    if players not in PLAYER_COUNTS:
        raise RuleViolation(f"{players} players is not a Briscola table", deal=deal)
    if len(row["hands"]) != HAND_SIZE * players:
        raise RuleViolation(f"{len(row['hands'])} cards in the hands of {players} players", deal=deal)
    removed = list(row["removed"])
    expected = removed_twos(players, removed_two if players == 3 and removed_two else "random")
    if expected is None:  # 3 players, the two chosen at random: any one two
        if len(removed) != 1 or face(removed[0]) != TWO:
            raise RuleViolation(f"3 players: one two must leave the pack, not {removed}", deal=deal)
    elif sorted(removed) != expected:
        raise RuleViolation(f"{players} players: the twos removed should be {expected}, not {removed}", deal=deal)
    seen = list(row["hands"]) + [row["briscola"]] + list(row["stock"]) + removed
    for c in range(40):
        if seen.count(c) != 1:
            raise RuleViolation(f"dealt {seen.count(c)} times", deal=deal, card=c)
    if len(seen) != 40:
        strangers = [c for c in seen if not 0 <= c < 40]
        raise RuleViolation(f"not cards: {strangers}", deal=deal)
    if trump_redeal == "ace-three" and face(row["briscola"]) in (ACE, THREE):
        what = "an Ace or a Three left face up under trump_redeal=ace-three"
        raise RuleViolation(what, deal=deal, card=row["briscola"])


def hands_of(row: dict) -> list[list[int]]:
    """The trace's ``hands`` column split by seat: seat 0's three cards, then seat 1's..."""
    cards = list(row["hands"])
    return [cards[HAND_SIZE * seat : HAND_SIZE * (seat + 1)] for seat in range(row["players"])]


def replay_trace(
    row: dict,
    trump_redeal: str | None = None,
    removed_two: str | None = None,
    greedy_seats=(),
) -> Outcome:
    """Replays a kernel trace row by the rules and returns how the deal ends.

    Checks the pack (:func:`check_pack`), that every card played is in the hand of the
    seat whose turn it is (so that the cards were drawn in the right order), each
    trick's winner, that the seats in ``greedy_seats`` played :func:`greedy_choice`,
    and the seat points. Raises :class:`RuleViolation` at the first difference.

    >>> stock = list(range(20, 39)) + list(range(3, 10)) + list(range(13, 20))
    >>> row = play_deal(2, [[0, 1, 2], [10, 11, 12]], 39, stock, greedy_player, deal=7)
    >>> replay_trace(row, greedy_seats=(0, 1)) == outcome(row["seat_points"])
    True
    >>> replay_trace(dict(row, trick_winners=[1] + row["trick_winners"][1:]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sim.reference.RuleViolation: deal 7, trick 0, seat 0, card 1 (2 of Denari): takes the trick [1, 11] ...
    """
    check_pack(row, trump_redeal, removed_two)
    deal, players = row["deal"], row["players"]
    game = Game(players, hands_of(row), row["briscola"], row["stock"], deal=deal)
    plays, winners = list(row["plays"]), list(row["trick_winners"])
    tricks = n_tricks(players)
    if len(plays) != tricks * players or len(winners) != tricks:
        raise RuleViolation(
            f"{len(plays)} plays and {len(winners)} trick winners; a deal has {tricks * players} and {tricks}",
            deal=deal,
        )
    cards = iter(plays)
    for trick in range(tricks):
        for _ in range(players):
            seat, card = game.to_play, next(cards)
            if seat in greedy_seats:
                hand = game.hands[seat]
                expected = greedy_choice(hand, game.table, game.trump_suit) if card in hand else None
                if expected is not None and card != expected:
                    raise game.violation(
                        f"greedy should play {expected} ({card_name(expected)}) from {sorted(hand)} "
                        f"on table {game.table}",
                        seat,
                        card,
                    )
            game.play(card)
        table = list(game.table)
        winner = game.end_trick()
        if winner != winners[trick]:
            raise RuleViolation(
                f"takes the trick {table} (trump {SUIT_NAMES[game.trump_suit]}), "
                f"yet the trace says seat {winners[trick]} won it",
                deal=deal, trick=trick, seat=winner, card=table[trick_winner(table, game.trump_suit)],
            )  # fmt: skip
    if not game.over:
        raise RuleViolation(f"cards left over: hands {game.hands}, stock {game.draw_pile}", deal=deal)
    if list(row["seat_points"]) != game.points:
        traced = list(row["seat_points"])
        raise RuleViolation(f"seat points should be {game.points}, the trace says {traced}", deal=deal)
    return outcome(game.points)


# ------------------------------------------------------------------ playing a deal


def play_deal(players: int, hands, briscola: int, stock, choose, deal=None) -> dict:
    """Plays a dealt deal to the end: ``choose(seat, hand, table, trump_suit)`` returns
    the card each seat plays. Returns the deal's trace row (as in ``sim.trace``),
    ``stock`` being the drawing order without the briscola.

    >>> deck = list(range(40))
    >>> row = play_deal(2, [deck[0:3], deck[3:6]], 6, deck[7:], lambda seat, hand, table, trump: hand[0])
    >>> row["plays"][:4], row["trick_winners"][:2], sum(row["seat_points"])
    ([0, 3, 1, 4], [0, 1], 120)
    >>> replay_trace(row) == outcome(row["seat_points"])
    True
    """
    game = Game(players, hands, briscola, stock, deal=deal)
    plays, winners = [], []
    dealt = {c for hand in hands for c in hand} | {briscola} | set(stock)
    while not game.over:
        for _ in range(players):
            seat = game.to_play
            card = choose(seat, list(game.hands[seat]), list(game.table), game.trump_suit)
            game.play(card)
            plays.append(card)
        winners.append(game.end_trick())
    return {
        "deal": deal,
        "players": players,
        "hands": [c for hand in hands for c in hand],
        "briscola": briscola,
        "stock": list(stock),
        "removed": [c for c in range(40) if c not in dealt],
        "plays": plays,
        "trick_winners": winners,
        "seat_points": game.points,
    }


def greedy_player(seat, hand, table, trump_suit):
    """A ``choose`` function for :func:`play_deal`: every seat plays greedy."""
    return greedy_choice(hand, table, trump_suit)


# ------------------------------------------------------------------ what a seat sees


# Partnership signals (signals=trumps): the bit of each trump honour a partner shows.
HONOUR_BITS = {ACE: 1, THREE: 2, KING: 4, KNIGHT: 8, JACK: 16}


def trump_signal(hand: list[int], trump_suit: int) -> int:
    """The signal of a hand under signals=trumps: the bits of its trump honours.

    >>> trump_signal([card("Ace", "Spade"), card("Jack", "Spade"), card("3", "Coppe")], trump_suit=2)
    17
    """
    return sum(HONOUR_BITS.get(face(c), 0) for c in hand if suit(c) == trump_suit)


def view_before(players, hands, briscola, stock, plays, partner_view="last3", signals="none") -> dict:
    """What the seat to play sees after ``plays`` (the deal's cards in playing order):
    the fields of the kernels' view, as plain Python. Used to report an illegal decision
    and by briscola check to ask a decision again. With signals=trumps, from the second
    trick on, each partner's trump honours (:func:`trump_signal`) are shown.

    >>> deck = list(range(40))
    >>> view = view_before(2, [deck[0:3], deck[3:6]], 6, deck[7:], [0])
    >>> view["seat"], view["hand"], view["table"], view["stock_size"]
    (1, [3, 4, 5], [0], 34)
    """
    game = Game(players, hands, briscola, stock)
    played_by, trick_winners = {}, []
    for card in plays:
        played_by[card] = game.to_play
        game.play(card)
        if len(game.table) == players:
            trick_winners.append(game.end_trick())
    seat = game.to_play
    visible = partner_view == "last3" and players >= 4 and not game.draw_pile
    partners = [other for other in range(players) if players >= 4 and other != seat and other % 2 == seat % 2]
    signalled = signals == "trumps" and game.trick > 0
    return {
        "seat": seat,
        "hand": list(game.hands[seat]),
        "table": list(game.table),
        "trump_suit": game.trump_suit,
        "briscola": briscola if game.draw_pile else -1,
        "stock_size": len(game.draw_pile),
        "trick": game.trick,
        "leader": game.leader,
        "points": list(game.points),
        "played_by": played_by,
        "n_played": len(plays),
        "history": list(plays),
        "trick_winners": trick_winners,
        "partner_hands": {other: list(game.hands[other]) for other in partners if visible},
        "partner_trumps": {other: trump_signal(game.hands[other], game.trump_suit) for other in partners if signalled},
    }
