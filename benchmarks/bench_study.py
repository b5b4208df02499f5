"""What a study costs against the command it replaces, and what Dask costs against this
machine, measured as a user runs them: whole commands, side by side, alternating.

    .venv/bin/python benchmarks/bench_study.py            # about 5 minutes
    .venv/bin/python benchmarks/bench_study.py --deals 5000000 --rounds 1

1. The local backend's overhead: ``briscola batch`` of one simulate experiment against
   ``briscola simulate`` of the same deals (2 players, greedy against random), with
   ``--summary-only`` and with per-deal rows. Target: at most 5% slower.
2. Dask: ``briscola batch --backend dask --workers 2`` (a LocalCluster of 2 worker
   processes, one thread each) against the local backend on 2 threads, for the same
   greedy-random study and for a ``pimc`` comparison. Target: at least 0.85x the speed.

Each figure is the best of ``--rounds`` runs (this machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("briscola")
BRISCOLA = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "sim"]

SIMULATE_PLAN = """
seed = 1
[[simulate]]
name = "greedy-random"
players = 2
strategies = ["greedy", "random"]
deals = {deals}
"""

PIMC_PLAN = """
seed = 1
[[compare]]
name = "pimc-expert"
a = "pimc:samples=16"
b = "expert"
deals = {deals}
"""


def seconds(args: list[str], folder: Path) -> float:
    """Wall time of one whole command, run in ``folder``."""
    started = time.perf_counter()
    subprocess.run(BRISCOLA + args, cwd=folder, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def best_of(rounds: int, runs: dict, folder: Path) -> dict:
    """The best time of each named command, the commands alternating in every round;
    outputs are removed between runs."""
    best = {name: float("inf") for name in runs}
    for _ in range(rounds):
        for name, args in runs.items():
            for output in ("out", "study", "results"):
                shutil.rmtree(folder / output, ignore_errors=True)
            best[name] = min(best[name], seconds(args, folder))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000_000)
    parser.add_argument("--pimc-deals", type=int, default=1200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "greedy.toml").write_text(SIMULATE_PLAN.format(deals=args.deals))
        (folder / "pimc.toml").write_text(PIMC_PLAN.format(deals=args.pimc_deals))
        seconds(
            [
                "simulate",
                "--players",
                "2",
                "--strategies",
                "greedy,random",
                "--deals",
                "1000",
                "--seed",
                "1",
                "--summary-only",
            ],
            folder,
        )  # fmt: skip  (kernels compiled or loaded into the cache first)
        simulate = ["simulate", "--players", "2", "--strategies", "greedy,random", "--deals", str(args.deals), "--seed", "1",
                    "--threads", "2", "--quiet"]  # fmt: skip
        batch = ["batch", "greedy.toml", "--out", "study", "--threads", "2", "--quiet"]
        print(
            f"command: {' '.join(BRISCOLA)}; {args.deals:,} deals of greedy against random, 2 players; best of {args.rounds}"
        )
        for mode, extra in (("--summary-only", ["--summary-only"]), ("per-deal rows", [])):
            out = [] if extra else ["--out", "out/run.parquet"]
            best = best_of(args.rounds, {"simulate": simulate + extra + out, "batch": batch + extra}, folder)
            print(f"  {mode:<15} simulate {best['simulate']:6.2f} s, batch {best['batch']:6.2f} s: "
                  f"overhead {best['batch'] / best['simulate'] - 1:+.1%} (target <= +5%)")  # fmt: skip
        for plan, chunk, label in (("greedy.toml", [], f"greedy-random, {args.deals:,} deals"),
                                   ("pimc.toml", ["--chunk-deals", "50"], f"pimc:samples=16 vs expert, {args.pimc_deals} duplicate deals")):  # fmt: skip
            local = ["batch", plan, "--out", "study", "--threads", "2", "--summary-only", "--quiet", *chunk]
            dask = [
                "batch",
                plan,
                "--out",
                "study",
                "--backend",
                "dask",
                "--workers",
                "2",
                "--summary-only",
                "--quiet",
                *chunk,
            ]
            best = best_of(args.rounds, {"local": local, "dask": dask}, folder)
            print(f"  {label}: local backend (2 threads) {best['local']:6.2f} s, Dask LocalCluster (2 workers x 1 thread) "
                  f"{best['dask']:6.2f} s: throughput {best['local'] / best['dask']:.2f}x (target >= 0.85x)")  # fmt: skip


if __name__ == "__main__":
    main()
