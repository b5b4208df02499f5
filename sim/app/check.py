"""``briscola check``: a strategy put through what the test suite asks of the built-ins.

At every table and rule option, the strategy plays duplicate deals against ``random``
(both seatings, as ``compare`` plays them), and

- **legal and audited**: every decision is a card in hand, and the first deals' traces
  are replayed by the reference engine (sim/base/reference.py), which checks every rule and
  score;
- **deterministic**: the same seed gives the same decisions on 1 and 2 threads;
- **its view only**: each of its decisions in 40 deals drawn from the whole run is asked
  again, outside the run, of a view rebuilt by the reference engine in fresh memory,
  with the same parameters and the same random stream; it must choose the same card. A
  strategy that reads anything but its inputs (another seat's memory, a global it
  changes) fails; one that writes into its view is noted (harmless: views are sealed);
- **in time**: no decision asked again takes longer than the limit;

and its speed (deals/s) and score against ``random`` are measured.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numba
import numpy as np

from kernels.enums import MAX_PLAYERS, N_STREAMS, NO_CARD, VIEW_DTYPE
from kernels.rng_nb import next_u64_nb, seed_key_nb, start_streams_nb
from sim.base import reference
from sim.base.cards import short_name
from sim.base.config import CHIAMATA, Rules, RunConfig
from sim.base.stats import A, seatings, summary
from sim.base.trace import trace_rows
from sim.pipeline.experiments import Experiment
from sim.pipeline.kinds.compare import seating_config
from sim.pipeline.runs import run_command
from sim.runtime.lockstep import WHERE_DTYPE, ask
from sim.runtime.play import (
    IllegalDecisionError,
    describe_view,
    loaded_strategies,
    play_batch,
    seat_specs,
    view_after_plays,
    views_along_plays,
)
from strategies.api import parse_spec
from strategies.errors import StrategyError
from strategies.registry import resolve_aliases

# Every table, with its default rules and then each other rule option played there.
TABLES = [
    (2, Rules()), (2, Rules(trump_redeal="ace-three")),
    (3, Rules()), (3, Rules(trump_redeal="ace-three")), (3, Rules(removed_two="denari")),
    (4, Rules()), (4, Rules(trump_redeal="ace-three")), (4, Rules(partner_view="none")), (4, Rules(signals="trumps")),
    (6, Rules()), (6, Rules(trump_redeal="ace-three")), (6, Rules(partner_view="none")), (6, Rules(signals="trumps")),
    (5, Rules()), (5, Rules(first_lead="caller")), (5, Rules(bid_multiplier="on")), (5, Rules(auction="ranks")),
]  # fmt: skip
AUDITED_DEALS = 200  # per table and seating: replayed by the reference engine, and on 1 and 2 threads
ASKED_AGAIN_DEALS = 40  # per table and seating, drawn from the whole run: every decision of the strategy asked again


class CheckFailed(Exception):
    """The first check a strategy failed: one paragraph naming the table, the deal and
    the view."""


@dataclass
class TableReport:
    players: int
    rules: Rules
    setting: str = ""  # the strategy checked there (what a name such as best stands for at the table)
    deals: int = 0
    deals_per_second: float = 0.0
    score: float = 0.0
    score_ci95: tuple = (0.0, 0.0)
    decisions_asked_again: int = 0
    slowest_decision: float = 0.0
    writes_to_view: set = field(default_factory=set)
    threads_checked: bool = False  # needs 2 threads
    failure: str | None = None
    not_played: bool = False  # a table the strategy does not play (its declared tables): passed by

    @property
    def rules_text(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.rules.changed().items()) or "default"

    def to_dict(self) -> dict:
        return {
            "players": self.players, "rules": self.rules_text, "setting": self.setting, "deals": self.deals,
            "deals_per_second": round(self.deals_per_second, 1), "score": round(self.score, 4),
            "score_ci95": [round(x, 4) for x in self.score_ci95], "decisions_asked_again": self.decisions_asked_again,
            "slowest_decision_seconds": round(self.slowest_decision, 6), "writes_to_view": sorted(self.writes_to_view), "threads_checked": self.threads_checked,
            "failure": self.failure, "not_played": self.not_played,
        }  # fmt: skip


def check_strategy(
    strategy: str,
    strategy_files: tuple[str, ...] = (),
    deals: int = 1000,
    seed: int = 1,
    players: tuple[int, ...] = (2, 3, 4, 5, 6),
    decision_limit: float = 1.0,
    threads: int | None = None,
    on_table=None,
) -> list[TableReport]:
    """Checks ``strategy`` at every table of ``players``; stops at the first failure
    (its report carries it). ``on_table(report)`` is called as each table ends."""
    reports = []
    loaded = loaded_strategies(tuple(strategy_files))
    for table_players, rules in TABLES:
        if table_players not in players or any(r.players == table_players for r in reports if r.not_played):
            continue
        (setting,), _ = resolve_aliases([strategy], table_players)  # best: the table's own setting
        if not parse_spec(setting, loaded).strategy.plays_at(table_players):
            reports.append(TableReport(table_players, Rules(), not_played=True))
            if on_table is not None:
                on_table(reports[-1])
            continue
        base = RunConfig(players=table_players, strategies=(setting,) * table_players, deals=deals, seed=seed,
                         rules=rules, strategy_files=strategy_files, **({"threads": threads} if threads else {}))  # fmt: skip
        report = TableReport(table_players, rules, setting=setting)
        try:
            _check_table(base, setting, report, decision_limit)
        except CheckFailed as failure:
            report.failure = str(failure)
        except StrategyError as error:  # it raised: still exit 2, at the table where it did
            raise StrategyError(f"{table_players} players, rules {report.rules_text}: {error}") from None
        reports.append(report)
        if on_table is not None:
            on_table(report)
        if report.failure:
            break
    return reports


def _check_table(base: RunConfig, strategy: str, report: TableReport, decision_limit: float) -> None:
    where = f"{base.players} players, rules {report.rules_text}"
    try:
        outcome = run_command(Experiment("compare", base, (strategy, "random")), out=None)
    except IllegalDecisionError as error:
        raise CheckFailed(f"{where}: illegal decision: {error}") from None
    tally = outcome.tallies[None]
    scores = summary(tally)
    report.deals = tally.units
    report.deals_per_second = tally.units * len(seatings(base.players)) / max(outcome.seconds, 1e-9)
    report.score, report.score_ci95 = scores["score"], tuple(scores["score_ci95"])
    for seating in seatings(base.players):
        config = seating_config(base, strategy, "random", seating)
        seats = [seat for seat, who in enumerate(seating) if who == A]
        n = min(base.deals, AUDITED_DEALS)
        batch = play_batch(config, 0, n, trace=True)
        _audit(config, batch, where)
        report.threads_checked = _same_on_other_threads(config, batch, where)
        _ask_again(config, seats, asked_again_deals(base), decision_limit, report, where)


def _audit(config: RunConfig, batch, where: str) -> None:
    greedy = tuple(seat for seat, name in enumerate(config.strategies) if name == "greedy")
    rules = config.rules
    for row in trace_rows(batch):
        try:
            if config.players == CHIAMATA:
                reference.replay_chiamata(row, rules.first_lead, rules.bid_multiplier, rules.auction)
            else:
                reference.replay_trace(row, rules.trump_redeal, rules.removed_two, greedy)
        except reference.RuleViolation as violation:
            raise CheckFailed(f"{where}: the reference engine disagrees: {violation}") from None


def _same_on_other_threads(config: RunConfig, batch, where: str) -> bool:
    """Plays the batch again on another thread count; False if there is only one."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        return False
    other = replace(config, threads=2 if config.threads == 1 else 1)
    again = play_batch(other, 0, len(batch.results), trace=True)
    if not np.array_equal(batch.records["auction_bids"], again.records["auction_bids"]):
        deal = int(np.flatnonzero((batch.records["auction_bids"] != again.records["auction_bids"]).any(axis=1))[0])
        raise CheckFailed(
            f"{where}: deal {deal}'s auction differs on {config.threads} and {other.threads} threads: its bids "
            "depend on more than its view, parameters and stream (np.random?)"
        )
    if not np.array_equal(batch.results["called"], again.results["called"]):
        deal = int(np.flatnonzero(batch.results["called"] != again.results["called"])[0])
        raise CheckFailed(
            f"{where}: deal {deal}'s call differs on {config.threads} and {other.threads} threads: its calls "
            "depend on more than its view, parameters and stream (np.random?)"
        )
    rows = trace_rows(batch) if config.players == CHIAMATA else None
    for i, (first, second) in enumerate(zip(batch.records["plays"], again.records["plays"])):
        if not np.array_equal(first, second):
            play = int(np.flatnonzero(first != second)[0])
            if rows is not None:
                plays = [v for phase, v, _ in _decisions(config, batch, i, rows) if phase == "play"]
                view = plays[play]
            else:
                view = view_after_plays(config, batch.deals[i], first[:play])
            raise CheckFailed(
                f"{where}: deal {i} differs on {config.threads} and {other.threads} threads at play {play} "
                f"({short_name(int(first[play]))} against {short_name(int(second[play]))}): its choices depend on "
                f"more than its view, parameters and stream (np.random?); the view: {describe_view(view)}"
            )
    return True


