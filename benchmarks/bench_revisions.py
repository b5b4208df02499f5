"""Two revisions of the project side by side: the same whole ``briscola`` command run by
each, alternately, in one sitting, so that a shared and noisy machine slows both alike.

    .venv/bin/python benchmarks/bench_revisions.py HEAD~1 HEAD -- \
        simulate --players 4 --strategies highest,lowest --deals 1000000 --seed 1 --threads 1 --summary-only

Each revision is checked out into a temporary worktree (its Numba cache warmed by one
run first); the command runs there with this Python, ``PYTHONPATH`` set to the
worktree. Prints the best and median wall time of each, and their ratio.

With ``--kernel``, a ``simulate`` command's deals are played in process instead
(``sim.runtime.play.play_batch``, one thread) and timed in CPU seconds, best of 3 per round: the
kernels alone, without the start and the files, for changes whose cost is a few percent
of a search.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def worktrees(revisions: dict[str, str]):
    """Yields {name: a temporary worktree of its revision}; every worktree made is
    removed on the way out, whatever happens."""
    made = {}
    previous_handler = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    with tempfile.TemporaryDirectory() as folder:
        try:
            for name, revision in revisions.items():
                into = Path(folder) / name
                subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(into), revision],
                               check=True, capture_output=True)  # fmt: skip
                made[name] = into
            yield made
        finally:
            for tree in made.values():
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], capture_output=True
                )
            signal.signal(signal.SIGTERM, previous_handler)


def _exit_on_sigterm(signum, frame):
    """SIGTERM as an exit that unwinds: subprocess.run kills the command it waits on, and
    the worktrees are removed (by default SIGTERM ends Python at once, leaving both)."""
    sys.exit(128 + signum)


def split_command(parser: argparse.ArgumentParser, what: str) -> tuple[argparse.Namespace, list[str]]:
    """This script's arguments, parsed, and the ``what`` given after ``--``."""
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.parse_args(argv)  # --help, or an unknown option, answered as argparse does
        parser.error(f"give {what} after --")
    split = argv.index("--")
    return parser.parse_args(argv[:split]), argv[split + 1 :]


# Plays a simulate command's deals three times in process; prints the best CPU seconds.
# Reads --players, --strategies (repeated around the table), --deals and --seed.
KERNEL_TIMER = """
import argparse, itertools, time
try:
    from sim.base.config import RunConfig
    from sim.runtime.play import play_batch
except ImportError:  # a revision from before sim/ was split by role
    from sim.config import RunConfig
    from sim.play import play_batch
parser = argparse.ArgumentParser()
for flag in ("--players", "--deals", "--seed"):
    parser.add_argument(flag, type=int, default=1)
parser.add_argument("--strategies")
args, _ = parser.parse_known_args()
seats = tuple(itertools.islice(itertools.cycle(args.strategies.split(",")), args.players))
config = RunConfig(players=args.players, strategies=seats, deals=args.deals, seed=args.seed, threads=1)
play_batch(config, 0, 2)
best = float("inf")
for _ in range(3):
    started = time.process_time()
    play_batch(config, 0, config.deals)
    best = min(best, time.process_time() - started)
print(best)
"""


def run_in(tree: Path, arguments: list[str], check: bool = True) -> subprocess.CompletedProcess:
    """This Python with ``arguments``, run from ``tree`` with that worktree's code first on
    the path (not the checkout this script is in)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([sys.executable, *arguments], cwd=tree, env=env, check=check, capture_output=True, text=True)


def seconds(tree: Path, command: list[str], kernel: bool = False) -> float:
    if kernel:
        return float(run_in(tree, ["-c", KERNEL_TIMER, *command]).stdout)
    started = time.perf_counter()
    run_in(tree, ["-m", "sim", *command])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kernel", action="store_true", help="time a simulate command's deals in process (CPU)")
    args, command = split_command(parser, "the briscola command")
    revisions = {"before": args.before, "after": args.after}
    with worktrees(revisions) as trees:
        for tree in trees.values():
            seconds(tree, command, args.kernel)  # compiles into the worktree's cache
        times = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                times[name].append(seconds(tree, command, args.kernel))
    print("briscola", " ".join(command))
    for name, values in times.items():
        print(f"{revisions[name]:>12}: best {min(values):.3f} s, median {statistics.median(values):.3f} s")
    before, after = min(times["before"]), min(times["after"])
    print(f"after/before (best): {after / before:.3f}")


if __name__ == "__main__":
    main()
