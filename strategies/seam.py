"""The strategy-to-kernel seam: the seats' strategies made into what the kernels read.

- **Compiling**: every decision function compiled for the one plug-in signature
  (``decision_signature``, ``compile_decision``; ``Strategy.compiled`` keeps each once per
  process), unused slots as compiled addresses (``no_decision_slot``).
- **Assembly**: a table of seats (``StrategySpec`` each) made into the kernels' strategy
  tables once (``seat_tables``, a ``Lineup``): strategy ids, parameter rows, the plug-in
  slots' functions and data (``Plugins``, ``PluginData``), and the seats a batched
  strategy plays outside the kernels, in lock-step (``BatchedSeats``, ``outside_mask``);
  then, per call, the run context (``run_context``).

The types themselves are jitted code's, in ``kernels/contexts_nb.py`` (the kernels import
them). The engine, lock-step play, the environments, ``Deal`` and ``briscola check`` all
take their strategies from here, through sim/runtime/play.py (a RunConfig's seats).
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass

import numpy as np

from kernels.contexts_nb import PluginData, Plugins, RunContext
from kernels.dispatch_nb import FIRST_PLUGIN_ID
from kernels.enums import CHIAMATA_PLAYERS, MAX_PLAYERS
from kernels.lockstep_nb import LANE_BID, LANE_CALL, LANE_PLAY, OUTSIDE_BID, OUTSIDE_CALL, OUTSIDE_PLAY
from kernels.rng_nb import seed_key_nb
from strategies.api import MAX_PARAMS, Strategy, StrategySpec
from strategies.errors import StrategyError

# Options of an author's @njit kept when the decision is compiled for the plug-in
# signature; others (parallel: the kernels already run a thread per block) are dropped.
KEPT_NJIT_OPTIONS = ("fastmath", "error_model", "boundscheck", "debug", "inline")


@dataclass(frozen=True)
class BatchedSeats:
    """The seats a batched strategy plays with one set of parameters: one call for all."""

    spec: StrategySpec
    seats: tuple[int, ...]

    def deciders(self) -> dict[int, object]:
        """Lane phase -> the strategy's function for it (bids and calls: where it has them)."""
        strategy = self.spec.strategy
        functions = {LANE_PLAY: strategy.choose, LANE_BID: strategy.bid, LANE_CALL: strategy.call}
        return {phase: f for phase, f in functions.items() if f is not None}


@dataclass(frozen=True, eq=False)
class Lineup:
    """The seats' strategies resolved: each seat's spec (strategy and parameter values)
    and what the kernels take of them: strategy ids, parameter rows and the Plugins.

    ``random`` and ``greedy`` take their inline ids; every other strategy gets a plug-in
    slot (one per distinct strategy): its compiled decision function in ``decide`` and,
    at Briscola Chiamata, its bid and call in ``bid`` and ``call`` (kernels/contexts_nb.py).
    """

    specs: tuple[StrategySpec, ...]
    strategy_ids: np.ndarray  # shared by every batch of the run: the kernels only read them
    params: np.ndarray
    plugins: Plugins
    plugin_data: PluginData
    batched: tuple[BatchedSeats, ...] = ()  # seats decided outside the kernels, in lock-step


def seat_tables(specs: tuple[StrategySpec, ...], players: int) -> Lineup:
    """The kernels' tables of the seats ``specs`` at a table of ``players``, their
    strategies compiled; StrategyError for a strategy that does not play there."""
    refuse_unplayed(specs, players)
    ids = np.full(MAX_PLAYERS, -1, dtype=np.int64)
    params = np.zeros((MAX_PLAYERS, MAX_PARAMS), dtype=np.float64)
    slots = []
    for seat, spec in enumerate(specs):
        params[seat] = spec.param_vector()
        strategy = spec.strategy
        if strategy.inline_id is not None:
            ids[seat] = strategy.inline_id
            continue
        if strategy not in slots:
            slots.append(strategy)
        ids[seat] = FIRST_PLUGIN_ID + slots.index(strategy)
    plugins, plugin_data = _plugins(slots, players, players == CHIAMATA_PLAYERS)
    return Lineup(specs, ids, params, plugins, plugin_data, batched_seats(specs))


