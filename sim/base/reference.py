"""A slow, plainly written rules engine, used to check the fast kernels.

It knows Briscola only from its rulebook, written out below in short functions, and
shares no code with the kernels (it needs neither NumPy nor Numba). It can:

- replay a kernel trace row (``sim.base.trace.trace_rows``) and check it deal by deal:
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

PLAYER_COUNTS = (2, 3, 4, 6)  # Briscola Chiamata (5) has its own section below
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
    >>> game.play(1), game.play(10), game.end_trick()  # seat 0 wins, draws 22; seat 1 takes the briscola
    (None, None, 0)
    >>> game.face_up, game.face_up_holder, game.hands[1]
    (39, 1, [11, 21, 39])
    """

    def __init__(self, players, hands, briscola, stock, deal=None, trump_suit=None, leader=0):
        self.players = players
        self.hands = [list(hand) for hand in hands]
        if briscola is None:  # Briscola Chiamata: no stock, trump called
            self.trump_suit, self.draw_pile = trump_suit, []
        else:
            self.trump_suit = suit(briscola)
            self.draw_pile = list(stock) + [briscola]  # the briscola lies under the stock
        self.face_up = -1 if briscola is None else briscola  # seen by all, the whole deal
        self.face_up_holder = -1  # who drew it, the last card of the pile; -1 until then
        self.deal = deal
        self.trick = 0
        self.leader = leader  # seat 0 leads the first trick, but at Chiamata maybe the caller
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
            if not self.draw_pile:
                self.face_up_holder = seat


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
    sim.base.reference.RuleViolation: deal 0, card 5 (6 of Denari): dealt 2 times
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
    sim.base.reference.RuleViolation: deal 7, trick 0, seat 0, card 1 (2 of Denari): takes the trick [1, 11] ...
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
    the card each seat plays. Returns the deal's trace row (as in ``sim.base.trace``),
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
    *_, last = views_along(players, hands, briscola, stock, list(plays) + [None], partner_view, signals)
    return last


def views_along(players, hands, briscola, stock, plays, partner_view="last3", signals="none"):
    """The view of the seat to play before each card of ``plays`` in turn, in one pass
    (``view_before`` for every prefix would replay the deal once per card).

    >>> deck = list(range(40))
    >>> [view["seat"] for view in views_along(2, [deck[0:3], deck[3:6]], 6, deck[7:], [0, 3, 7])]
    [0, 1, 0]
    """
    game = Game(players, hands, briscola, stock)
    played_by, trick_winners = {}, []
    for n_played, card in enumerate(plays):
        yield _view_of(game, briscola, plays[:n_played], played_by, trick_winners, partner_view, signals)
        if card is None:
            return
        played_by[card] = game.to_play
        game.play(card)
        if len(game.table) == players:
            trick_winners.append(game.end_trick())


def _view_of(game, briscola, history, played_by, trick_winners, partner_view, signals) -> dict:
    players, seat = game.players, game.to_play
    visible = partner_view == "last3" and players >= 4 and not game.draw_pile
    partners = [other for other in range(players) if players in (4, 6) and other != seat and other % 2 == seat % 2]
    signalled = signals == "trumps" and game.trick > 0
    return {
        "seat": seat,
        "hand": list(game.hands[seat]),
        "table": list(game.table),
        "trump_suit": game.trump_suit,
        "briscola": briscola if game.draw_pile else -1,
        "face_up": game.face_up,
        "face_up_holder": game.face_up_holder,
        "stock_size": len(game.draw_pile),
        "trick": game.trick,
        "leader": game.leader,
        "points": list(game.points),
        "played_by": dict(played_by),
        "n_played": len(history),
        "history": [int(c) for c in history],
        "trick_winners": list(trick_winners),
        "partner_hands": {other: list(game.hands[other]) for other in partners if visible},
        "partner_trumps": {other: trump_signal(game.hands[other], game.trump_suit) for other in partners if signalled},
    }


# ------------------------------------------------------------------ Briscola Chiamata

CHIAMATA = 5
CHIAMATA_HAND = 8
# Rank bids, from the lowest bid up: each names a lower rank. After the Two (61 points),
# bids are in points, 62 to 120; a points bid calls a Two.
BID_RANKS = (ACE, THREE, KING, KNIGHT, JACK, SEVEN, SIX, FIVE, FOUR, TWO)
PASS = -1


def bid_face(level: int) -> int:
    """The face a bid calls.

    >>> [FACE_NAMES[bid_face(level)] for level in (0, 1, 9, 10, 68)]
    ['Ace', '3', '2', '2', '2']
    """
    return BID_RANKS[min(level, len(BID_RANKS) - 1)]


