"""Every built-in strategy's score against ``expert``, and ``best``'s at every table: the
figures ``briscola strategies`` shows, written to strategies/strength.json.

Each entry is ``briscola compare NAME expert --players P --deals N --seed S`` (duplicate
deals, 95% intervals): the built-ins at their defaults at 2 players, ``best`` at each
table as it resolves there. The deal counts give an interval of about ±0.01 where that
is cheap and ±0.02-0.04 for the slow searches, each entry in a few minutes at most on
this project's 2-core machine (the whole run: ``--help`` gives the counts; its cost is in
docs/strength.md).

Usage:
    .venv/bin/python benchmarks/bench_against_expert.py [--seed S] [--threads T] [--only NAME ...] [--out PATH]

``--only`` measures those names again and keeps the file's other entries. The file is
written after every entry (a stopped run keeps what it measured). The seed
(46046 by default) is one that no tuning, and not the choice of ``best``'s settings, used.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.app.api import compare  # noqa: E402
from sim.base.files import write_json  # noqa: E402
from strategies.registry import STRENGTH_FILE, builtin_strategies, measured_strength  # noqa: E402

SEED = 46046
# (name, players, duplicate deals): the searches get fewer, to stay within minutes
ENTRIES = (
    *((name, 2, 20_000) for name in ("random", "greedy", "highest", "lowest", "hoarder", "expert", "net")),
    ("pimc", 2, 2_000),
    ("ismcts", 2, 1_000),
    ("best", 2, 4_000),
    ("best", 3, 2_000),
    ("best", 4, 1_000),
    ("best", 5, 1_000),
    ("best", 6, 1_000),
)


def measure(name: str, players: int, deals: int, seed: int, threads: int, against: str = "expert") -> dict:
    """One entry: ``name`` against ``against`` (a built-in), with what it played (``best``: its setting)."""
    started = time.perf_counter()
    summary = compare(name, against, players=players, deals=deals, seed=seed, threads=threads).summary
    seconds = time.perf_counter() - started
    played = summary["a"]
    strategy = builtin_strategies()[played.split(":")[0]]
    return {
        "name": name, "strategy": played, "version": strategy.version, "players": players, "against": against,
        "against_version": builtin_strategies()[against].version, "seed": seed, "deals": summary["deals"],
        "score": summary["score"], "score_ci95": summary["score_ci95"], "seconds": round(seconds, 1),
        "threads": threads, "measured": date.today().isoformat(),
        "command": f"briscola compare {name} {against} --players {players} --deals {deals} --seed {seed}",
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="entries: " + ", ".join(f"{n} {p}p {d:,}" for n, p, d in ENTRIES))  # fmt: skip
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed of the deals (default {SEED})")
    parser.add_argument("--threads", type=int, default=2, help="threads (default 2)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="measure these names again, keep the others")
    parser.add_argument("--out", type=Path, default=STRENGTH_FILE, help=f"the file written (default {STRENGTH_FILE})")
    args = parser.parse_args()
    names = {name for name, _, _ in ENTRIES}
    if args.only and not set(args.only) <= names:
        parser.error(f"--only {' '.join(sorted(set(args.only) - names))}: not measured here; valid: "
                     f"{', '.join(sorted(names))}")  # fmt: skip
    order = {(name, players): k for k, (name, players, _) in enumerate(ENTRIES)}
    entries = {(m["name"], m["players"]): m for m in measured_strength(args.out) if (m["name"], m["players"]) in order}
    for name, players, deals in ENTRIES:
        if args.only and name not in args.only:
            continue
        entry = measure(name, players, deals, args.seed, args.threads)
        print(f"{name} ({entry['strategy']}) at {players} players: {entry['score']:.3f} "
              f"({entry['score_ci95'][0]:.3f}-{entry['score_ci95'][1]:.3f}), {deals:,} deals, "
              f"{entry['seconds']:.0f} s", flush=True)  # fmt: skip
        entries[name, players] = entry
        # after every entry, whole: a stopped run keeps what it measured, and the entries it had not reached
        write_json(args.out, {"measurements": sorted(entries.values(), key=lambda m: order[m["name"], m["players"]])})


if __name__ == "__main__":
    main()
