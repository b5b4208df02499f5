"""Two revisions of the project side by side: the same whole ``briscola`` command run by
each, alternately, in one sitting, so that a shared and noisy machine slows both alike.

    .venv/bin/python benchmarks/bench_revisions.py HEAD~1 HEAD -- \
        simulate --players 4 --strategies highest,lowest --deals 1000000 --seed 1 --threads 1 --summary-only

Each revision is checked out into a temporary worktree (its Numba cache warmed by one
run first); the command runs there with this Python, ``PYTHONPATH`` set to the
worktree. Prints the best and median wall time of each, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def checkout(revision: str, into: Path) -> Path:
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(into), revision],
                   check=True, capture_output=True)  # fmt: skip
    return into


def seconds(tree: Path, command: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sim", *command], cwd=tree, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=5)
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("give the briscola command after --")
    split = argv.index("--")
    args, command = parser.parse_args(argv[:split]), argv[split + 1 :]
    with tempfile.TemporaryDirectory() as folder:
        trees = {rev: checkout(rev, Path(folder) / f"tree{k}") for k, rev in enumerate((args.before, args.after))}
        try:
            for tree in trees.values():
                seconds(tree, command)  # compiles into the worktree's cache
            times = {rev: [] for rev in trees}
            for _ in range(args.rounds):
                for rev, tree in trees.items():
                    times[rev].append(seconds(tree, command))
        finally:
            for tree in trees.values():
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], capture_output=True
                )
    print("briscola", " ".join(command))
    for rev, values in times.items():
        print(f"{rev:>12}: best {min(values):.3f} s, median {statistics.median(values):.3f} s")
    before, after = (min(times[rev]) for rev in (args.before, args.after))
    print(f"after/before (best): {after / before:.3f}")


if __name__ == "__main__":
    main()
