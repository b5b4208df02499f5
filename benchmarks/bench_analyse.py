"""The analysis of moves against its target: 1,000 traced 2-player deals analysed in at
most a minute on one thread with the default search (``briscola analyse``, the whole
command in a fresh process, its kernels warm: compiled by a first run).

Usage: python benchmarks/bench_analyse.py [--deals N] [--rounds N]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def briscola(*args, cwd) -> float:
    """Seconds a ``briscola`` command takes, in a fresh process on one thread."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "NUMBA_NUM_THREADS": "1"}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sim", *map(str, args)], cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "trace.parquet"
        briscola("simulate", "--players", 2, "--strategies", "expert,greedy", "--deals", args.deals, "--seed", 1,
                 "--summary-only",
                 "--trace", trace, "--quiet", cwd=folder)  # fmt: skip
        briscola("analyse", trace, cwd=folder)  # compiles, or loads the cache
        times = [briscola("analyse", trace, cwd=folder) for _ in range(args.rounds)]
    print(f"briscola analyse, {args.deals:,} traced 2-player deals (expert against greedy), one thread: "
          f"best {min(times):.1f} s, all {', '.join(f'{t:.1f}' for t in times)} s (target: at most 60 s)")  # fmt: skip


if __name__ == "__main__":
    main()