def asked_again_deals(base: RunConfig) -> list[int]:
    """The deals whose decisions are asked again: ASKED_AGAIN_DEALS drawn from the whole
    run by its seed (a strategy that behaves for the first deals is still caught)."""
    draw = np.random.default_rng([base.seed, base.players])
    return sorted(draw.choice(base.deals, size=min(base.deals, ASKED_AGAIN_DEALS), replace=False).tolist())


def _ask_again(config, seats, deal_indices, decision_limit, report: TableReport, where: str) -> None:
    """Asks the strategy every decision of its seats in deals ``deal_indices`` again (bids
    and calls too, at Briscola Chiamata), outside the run, in the order it made them (so
    that its random stream is drawn as in the run)."""
    specs = seat_specs(config)
    deciders = _deciders(specs[seats[0]], config.players)
    params = specs[seats[0]].param_vector()
    seed_key = np.uint64(seed_key_nb(config.seed))  # as the run has it: a plain int below 2**63 is typed int64
    for deal_index in deal_indices:
        batch = play_batch(config, deal_index, 1, trace=True)
        rows = trace_rows(batch) if config.players == CHIAMATA else None
        deal = batch.deals[0]
        states = np.empty(N_STREAMS, dtype=np.uint64)
        start_streams_nb(states, seed_key, deal_index, config.seat_streams(), config.players)
        for number, (phase, view, decision) in enumerate(_decisions(config, batch, 0, rows)):
            if view["seat"] not in seats:
                continue
            what = f"deal {deal_index}, {phase} {number}"
            record = view_record(view, config.players, deal)
            given, asked_params, streams = record.copy(), params.copy(), states.copy()
            own = 1 + view["seat"]
            started = time.perf_counter()
            chosen = deciders[phase](record, asked_params, states[own : own + 1], deal_index)
            seconds = time.perf_counter() - started
            others = np.delete(np.arange(len(states)), own)
            if not np.array_equal(states[others], streams[others]):
                raise CheckFailed(
                    f"{where}: {what}: it wrote outside its random stream (rng[1] or beyond is another seat's "
                    f"stream): its choices would change the other seats'; the view: {describe_view(view)}"
                )
            report.decisions_asked_again += 1
            report.slowest_decision = max(report.slowest_decision, seconds)
            if record.tobytes() != given.tobytes():  # one comparison; the fields only when it wrote
                report.writes_to_view |= {
                    name for name in VIEW_DTYPE.names if not np.array_equal(record[name], given[name])
                }
            if not np.array_equal(asked_params, params):
                report.writes_to_view.add("params")
            if chosen != decision:
                raise CheckFailed(
                    f"{where}: {what}: it decided {int(decision)} in the run but {int(chosen)} when asked again "
                    f"with the same view, parameters and stream: it reads something besides its inputs; the "
                    f"view: {describe_view(view)}"
                )
            if seconds > decision_limit:
                raise CheckFailed(
                    f"{where}: {what}: a decision took {seconds:.2f} s, over the limit of "
                    f"{decision_limit:g} s; the view: {describe_view(view)}"
                )