def _plugins(slots: list, players: int, chiamata: bool) -> tuple[Plugins, PluginData]:
    """The slots' compiled functions, each in the tuple of its signature (the other
    tuple's slot left unused), and their data for this table in one read-only vector."""
    takes_data = np.zeros((3, MAX_PLAYERS), dtype=np.int8)
    functions = [[no_decision_slot()] * MAX_PLAYERS for _ in range(3)]
    with_data = [[no_decision_slot(True)] * MAX_PLAYERS for _ in range(3)]
    for slot, strategy in enumerate(slots):
        bid, call = strategy.compiled_auction() if chiamata else (no_decision_slot(), no_decision_slot())
        for what, (decision, function) in enumerate(zip(("play", "bid", "call"), (strategy.compiled(), bid, call))):
            uses_data = strategy.decides_with_data(decision) and (decision == "play" or chiamata)
            takes_data[what, slot] = uses_data
            (with_data if uses_data else functions)[what][slot] = function
    vectors = [s.data_for(players) for s in slots]
    ends = np.cumsum([0] + [len(v) for v in vectors])
    spans = np.zeros((MAX_PLAYERS, 2), dtype=np.int64)
    spans[: len(slots), 0], spans[: len(slots), 1] = ends[:-1], ends[1:]
    data = np.concatenate([np.zeros(0, dtype=np.float32), *vectors])
    data.flags.writeable = False
    decide, bid, call = (tuple(f) for f in functions)
    decide_data, bid_data, call_data = (tuple(f) for f in with_data)
    return Plugins(decide, bid, call, decide_data, bid_data, call_data), PluginData(takes_data, data, spans)


def refuse_unplayed(specs, players: int) -> None:
    """StrategyError for a strategy that does not play at a table of ``players`` (its
    declared ``tables``)."""
    for spec in specs:
        if not spec.strategy.plays_at(players):
            raise StrategyError(spec.strategy.not_played_text(players))


def batched_seats(specs) -> tuple[BatchedSeats, ...]:
    """The run's batched seats, grouped by strategy and parameter values (their label)."""
    groups: dict[str, tuple[StrategySpec, list[int]]] = {}
    for seat, spec in enumerate(specs):
        if spec.strategy.batched:
            groups.setdefault(spec.label, (spec, []))[1].append(seat)
    return tuple(BatchedSeats(spec, tuple(seats)) for spec, seats in groups.values())


def outside_mask(groups: tuple[BatchedSeats, ...]) -> np.ndarray:
    """Per seat, the OUTSIDE_* bits of the decisions its batched strategy takes."""
    bits = {LANE_PLAY: OUTSIDE_PLAY, LANE_BID: OUTSIDE_BID, LANE_CALL: OUTSIDE_CALL}
    outside = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for group in groups:
        for seat in group.seats:
            outside[seat] = sum(bits[phase] for phase in group.deciders())
    return outside


def run_context(seats: Lineup, seed: int, players: int, rules: np.ndarray, seat_streams: np.ndarray,
                stop: np.ndarray, first_deal: int = 0, deal_step: int = 1, dealt: bool = False) -> RunContext:  # fmt: skip
    """The kernels' read-only inputs for deals ``first_deal + i * deal_step`` of ``seed``
    played by ``seats`` (``dealt``: the deals are given, as in a replay; the table is then
    any): ``rules`` as codes (``Rules.as_codes``), each seat's random stream, and the stop
    flag another thread may set (an int8 array of one)."""
    # np.uint64: a jitted function returns a plain int, which Numba would type int64 below 2**63
    return RunContext(
        seed_key=np.uint64(seed_key_nb(seed)), first_deal=int(first_deal), deal_step=int(deal_step),
        players=0 if dealt else players, dealt=dealt, rules=rules, strategy_ids=seats.strategy_ids,
        params=seats.params, plugins=seats.plugins, plugin_data=seats.plugin_data, seat_streams=seat_streams,
        stop=stop,
    )  # fmt: skip


_DEFAULTS: dict = {}


def no_decision_slot(takes_data: bool = False):
    """A plug-in slot the kernels never call (an unused slot, a decision taken outside
    them): ``no_decision_nb`` as its compiled address, which a kernel's call takes at no
    cost, where a jitted function costs about 25 us to look up at every call (a step of
    the environment passes 18 slots). A slot that is called stays a jitted function:
    only then do its exceptions reach the caller."""
    from numba.core.types.function_type import CompileResultWAP

    from kernels.dispatch_nb import no_data_decision_nb, no_decision_nb

    key = ("none", takes_data)
    if key not in _DEFAULTS:
        function = compile_decision(no_data_decision_nb if takes_data else no_decision_nb, "no decision", takes_data)
        overloads = getattr(function, "overloads", None)  # None: the kernels run as Python (NUMBA_DISABLE_JIT)
        _DEFAULTS[key] = CompileResultWAP(next(iter(overloads.values()))) if overloads else function
    return _DEFAULTS[key]