def bid_target(level: int) -> int:
    """The points a bid promises: 61 for a rank, else its points.

    >>> bid_target(0), bid_target(9), bid_target(10), bid_target(68)
    (61, 61, 62, 120)
    """
    return 61 if level < len(BID_RANKS) else 61 + level - len(BID_RANKS) + 1


def highest_bid(auction_rule: str) -> int:
    """The last bid the rules allow: the Two under auction=ranks, else 120 points."""
    return len(BID_RANKS) - 1 if auction_rule == "ranks" else len(BID_RANKS) + 120 - 62


def replay_auction(actions, auction_rule: str = "points", deal=None):
    """Replays an auction (each action a bid level or -1 for a pass, in turn order from
    seat 0, passed seats skipped) and returns (caller, bid), or None if all five passed.

    >>> replay_auction([0, PASS, 1, PASS, PASS, PASS])  # seat 2 outbids seat 0, the others pass
    (2, 1)
    >>> replay_auction([PASS] * 5) is None
    True
    >>> replay_auction([3, 2])
    Traceback (most recent call last):
    ...
    sim.base.reference.RuleViolation: seat 1: bid 2 is not above the last bid 3
    """
    passed, bid, caller, seat = set(), -1, None, 0
    actions = list(actions)
    top = highest_bid(auction_rule)
    for k, action in enumerate(actions):
        if action == PASS:
            passed.add(seat)
        elif not bid < action <= top:
            raise RuleViolation(f"bid {action} is not above the last bid {bid}" if action <= bid
                                else f"bid {action} is above the highest bid {top}", deal=deal, seat=seat)  # fmt: skip
        else:
            bid, caller = action, seat
        over = len(passed) == CHIAMATA or (caller is not None and (len(passed) == CHIAMATA - 1 or bid == top))
        if over and k < len(actions) - 1:
            raise RuleViolation(f"the auction was over after {k + 1} actions, yet goes on", deal=deal)
        if over:
            return None if caller is None else (caller, bid)
        seat = next(s % CHIAMATA for s in range(seat + 1, seat + 1 + CHIAMATA) if s % CHIAMATA not in passed)
    raise RuleViolation(f"the auction stops after {len(actions)} actions before it is over", deal=deal)


