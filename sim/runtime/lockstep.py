"""Batched strategies played in lock-step: the kernels play every seat they can until
each deal in flight waits on a batched seat (or is over), then each batched strategy is
called once for all the decisions waiting on it, and the kernels go on.

Deals are played in waves of at most LANES at a time (``kernels/lockstep_nb.py``): how
many share a wave changes nothing in any deal, as every decision's randomness is keyed
by its deal, its seat's stream and its place in that stream.
"""

from __future__ import annotations

import inspect
import threading

import numpy as np
from threadpoolctl import threadpool_limits

from kernels.enums import DEAL_DTYPE, ILLEGAL_DTYPE, PLAY_DTYPE, RESULT_DTYPE, VIEW_DTYPE
from kernels.lockstep_nb import (
    LANE_BID,
    LANE_CALL,
    LANE_PLAY,
    advance_lanes_nb,
    new_lanes_nb,
    start_lanes_nb,
)
from sim.runtime.kernel_thread import call_on_kernel_thread, compiled_for
from strategies.api import StrategySpec
from strategies.errors import StrategyError
from strategies.observation import legal_mask
from strategies.registry import check_read_while_deciding, files_read
from strategies.seam import outside_mask

LANES = 4096  # deals in flight at once: enough to make each call worth its overhead, small in memory
# Where each decision handed to a batched strategy was taken: the run's deal index (as in
# the result rows' ``deal``) and the seat, for a strategy that logs them.
WHERE_DTYPE = np.dtype([("deal", np.int64), ("seat", np.int8)])
PHASE_NAMES = {LANE_PLAY: "play", LANE_BID: "bid", LANE_CALL: "call"}


def kernel_buffers(n_deals: int):
    """The result and illegal-decision arrays, marked as not played yet (every field -1)."""
    results = np.empty(n_deals, dtype=RESULT_DTYPE)
    illegal = np.empty(n_deals, dtype=ILLEGAL_DTYPE)
    for array in (results, illegal):  # all bits set, in one memset: every field reads -1
        array.view(np.uint8).fill(0xFF)
    return results, illegal


def play_lockstep(run, groups, n_deals: int, threads: int, stop, trace: bool, given: np.ndarray | None = None):
    """Plays deals ``run.first_deal + i * run.deal_step`` (or the ``given`` DEAL_DTYPE
    deals: ``run.dealt``) with the batched ``groups`` called from here. Returns results,
    illegal-decision records, deals and records (empty unless ``trace`` or given)."""
    results, illegal = kernel_buffers(n_deals)
    keep = trace or given is not None
    deals = given if given is not None else np.empty(n_deals if trace else 0, dtype=DEAL_DTYPE)
    records = np.empty(n_deals if keep else 0, dtype=PLAY_DTYPE)
    outside = outside_mask(groups)
    lanes = new_lanes_nb(max(1, min(LANES, n_deals)))
    kernels = lane_kernels(run, outside, lanes)
    with threadpool_limits(limits=1):  # a BLAS pool spinning beside the kernels' threads slowed them tenfold
        _play_waves(run, groups, outside, lanes, kernels, n_deals, threads, stop, given,
                    (results, illegal, deals, records))  # fmt: skip
    return results, illegal, deals, records


def lane_kernels(run, outside, lanes) -> tuple:
    """``start_lanes_nb`` and ``advance_lanes_nb`` compiled for this run's types, called
    without Numba's dispatch (``compiled_for``): a wave calls them 20 times and more."""
    lane_indices = np.zeros(1, dtype=np.int64)
    arguments = (run, outside, lanes, lane_indices, lane_indices)
    return compiled_for(start_lanes_nb, arguments), compiled_for(advance_lanes_nb, arguments)


def _play_waves(run, groups, outside, lanes, kernels, n_deals, threads, stop, given, out) -> None:
    results, illegal, deals, records = out
    trace, keep = len(deals) > 0 and given is None, len(records) > 0
    for start, size in _waves(run, n_deals):
        if stop.is_set():
            break
        which = np.arange(size, dtype=np.int64)
        if given is not None:
            lanes.deals[: len(which)] = given[start : start + len(which)]
        indices = (run.first_deal + (start + which) * run.deal_step).astype(np.int64, copy=False)  # the bound type
        lanes.results.view(np.uint8).fill(0xFF)  # as kernel_buffers: fields a table does not write read -1
        finished = _play_wave(run, groups, outside, lanes, kernels, which, indices, threads, stop)
        end = start + len(which)
        results[start:end], illegal[start:end] = lanes.results[: len(which)], lanes.illegal[: len(which)]
        if trace and given is None:
            deals[start:end] = lanes.deals[: len(which)]
        if keep:
            records[start:end] = lanes.records[: len(which)]
        if not finished:
            break


def _waves(run, n_deals: int):
    """``(start, size)`` of each wave: waves end where the run's units (deals, or matches
    of ``deal_step`` deals) reach a multiple of LANES, so that the same units share a
    wave however a run is cut into calls (chunks.Pace cuts on the same grid)."""
    start, unit = 0, run.first_deal // run.deal_step
    while start < n_deals:
        size = min(LANES - (unit + start) % LANES, n_deals - start)
        yield start, size
        start += size


