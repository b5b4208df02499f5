"""Readying a run's kernels: what the run plays and nothing more, on both cores when the
caches are cold.

A run compiles only the code it plays: untraced 2-player runs of ``random`` and
``greedy`` the engine's fast path (``simulate_duels_nb``), other runs the general engine,
and the plug-in strategies it seats (``expert`` ~4 s, ``pimc`` ~6 s), at Briscola
Chiamata with their bid and call. Each lands in Numba's disk cache on its own, so a
later run with other strategies compiles only what it has not met yet. Numba compiles on
one core at a time within a process, so the strategies not in the disk cache yet are
compiled by a second process while this one compiles the engine; afterwards this
process loads them from the cache. With warm caches nothing is started: everything loads
in about a second.

The second process runs ``python -m sim.runtime.compiling [--strategy-file PATH ...] [--auction]
NAME ...``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings

import numpy as np

from kernels.lockstep_nb import new_lanes_nb
from kernels.tally_nb import tally_results_nb
from sim.base.config import CHIAMATA, RunConfig, n_sides
from sim.base.interrupt import StopFlag
from sim.base.results import deal_columns
from sim.runtime.lockstep import lane_kernels
from sim.runtime.play import NOT_PLAYED, lineup, play_batch, run_context, seat_specs
from strategies.api import Strategy
from strategies.registry import available_strategies
from strategies.seam import decision_signature, outside_mask


def warm_up(config: RunConfig, tally: bool = False) -> tuple[float, float]:
    """Compiles (or loads) everything ``config`` runs, and with ``tally`` the batch tally
    of ``simulate``; returns the seconds that took, and those its batched strategies'
    first decisions took (their own start-up: a model's session, a library's import),
    which no cache shortens."""
    started = time.perf_counter()
    helper = _compile_aside(_cold_strategies(config), config.players == CHIAMATA, config.strategy_files)
    try:
        engine, trace = _engine_only(config)
        batch = play_batch(engine, 0, 1, trace=trace)
        if tally:
            tally_results_nb(batch.results, n_sides(config.players), NOT_PLAYED)
        if helper is not None:
            helper.wait()  # if it failed, the next line compiles what is missing
    except BaseException:  # Ctrl-C included: no compiler left running behind
        if helper is not None:
            helper.kill()
        raise
    groups = lineup(config).batched  # loads (or compiles) the strategies; the engine takes any of them
    if not groups:
        return time.perf_counter() - started, 0.0
    run = run_context(config, 0, 1, False, StopFlag())
    lane_kernels(run, outside_mask(groups), new_lanes_nb(1))  # the lock-step kernels, for the run's own lineup
    compiled = time.perf_counter()
    play_batch(config, 0, 1)  # one deal: the batched strategies' first calls
    return compiled - started, time.perf_counter() - compiled


def _engine_only(config: RunConfig) -> tuple[RunConfig, bool]:
    """The same table with ``random`` in every plug-in's seat, and whether to trace it:
    the engine takes any strategies (they come as function pointers of one type), so this
    compiles the engine the run plays without its strategies. A run with a plug-in plays
    the general path, which a traced batch takes too; one of ``random`` and ``greedy``
    alone plays as it would."""
    specs = seat_specs(config)
    plugged = [spec.strategy.inline_id is None for spec in specs]
    strategies = tuple("random" if plug else spec.label for spec, plug in zip(specs, plugged))
    engine = RunConfig(players=config.players, strategies=strategies, deals=1, seed=0, threads=config.threads,
                       rules=config.rules)  # fmt: skip
    return engine, any(plugged)


def _cold_strategies(config: RunConfig) -> list[Strategy]:
    """The run's plug-in strategies not yet compiled, in this process or on disk."""
    cold = []
    for spec in seat_specs(config):
        strategy = spec.strategy
        if strategy.inline_id is None and strategy not in cold and not _is_ready(strategy):
            cold.append(strategy)
    return cold


def compiling_note(configs) -> str | None:
    """What the runs ``configs`` compile before they play, in one line saying why they
    wait; None if the engine paths they play are in Numba's disk cache (strategies alone
    compile in seconds, and one that does not compile is then refused in one line)."""
    engines = {_ENGINE_NAMES[kernel.__name__] for kernel in map(_engine_kernel, configs) if is_cold(kernel)}
    if not engines:
        return None
    strategies = {s.name: None for config in configs for s in _cold_strategies(config)}
    named = f"the strateg{'ies' if len(strategies) > 1 else 'y'} {', '.join(strategies)}"
    parts = sorted(engines) + ([named] if strategies else [])
    return (f"compiling {' and '.join(parts)} into Numba's cache, once (seconds to a minute on 2 cores); "
            "later runs load them in about a second")  # fmt: skip


