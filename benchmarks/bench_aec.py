"""PettingZoo's AEC environment (``BriscolaAEC``) of two revisions side by side, beside a
plain Python Briscola environment, on one thread.

    .venv/bin/python benchmarks/bench_aec.py 6de51cf HEAD            # about 5 minutes, caches cold
    .venv/bin/python benchmarks/bench_aec.py /tmp/main-tree . --rounds 5 --seconds 3

Each revision is checked out into a temporary worktree (bench_revisions.py); a folder
given instead is taken as a checkout as it is (its Numba cache already warm). Each one's
cache is warmed by one untimed round. Then, round after round, each revision's
environment is driven for ``--seconds`` as PettingZoo's own loop drives it (``last()``,
then ``step()`` with the first legal card; ``reset()`` at each deal's end, every deal a
new one) at 2 players, in a process of its own, alternately, so that a noisy machine
slows both alike. The plain Python environment (bench_agents.py: the rules of
sim/base/reference.py, the observation built with numpy; a step is the learner's card and the
opponent's) runs in this process between the rounds. Prints each one's best and median
steps per second, and the ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_agents import plain_python_steps  # noqa: E402 - after the path is set
from benchmarks.bench_revisions import worktrees  # noqa: E402

# Steps per second of BriscolaAEC at 2 players, driven for SECONDS (argv[1]); the API is
# the same in every revision compared.
AEC_TIMER = """
import sys, time
try:
    from sim.rl.aec import BriscolaAEC
except ImportError:  # a revision from before sim/ was split by role
    from sim.aec import BriscolaAEC

env = BriscolaAEC(players=2, auction="random")
env.reset(seed=1)
seconds, steps, started = float(sys.argv[1]), 0, time.perf_counter()
while time.perf_counter() - started < seconds:
    observation, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        env.reset()
        continue
    env.step(int(observation["action_mask"].argmax()))
    steps += 1
print(steps / (time.perf_counter() - started))
"""


def aec_steps(tree: Path, seconds: float) -> float:
    """Steps per second of the revision checked out in ``tree``, in a process of its own."""
    threads = {name: "1" for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", AEC_TIMER, str(seconds)], cwd=tree, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree), **threads})  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{tree.name}: {done.stderr.strip().splitlines()[-1]}")
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description="BriscolaAEC of two revisions side by side, on one thread.")
    parser.add_argument("before", help="a revision (e.g. 6de51cf), or a folder holding a checkout")
    parser.add_argument("after", help="another revision (e.g. HEAD), or a folder")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0, help="each revision's time in each round")
    args = parser.parse_args()
    figures: dict[str, list[float]] = {"before": [], "after": [], "plain": []}
    given = {"before": args.before, "after": args.after}
    with worktrees({name: rev for name, rev in given.items() if not Path(rev).is_dir()}) as made:
        trees = {name: made.get(name) or Path(rev).resolve() for name, rev in given.items()}
        for tree in trees.values():
            aec_steps(tree, 0.5)  # compiled, and the disk cache warm
        for _ in range(args.rounds):
            for name, tree in trees.items():
                figures[name].append(aec_steps(tree, args.seconds))
            figures["plain"].append(plain_python_steps(args.seconds))
    best = {name: max(values) for name, values in figures.items()}
    labels = {"before": f"BriscolaAEC at {args.before}", "after": f"BriscolaAEC at {args.after}",
              "plain": "plain Python env"}  # fmt: skip
    print(f"2 players, one thread, steps/s over {args.rounds} rounds of {args.seconds:g} s")
    for name, values in figures.items():
        print(f"   {labels[name]:28} best {best[name]:10,.0f}   median {statistics.median(values):10,.0f}")
    print(f"   {args.after} / {args.before}: {best['after'] / best['before']:.2f}x (best), "
          f"{statistics.median(figures['after']) / statistics.median(figures['before']):.2f}x (median); "
          f"{args.after} / plain Python: {best['after'] / best['plain']:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