def _play_wave(run, groups, outside, lanes, kernels, which, indices, threads, stop) -> bool:
    """Plays one wave of lanes to the end; False if a stop cut it short. The whole wave,
    its kernels and its strategies' calls, runs on the kernel thread while this one waits,
    free to hear a stop: one hop between threads a wave (about 80 us each), not two a
    trick. A strategy that stalls is left there (``asking``), as a slow kernel is."""
    asking = threading.Event()
    arguments = (run, groups, outside, lanes, kernels, which, indices, stop, asking)
    finished, played = call_on_kernel_thread(_wave, arguments, threads, stop, asking=asking)
    return finished and played


def _wave(run, groups, outside, lanes, kernels, which, indices, stop, asking) -> bool:
    """``_play_wave``'s loop, on the kernel thread: the kernels play until every lane
    waits on a batched strategy, the strategies decide, and so on; once ``stop`` is set
    the kernels return before their next decision and the loop ends (False)."""
    start_lanes, advance_lanes = kernels
    start_lanes(run, outside, lanes, which, indices)
    cursor = lanes.cursor[: len(which)]
    while not stop.is_set():
        waiting = np.flatnonzero(cursor["seat"] >= 0)
        if waiting.size == 0:
            return True
        asking.set()
        actions = decide(groups, lanes, waiting)
        asking.clear()
        if stop.is_set():
            break
        advance_lanes(run, outside, lanes, waiting, actions)
    return False


def decide(groups, lanes, waiting: np.ndarray) -> np.ndarray:
    """Every awaited decision of the lanes ``waiting``: one call per strategy and phase."""
    actions = np.full(waiting.size, -1, dtype=np.int64)
    seats = lanes.cursor["seat"][waiting]
    phases = lanes.cursor["phase"][waiting]
    for group in groups:
        mine = np.isin(seats, group.seats)
        for phase, function in group.deciders().items():
            chosen = np.flatnonzero(mine & (phases == phase))
            if chosen.size:
                lane = waiting[chosen]
                views = sealed_views(lanes, lane)  # a copy: what the strategy writes there, nobody sees
                cursor = lanes.cursor[lane]
                actions[chosen] = ask(group.spec, function, PHASE_NAMES[phase], views, cursor["key"],
                                      where_decided(cursor))  # fmt: skip
    return actions


def sealed_views(lanes, lane: np.ndarray) -> np.ndarray:
    """A copy of the sealed views of lanes ``lane``, gathered as bytes: numpy copies a
    record of many sub-array fields field by field (1.2 ms for 4,096, against 0.06)."""
    raw = lanes.views.view(np.uint8).reshape(len(lanes.views), 2, VIEW_DTYPE.itemsize)
    return raw[lane, 1].view(VIEW_DTYPE).reshape(len(lane))


def where_decided(cursor: np.ndarray) -> np.ndarray:
    """WHERE_DTYPE records of the lanes ``cursor`` (LANE_DTYPE): each decision's deal and seat."""
    where = np.empty(len(cursor), dtype=WHERE_DTYPE)
    where["deal"], where["seat"] = cursor["deal"], cursor["seat"]
    return where


def takes_where(function) -> bool:
    """Whether a batched strategy's callable asks for ``where`` (a keyword of that name,
    or ``**kwargs``): existing ones take four arguments, and keep working."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        return False
    return any(p.name == "where" or p.kind is p.VAR_KEYWORD for p in parameters)


def ask(spec: StrategySpec, function, phase: str, views: np.ndarray, keys: np.ndarray, where: np.ndarray):
    """One call of a batched strategy: its decisions, checked to be one integer per view
    (``where``: each decision's deal and seat, WHERE_DTYPE, given if it asks for them)."""
    name = spec.strategy.name
    extra = {"where": where.copy()} if takes_where(function) else {}
    try:
        with files_read() as opened:
            decided = function(views, legal_mask(views, phase), dict(spec.values), keys.copy(), **extra)
    except BaseException as error:  # noqa: BLE001 - the author's, SystemExit included: named in one line
        if isinstance(error, KeyboardInterrupt) and threading.current_thread() is threading.main_thread():
            raise  # the user's Ctrl-C, which lands on the main thread (a training loop's step), not the strategy's
        raise StrategyError(f"strategy {name!r} raised {type(error).__name__} deciding a {phase}: {error}") from error
    check_read_while_deciding(spec.strategy, opened)
    decided = np.asarray(decided)
    if decided.shape != (len(views),) or not np.issubdtype(decided.dtype, np.integer):
        raise StrategyError(
            f"strategy {name!r} returned {decided.dtype} of shape {decided.shape} for {len(views)} views deciding a "
            f"{phase}; it must return one integer per view (shape ({len(views)},))"
        )
    if decided.dtype.kind == "u" and decided.size and decided.max() > np.iinfo(np.int64).max:
        # cast to the kernels' int64 it would wrap round: 2**64 - 1 would read as -1, a pass at an auction
        raise StrategyError(f"strategy {name!r} returned {decided.max()} deciding a {phase}: "
                            f"{'a bid is -1 (pass) or a level 0..68' if phase == 'bid' else 'a card code is 0..39'}")  # fmt: skip
    return decided
