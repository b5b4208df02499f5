"""Engine throughput: deals per second per table and strategy pair, on one thread and
on all, with compile time kept apart from the steady state.

    .venv/bin/python benchmarks/bench_engine.py            # about 2 minutes
    .venv/bin/python benchmarks/bench_engine.py --quick    # a rough look in ~30 s

Steady-state speed is the best of several timed batches after a warm-up batch, since
this machine is shared: only ratios measured side by side in one run mean much.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numba  # noqa: E402

from sim.base.config import RunConfig  # noqa: E402
from sim.runtime.play import play_batch  # noqa: E402

PAIRS = {
    "random-random": ("random", "random"),
    "greedy-random": ("greedy", "random"),
    "greedy-greedy": ("greedy", "greedy"),
}


def deals_per_second(players: int, pair: tuple[str, str], threads: int, n_deals: int, repeats: int) -> float:
    config = RunConfig(players=players, strategies=seats(pair, players), deals=n_deals, seed=1, threads=threads)
    play_batch(config, 0, 1000)  # warm-up: compiled code loaded, threads started
    best = float("inf")
    for repeat in range(repeats):
        started = time.perf_counter()
        play_batch(config, repeat * n_deals, n_deals)
        best = min(best, time.perf_counter() - started)
    return n_deals / best


def seats(pair: tuple[str, str], players: int) -> tuple[str, ...]:
    """Strategy A on side 0 and B on side 1 (with 3 players, B on seats 1 and 2; with 5, A on
    the even seats)."""
    return tuple(pair[0] if seat % (3 if players == 3 else 2) == 0 else pair[1] for seat in range(players))


def compile_seconds() -> float:
    """Time of the first call in this process: loading (or compiling) the kernels."""
    config = RunConfig(players=2, strategies=("greedy", "random"), deals=10, seed=1, threads=1)
    started = time.perf_counter()
    play_batch(config, 0, 10)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer deals and repeats")
    args = parser.parse_args()
    n_deals, repeats = (200_000, 2) if args.quick else (1_000_000, 3)
    all_threads = numba.config.NUMBA_NUM_THREADS
    print(f"first call (kernel load or compile): {compile_seconds():.2f} s")
    print(f"| players | pair | 1 thread (deals/s) | {all_threads} threads (deals/s) | scaling |")
    print("|---|---|---|---|---|")
    for players in (2, 3, 4, 5, 6):
        for name, pair in PAIRS.items():
            one = deals_per_second(players, pair, 1, n_deals, repeats)
            many = deals_per_second(players, pair, all_threads, n_deals, repeats)
            print(f"| {players} | {name} | {one:,.0f} | {many:,.0f} | {many / one:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