def _deciders(spec, players: int) -> dict:
    """Phase -> a function of (one-view VIEW_DTYPE array, parameters, the seat's stream,
    the deal index) asking the strategy as the run asks it: a jitted decision its record;
    a batched one a batch of one view, with the key the kernels would draw from that
    stream (its bids and calls, where it has none, are the default policy's, jitted)."""
    strategy = spec.strategy
    jitted = {"play": strategy.compiled()}
    if players == CHIAMATA:
        jitted["bid"], jitted["call"] = strategy.compiled_auction()
    data = strategy.data_for(players)
    deciders = {
        phase: (lambda views, params, rng, deal, f=f: f(views[0], params, rng, data))
        if strategy.decides_with_data(phase) else (lambda views, params, rng, deal, f=f: f(views[0], params, rng))
        for phase, f in jitted.items()
    }  # fmt: skip
    if strategy.batched:
        for phase, function in (("play", strategy.choose), ("bid", strategy.bid), ("call", strategy.call)):
            if function is not None:
                deciders[phase] = lambda views, params, rng, deal, f=function, p=phase: int(
                    ask(spec, f, p, views, np.array([next_u64_nb(rng, 0)], dtype=np.uint64),
                        np.array([(deal, views[0]["seat"])], dtype=WHERE_DTYPE))[0]
                )  # fmt: skip
    return deciders


