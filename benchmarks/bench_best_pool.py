"""``best`` against a pool of differently built opponents at 3 to 6 players.

Is it strong, or only strong against ``expert``, whom ``pimc``'s playouts model?

Each entry is ``briscola compare best OPPONENT --players P --deals N --seed S`` (duplicate
deals, 95% intervals), as ``bench_against_expert.py`` measures one. The pool: ``greedy``
(rules of thumb), ``net`` (a learned policy, no search), ``ismcts`` (a search of another
build), ``expert`` (the hand-written policy) and ``pimc`` at its defaults (to show that
``best`` is not merely level with it; skipped where ``best`` plays ``pimc`` itself). The
deal counts keep each entry within about five minutes on this project's 2-core machine
(``--help`` lists them; the cost of a run is in docs/strength.md).

Usage:
    .venv/bin/python benchmarks/bench_best_pool.py [--seed S] [--threads T] [--players P ...]
        [--against NAME ...] [--out PATH]

The entries are written to ``--out`` after each one (a stopped run keeps what it
measured; a run of some tables or opponents keeps the file's others), and the whole
file is printed at the end as a table: a row per table, a column per opponent.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_against_expert import measure  # noqa: E402 - after the path is set
from sim.base.files import write_json  # noqa: E402
from strategies.registry import resolve_aliases  # noqa: E402

SEED = 46047  # no tuning, and not the choice of best's settings (46046 checked it), used this one
POOL = ("greedy", "net", "ismcts", "expert", "pimc")
TABLES = (3, 4, 5, 6)
# duplicate deals per table and opponent: where best or the opponent searches for long, fewer
DEALS = {
    3: {"greedy": 1_000, "net": 1_000, "ismcts": 800, "expert": 1_000, "pimc": 1_000},
    4: {"greedy": 600, "net": 600, "ismcts": 900, "expert": 600, "pimc": 400},
    5: {"greedy": 600, "net": 600, "ismcts": 300, "expert": 600, "pimc": 300},
    6: {"greedy": 1_000, "net": 1_000, "ismcts": 800, "expert": 1_000},
}
OUT = Path(__file__).resolve().parents[1] / "results" / "best-pool.json"


def plays_itself(players: int, against: str) -> bool:
    """Whether best resolves at this table to the opponent's very setting (a game against itself)."""
    return resolve_aliases(["best"], players)[0][0] == against


def table(entries: list[dict]) -> str:
    """The entries as a Markdown table: a row per table, a column per opponent."""
    found = {(m["players"], m["against"]): m for m in entries}
    lines = ["| table | best plays | " + " | ".join(f"`{name}`" for name in POOL) + " |",
             "|---|---|" + "---|" * len(POOL)]  # fmt: skip
    for players in sorted({p for p, _ in found}):
        cells = []
        for against in POOL:
            m = found.get((players, against))
            cells.append(f"{m['score']:.3f} ({m['score_ci95'][0]:.3f}-{m['score_ci95'][1]:.3f}), {m['deals']:,}"
                         if m else "-")  # fmt: skip
        played = next(m["strategy"] for (p, _), m in found.items() if p == players)
        lines.append(f"| {players} players | `{played}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="deals: " + "; ".join(
        f"{p}p " + ", ".join(f"{name} {n:,}" for name, n in deals.items()) for p, deals in DEALS.items()))  # fmt: skip
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed of the deals (default {SEED})")
    parser.add_argument("--threads", type=int, default=2, help="threads (default 2)")
    parser.add_argument("--players", type=int, nargs="+", choices=TABLES, default=TABLES, help="tables (default all)")
    parser.add_argument("--against", nargs="+", choices=POOL, default=POOL, help="the opponents (default the pool)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the file written (default {OUT})")
    args = parser.parse_args()
    kept = json.loads(args.out.read_text()) if args.out.is_file() else []
    entries = {(m["seed"], m["players"], m["against"]): m for m in kept}
    for players in args.players:
        for against in args.against:
            if plays_itself(players, against):
                print(f"{players} players: best plays {against} itself; not measured", flush=True)
                continue
            entry = measure("best", players, DEALS[players][against], args.seed, args.threads, against=against)
            print(f"best ({entry['strategy']}) against {against} at {players} players: {entry['score']:.3f} "
                  f"({entry['score_ci95'][0]:.3f}-{entry['score_ci95'][1]:.3f}), {entry['deals']:,} deals, "
                  f"{entry['seconds']:.0f} s", flush=True)  # fmt: skip
            entries[args.seed, players, against] = entry
            ordered = sorted(entries.values(), key=lambda m: (m["seed"], m["players"], POOL.index(m["against"])))
            write_json(args.out, ordered)  # after every entry: a stopped run keeps what it measured
    print(table([m for m in entries.values() if m["seed"] == args.seed]))  # one seed's deals in a table


if __name__ == "__main__":
    main()
