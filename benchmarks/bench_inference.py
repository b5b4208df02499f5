"""How well ``pimc``'s inference reads the hidden hands: at the leaders' decisions of
``expert`` self-play, the share of the cards hidden in other seats' hands that the
sampled deals put in the hand that truly holds them, dealt uniformly (trust 0) and
weighed by the plays seen (each ``--trust``), the stock phase and the last tricks apart.

    .venv/bin/python benchmarks/bench_inference.py --players 4 --deals 200 --trust 0.6 0.99

It deals as ``pimc`` does (``start_search_nb``, ``deal_next_nb``; ``adapt`` off), so it
measures the compiled code of the checkout it runs in. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from sim.app.check import view_record  # noqa: E402
from sim.base import reference  # noqa: E402
from sim.base.config import RunConfig  # noqa: E402
from sim.runtime.play import deal_cards, play_batch, views_along_plays  # noqa: E402
from strategies.inference_nb import by_rules_nb  # noqa: E402
from strategies.knowledge_nb import UNSEEN  # noqa: E402
from strategies.worlds_nb import deal_next_nb, start_search_nb  # noqa: E402


def leaders_positions(players: int, deals: int, seed: int):
    """(view, every seat's true hand) at each decision that leads a trick but the first."""
    config = RunConfig(players=players, strategies=("expert",) * players, deals=deals, seed=seed, threads=1)
    batch = play_batch(config, 0, deals, trace=True)
    for deal, record in zip(batch.deals, batch.records):
        plays = [int(c) for c in record["plays"] if c >= 0]
        game = reference.Game(players, *deal_cards(deal))
        for n_played, view in enumerate(views_along_plays(config, deal, plays)):
            assert sorted(view["hand"]) == sorted(game.hands[view["seat"]]), "the truth is out of step with the view"
            if 0 < n_played and not view["table"]:
                yield view_record(view, players, deal)[0], [list(hand) for hand in game.hands]
            game.play(plays[n_played])
            if len(game.table) == players:
                game.end_trick()


def share_placed_right(view, truth, trust: float, samples: int, seed: int) -> tuple[int, int]:
    """(hidden cards the sampled deals put in the right hand, hidden cards), summed over
    ``samples`` deals."""
    rng = np.array([seed], dtype=np.uint64)
    search = start_search_nb(view, False, by_rules_nb(trust), False, samples, rng)
    me = int(view["seat"])
    hidden = {card: seat for seat, hand in enumerate(truth) if seat != me for card in hand
              if search.places[card] == UNSEEN}  # fmt: skip
    right = 0
    for k in range(samples):
        deal_next_nb(view, search, k, False, False, 0.0, rng)
        right += sum(card in search.hands[seat, : search.n_hand[seat]] for card, seat in hidden.items())
    return right, len(hidden) * samples


def row(name: str, counts: list) -> str:
    return f"| {name} | " + " | ".join(f"{right / max(hidden, 1):.3f}" for right, hidden in counts) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=[2, 3, 4, 6])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--trust", type=float, nargs="+", default=[0.6])
    parser.add_argument("--samples", type=int, default=64, help="deals sampled at each decision")
    args = parser.parse_args()
    trusts = [0.0, *args.trust]
    counts = {(phase, trust): [0, 0] for phase in ("stock", "last tricks") for trust in trusts}
    for k, (view, truth) in enumerate(leaders_positions(args.players, args.deals, args.seed)):
        phase = "stock" if view["stock_size"] > 0 else "last tricks"
        for trust in trusts:
            right, hidden = share_placed_right(view, truth, trust, args.samples, args.seed * 1_000_003 + k)
            counts[phase, trust][0] += right
            counts[phase, trust][1] += hidden
    print(f"{args.players} players, {args.deals} deals of `expert` self-play, seed {args.seed}, {args.samples} samples")
    print("| phase | " + " | ".join("uniform" if t == 0 else f"trust {t}" for t in trusts) + " |")
    print("|---" * (len(trusts) + 1) + "|")
    for phase in ("stock", "last tricks"):
        print(row(phase, [counts[phase, t] for t in trusts]))
    print(row("all", [[sum(counts[p, t][i] for p in ("stock", "last tricks")) for i in (0, 1)] for t in trusts]))


if __name__ == "__main__":
    main()
