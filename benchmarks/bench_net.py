"""Speed of ``net`` against ``expert``: the whole ``briscola simulate`` command a user runs,
on one thread, each against ``random``, timed alternately in one sitting (a ratio is the
figure to keep on a shared machine). Target: ``net`` at 20,000 deals/s or more on one
thread at 2 players.

    .venv/bin/python benchmarks/bench_net.py                 # 2 players, 1,000,000 deals a run, 3 rounds
    .venv/bin/python benchmarks/bench_net.py --players 2 4 6 --deals 200000 --rounds 1

Prints a Markdown table: per table and strategy the median deals/s the command reported
(its play, start-up left out), the median over the whole command's wall time (start-up
and compiled-code loading included), and net's ratio to expert.
"""

from __future__ import annotations

import argparse
import statistics

from simulate_timing import timed_simulate

TARGET = 20_000  # deals/s, net on one thread at 2 players
SEED = 20261203


def timed(spec: str, players: int, deals: int) -> tuple[float, float]:
    """(deals/s the command reported, deals/s over its whole wall time), against ``random``."""
    timing = timed_simulate(spec, "random", players, deals, SEED)
    return timing.reported, timing.whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3, help="alternate runs of each strategy")
    args = parser.parse_args()
    timed("net", 2, 1000)  # compiled and cached before anything is timed
    timed("expert", 2, 1000)
    print("| table | strategy | deals/s (play) | deals/s (whole command) | net / expert |")
    print("|---|---|---|---|---|")
    for players in args.players:
        runs = {"net": [], "expert": []}
        for _ in range(args.rounds):
            for spec in runs:
                runs[spec].append(timed(spec, players, args.deals))
        medians = {spec: [statistics.median(r[k] for r in rs) for k in (0, 1)] for spec, rs in runs.items()}
        for spec, (play, whole) in medians.items():
            ratio = f"{medians['net'][0] / medians['expert'][0]:.2f}x" if spec == "net" else ""
            print(f"| {players} players | {spec} | {play:,.0f} | {whole:,.0f} | {ratio} |", flush=True)
        if players == 2:
            met = "met" if medians["net"][0] >= TARGET else "missed"
            print(f"\nnet at 2 players on one thread: {medians['net'][0]:,.0f} deals/s, target {TARGET:,}: {met}\n")


if __name__ == "__main__":
    main()
