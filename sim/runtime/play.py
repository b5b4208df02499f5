"""Playing batches of deals: a RunConfig turned into kernel arguments, the kernels run on
one worker thread (so Ctrl-C is always heard), and their arrays turned back.

>>> from sim.base.config import RunConfig
>>> config = RunConfig(players=2, strategies=("greedy", "random"), deals=10, seed=7, threads=1)
>>> batch = play_batch(config, first_deal=0, n_deals=10, trace=True)
>>> int(batch.results["seat_points"][:, :2].sum(axis=1).min())
120
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

import numba
import numpy as np
from numba.core.errors import NumbaExperimentalFeatureWarning

from kernels.contexts_nb import RunContext
from kernels.duel_nb import is_duel_nb
from kernels.engine_nb import simulate_duels_nb, simulate_nb
from kernels.enums import (
    DEAL_DTYPE,
    DECISION_OK,
    PHASE_BID,
    PHASE_PLAY,
    PLAY_DTYPE,
)
from sim.base.cards import SUITS_ITALIAN, short_name
from sim.base.config import CHIAMATA, IllegalDecisionError, RunConfig
from sim.base.interrupt import StopFlag
from sim.base.reference import views_along
from sim.runtime.kernel_thread import run_kernel
from sim.runtime.lockstep import kernel_buffers, play_lockstep
from strategies.api import StrategySpec, parse_spec
from strategies.registry import available_strategies
from strategies.seam import Lineup, refuse_unplayed, seat_tables
from strategies.seam import run_context as seam_run_context

# The plug-in tuple is a tuple of Numba's first-class functions, which it still calls
# experimental; the feature is pinned by the tests (every plug-in path is exercised).
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)


NOT_PLAYED = -1  # ``results["deal"]`` of a deal the kernels did not finish (a stop came first)
assert NOT_PLAYED == DECISION_OK == -1  # what kernel_buffers writes into every field


@dataclass
class Batch:
    """Deals ``first_deal .. first_deal + len(results) - 1`` of a run."""

    results: np.ndarray  # RESULT_DTYPE
    deals: np.ndarray  # DEAL_DTYPE, empty unless traced
    records: np.ndarray  # PLAY_DTYPE, empty unless traced

    @property
    def completed(self) -> int:
        """Deals finished from the first on: all of them, unless a stop cut the batch."""
        unfinished = np.flatnonzero(self.results["deal"] == NOT_PLAYED)
        return int(unfinished[0]) if unfinished.size else len(self.results)

    def head(self, n: int) -> Batch:
        """The first ``n`` deals."""
        traced = len(self.records) > 0
        return Batch(
            self.results[:n], self.deals[:n] if traced else self.deals, self.records[:n] if traced else self.records
        )


@functools.cache
def loaded_strategies(strategy_files: tuple[str, ...]) -> dict:
    """Every strategy a run may use, its plug-in files loaded once a process."""
    return available_strategies(strategy_files)


def lineup(config: RunConfig) -> Lineup:
    """The run's seats, parsed, checked and compiled once a process for each table of
    strategies (``RunConfig`` keeps the strings, for metadata and pickling); StrategyError
    for unknown names or keys."""
    return _resolved(config.strategies, tuple(config.strategy_files), config.players)


def seat_specs(config: RunConfig) -> list[StrategySpec]:
    """Each seat's strategy and parameter values (parsed, not compiled); StrategyError for
    unknown names or keys."""
    return list(_parsed(config.strategies, tuple(config.strategy_files)))


@functools.lru_cache(maxsize=256)
def _parsed(strategies: tuple[str, ...], strategy_files: tuple[str, ...]) -> tuple[StrategySpec, ...]:
    loaded = loaded_strategies(strategy_files)
    return tuple(parse_spec(text, loaded) for text in strategies)


@functools.lru_cache(maxsize=256)
def _resolved(strategies: tuple[str, ...], strategy_files: tuple[str, ...], players: int) -> Lineup:
    return seat_tables(_parsed(strategies, strategy_files), players)


def check_seats(config: RunConfig) -> None:
    """StrategyError for what ``lineup`` would refuse short of compiling: unknown names or
    keys, a strategy not played at the table, data it cannot load there. (The strategies
    compile as the run readies, beside the engine: ``sim/runtime/compiling.py``.)"""
    check_tables(config.strategies, config.strategy_files, config.players)
    for spec in seat_specs(config):  # parsed once (cached): check_tables read the same specs
        spec.strategy.data_for(config.players)


def check_tables(texts, strategy_files, players: int) -> None:
    """StrategyError for a strategy that does not play at a table of ``players`` (its
    declared ``tables``)."""
    refuse_unplayed(_parsed(tuple(texts), tuple(strategy_files)), players)


def idle_param_notes(texts, strategy_files, players: int, rules) -> list[str]:
    """One line for each parameter the strategies ``texts`` set that cannot change play
    at a table of ``players`` under ``rules`` (``Param.idle_reason``), each once."""
    notes = []
    for spec in _parsed(tuple(texts), tuple(strategy_files)):
        notes += [note for note in spec.idle_params(players, rules) if note not in notes]
    return notes


def canonical_strategies(texts, strategy_files=()) -> tuple[str, ...]:
    """Seat strategies as canonical labels (``pimc:samples=32``); checks them all."""
    strategies = loaded_strategies(tuple(strategy_files))
    return tuple(parse_spec(text, strategies).label for text in texts)


def run_context(config: RunConfig, first_deal: int, deal_step: int, dealt: bool, stop: StopFlag,
                seats: Lineup | None = None) -> RunContext:  # fmt: skip
    """The kernels' read-only inputs for deals ``first_deal + i * deal_step`` of the run
    (``dealt``: the deals are given, as in a replay; the table is then any), its seats
    those of ``config`` unless given (strategies/seam.py)."""
    seats = seats if seats is not None else lineup(config)
    return seam_run_context(seats, config.seed, config.players, config.rules.as_codes(), config.seat_streams(),
                            stop.array, first_deal, deal_step, dealt)  # fmt: skip


def effective_threads(config: RunConfig) -> int:
    """Threads a run really uses: as asked, at most as many as Numba has."""
    return min(config.threads, numba.config.NUMBA_NUM_THREADS)


def play_batch(
    config: RunConfig,
    first_deal: int,
    n_deals: int,
    trace: bool = False,
    deal_step: int = 1,
    stop: StopFlag | None = None,
) -> Batch:
    """Deals and plays ``n_deals`` deals of the run: deal indices ``first_deal``,
    ``first_deal + deal_step``, ... (a step above 1 picks, e.g., one deal of each match).
    Once ``stop`` is set the kernels return before their next decision: the batch's
    ``completed`` deals are then fewer than ``n_deals``."""
    stop = stop or StopFlag()
    batch, illegal = _simulate(config, first_deal, n_deals, trace, deal_step, stop)
    _raise_on_illegal(config, batch, illegal, first_deal, deal_step, stop)
    return batch


def replay(config: RunConfig, deals: np.ndarray, first_deal: int = 0) -> Batch:
    """Plays given DEAL_DTYPE deals (e.g. the same cards twice) and records every move."""
    stop = StopFlag()
    batch, illegal = _replay(config, deals, first_deal, stop)
    _raise_on_illegal(config, batch, illegal, first_deal, 1, stop, dealt=False)
    return batch


def _simulate(config: RunConfig, first_deal: int, n_deals: int, trace: bool, deal_step: int, stop: StopFlag):
    """``simulate_nb`` on one batch: the Batch and the illegal-decision records."""
    run = run_context(config, first_deal, deal_step, False, stop)
    groups = lineup(config).batched
    if groups:
        results, illegal, deals, records = play_lockstep(run, groups, n_deals, effective_threads(config), stop, trace)
        return Batch(results, deals, records), illegal
    results, illegal = kernel_buffers(n_deals)
    deals = np.empty(n_deals if trace else 0, dtype=DEAL_DTYPE)
    records = np.empty(n_deals if trace else 0, dtype=PLAY_DTYPE)
    if is_duel_nb(run.players, run.strategy_ids, trace):  # the fast path: a kernel of its own, compiled apart
        (results,) = _launch(simulate_duels_nb, (run, results), config, stop, (results,))
        return Batch(results, deals, records), illegal
    arguments = (run, results, illegal, deals, records)
    results, illegal, deals, records = _launch(simulate_nb, arguments, config, stop, (results, illegal, deals, records))
    return Batch(results, deals, records), illegal


def _replay(config: RunConfig, deals: np.ndarray, first_deal: int, stop: StopFlag):
    """``simulate_nb`` on given deals (``run.dealt``): the Batch and the illegal-decision records."""
    run = run_context(config, first_deal, 1, True, stop)
    groups = lineup(config).batched
    if groups:
        threads = effective_threads(config)
        results, illegal, deals, records = play_lockstep(run, groups, len(deals), threads, stop, True, deals)
        return Batch(results, deals, records), illegal
    results, illegal = kernel_buffers(deals.shape[0])
    records = np.empty(deals.shape[0], dtype=PLAY_DTYPE)
    arguments = (run, results, illegal, deals, records)
    results, illegal, records = _launch(simulate_nb, arguments, config, stop, (results, illegal, records))
    return Batch(results, deals, records), illegal


def _launch(kernel, arguments: tuple, config: RunConfig, stop: StopFlag, written: tuple) -> tuple:
    """Runs ``kernel`` unless the run is stopping (one may still be finishing a decision:
    no second one starts), and returns the arrays it writes, ``written``. A kernel left
    to finish a decision may still complete the deals it was playing: the arrays are
    then copied as they are now. It writes a deal's index last, so a deal whose index is
    copied is complete (x86 shows stores in order; a weaker order could, at worst, keep
    one deal that ended during the copy with stale points)."""
    if stop.is_set() or run_kernel(kernel, arguments, effective_threads(config), stop):
        return written
    return tuple(array.copy() for array in written)


def _raise_on_illegal(
    config: RunConfig,
    batch: Batch,
    illegal: np.ndarray,
    first_deal: int,
    deal_step: int,
    stop: StopFlag,
    dealt: bool = True,
) -> None:
    """Raises IllegalDecisionError for the first illegal decision of a batch, naming the
    strategy, seat, card, deal and the view the strategy was shown. The view is rebuilt
    from that one deal played again with a trace (its moves stop at the illegal one),
    unless the run is stopping: no new kernel is started then."""
    bad = np.flatnonzero(illegal["play"] >= 0)
    if bad.size == 0:
        return
    first, deal_index = illegal[bad[0]], first_deal + int(bad[0]) * deal_step
    seat, card, play = int(first["seat"]), int(first["card"]), int(first["play"])
    if int(first["phase"]) != PHASE_PLAY or config.players == CHIAMATA:
        raise IllegalDecisionError(illegal_decision_text(config, first, deal_index))
    returned = f"{card} ({short_name(card)})" if 0 <= card < 40 else f"{card} (not a card code)"
    view = None
    if not stop.is_set():
        if dealt:
            again, _ = _simulate(config, deal_index, 1, True, 1, StopFlag())
        else:
            again, _ = _replay(config, batch.deals[bad[0] : bad[0] + 1].copy(), deal_index, StopFlag())
        view = view_after_plays(config, again.deals[0], again.records[0]["plays"][:play])
    shown = describe_view(view) if view is not None else "not rebuilt (the run was stopping)"
    error = IllegalDecisionError(
        f"strategy {config.strategies[seat]!r} (seat {seat}) returned card {returned}, not in its hand, "
        f"at play {play} of deal {deal_index}; its view: {shown}"
    )
    error.view = view
    raise error


def illegal_decision_text(config: RunConfig, illegal, deal_index: int) -> str:
    """One line for an illegal decision (a card, or at Briscola Chiamata a bid or a call)
    with the hand: where the view is not rebuilt (Briscola Chiamata, the environments)."""
    seat, value = int(illegal["seat"]), int(illegal["card"])
    hand = ", ".join(short_name(int(c)) for c in illegal["hand"] if c >= 0)
    if int(illegal["phase"]) == PHASE_PLAY:
        shown = f"{value} ({short_name(value)})" if 0 <= value < 40 else f"{value} (not a card code)"
        what = f"returned card {shown}, not in its hand, at play {int(illegal['play'])}"
    elif int(illegal["phase"]) == PHASE_BID:
        what = (f"bid {value} at auction action {int(illegal['play'])}: a bid is -1 (pass) or a level above the "
                f"last bid, at most {9 if config.rules.auction == 'ranks' else 68}")  # fmt: skip
    else:
        shown = f"{value} ({short_name(value)})" if 0 <= value < 40 else f"{value} (not a card code)"
        what = f"called card {shown}: a call names a card of the bid's face"
    return f"strategy {config.strategies[seat]!r} (seat {seat}) {what}, in deal {deal_index}; its hand: {hand}"


def view_after_plays(config: RunConfig, deal, plays) -> dict:
    """The view of the seat to play after ``plays``, rebuilt by the reference engine."""
    *_, view = views_along_plays(config, deal, list(plays) + [None])
    return view


def views_along_plays(config: RunConfig, deal, plays):
    """The view of the seat to play before each card of ``plays``, rebuilt by the
    reference engine in one pass over the deal (``None`` as the last card: the view after
    the others)."""
    hands, briscola, stock = deal_cards(deal)
    cards = [None if c is None else int(c) for c in plays]
    yield from views_along(int(deal["players"]), hands, briscola, stock, cards,
                           config.rules.partner_view, config.rules.signals)  # fmt: skip


def deal_cards(deal) -> tuple[list[list[int]], int, list[int]]:
    """A deal's cards as the reference engine takes them: every seat's hand, the
    briscola, and the face-down stock above it."""
    hands = [list(map(int, deal["hands"][seat][: int(deal["hand_size"])])) for seat in range(int(deal["players"]))]
    return hands, int(deal["briscola"]), [int(c) for c in deal["stock"][: int(deal["n_stock"]) - 1]]


def describe_view(view: dict) -> str:
    def cards(codes):
        return "[" + ", ".join(short_name(c) for c in codes) + "]"

    if view.get("max_bid", -1) >= 0:  # Briscola Chiamata
        trump = SUITS_ITALIAN[view["trump_suit"]] if view["trump_suit"] >= 0 else "not called yet"
        called = short_name(view["called"]) if view["called"] >= 0 else "none yet"
        table = (f"bid {view['bid']} by seat {view['bidder']}, passed {view['passed'][:5]}, called {called} "
                 f"(trump {trump}), partner {view['partner']}")  # fmt: skip
    else:
        briscola = short_name(view["briscola"]) if view["briscola"] >= 0 else (
            f"{short_name(view['face_up'])} taken by seat {view['face_up_holder']}")  # fmt: skip
        table = f"briscola {briscola} (trump {SUITS_ITALIAN[view['trump_suit']]}), stock {view['stock_size']}"
    text = (
        f"hand {cards(view['hand'])}, table {cards(view['table'])}, {table}, trick {view['trick']}, "
        f"points {view['points']}, {len(view['played_by'])} cards played"
    )
    if view["partner_hands"]:
        text += ", partners " + ", ".join(f"{s}: {cards(h)}" for s, h in view["partner_hands"].items())
    if view.get("partner_trumps"):
        text += ", partner trump signals " + ", ".join(f"{s}: {b}" for s, b in view["partner_trumps"].items())
    return text