def _decisions(config: RunConfig, batch, deal_index: int, rows):
    """A deal's decisions in the order they were made: (phase, view, decision), the view
    rebuilt by the reference engine."""
    if config.players == CHIAMATA:
        rules = config.rules
        yield from reference.chiamata_decisions(rows[deal_index], rules.first_lead, rules.auction)
        return
    plays = batch.records[deal_index]["plays"]
    played = plays[plays != NO_CARD]
    for view, card in zip(views_along_plays(config, batch.deals[deal_index], played), played):
        yield "play", view, card


CHIAMATA_VIEW_FIELDS = ("bid", "bidder", "seat_bids", "passed", "max_bid", "caller", "called", "target", "partner")


def view_record(view: dict, players: int, deal) -> np.ndarray:
    """A one-element VIEW_DTYPE array holding ``view`` (as sim.base.reference.view_before
    gives it), in fresh memory."""
    assert players <= MAX_PLAYERS
    record = np.zeros(1, dtype=VIEW_DTYPE)
    record["partner_hands"] = NO_CARD
    record["partner_trumps"] = NO_CARD
    for name in CHIAMATA_VIEW_FIELDS:
        record[name] = view.get(name, 0 if name == "passed" else NO_CARD)
    scalars = {
        "seat": view["seat"], "players": players, "trump_suit": view["trump_suit"], "briscola": view["briscola"],
        "face_up": view["face_up"], "face_up_holder": view["face_up_holder"],
        "removed_two": int(deal["removed"][0]) if players == 3 else NO_CARD, "stock_size": view["stock_size"],
        "trick": view["trick"], "leader": view["leader"], "n_table": len(view["table"]),
        "n_hand": len(view["hand"]), "n_played": view["n_played"],
    }  # fmt: skip
    for name, value in scalars.items():
        record[name] = value
    record["table"] = _padded(view["table"], record["table"].shape[1])
    record["hand"] = _padded(view["hand"], record["hand"].shape[1])
    record["history"] = _padded(view["history"], record["history"].shape[1])
    record["trick_winners"] = _padded(view["trick_winners"], record["trick_winners"].shape[1])
    record["points"][0, :players] = view["points"]
    record["played_by"] = NO_CARD
    for card, seat in view["played_by"].items():
        record["played_by"][0, card] = seat
    for seat, hand in view["partner_hands"].items():
        record["partner_hands"][0, seat] = _padded(hand, record["partner_hands"].shape[2])
    for seat, bits in view["partner_trumps"].items():
        record["partner_trumps"][0, seat] = bits
    return record


def _padded(cards, size: int) -> list[int]:
    return list(cards) + [NO_CARD] * (size - len(cards))
