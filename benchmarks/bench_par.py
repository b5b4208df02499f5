"""What the exact par costs: ``briscola luck RUN --par-deals N`` against the same
command with ``--par-deals 0``, each in a fresh process with its kernels warm, side by
side on one 2-player comparison; the difference over N is the whole command's cost of
a deal's par (every thread, and with --threads 1 one thread).

Usage: python benchmarks/bench_par.py [--deals 100] [--rounds 2] [--threads 0]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def briscola(*args, cwd, threads: int) -> float:
    """Seconds a ``briscola`` command takes in a fresh process (``threads`` 0: all)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if threads:
        env["NUMBA_NUM_THREADS"] = str(threads)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sim", *map(str, args)], cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals whose par is solved")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="0: every core")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "run.parquet"
        briscola("compare", "expert", "greedy", "--deals", max(args.deals, 1000), "--seed", 1, "--out", run,
                 "--quiet", cwd=folder, threads=0)  # fmt: skip
        briscola("luck", run, "--par-deals", 1, cwd=folder, threads=args.threads)  # compiles, or loads the cache
        without, with_par = [], []
        for _ in range(args.rounds):
            without.append(briscola("luck", run, "--par-deals", 0, cwd=folder, threads=args.threads))
            with_par.append(briscola("luck", run, "--par-deals", args.deals, cwd=folder, threads=args.threads))
    per_deal = (min(with_par) - min(without)) / args.deals
    threads = args.threads or os.cpu_count()
    print(f"briscola luck, 2 players, par of {args.deals} deals on {threads} thread(s): best {min(with_par):.1f} s "
          f"against {min(without):.1f} s without: {per_deal:.2f} s a deal")  # fmt: skip


if __name__ == "__main__":
    main()
