"""A table for a person: one deal at any table, one seat played by a person, every other
seat by its strategy.

``PersonTable`` holds a one-deal seam (``sim.runtime.deal.Deal``) whose person's seat is
driven from outside (its bids and its call too, at Briscola Chiamata). What it shows,
``seen()``, is built from that seat's own view alone: its hand, the public play, the
face-up card, its partners' cards and signals where the rules show them, the auction.
Once the deal is over it shows the whole deal (``deal``: every hand and the stock), as
the page's replay needs. Cards are named as people write them (``1D`` the Ace of Denari,
``10B`` the King of Bastoni: ``sim.base.cards.short_name``), so no number in a message
can be mistaken for a card.

>>> table = PersonTable.new(players=2, seat=0, others=["greedy"], seed=3)
>>> shown = table.seen()
>>> shown["to_move"], len(shown["hand"]), sorted(shown["legal"]) == sorted(shown["hand"])
(0, 3, True)
>>> while not table.done:
...     table.play(table.seen()["legal"][0])
>>> sum(table.seen()["points"]), len(table.seen()["deal"]["hands"][1])
(120, 3)
"""

from __future__ import annotations

from sim.base.cards import parse_card, short_name
from sim.base.config import CHIAMATA, ConfigError, Rules, RunConfig
from sim.runtime.deal import Deal
from sim.web.replay import card_names, replay_of, whole_deal
from strategies.registry import resolve_aliases

ANALYSIS_SAMPLES = 16  # the analysis of moves' default budget (sim/present/analyse.py)

PERSON = "person"  # the name of the person's seat in what a table shows and records
STAND_IN = "random"  # the strategy the seam is given for the person's seat: never asked


