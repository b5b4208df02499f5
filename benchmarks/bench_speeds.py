"""Speeds of two strategies side by side: the whole ``briscola simulate`` command a user
runs, on one thread, each against the same opponent, timed alternately in one sitting (a
ratio is the figure to keep on a shared machine). By default ``net`` against ``expert``,
each against ``random``; target: ``net`` at 20,000 deals/s or more on one thread at 2
players.

    .venv/bin/python benchmarks/bench_speeds.py                 # 2 players, 1,000,000 deals a run, 3 rounds
    .venv/bin/python benchmarks/bench_speeds.py --players 2 4 6 --deals 200000 --rounds 1
    .venv/bin/python benchmarks/bench_speeds.py --players 4 --specs pimc:samples=16:value_tricks=2 pimc \\
        --opponent expert --deals 60 --rounds 3

Prints a Markdown table: per table and strategy the median deals/s the command reported
(its play, start-up left out), the median over the whole command's wall time (start-up
and compiled-code loading included), and the first strategy's ratio to the second.
"""

from __future__ import annotations

import argparse
import statistics

from simulate_timing import timed_simulate

TARGET = 20_000  # deals/s, net on one thread at 2 players
SEED = 20261203


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2])
    parser.add_argument("--specs", nargs=2, default=["net", "expert"], metavar=("A", "B"), help="the two strategies")
    parser.add_argument("--opponent", default="random", help="what both play against")
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3, help="alternate runs of each strategy")
    args = parser.parse_args()
    first, second = args.specs
    for spec in args.specs:  # compiled and cached before anything is timed
        timed_simulate(spec, args.opponent, args.players[0], 2, SEED)
    print(f"| table | strategy | deals/s (play) | deals/s (whole command) | {first} / {second} |")
    print("|---|---|---|---|---|")
    for players in args.players:
        runs = {spec: [] for spec in args.specs}
        for _ in range(args.rounds):
            for spec in runs:
                runs[spec].append(timed_simulate(spec, args.opponent, players, args.deals, SEED))
        play = {spec: statistics.median(t.reported for t in timings) for spec, timings in runs.items()}
        whole = {spec: statistics.median(t.whole for t in timings) for spec, timings in runs.items()}
        for spec in args.specs:
            ratio = f"{play[first] / play[second]:.2f}x" if spec == first else ""
            print(f"| {players} players | {spec} | {play[spec]:,.1f} | {whole[spec]:,.1f} | {ratio} |", flush=True)
        if players == 2 and first == "net":
            met = "met" if play["net"] >= TARGET else "missed"
            print(f"\nnet at 2 players on one thread: {play['net']:,.0f} deals/s, target {TARGET:,}: {met}\n")


if __name__ == "__main__":
    main()
