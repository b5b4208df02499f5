"""Readying a run's kernels, on both cores when the caches are cold.

A first run compiles the engine (about 30 s) and every plug-in strategy it uses
(``expert`` ~4 s, ``pimc`` ~6 s). Numba compiles on one core at a time within a process,
so the strategies that are not in the disk cache yet are compiled by a second process
while this one compiles the engine; afterwards this process loads them from the cache.
That process also compiles every other built-in strategy not cached yet, after the
run's own: it says when the run's own are done, and the run starts then while it goes on
(the search strategies take longer than the engine), so the first run costs no more, and
a later run against any built-in opponent starts at once (without this, each new
opponent compiled on its first use, which looked like a recompile of one's own
plug-in). With warm caches nothing is started: everything loads in about a second.

The second process runs ``python -m sim.compiling [--strategy-file PATH ...] [--own N]
NAME ...`` and prints ``ready`` once it has compiled the first N names.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings

from kernels.lockstep_nb import new_lanes_nb
from kernels.tally_nb import tally_results_nb
from sim.config import RunConfig, n_sides
from sim.interrupt import StopFlag
from sim.lockstep import lane_kernels
from sim.play import NOT_PLAYED, lineup, play_batch, run_context, seat_specs
from strategies.api import Strategy
from strategies.registry import available_strategies
from strategies.seam import decision_signature, outside_mask


def warm_up(config: RunConfig, tally: bool = False) -> tuple[float, float]:
    """Compiles (or loads) everything ``config`` runs, and with ``tally`` the batch tally
    of ``simulate``; returns the seconds that took, and those its batched strategies'
    first decisions took (their own start-up: a model's session, a library's import),
    which no cache shortens."""
    started = time.perf_counter()
    helper = _compile_aside(_to_compile_aside(config), len(_cold_strategies(config)), config.strategy_files)
    try:
        batch = play_batch(_engine_only(config), 0, 1)
        if tally:
            tally_results_nb(batch.results, n_sides(config.players), NOT_PLAYED)
        if helper is not None:
            helper.stdout.readline()  # "ready", or nothing if it failed: the next line compiles what is missing
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


def _engine_only(config: RunConfig) -> RunConfig:
    """The same table with ``random`` in every seat: the engine is compiled once for any
    strategies (they come as function pointers of one type), so this compiles all of it."""
    return RunConfig(players=config.players, strategies=("random",) * config.players, deals=1, seed=0,
                     threads=config.threads, rules=config.rules)  # fmt: skip


def _cold_strategies(config: RunConfig) -> list[Strategy]:
    """The run's plug-in strategies not yet compiled, in this process or on disk."""
    cold = []
    for spec in seat_specs(config):
        strategy = spec.strategy
        if strategy.inline_id is None and strategy not in cold and not _is_ready(strategy):
            cold.append(strategy)
    return cold


def _to_compile_aside(config: RunConfig) -> list[Strategy]:
    """What the second process compiles: the run's cold strategies first; then, while
    the engine compiles here (a first run), every other built-in not cached yet."""
    cold = _cold_strategies(config)
    if not engine_is_cold():
        return cold
    from strategies.registry import builtin_strategies

    others = [s for s in builtin_strategies().values() if s.inline_id is None and s not in cold and not _is_ready(s)]
    return cold + others


def engine_is_cold() -> bool:
    """Whether the engine has nothing in Numba's disk cache (this run compiles it)."""
    from kernels.engine_nb import simulate_nb

    try:
        return not simulate_nb._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - Numba internals moved: as if warm (nothing more is compiled aside)
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


_helpers: list[subprocess.Popen] = []  # compiling the other built-ins on while the run plays


def _compile_aside(cold: list[Strategy], own: int, strategy_files) -> subprocess.Popen | None:
    """Starts the second process on ``cold``, of which the first ``own`` are the run's."""
    if not cold or (os.cpu_count() or 1) < 2:
        return None
    files = [arg for path in strategy_files for arg in ("--strategy-file", str(path))]
    command = [sys.executable, "-m", "sim.compiling", *files, "--own", str(own), *(s.name for s in cold)]
    helper = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    _helpers.append(helper)
    return helper


def main(argv: list[str]) -> int:
    """Compiles the named strategies into Numba's disk cache."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m sim.compiling", description=main.__doc__)
    parser.add_argument("--strategy-file", action="append", default=[])
    parser.add_argument("--own", type=int, default=0, help="print 'ready' once the first OWN names are compiled")
    parser.add_argument("names", nargs="+")
    args = parser.parse_args(argv)
    strategies = available_strategies(tuple(args.strategy_file))
    for done, name in enumerate(args.names):
        if done == args.own:
            print("ready", flush=True)
        strategies[name].compiled()
        strategies[name].compiled_auction()  # Briscola Chiamata's bid and call: cheap beside the card
    if args.own >= len(args.names):
        print("ready", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