class PersonTable:
    """One deal: ``seat`` played by a person (named ``person``: where its deals are kept),
    the others by ``others`` (one strategy per other seat, in seat order, or one for all)."""

    def __init__(self, deal: Deal, seat: int, names: list[str], person: str = "guest"):
        self._deal, self.seat, self.names, self.person = deal, seat, names, person

    @classmethod
    def new(cls, players: int, seat: int, others, rules: Rules | None = None, seed: int = 0, deal: int = 0,
            strategy_files=(), person: str = "guest") -> PersonTable:  # fmt: skip
        others = [others] if isinstance(others, str) else list(others)
        if len(others) == 1:
            others = others * (players - 1)
        if len(others) != players - 1:
            raise ConfigError(f"{len(others)} strategies for the other {players - 1} seats: give one, or one per seat")
        if not 0 <= seat < players:
            raise ConfigError(f"seat {seat} is not at a table of {players}: valid seats are 0..{players - 1}")
        names = [*others[:seat], PERSON, *others[seat:]]
        strategies, resolved = resolve_aliases([STAND_IN if name == PERSON else name for name in names], players)
        config = RunConfig(players=players, strategies=strategies, deals=1, seed=seed, rules=rules or Rules(),
                           threads=1, strategy_files=tuple(map(str, strategy_files)), resolved=resolved)  # fmt: skip
        return cls(Deal.new(config, deal=deal, outside=[seat], auction_outside=True), seat, names, person)

    @property
    def done(self) -> bool:
        return self._deal.done

    @property
    def config(self) -> RunConfig:
        return self._deal.config

    def trace(self) -> dict | None:
        """Once the deal is over, its trace row (sim/base/trace.py): every card of it."""
        return self._deal.trace()

    def analysis(self, samples: int = ANALYSIS_SAMPLES) -> dict:
        """Once the deal is over, the deal to replay move by move (``sim.web.replay.
        replay_of``: ``moves``, every card played valued as ``briscola analyse`` values a
        trace's, and ``steps``, every hand before each card) and at 2 players ``par``: each
        seat's points in the deal's exact par (``sim.par``), else None. ConfigError before
        the deal is over."""
        import pyarrow as pa

        from sim.base.trace import trace_schema

        if not self.done:
            raise ConfigError("the deal is not over: its moves are valued once it is")
        config = self._deal.config
        meta = {"format": 1, "kind": "simulate", "seed": config.seed, "players": config.players,
                "rules": vars(config.rules), "strategies": [{"seat": s, "name": n} for s, n in enumerate(self.names)]}  # fmt: skip
        rows = pa.Table.from_pylist([self._deal.trace()], schema=trace_schema())
        return {**replay_of(rows, meta, self.names, samples), "par": self._par() if config.players == 2 else None}

    def _par(self) -> list[int]:
        import numpy as np

        from sim.present.par import exact_pars_2p

        trace = self._deal.trace()
        hands, size = list(trace["hands"]), len(trace["hands"]) // 2
        deck = [hands[seat * size + k] for k in range(size) for seat in range(2)] + [*trace["stock"], trace["briscola"]]
        seat_0 = int(exact_pars_2p(np.array([deck]), np.zeros(1))[0])
        return [seat_0, 120 - seat_0]

    def play(self, decision) -> None:
        """The person's decision: a card (its code or name, ``1D``), or at Briscola
        Chiamata a bid (a level, -1 to pass) or the called card. ConfigError (the deal
        unchanged) when it is not the person's turn or the decision is not legal."""
        if self._deal.to_move != self.seat:
            raise ConfigError("it is not your turn" if not self.done else "the deal is over")
        if self._deal.phase == "bid":
            self._deal.play(int(decision))
        else:
            self._deal.play(parse_card(str(decision)))

    def seen(self) -> dict:
        """What the person's seat sees now, JSON-ready; once the deal is over, all of it."""
        view = self._deal.view(self.seat)[0]
        players = int(view["players"])
        shown = {
            "players": players, "seat": self.seat, "names": self.names, "phase": self._deal.phase,
            "seed": self._deal.config.seed, "deal_index": self._deal.deal,
            "to_move": self._deal.to_move, "done": self.done,
            "hand": card_names(view["hand"][: view["n_hand"]]),
            "table": card_names(view["table"][: view["n_table"]]), "leader": int(view["leader"]),
            "trick": int(view["trick"]), "trump_suit": int(view["trump_suit"]),
            "briscola": _card(view["briscola"]), "face_up": _card(view["face_up"]),
            "face_up_holder": int(view["face_up_holder"]), "removed_two": _card(view["removed_two"]),
            "stock_size": int(view["stock_size"]), "points": [int(p) for p in view["points"][:players]],
            "played": [[int(view["played_by"][card]), short_name(int(card))]
                       for card in view["history"][: view["n_played"]]],
            "trick_winners": [int(s) for s in view["trick_winners"] if s >= 0],
            "partner_hands": {str(s): card_names(view["partner_hands"][s]) for s in range(players)
                              if view["partner_hands"][s, 0] >= 0},
            "partner_trumps": {str(s): int(view["partner_trumps"][s]) for s in range(players)
                               if view["partner_trumps"][s] >= 0},
        }  # fmt: skip
        if players == CHIAMATA:
            shown["auction"] = _auction(view)
        if self._deal.to_move == self.seat:
            legal = self._deal.legal()
            shown["legal"] = legal if self._deal.phase == "bid" else card_names(legal)
        if self.done:
            shown["outcomes"] = self._deal.outcomes
            shown["deal"] = whole_deal(self._deal.trace())
        return shown


def _card(code) -> str | None:
    return short_name(int(code)) if code >= 0 else None


def _auction(view) -> dict:
    players = int(view["players"])
    return {
        "bid": int(view["bid"]), "bidder": int(view["bidder"]), "max_bid": int(view["max_bid"]),
        "seat_bids": [int(b) for b in view["seat_bids"][:players]],
        "passed": [bool(p) for p in view["passed"][:players]],
        "caller": int(view["caller"]), "called": _card(view["called"]), "target": int(view["target"]),
        "partner": int(view["partner"]),
    }  # fmt: skip
