"""A run's configuration: the table, the rules, the strategy of each seat.

Everything a user types is checked here, and every mistake becomes a ``ConfigError``
whose message names the problem and what is valid:

>>> parse_rules(["trump_redeal=ace-three"], players=2).trump_redeal
'ace-three'
>>> parse_rules(["colour=red"], players=2)
Traceback (most recent call last):
...
sim.base.config.ConfigError: unknown rule 'colour'; valid rules: trump_redeal, removed_two, partner_view, signals, first_lead, bid_multiplier, auction
>>> seat_strategies("greedy,random", players=4)
('greedy', 'random', 'greedy', 'random')
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from strategies.errors import StrategyError

PLAYER_COUNTS = (2, 3, 4, 5, 6)
CHIAMATA = 5  # Briscola Chiamata: an auction, a called partner, game points
# Match formats (sim/pipeline/matches.py) and their tables: Briscola Chiamata is played for a
# running total of game points.
MATCH_TABLES = {
    "deal": PLAYER_COUNTS, "best-of-3": (2, 3, 4, 6), "best-of-5": (2, 3, 4, 6), "two-deals-120": (2, 3, 4, 6),
    "five-deals": (CHIAMATA,),
}  # fmt: skip
MATCH_FORMATS = tuple(MATCH_TABLES)
POINTS_FORMATS = ("deal", "two-deals-120", "five-deals")  # decided by points; the others by deals won
SUIT_NAMES = ("denari", "coppe", "spade", "bastoni")
MAX_DEALS = 2**62  # deal numbers are int64 in the kernels, and a match format multiplies them

# Each rule: its valid values (the first is the default) and the tables it applies to.
RULE_VALUES = {
    "trump_redeal": ("off", "ace-three"),
    "removed_two": ("random",) + SUIT_NAMES,
    "partner_view": ("last3", "none"),
    "signals": ("none", "trumps"),
    "first_lead": ("eldest", "caller"),
    "bid_multiplier": ("off", "on"),
    "auction": ("points", "ranks"),
}
RULE_TABLES = {
    "trump_redeal": (2, 3, 4, 6),  # Briscola Chiamata turns no card
    "removed_two": (3,),
    "partner_view": (4, 6),
    "signals": (4, 6),
    "first_lead": (CHIAMATA,),
    "bid_multiplier": (CHIAMATA,),
    "auction": (CHIAMATA,),
}


class ConfigError(ValueError):
    """Bad input from the user: the message is one line, fit to show as it is."""


# Every error that is the user's input, not a fault: shown as one line, exit code 2.
BAD_INPUT = (ConfigError, StrategyError)


class IllegalDecisionError(RuntimeError):
    """A strategy returned a card that is not in its player's hand. The message names the
    strategy, seat, card, deal and view in one line."""


class ChunkFailed(RuntimeError):
    """A chunk of a study could not be played (Dask gave up on it); the chunks done are
    kept and the study can be resumed. The message is one line, fit to show as it is."""


@dataclass(frozen=True)
class Rules:
    """The rule options of a run (see docs/rules.md for what each one does)."""

    trump_redeal: str = "off"
    removed_two: str = "random"
    partner_view: str = "last3"
    signals: str = "none"
    first_lead: str = "eldest"
    bid_multiplier: str = "off"
    auction: str = "points"

    def as_codes(self):
        """The integer ``rules`` array the kernels take."""
        import numpy as np

        from kernels import enums

        redeal = enums.TRUMP_REDEAL_ACE_THREE if self.trump_redeal == "ace-three" else enums.TRUMP_REDEAL_OFF
        removed = enums.REMOVED_TWO_RANDOM if self.removed_two == "random" else SUIT_NAMES.index(self.removed_two)
        view = enums.PARTNER_VIEW_LAST3 if self.partner_view == "last3" else enums.PARTNER_VIEW_NONE
        codes = np.zeros(enums.N_RULES, dtype=np.int64)
        codes[enums.RULE_TRUMP_REDEAL] = redeal
        codes[enums.RULE_REMOVED_TWO] = removed
        codes[enums.RULE_PARTNER_VIEW] = view
        codes[enums.RULE_SIGNALS] = enums.SIGNALS_TRUMPS if self.signals == "trumps" else enums.SIGNALS_NONE
        codes[enums.RULE_FIRST_LEAD] = (
            enums.FIRST_LEAD_CALLER if self.first_lead == "caller" else enums.FIRST_LEAD_ELDEST
        )
        codes[enums.RULE_BID_MULTIPLIER] = (
            enums.BID_MULTIPLIER_ON if self.bid_multiplier == "on" else enums.BID_MULTIPLIER_OFF
        )
        codes[enums.RULE_AUCTION] = enums.AUCTION_RANKS if self.auction == "ranks" else enums.AUCTION_POINTS
        return codes

    def for_table(self, players: int) -> dict:
        """The rules that apply at a table of ``players``, with their values."""
        return {key: value for key, value in vars(self).items() if players in RULE_TABLES[key]}

    def changed(self) -> dict:
        """The rules set away from their defaults."""
        return {key: value for key, value in vars(self).items() if value != RULE_VALUES[key][0]}


def parse_count(text: str) -> int:
    """A count (or a seed) as people write it: ``1000000``, ``1_000_000`` or ``1e6``, read
    exactly (never through a float, which would round a seed above 2**53).

    >>> [parse_count(text) for text in ("1000000", "1_000_000", "1e6", "2.5e3", "9007199254740993.0")]
    [1000000, 1000000, 1000000, 2500, 9007199254740993]
    """
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(text.strip().replace("_", "")) if text.strip() else None
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or value != value.to_integral_value():
        raise ConfigError(f"{text!r} is not a whole number; write e.g. 1000000, 1_000_000 or 1e6")
    if value.adjusted() >= 19:  # no count or seed comes near: 2**63 has 19 digits
        raise ConfigError(f"{text!r} is too large: counts and seeds are below 2**63 (about 9.2e18)")
    return int(value)


def check_players(players: int) -> int:
    if players not in PLAYER_COUNTS:
        raise ConfigError(f"--players {players} is not a Briscola table; valid: 2, 3, 4, 5, 6")
    return players


def parse_tables(text: str) -> tuple[int, ...]:
    """A comma-separated list of table sizes, each checked.

    >>> parse_tables("2, 4")
    (2, 4)
    """
    try:
        tables = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ConfigError(f"--players {text!r}: give table sizes separated by commas; valid: 2, 3, 4, 5, 6") from None
    if not tables:
        raise ConfigError("--players names no table; valid: 2, 3, 4, 5, 6")
    return tuple(check_players(players) for players in tables)


def n_sides(players: int) -> int:
    """Every player alone with 2 or 3 players; two teams (seat % 2) with 4 or 6. At
    Briscola Chiamata (5), whose teams change from deal to deal, every seat is scored on
    its own game points: a side each."""
    return 2 if players in (4, 6) else players


def side_of_seat(seat: int, players: int) -> int:
    return seat % n_sides(players)


def parse_rules(items: list[str] | tuple[str, ...], players: int) -> Rules:
    """Rules from ``key=value`` strings; unknown keys or values raise ConfigError."""
    chosen = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep:
            raise ConfigError(f"--rule {item!r} is not key=value; valid rules: {', '.join(RULE_VALUES)}")
        if key not in RULE_VALUES:
            raise ConfigError(f"unknown rule {key!r}; valid rules: {', '.join(RULE_VALUES)}")
        valid = RULE_VALUES[key]
        if value not in valid:
            raise ConfigError(f"rule {key}={value!r} is not valid; valid values: {', '.join(valid)}")
        if players not in RULE_TABLES[key]:
            tables = ", ".join(map(str, RULE_TABLES[key]))
            raise ConfigError(f"rule {key} applies to {tables} players only, not to {players}")
        if key in chosen and chosen[key] != value:
            raise ConfigError(f"rule {key} is given twice ({chosen[key]} and {value}); give it once")
        chosen[key] = value
    return Rules(**chosen)


def seat_strategies(spec: str, players: int) -> tuple[str, ...]:
    """One strategy name per seat from ``NAME[,NAME...]``.

    A single name plays every seat; otherwise one name per seat, or, in team games,
    one per side (team 0 = even seats, team 1 = odd seats).
    """
    names = [name.strip() for name in spec.split(",")]
    if any(not name for name in names):
        raise ConfigError(f"--strategies {spec!r} has an empty name")
    if len(names) == 1:
        return tuple(names * players)
    if len(names) == players:
        return tuple(names)
    if players in (4, 6) and len(names) == 2:
        return tuple(names[seat % 2] for seat in range(players))
    fits = f"1 or {players}" + (" or 2 (one per team)" if players in (4, 6) else "")
    raise ConfigError(f"--strategies lists {len(names)} names but a {players}-player table takes {fits}")


def checked_flat_version(version: int) -> int:
    """An environment's ``flat_version``: a version of the flat encoding the encoder
    writes (strategies/observation.py), else ConfigError naming the valid ones."""
    from strategies.observation import checked_version  # here: the rest of the configuration needs no kernels

    try:
        return checked_version(version)
    except ValueError as error:
        raise ConfigError(f"flat_version: {error}") from None


def default_threads() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides a run's results (threads only decide its speed)."""

    players: int
    strategies: tuple[str, ...]  # one per seat: NAME[:key=value...]
    deals: int
    seed: int
    rules: Rules = field(default_factory=Rules)
    threads: int = field(default_factory=default_threads)
    strategy_files: tuple[str, ...] = ()  # --strategy-file paths, where plug-ins come from
    # The random stream each seat's strategy draws from; empty: seat s draws from 1 + s.
    # A comparison keys them by strategy and copy instead, the same in every seating.
    streams: tuple[int, ...] = ()
    match: str = "deal"  # the match format (sim/pipeline/matches.py); with another, ``deals`` counts matches
    # The names given that stand for a setting chosen per table (``best``), each with the
    # setting it resolved to: the seats play the settings; this records what was asked.
    resolved: tuple[tuple[str, str], ...] = ()

    def __post_init__(self):
        check_players(self.players)
        if len(self.strategies) != self.players:
            raise ConfigError(f"{len(self.strategies)} strategies for {self.players} seats")
        if not 1 <= self.deals <= MAX_DEALS:
            raise ConfigError(f"--deals {self.deals} must be between 1 and 2**62 (deal numbers are 64-bit)")
        if not 0 <= self.seed < 2**63:
            raise ConfigError(f"--seed {self.seed} must be between 0 and 2**63 - 1")
        if self.threads < 1:
            raise ConfigError(f"--threads {self.threads} must be at least 1")
        if self.match not in MATCH_FORMATS:
            raise ConfigError(f"--match {self.match!r} is not a match format; valid: {', '.join(MATCH_FORMATS)}")
        if self.players not in MATCH_TABLES[self.match]:
            valid = [name for name, tables in MATCH_TABLES.items() if self.players in tables]
            raise ConfigError(
                f"--match {self.match} is not played with {self.players} players; valid: {', '.join(valid)}"
            )
        if self.streams and (len(self.streams) != self.players or min(self.streams) < 1):
            raise ConfigError(f"streams {self.streams}: one per seat, each at least 1 (0 is the dealer's)")

    def seat_streams(self):
        """The kernels' ``seat_streams`` array (one entry per possible seat)."""
        import numpy as np

        from kernels.enums import MAX_PLAYERS

        streams = np.arange(1, MAX_PLAYERS + 1, dtype=np.int64)
        streams[: len(self.streams)] = self.streams
        return streams

    def side_strategy(self, side: int) -> str:
        """The strategy of a side, e.g. 'greedy', or 'greedy+random' for a mixed team."""
        seats = self.side_seats(side)
        names = dict.fromkeys(self.strategies[s] for s in seats)
        return "+".join(names)

    def side_seats(self, side: int) -> list[int]:
        return [s for s in range(self.players) if side_of_seat(s, self.players) == side]
