"""Strength and speed of every built-in strategy: its score against ``random`` and against
``greedy`` (win 1, draw 1/2), each deal played from every seat (2 players: both seats;
4 players: both teams), with 95% intervals; and its speed in deals/s on one thread.

Usage: python benchmarks/bench_strength.py [--deals N] [--search-deals N] [--seed S] [--only NAME ...]
Prints a Markdown table (docs/strength.md's). Search-based strategies play fewer deals.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from sim.base.config import RunConfig  # noqa: E402
from sim.runtime.play import play_batch  # noqa: E402
from strategies.library import BUILTIN  # noqa: E402

SEARCH_BASED = {"pimc", "ismcts"}
OPPONENTS = ("random", "greedy")
TABLES = (2, 4)
SEED = 20261201  # the published figures' seed: no tuning used it


def scores(name: str, opponent: str, players: int, deals: int, seed: int) -> np.ndarray:
    """Per-game scores of ``name``: the same deals played with the sides swapped."""
    games = []
    for side in (0, 1):  # the side ``name`` plays: seat or team 0, then 1
        pair = (name, opponent) if side == 0 else (opponent, name)
        config = RunConfig(players=players, strategies=pair * (players // 2), deals=deals, seed=seed)
        winner = play_batch(config, 0, deals).results["winner_side"]
        games.append(np.where(winner == side, 1.0, np.where(winner == -1, 0.5, 0.0)))
    return np.concatenate(games)


def speed(name: str, players: int, deals: int) -> float:
    """Deals/s on one thread, against ``random``."""
    config = RunConfig(players=players, strategies=(name, "random") * (players // 2), deals=deals, seed=SEED, threads=1)
    play_batch(config, 0, min(deals, 50))  # compiled code loaded
    started = time.perf_counter()
    play_batch(config, 1000, deals)
    return deals / (time.perf_counter() - started)


def cell(games: np.ndarray) -> str:
    half = 1.96 * games.std(ddof=1) / math.sqrt(games.size)
    return f"{games.mean():.3f} ± {half:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000, help="deals per seating, heuristic strategies")
    parser.add_argument("--search-deals", type=int, default=500, help="deals per seating, search-based strategies")
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed of the deals (default {SEED})")
    parser.add_argument("--only", nargs="*", help="strategies to measure (default: all)")
    args = parser.parse_args()
    header = (
        ["strategy"]
        + [f"{p}p vs {o}" for p in TABLES for o in OPPONENTS]
        + [f"{p}p deals/s (1 thread)" for p in TABLES]
    )
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for strategy in BUILTIN:
        if args.only and strategy.name not in args.only:
            continue
        deals = args.search_deals if strategy.name in SEARCH_BASED else args.deals
        row = [strategy.name]
        for players in TABLES:
            for opponent in OPPONENTS:
                row.append(cell(scores(strategy.name, opponent, players, deals, args.seed)))
        # Enough deals that a batch's launch (a few ms) does not count: 5x the scored deals, a quarter for search.
        timed = max(deals // 4, 50) if strategy.name in SEARCH_BASED else 5 * deals
        row += [f"{speed(strategy.name, p, timed):,.0f}" for p in TABLES]
        print("| " + " | ".join(row) + " |", flush=True)
    print(f"\nDeals per seating: {args.deals:,} ({args.search_deals:,} for {', '.join(sorted(SEARCH_BASED))}); "
          f"each played from both seats or both teams, seed {args.seed}.")  # fmt: skip


if __name__ == "__main__":
    main()
