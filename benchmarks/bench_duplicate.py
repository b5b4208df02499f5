"""How many deals a comparison needs: duplicate deals against independent ones.

For each strategy pair and table, plays a comparison as ``briscola compare`` does (every
deal from every seating, streams keyed by strategy) and measures two variances of A's
score:

- independent deals: the variance of one game's score, as if every game had fresh cards;
- duplicate deals: the variance of a deal's mean score over its seatings, per game.

Their ratio is the variance reduction: how many times fewer games the duplicate scheme
needs for the same precision. Also printed: the games each scheme needs for a 95%
interval of +-0.01 on the score.

Usage: python benchmarks/bench_duplicate.py [--deals N]   (about a minute with the defaults)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from sim.base.config import RunConfig, n_sides  # noqa: E402
from sim.base.stats import (
    Z_95,  # noqa: E402
    deal_games,
    game_scores,
    seatings,
)
from sim.pipeline.kinds.compare import seating_config  # noqa: E402
from sim.runtime.play import play_batch  # noqa: E402

PAIRS = [("greedy", "random"), ("hoarder", "random"), ("expert", "greedy"), ("greedy", "greedy"), ("random", "random")]
TABLES = (2, 3, 4)
HALF_WIDTH = 0.01


def game_score_matrix(a: str, b: str, players: int, deals: int, seed: int = 7) -> np.ndarray:
    """A's score in every game: shape (deals, seatings)."""
    base = RunConfig(players=players, strategies=(a,) * players, deals=deals, seed=seed)
    columns = []
    for seating in seatings(players):
        results = play_batch(seating_config(base, a, b, seating), 0, deals).results
        columns.append(game_scores(*deal_games(results, n_sides(players)), seating)[0])
    return np.stack(columns, axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    args = parser.parse_args()
    print(f"{args.deals:,} deals per pair and table; games for a 95% interval of +-{HALF_WIDTH} on the score")
    print(
        "| players | A vs B | score | variance per game, independent | duplicate | reduction | games needed, independent | duplicate |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for players in TABLES:
        for a, b in PAIRS:
            deals = args.deals // 20 if "expert" in (a, b) and players == 2 else args.deals
            scores = game_score_matrix(a, b, players, deals)
            games = scores.shape[1]
            independent = scores.var()  # one game, fresh cards
            duplicate = scores.mean(axis=1).var() * games  # per game, a deal's seatings together
            need = [int(np.ceil((Z_95 / HALF_WIDTH) ** 2 * v)) for v in (independent, duplicate)]
            reduction = f"{independent / duplicate:.1f}x" if duplicate > 0 else "all (no spread left)"
            print(f"| {players} | {a} vs {b} | {scores.mean():.3f} | {independent:.4f} | {duplicate:.4f} | "
                  f"{reduction} | {need[0]:,} | {need[1]:,} |")  # fmt: skip


if __name__ == "__main__":
    main()