def compiled_decision(strategy: Strategy, decision: str):
    """``strategy``'s function for ``decision`` ("play", "bid" or "call") as the kernels
    call it: its own compiled for the plug-in signature; where it has no bid or call, the
    default auction policy's (a batched strategy's too); for a batched strategy's own, a
    slot never called (those decisions are taken outside the kernels). ``Strategy.compiled`` keeps it, once per process."""
    from kernels.inlined_strategies_nb import default_bid_nb, default_call_nb

    own = {"play": strategy.choose, "bid": strategy.bid, "call": strategy.call}[decision]
    if own is None:
        return _default_decision({"bid": default_bid_nb, "call": default_call_nb}[decision])
    if strategy.batched:
        return no_decision_slot()
    name = strategy.name if decision == "play" else f"{strategy.name}'s {decision}"
    return compile_decision(own, name, strategy.takes_data)


def _default_decision(function):
    """A default auction decision compiled once per process, shared by every strategy."""
    if function not in _DEFAULTS:
        _DEFAULTS[function] = compile_decision(function, "default auction policy")
    return _DEFAULTS[function]


def decision_signature(takes_data: bool = False):
    """The Numba signature every decision function is compiled with (``takes_data``: that
    of a strategy with data, whose fourth argument is its read-only float32 vector)."""
    from numba import from_dtype, types

    from kernels.enums import VIEW_DTYPE

    arguments = [from_dtype(VIEW_DTYPE), types.float64[::1], types.uint64[::1]]
    if takes_data:
        arguments.append(types.Array(types.float32, 1, "C", readonly=True))
    return types.int64(*arguments)


def compile_decision(choose, name: str, takes_data: bool = False):
    """``choose`` compiled for the plug-in signature, with the options of the author's
    ``@njit`` that suit a decision (KEPT_NJIT_OPTIONS); StrategyError (one line) if it fails,
    naming the strategy, the file and line, and Numba's reason (the whole of Numba's
    message is the error's cause: ``BRISCOLA_DEBUG=1`` shows it)."""
    from numba import njit

    python_function = getattr(choose, "py_func", choose)
    if not callable(python_function):
        raise StrategyError(f"strategy {name!r}: its decision function is not callable")
    authors = getattr(choose, "targetoptions", {})
    options = {key: authors[key] for key in KEPT_NJIT_OPTIONS if key in authors}
    options.update(cache=True, nogil=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Numba's "first-class functions are experimental"
            return njit(decision_signature(takes_data), **options)(python_function)
    except Exception as error:  # Numba's errors, and the bare ones its typing lets out (KeyError, ...)
        where = _error_location(error)
        raise StrategyError(
            f"strategy {name!r}{where} does not compile for the kernels: {_compile_reason(error)} "
            "(BRISCOLA_DEBUG=1 shows Numba's whole message)"
        ) from error


def _error_location(error: Exception) -> str:
    """`` (file.py, line N)`` of a compile error: Numba's own location, or the innermost
    statement being typed when a bare exception escaped Numba's type inference."""
    from numba.core.ir import Loc

    loc = getattr(error, "loc", None)
    if not isinstance(loc, Loc):
        tb = error.__traceback__
        while tb is not None:
            for value in list(tb.tb_frame.f_locals.values()):
                try:
                    found = value if isinstance(value, Loc) else getattr(value, "loc", None)
                except Exception:  # noqa: BLE001 - any object may sit in a frame: never hide the real error
                    found = None
                loc = found if isinstance(found, Loc) else loc
            tb = tb.tb_next
    if not isinstance(loc, Loc):
        return ""
    path = os.path.relpath(loc.filename)
    return f" ({loc.filename if path.startswith('..') else path}, line {loc.line})"


def _compile_reason(error: Exception) -> str:
    """Numba's reason in one line: the line after its 'Failed in ... pipeline' header
    (and the next, when it ends with a colon), or the bare exception. A field the view
    does not have is named with the fields it has."""
    from numba.core.errors import NumbaError

    from kernels.enums import VIEW_DTYPE

    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # Numba may colour its messages
    missing = re.search(r"Unknown attribute '(\w+)' of type Record", text)
    if isinstance(error, KeyError) and error.args and isinstance(error.args[0], str):
        missing = re.match(r"(\w+)", error.args[0])
    if missing and missing.group(1) not in VIEW_DTYPE.names:
        return f"the view has no field {missing.group(1)!r}; its fields: {', '.join(VIEW_DTYPE.names)}"
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("Failed in ")]
    if not isinstance(error, NumbaError) or not lines:
        return f"{type(error).__name__}: {lines[0] if lines else text}"
    reason = lines[0]
    if reason.endswith(":") and len(lines) > 1:
        reason += " " + lines[1].lstrip("> ")
    return reason