_ENGINE_NAMES = {"simulate_duels_nb": "the engine's 2-player fast path", "simulate_nb": "the engine"}


def _engine_kernel(config: RunConfig):
    """The entry kernel the run plays (as ``sim.runtime.play`` picks it): the fast path or the engine."""
    from kernels.duel_nb import is_duel_nb
    from kernels.engine_nb import simulate_duels_nb, simulate_nb

    engine, trace = _engine_only(config)
    ids = np.array([spec.strategy.inline_id for spec in seat_specs(engine)])
    return simulate_duels_nb if is_duel_nb.py_func(engine.players, ids, trace) else simulate_nb


def is_cold(kernel) -> bool:
    """Whether a kernel has nothing in Numba's disk cache (a run compiles it)."""
    try:
        return not kernel._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - Numba internals moved: as if warm
        return False


def _is_ready(strategy: Strategy) -> bool:
    """Whether the decision function is compiled here or in Numba's disk cache (loading
    it from there takes a few milliseconds)."""
    if strategy.is_compiled():
        return True
    from numba import njit

    try:
        dispatcher = njit(cache=True, nogil=True)(getattr(strategy.choose, "py_func", strategy.choose))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return dispatcher._cache.load_overload(decision_signature(), dispatcher.targetctx) is not None
    except Exception:  # Numba internals moved: compile here, as without this module
        return True


def _compile_aside(cold: list[Strategy], auction: bool, strategy_files) -> subprocess.Popen | None:
    """Starts the second process on ``cold`` (with ``auction``, their bids and calls too)."""
    if not cold or (os.cpu_count() or 1) < 2:
        return None
    files = [arg for path in strategy_files for arg in ("--strategy-file", str(path))]
    command = [sys.executable, "-m", "sim.runtime.compiling", *files, *(["--auction"] if auction else []),
               *(s.name for s in cold)]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def ready_everything() -> None:
    """Compiles both paths of the engine, the tally, the lock-step kernels (batched
    strategies), the one-deal seam, the result rows' cards and every built-in strategy (with its bid and call)
    into Numba's disk cache, the strategies in the second process: a machine readied
    ahead of its runs (the test session does this once, with the environments)."""
    from sim.runtime.deal import Deal
    from strategies.registry import builtin_strategies

    cold = [s for s in builtin_strategies().values() if s.inline_id is None and not _is_ready(s)]
    helper = _compile_aside(cold, True, ())
    try:
        for players, trace in ((2, False), (4, True)):  # the fast path; the engine (a traced batch takes it)
            config = RunConfig(players=players, strategies=("random",) * players, deals=1, seed=0)
            tally_results_nb(play_batch(config, 0, 1, trace=trace).results, n_sides(players), NOT_PLAYED)
        run = run_context(config, 0, 1, False, StopFlag())
        lane_kernels(run, outside_mask(()), new_lanes_nb(1))  # one type for any lineup
        Deal.new(config, outside=(0,))  # its step kernel
        deal_columns(np.zeros(1, dtype=np.int64), config)  # the result rows' cards, dealt again
    finally:
        if helper is not None:
            helper.wait()
    for strategy in cold:  # loaded from the cache the second process filled (compiled here on one core)
        strategy.compiled()
        strategy.compiled_auction()


def main(argv: list[str]) -> int:
    """Compiles the named strategies into Numba's disk cache (``--everything``: all
    a run may need of the built-ins, ``ready_everything``)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m sim.runtime.compiling", description=main.__doc__)
    parser.add_argument("--strategy-file", action="append", default=[])
    parser.add_argument("--auction", action="store_true", help="their Briscola Chiamata bid and call too")
    parser.add_argument("--everything", action="store_true", help="both engine paths and every built-in")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args(argv)
    if args.everything:
        ready_everything()
        return 0
    strategies = available_strategies(tuple(args.strategy_file))
    for name in args.names:
        strategies[name].compiled()
        if args.auction:
            strategies[name].compiled_auction()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
