"""One deal, stepped decision by decision: ``Deal``.

A Deal holds one deal at any table (2 to 6 players; at Briscola Chiamata the auction and
the call too). The seats in ``outside`` are driven from outside, by whoever holds the
Deal (a person, a Python agent, a learner): the Deal waits for their decisions. Every
other seat is played by its strategy: a jitted one inside the kernels, a batched one
called from here, as in lock-step play. A deal played here ends exactly as the engine
ends it (the kernels' own steps, ``kernels/deal_nb.py``; the same deal index of the same
seed deals the same cards and gives the seats' strategies the same random streams).

Each step is one compiled call, its arguments boxed once (kernels/bound_nb.py): the
kernels play every seat they can, then write the awaited seat's observation and legal
cards, and every seat's side's points.

>>> config = RunConfig(players=2, strategies=("greedy", "greedy"), deals=1, seed=3)
>>> deal = Deal.new(config, deal=0, outside=(0,))
>>> deal.to_move, deal.phase, len(deal.legal())
(0, 'play', 3)
>>> while not deal.done:
...     deal.play(deal.legal()[0])
>>> sum(deal.points), deal.outcomes
(120, [-1, 1])

The environments stand on it: ``BriscolaAEC`` (sim/rl/aec.py) is a Deal with every seat
outside. A traced deal (a row of sim/base/trace.py) is set out again and stepped move by move
with ``Deal.replay``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from kernels.deal_nb import DEAL_PLAY, DEAL_SHOW, DEAL_START, STATUS_DEAL, DealState, deal_bound_nb
from kernels.enums import DEAL_DTYPE, MAX_PLAYERS, N_CARDS, NO_CARD, VIEW_DTYPE
from kernels.lockstep_nb import (
    LANE_OVER,
    LANE_PLAY,
    LANE_STOPPED,
    OUTSIDE_BID,
    OUTSIDE_CALL,
    OUTSIDE_PLAY,
    new_lanes_nb,
)
from sim.base.cards import short_name
from sim.base.config import CHIAMATA, ConfigError, IllegalDecisionError, Rules, RunConfig, checked_flat_version
from sim.base.interrupt import StopFlag
from sim.base.trace import trace_rows
from sim.runtime.kernel_thread import bound_call
from sim.runtime.lockstep import PHASE_NAMES, decide
from sim.runtime.play import Batch, illegal_decision_text, lineup, run_context
from strategies.api import MAX_PARAMS
from strategies.observation import FLAT_VERSION, encode_flat, flat_offsets, flat_size, legal_mask
from strategies.seam import outside_mask

ONLY_LANE = np.zeros(1, dtype=np.int64)  # the Deal's one lane, as lock-step's ``decide`` takes lanes


class IllegalMoveError(ConfigError):
    """A decision the deal does not allow now: the message names the legal ones."""


class Deal:
    """One deal at a table, stepped decision by decision (see the module's docstring).
    Made by ``Deal.new`` (a deal of a run's seed) or ``Deal.replay`` (a traced deal)."""

    def __init__(self, config: RunConfig, driven: np.ndarray, flat_version: int, dealt: bool):
        """``driven``: per seat, the OUTSIDE_* bits of the decisions its holder takes."""
        seats = lineup(config)
        self.config, self.players = config, config.players
        self._driven = [int(bits) for bits in driven]
        self._batched = seats.batched
        self._lanes = new_lanes_nb(1)
        self._state = DealState(
            outside=np.asarray(driven, dtype=np.int64) | outside_mask(seats.batched),
            status=np.zeros(3, dtype=np.int64), points=np.zeros(MAX_PLAYERS, dtype=np.int64),
            outcomes=np.zeros(MAX_PLAYERS, dtype=np.int64), obs=np.zeros(flat_size(self.players, flat_version), dtype=np.float32),
            mask=np.zeros(N_CARDS, dtype=np.int8), shown=np.zeros(1, dtype=VIEW_DTYPE),
            sealed_params=np.zeros(MAX_PARAMS), offsets=flat_offsets(self.players, flat_version),
        )  # fmt: skip
        state = self._state  # its arrays, read at every step
        self._status, self._mask, self._obs = state.status, state.mask, state.obs
        self._points, self._outcomes = state.points[: self.players], state.outcomes[: self.players]
        self._flat_version = flat_version
        self._run = run_context(config, 0, 1, dealt, StopFlag(), seats)  # kept alive beside the boxed call
        self._call = bound_call(deal_bound_nb, (self._run, self._lanes, self._state), (DEAL_START, 0))
        self._phase, self._seat = LANE_OVER, -1

    @classmethod
    def new(cls, config: RunConfig, deal: int = 0, outside: Iterable[int] = (), auction_outside: bool = False,
            flat_version: int = FLAT_VERSION) -> Deal:  # fmt: skip
        """Deal ``deal`` of ``config``'s seed (the deal its run plays under that index),
        its seats ``outside`` driven from outside: their cards, and with
        ``auction_outside`` their bids and calls at Briscola Chiamata (else their
        strategies in ``config`` make them). ``config.deals`` is not read."""
        outside = sorted(set(int(seat) for seat in outside))
        if any(not 0 <= seat < config.players for seat in outside):
            raise ConfigError(f"outside seats {outside}: valid seats are 0..{config.players - 1}")
        bits = OUTSIDE_PLAY | (OUTSIDE_BID | OUTSIDE_CALL if auction_outside else 0)
        driven = np.zeros(MAX_PLAYERS, dtype=np.int64)
        driven[outside] = bits
        made = cls(config, driven, checked_flat_version(flat_version), dealt=False)
        made.start(deal)
        return made

    @classmethod
    def replay(cls, row: dict, rules: Rules | None = None, flat_version: int = FLAT_VERSION) -> Iterator[tuple[Deal, int]]:  # fmt: skip
        """A traced deal (a row of sim/base/trace.py, played under ``rules``) stepped move by
        move, every seat driven by its traced decisions: yields the deal before each move
        and that move (an auction action, the call, or a card), which it plays once the
        caller asks for the next. The deal is over after the last."""
        players = int(row["players"])
        config = RunConfig(players=players, strategies=("random",) * players, deals=1, seed=0,
                           rules=rules or Rules(), threads=1)  # fmt: skip
        driven = np.zeros(MAX_PLAYERS, dtype=np.int64)
        driven[:players] = OUTSIDE_PLAY | OUTSIDE_BID | OUTSIDE_CALL
        deal = cls(config, driven, checked_flat_version(flat_version), dealt=True)
        deal._lanes.deals[0] = traced_deal(row)
        deal.start(int(row["deal"]))
        for move in traced_moves(row):
            yield deal, move
            deal.play(move)

    def start(self, deal: int) -> None:
        """Starts deal ``deal`` of the same seed, at the same table, with the same seats
        (a replayed Deal: the traced deal again), and plays it to the first decision taken
        outside."""
        self._lanes.results.view(np.uint8).fill(0xFF)  # as lock-step's: fields a table does not write read -1
        self._step(DEAL_START, int(deal))

    @property
    def done(self) -> bool:
        return self._phase >= LANE_OVER

    @property
    def to_move(self) -> int | None:
        """The seat whose decision is awaited from outside; None once the deal is over."""
        return None if self.done else self._seat

    @property
    def phase(self) -> str | None:
        """What ``to_move`` decides: "play" (a card), or at Briscola Chiamata "bid" or "call"."""
        return None if self.done else PHASE_NAMES[self._phase]

    @property
    def deal(self) -> int:
        """The deal's index in its run."""
        return int(self._state.status[STATUS_DEAL])

    @property
    def key(self) -> int:
        """The awaited decision's random key: the next 64 bits of its seat's own stream, as a
        batched strategy gets it (a Python agent may draw from it, reproducibly)."""
        return int(self._lanes.cursor[0]["key"])

    def view(self, seat: int | None = None) -> np.ndarray:
        """What ``seat`` (by default, the seat to move) sees now, as a one-element
        VIEW_DTYPE array (a batched strategy's input; ``encode_flat`` and ``legal_mask``
        take it): its own hand, the public table, and its partners' cards only where the
        rules show them. A copy."""
        seat = self._seat_or_to_move(seat)
        self._call(DEAL_SHOW, seat)
        return self._state.shown.copy()

    def observation(self, seat: int | None = None) -> np.ndarray:
        """The flat encoding (strategies/observation.py) of ``seat``'s view (by default, the
        seat to move's, written by the step). A copy."""
        if seat is not None and seat != self.to_move:
            return encode_flat(self.view(seat), version=self._flat_version)[0]
        self._awaited()
        return self._obs.copy()

    def action_mask(self) -> np.ndarray:
        """The legal decisions of the seat to move, int8: for a card or a call one per card
        code (40), for a bid one per level (MAX_BID + 1; passing, -1, is always legal). A copy."""
        phase = self._awaited()
        if phase == LANE_PLAY:
            return self._mask.copy()
        return legal_mask(self._lanes.views[0, 1:2], PHASE_NAMES[phase])[0].astype(np.int8)

    def legal(self) -> list[int]:
        """The legal decisions of the seat to move: card codes, or at a bid -1 (pass) and
        the levels it may bid."""
        legal = np.flatnonzero(self.action_mask()).tolist()
        return [-1, *legal] if self.phase == "bid" else legal

    def play(self, decision: int) -> None:
        """The awaited decision of ``to_move``: a card, or at Briscola Chiamata's auction a
        bid (a level, -1 to pass) or the called card. The deal then plays on to the next
        decision taken outside, or to its end. IllegalMoveError (nothing played) for a
        decision the deal does not allow now; IllegalDecisionError if a seat's strategy
        then makes one."""
        decision = int(decision)
        if not self._allows(decision):
            raise IllegalMoveError(self._refusal(decision))
        self._step(DEAL_PLAY, decision)

    @property
    def points(self) -> list[int]:
        """Each seat's side's points so far (at Briscola Chiamata, its own)."""
        return self._points.tolist()

    @property
    def outcomes(self) -> list[int] | None:
        """Once the deal is over, each seat's side's outcome: +1 won, 0 drawn, -1 lost (at
        Briscola Chiamata, the sign of its game points)."""
        return self._outcomes.tolist() if self.done else None

    @property
    def result(self) -> np.record | None:
        """Once the deal is over, its RESULT_DTYPE row, as the engine writes it. A copy."""
        return self._lanes.results[0].copy() if self.done else None

    def trace(self) -> dict | None:
        """Once the deal is over, its trace row (sim/base/trace.py), as a traced run writes it."""
        if not self.done:
            return None
        lanes = self._lanes
        return trace_rows(Batch(lanes.results[:1].copy(), lanes.deals[:1].copy(), lanes.records[:1].copy()))[0]

    def _step(self, what: int, value: int) -> None:
        """One kernel call, then the decisions of batched strategies at seats not driven
        from outside, until one is awaited from outside or the deal is over."""
        self._call(what, value)
        phase, seat, _ = self._status.tolist()
        while seat >= 0 and not self._driven[seat] >> phase & 1:
            self._call(DEAL_PLAY, int(decide(self._batched, self._lanes, ONLY_LANE)[0]))
            phase, seat, _ = self._status.tolist()
        self._phase, self._seat = phase, seat
        if phase == LANE_STOPPED:
            raise IllegalDecisionError(illegal_decision_text(self.config, self._lanes.illegal[0], self.deal))

    def _awaited(self) -> int:
        """The phase (LANE_*) of the decision awaited; ConfigError once the deal is over."""
        if self._phase >= LANE_OVER:
            raise ConfigError(f"deal {self.deal} is over: no decision is awaited")
        return self._phase

    def _seat_or_to_move(self, seat: int | None) -> int:
        if seat is None:
            self._awaited()
            return self._seat
        if not 0 <= seat < self.players:
            raise ConfigError(f"seat {seat} is not at a table of {self.players}: valid seats are 0..{self.players - 1}")
        return int(seat)

    def _allows(self, decision: int) -> bool:
        if self._awaited() == LANE_PLAY:  # the mask the step wrote
            return 0 <= decision < N_CARDS and self._mask[decision] != 0
        return decision in self.legal()

    def _refusal(self, decision: int) -> str:
        def named(code: int) -> str:
            return f"{code} ({short_name(code)})" if 0 <= code < N_CARDS else str(code)

        bid = self.phase == "bid"
        legal = ", ".join(str(d) if bid else named(d) for d in self.legal())
        doing = {"play": "play card", "bid": "bid", "call": "call card"}[self.phase]
        return f"seat {self._seat} cannot {doing} {decision if bid else named(decision)} now; legal: {legal}"


def traced_deal(row: dict) -> np.ndarray:
    """A trace row's cards (sim/base/trace.py) as the kernels deal them: a DEAL_DTYPE record."""
    players, hands, stock = int(row["players"]), list(row["hands"]), list(row["stock"])
    deal = np.zeros(1, dtype=DEAL_DTYPE)
    deal["hands"] = deal["stock"] = deal["removed"] = NO_CARD
    hand_size = len(hands) // players
    deal["players"], deal["hand_size"], deal["briscola"] = players, hand_size, row["briscola"]
    for seat in range(players):
        deal["hands"][0, seat, :hand_size] = hands[seat * hand_size : (seat + 1) * hand_size]
    drawn = stock + [row["briscola"]] if players != CHIAMATA else []  # the face-up briscola is drawn last
    deal["n_stock"] = len(drawn)
    deal["stock"][0, : len(drawn)] = drawn
    deal["n_removed"] = len(row["removed"])
    deal["removed"][0, : len(row["removed"])] = row["removed"]
    return deal[0]


def traced_moves(row: dict) -> list[int]:
    """A trace row's decisions in the order they were taken: at Briscola Chiamata the
    auction's actions and, unless it was thrown in, the call; then every card."""
    moves = list(row["auction"])
    if int(row["players"]) == CHIAMATA and row["called"] >= 0:
        moves.append(int(row["called"]))
    return moves + list(row["plays"])
