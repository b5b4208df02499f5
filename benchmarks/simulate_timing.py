"""What the speed benchmarks share: the whole ``briscola simulate`` command a user runs,
timed in a fresh process on one thread, with nothing written (``--summary-only``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Timing:
    whole: float  # deals/s over the command's wall time: start-up and compiled-code loading included
    reported: float | None  # deals/s of its play, as the command reports it (None: a revision that does not)


def seating(spec: str, opponent: str, players: int) -> str:
    """``spec`` at one seat (a whole side at 4 and 6 players), ``opponent`` at the others."""
    if players % 2:
        return ",".join([spec] + [opponent] * (players - 1))
    return ",".join([spec, opponent] * (players // 2))


def briscola(tree: Path, *args: str) -> str:
    """Runs the ``briscola`` command of ``tree`` (a checkout: this one, or a worktree of
    another revision) in a fresh process; returns its stdout."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-m", "sim", *args], cwd=tree, env=env, check=True, capture_output=True,
                          text=True)  # fmt: skip
    return done.stdout


def timed_simulate(spec: str, opponent: str, players: int, deals: int, seed: int, tree: Path = REPO) -> Timing:
    """Runs ``briscola simulate`` of ``tree``, ``spec`` against ``opponent``, and times it."""
    started = time.perf_counter()
    out = briscola(tree, "simulate", "--players", str(players), "--strategies", seating(spec, opponent, players),
                   "--deals", str(deals), "--seed", str(seed), "--threads", "1", "--summary-only", "--json")  # fmt: skip
    whole = deals / (time.perf_counter() - started)
    try:
        reported = json.loads(out).get("deals_per_second")
    except json.JSONDecodeError:
        reported = None
    return Timing(whole, reported)