def chiamata_game_points(caller, partner, seat_points, trick_winners, target, bid_multiplier="off"):
    """Each seat's game points and whether the caller's side made its target.

    The caller's side (caller and partner) needs ``target`` points. Succeeding, the caller
    takes 2, the partner 1 and each defender pays 1; failing, the reverse. Alone (the
    caller its own partner) the caller takes or pays 4, against 1 from or to each of the
    four. A side taking every trick (cappotto) doubles it all; with bid_multiplier=on a
    target of 71+, 81+, 91+, 101+ multiplies it by 2, 3, 4, 5.

    >>> chiamata_game_points(0, 2, [30, 10, 31, 20, 29], [0] * 4 + [1] * 4, 61)
    ([2, -1, 1, -1, -1], True)
    >>> chiamata_game_points(3, 3, [0, 0, 0, 120, 0], [3] * 8, 75, "on")
    ([-4, -4, -4, 16, -4], True)
    """
    team = {caller, partner}
    made = sum(seat_points[s] for s in team) >= target
    team_tricks = sum(1 for winner in trick_winners if winner in team)
    unit = 1 if made else -1
    if team_tricks in (0, len(trick_winners)):
        unit *= 2
    if bid_multiplier == "on" and target >= 71:
        unit *= min(5, 2 + (target - 71) // 10)
    points = [-unit] * CHIAMATA
    if partner == caller:
        points[caller] = 4 * unit
    else:
        points[caller], points[partner] = 2 * unit, unit
    return points, made


def replay_chiamata(row: dict, first_lead="eldest", bid_multiplier="off", auction_rule="points") -> dict:
    """Replays a Briscola Chiamata trace row by the rules: the pack (8 cards each, no
    stock), the auction, the call (a card of the bid's face), every card played by the
    seat whose turn it is, each trick's winner, seat points and game points. Returns
    caller, bid, called, partner, target, made and game points (caller None: thrown in);
    raises RuleViolation at the first difference."""
    deal = row["deal"]
    hands = [list(row["hands"][CHIAMATA_HAND * s : CHIAMATA_HAND * (s + 1)]) for s in range(CHIAMATA)]
    dealt = sorted(c for hand in hands for c in hand)
    if row["players"] != CHIAMATA or dealt != list(range(40)) or row["briscola"] != -1 or row["stock"]:
        raise RuleViolation("Briscola Chiamata deals the whole pack, 8 cards to each of 5, nothing else", deal=deal)
    auction = replay_auction(row["auction"], auction_rule, deal)
    if auction is None:
        if row["plays"] or any(row["game_points"]) or row["called"] != -1:
            raise RuleViolation("everyone passed, yet the deal was played or scored", deal=deal)
        return {"caller": None, "game_points": [0] * CHIAMATA}
    caller, bid = auction
    called = row["called"]
    if not 0 <= called < 40 or face(called) != bid_face(bid):
        raise RuleViolation(f"the call of card {called} does not name the bid's face", deal=deal, seat=caller)
    partner = next(s for s in range(CHIAMATA) if called in hands[s])
    leader = caller if first_lead == "caller" else 0
    game = Game(CHIAMATA, hands, None, [], deal=deal, trump_suit=suit(called), leader=leader)
    plays, winners = list(row["plays"]), list(row["trick_winners"])
    if len(plays) != 40 or len(winners) != CHIAMATA_HAND:
        raise RuleViolation(f"{len(plays)} plays and {len(winners)} trick winners; a deal has 40 and 8", deal=deal)
    cards = iter(plays)
    for trick in range(CHIAMATA_HAND):
        for _ in range(CHIAMATA):
            game.play(next(cards))
        table = list(game.table)
        if game.end_trick() != winners[trick]:
            raise RuleViolation(f"the trace gives trick {table} to seat {winners[trick]}", deal=deal, trick=trick)
    if list(row["seat_points"]) != game.points:
        raise RuleViolation(f"seat points should be {game.points}, the trace says {row['seat_points']}", deal=deal)
    target = bid_target(bid)
    points, made = chiamata_game_points(caller, partner, game.points, winners, target, bid_multiplier)
    if list(row["game_points"]) != points:
        raise RuleViolation(f"game points should be {points}, the trace says {row['game_points']}", deal=deal)
    return {"caller": caller, "bid": bid, "called": called, "partner": partner, "target": target,
            "made": made, "game_points": points}  # fmt: skip


def chiamata_decisions(row: dict, first_lead="eldest", auction_rule="points"):
    """Every decision of a Briscola Chiamata trace row, in the order they were made:
    ``(phase, view, decision)`` with phase "bid", "call" or "play", the view the deciding
    seat had (the fields of the kernels' view, as plain Python) and what it decided.
    Used by briscola check to ask each decision again."""
    hands = [list(row["hands"][CHIAMATA_HAND * s : CHIAMATA_HAND * (s + 1)]) for s in range(CHIAMATA)]
    top = highest_bid(auction_rule)
    auction = {"bid": -1, "bidder": -1, "seat_bids": [-1] * 6, "passed": [0] * 6, "max_bid": top,
               "caller": -1, "called": -1, "target": -1, "partner": -1}  # fmt: skip
    start = {"players": CHIAMATA, "trump_suit": -1, "briscola": -1, "face_up": -1, "face_up_holder": -1,
             "stock_size": 0, "trick": 0, "leader": 0, "table": [], "points": [0] * CHIAMATA, "played_by": {},
             "n_played": 0, "history": [], "trick_winners": [], "partner_hands": {}, "partner_trumps": {}}  # fmt: skip
    seat = 0
    for action in row["auction"]:
        while auction["passed"][seat]:
            seat = (seat + 1) % CHIAMATA
        yield "bid", {**start, **_copied(auction), "seat": seat, "hand": list(hands[seat])}, action
        if action == PASS:
            auction["passed"][seat] = 1
        else:
            auction.update(bid=action, bidder=seat)
            auction["seat_bids"][seat] = action
        seat = (seat + 1) % CHIAMATA
    if row["called"] < 0:
        return
    caller, called = auction["bidder"], row["called"]
    auction["caller"] = caller
    yield "call", {**start, **_copied(auction), "seat": caller, "hand": list(hands[caller])}, called
    auction.update(called=called, target=bid_target(auction["bid"]))
    holder = next(s for s in range(CHIAMATA) if called in hands[s])
    game = Game(CHIAMATA, hands, None, [], trump_suit=suit(called), leader=caller if first_lead == "caller" else 0)
    played_by, winners = {}, []
    for k, card in enumerate(row["plays"]):
        seat = game.to_play
        known = called in played_by or seat == holder
        yield "play", {**start, **_copied(auction), "partner": holder if known else -1, "seat": seat,
                       "hand": list(game.hands[seat]), "trump_suit": suit(called), "trick": game.trick,
                       "leader": game.leader, "table": list(game.table), "points": list(game.points),
                       "played_by": dict(played_by), "n_played": k, "history": list(row["plays"][:k]),
                       "trick_winners": list(winners)}, card  # fmt: skip
        played_by[card] = seat
        game.play(card)
        if len(game.table) == CHIAMATA:
            winners.append(game.end_trick())


def _copied(fields: dict) -> dict:
    return {key: list(value) if isinstance(value, list) else value for key, value in fields.items()}
