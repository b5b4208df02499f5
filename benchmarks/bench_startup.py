"""Start-up and memory, as a user meets them on the command line.

    .venv/bin/python benchmarks/bench_startup.py                 # includes a 50M-deal run
    .venv/bin/python benchmarks/bench_startup.py --big-deals 5000000

Measures what a user runs, the ``briscola`` command itself (the console script beside
this Python), each in a fresh process: ``briscola --help``; a 1,000-deal run writing its
result file with a cold Numba cache (compile included) and a warm one; and the resident
memory of a large ``--summary-only`` run sampled as it goes, which must stay flat.
Times are medians of several runs (and the fastest), as a user would see them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).with_name("briscola")
BRISCOLA = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "sim"]
RUN_1000 = ["simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "1000", "--seed", "1",
            "--overwrite", "--quiet"]  # fmt: skip


def wall_seconds(args: list[str], env: dict, repeats: int = 5) -> tuple[float, float]:
    """Median and fastest wall time of ``briscola ARGS`` over ``repeats`` fresh runs."""
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeats):
            started = time.perf_counter()
            subprocess.run(BRISCOLA + args, cwd=folder, env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - started)
    return statistics.median(times), min(times)


def rss_samples(args: list[str], env: dict, every: float = 0.5) -> tuple[list[int], float]:
    """Resident set size (KiB) of a run, sampled every ``every`` seconds, and its duration."""
    started = time.perf_counter()
    process = subprocess.Popen(BRISCOLA + args, cwd=tempfile.gettempdir(), env=env, stdout=subprocess.DEVNULL)
    samples = []
    while process.poll() is None:
        try:
            status = Path(f"/proc/{process.pid}/status").read_text()
            samples.append(int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1]))
        except (FileNotFoundError, StopIteration, ProcessLookupError):
            pass
        time.sleep(every)
    return samples, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big-deals", type=int, default=50_000_000)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    print(f"command: {' '.join(BRISCOLA)}; {os.cpu_count()} cores")
    for help_args in (["--help"], ["simulate", "--help"]):
        median, fastest = wall_seconds(help_args, env)
        print(f"briscola {' '.join(help_args)}: median {median:.2f} s, fastest {fastest:.2f} s (target < 0.5 s)")
    cold_cache = tempfile.mkdtemp(prefix="numba-cold-")
    try:
        cold, _ = wall_seconds(RUN_1000, {**env, "NUMBA_CACHE_DIR": cold_cache}, repeats=1)
        median, fastest = wall_seconds(RUN_1000, {**env, "NUMBA_CACHE_DIR": cold_cache})
    finally:
        shutil.rmtree(cold_cache, ignore_errors=True)
    print(f"1,000 deals to a file, cold Numba cache (compile included): {cold:.2f} s")
    print(f"1,000 deals to a file, warm: median {median:.2f} s, fastest {fastest:.2f} s (target < 2 s)")

    big = ["simulate", "--players", "2", "--strategies", "random", "--deals", str(args.big_deals), "--seed", "1",
           "--summary-only", "--quiet"]  # fmt: skip
    samples, seconds = rss_samples(big, env)
    if len(samples) >= 4:
        settled = samples[len(samples) // 4 :]
        print(
            f"{args.big_deals:,} deals --summary-only in {seconds:.1f} s: RSS after the first quarter "
            f"{min(settled) / 1024:.0f}-{max(settled) / 1024:.0f} MiB, peak {max(samples) / 1024:.0f} MiB, "
            f"growth over the run {(settled[-1] - settled[0]) / 1024:+.1f} MiB"
        )
    else:
        print(f"{args.big_deals:,} deals finished in {seconds:.1f} s, too fast to sample memory")


if __name__ == "__main__":
    main()
