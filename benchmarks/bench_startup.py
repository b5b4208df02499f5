"""Start-up and memory, as a user meets them on the command line.

    .venv/bin/python benchmarks/bench_startup.py                       # this checkout
    .venv/bin/python benchmarks/bench_startup.py --revisions 6de51cf HEAD  # side by side
    .venv/bin/python benchmarks/bench_startup.py --big-deals 5000000   # a shorter memory run

Measures what a user runs, the ``briscola`` command itself, each in a fresh process: the
start-up targets (issue 45), each cold (an empty Numba cache: ``NUMBA_CACHE_DIR`` set to
a new folder, as on a fresh clone) and warm (the same cache again), side by side:

- the README's first simulation (1,000,000 deals): cold at most 10 s more than warm;
- ``compare expert greedy --players 4 --deals 1000``: cold at most 20 s more than warm;
- a Dask worker ready: the README's simulation on a local cluster of one worker
  (``--backend dask --workers 1``), whose worker readies the kernels before it plays;
- warm ``briscola --help`` (0.25 s) and a warm 1,000-deal run (0.85 s).

With ``--revisions A B`` each target runs for both revisions alternately, in temporary
worktrees (as ``bench_revisions.py``), so that a shared, noisy machine slows both alike:
say the load (printed) beside the figures. Then the resident memory of a large
``--summary-only`` run sampled as it goes, which must stay flat (``--big-deals 0``: not).
Warm times are medians of several runs (and the fastest).
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
sys.path.insert(0, str(REPO / "benchmarks"))
from bench_revisions import worktrees  # noqa: E402

README_RUN = ["simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "1000000", "--seed", "1",
              "--overwrite", "--quiet"]  # fmt: skip
RUN_1000 = ["simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "1000", "--seed", "1",
            "--overwrite", "--quiet"]  # fmt: skip
COMPARE = ["compare", "expert", "greedy", "--players", "4", "--deals", "1000", "--seed", "1", "--overwrite", "--quiet"]
DASK_RUN = [*README_RUN, "--backend", "dask", "--workers", "1"]
# (what, command, most seconds cold may take beyond warm)
COLD_TARGETS = [("README first simulation", README_RUN, 10.0), ("compare expert greedy, 4 players", COMPARE, 20.0),
                ("a Dask worker ready (README simulation)", DASK_RUN, 10.0)]  # fmt: skip


def briscola(tree: Path | None) -> tuple[list[str], dict]:
    """The command and environment that run ``briscola`` from ``tree`` (None: this
    checkout's console script, as a user runs it)."""
    if tree is None:
        script = Path(sys.executable).with_name("briscola")
        command = [str(script)] if script.exists() else [sys.executable, "-m", "sim"]
        return command, {**os.environ, "PYTHONPATH": str(REPO)}
    return [sys.executable, "-m", "sim"], {**os.environ, "PYTHONPATH": str(tree)}


def wall_seconds(args: list[str], tree: Path | None = None, env_extra: dict | None = None,
                 repeats: int = 5) -> tuple[float, float]:  # fmt: skip
    """Median and fastest wall time of ``briscola ARGS`` over ``repeats`` fresh runs."""
    command, env = briscola(tree)
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeats):
            started = time.perf_counter()
            subprocess.run(command + args, cwd=folder, env={**env, **(env_extra or {})}, check=True,
                           capture_output=True)  # fmt: skip
            times.append(time.perf_counter() - started)
    return statistics.median(times), min(times)


def cold_and_warm(args: list[str], tree: Path | None, warm_repeats: int) -> tuple[float, float]:
    """Wall seconds of ``briscola ARGS`` on an empty Numba cache, then the median warm."""
    cache = tempfile.mkdtemp(prefix="numba-cold-")
    try:
        cold, _ = wall_seconds(args, tree, {"NUMBA_CACHE_DIR": cache}, repeats=1)
        warm, _ = wall_seconds(args, tree, {"NUMBA_CACHE_DIR": cache}, repeats=warm_repeats)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return cold, warm


def load() -> str:
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def start_up(trees: dict, warm_repeats: int) -> None:
    """The cold and warm targets, every revision in turn for each."""
    print(f"{os.cpu_count()} cores; {load()}")
    for what, args, goal in COLD_TARGETS:
        for name, tree in trees.items():
            try:
                cold, warm = cold_and_warm(args, tree, warm_repeats)
            except subprocess.CalledProcessError as error:
                print(f"{what} [{name}]: failed ({error.stderr.decode().strip().splitlines()[-1:]})")
                continue
            verdict = "met" if cold - warm <= goal else "NOT met"
            print(f"{what} [{name}]: cold {cold:.1f} s, warm {warm:.2f} s, cold - warm {cold - warm:.1f} s "
                  f"(target <= {goal:.0f} s: {verdict}); {load()}")  # fmt: skip
    for what, args, goal in (("briscola --help", ["--help"], 0.25), ("1,000 deals to a file", RUN_1000, 0.85)):
        for name, tree in trees.items():
            median, fastest = wall_seconds(args, tree)
            print(f"{what} [{name}], warm: median {median:.2f} s, fastest {fastest:.2f} s (target {goal} s)")


def rss_samples(args: list[str], env: dict, every: float = 0.5) -> tuple[list[int], float]:
    """Resident set size (KiB) of the command ``args``, sampled every ``every`` seconds, and its duration."""
    started = time.perf_counter()
    process = subprocess.Popen(args, cwd=tempfile.gettempdir(), env=env, stdout=subprocess.DEVNULL)
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
    parser.add_argument("--revisions", nargs=2, metavar=("BEFORE", "AFTER"), help="two revisions side by side")
    parser.add_argument("--warm-repeats", type=int, default=3)
    parser.add_argument("--big-deals", type=int, default=50_000_000, help="0: no memory run")
    args = parser.parse_args()
    if args.revisions:
        with worktrees(dict(zip(args.revisions, args.revisions))) as trees:
            start_up(trees, args.warm_repeats)
    else:
        start_up({"this checkout": None}, args.warm_repeats)
    if args.big_deals:
        memory(args.big_deals)


def memory(big_deals: int) -> None:
    """The resident memory of a large --summary-only run, sampled as it goes."""
    command, env = briscola(None)
    big = ["simulate", "--players", "2", "--strategies", "random", "--deals", str(big_deals), "--seed", "1",
           "--summary-only", "--quiet"]  # fmt: skip
    samples, seconds = rss_samples(command + big, env)
    if len(samples) >= 4:
        settled = samples[len(samples) // 4 :]
        print(
            f"{big_deals:,} deals --summary-only in {seconds:.1f} s: RSS after the first quarter "
            f"{min(settled) / 1024:.0f}-{max(settled) / 1024:.0f} MiB, peak {max(samples) / 1024:.0f} MiB, "
            f"growth over the run {(settled[-1] - settled[0]) / 1024:+.1f} MiB"
        )
    else:
        print(f"{big_deals:,} deals finished in {seconds:.1f} s, too fast to sample memory")


if __name__ == "__main__":
    main()
