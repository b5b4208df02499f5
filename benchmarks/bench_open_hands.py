"""What the hidden cards cost a strategy: one ``briscola compare`` played twice, as the
game is and with every hand face up, so that the gap bounds what better inference of
the hidden hands could gain (the stock's order stays hidden in both).

    .venv/bin/python benchmarks/bench_open_hands.py -- pimc:samples=16 expert:partner_view=false \
        --players 4 --deals 1000 --seed 20261203 --threads 2

Both games run from temporary worktrees of ``--revision`` (default HEAD; uncommitted
changes are not played); the open one has ``benchmarks/open_hands.patch`` applied: the
engine fills every view's ``partner_hands`` with all the other seats' hands, and the
flat encoding (the networks' input) still shows partners' cards only, once the stock is
empty, as the networks learnt them under the default ``partner_view=last3`` (keep that
rule). Every strategy that reads ``partner_hands`` sees them all, so give the opponent
one that does not (``expert:partner_view=false``; ``random``, ``greedy``, ``hoarder``
and ``net`` never read them): then only A plays face up. With ``adapt`` on, A's
inference of each opponent's randomness reads the true hands too. ``pimc``'s networks
inside playouts (``value_tricks``, ``playout_policy``) would see partners' cards from the
first trick on (the playouts take that from the view): leave those options off here.

At 3, 4 and 6 players only: at 2, ``pimc`` hands its last tricks to ``expert``'s exact
search, which deduces the opponent's hand from the cards it has not seen, and shown
cards count as seen; at 5, a hand holds more cards than ``partner_hands`` does.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from bench_revisions import REPO, run_in, split_command, worktrees

PATCH = REPO / "benchmarks" / "open_hands.patch"


def compare(tree: Path, command: list[str]) -> dict:
    ran = run_in(tree, ["-m", "sim", "compare", *command, "--summary-only", "--json", "--quiet"], check=False)
    if ran.returncode:  # briscola's own error is its last line; the rest is noise (a compile cut short)
        last = (ran.stderr.strip().splitlines() or [f"exit code {ran.returncode}"])[-1]
        sys.exit(f"bench_open_hands: {tree.name}: {last}")
    return json.loads(ran.stdout)


def line(name: str, summary: dict) -> str:
    low, high = summary["score_ci95"]
    return f"{name:>6}: {summary['score']:.3f} ({low:.3f}-{high:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--revision", default="HEAD")
    args, command = split_command(parser, "the compare command's arguments")
    players = [command[k + 1] for k, word in enumerate(command[:-1]) if word == "--players"]
    if players[-1:] not in (["3"], ["4"], ["6"]):
        parser.error("give --players 3, 4 or 6 (see the docstring for why not 2 or 5)")
    with worktrees({"hidden": args.revision, "open": args.revision}) as trees:
        subprocess.run(["git", "-C", str(trees["open"]), "apply", str(PATCH)], check=True)
        summaries = {game: compare(tree, command) for game, tree in trees.items()}
    print("briscola compare", " ".join(command), f"({args.revision})")
    for game, summary in summaries.items():
        print(line(game, summary))
    print(f"  gain: {summaries['open']['score'] - summaries['hidden']['score']:+.3f}")


if __name__ == "__main__":
    main()
