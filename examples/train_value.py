"""Teaches ``net``'s value network from millions of deals of ``net`` playing itself.

The value network ``pimc:value_tricks`` cuts its playouts with estimates, for the seat
about to play, the chance that its side wins the deal. ``train_net.py`` teaches it from
the search's own deals, a few tens of thousands a table: each deal's one outcome labels
all its positions, so the estimate stays noisy. ``net`` plays tens of thousands of deals
a second in the kernels, so this script labels positions from millions of them: the
vector environment (sim/rl/env.py) plays ``net`` at every seat (the learning seat moving
round the table, its partners with it at 4 and 6 players), the learner's cards chosen by
the same policy network in numpy, and every position of the learner's side is labelled
by how the deal ended (1 won, 1/2 drawn, 0 lost). Deals stream through: each round of
deals is learnt from once, in shuffled minibatches, and forgotten.

    .venv/bin/python examples/train_value.py --players 2 --deals 2000000 --out value

A fixed set of deals of another seed is held out; the value network is kept at its best
held-out log-loss, which is printed beside that of the network it replaces, and written
only if it is the better of the two (``--even-if-worse`` writes it anyway). It rewrites
the value layers of ``--weights``'s ``net-{P}p.npz`` (``--out`` for another folder,
needed where ``--weights`` is the shipped networks' folder; the policy is copied as it
is) and records the training in the ``.json``. Reproducible
from ``--seed`` with the same BLAS and thread count.
"""

from __future__ import annotations

import time

import numpy as np

from sim.rl.learn import (
    MLP,
    SEED,
    ScriptParser,
    add_folder_options,
    checked_folders,
    commit,
    forward,
    logistic_loss,
    refuse,
    save_networks,
    vector_env,
    whole,
)
from strategies.nets import layers, provenance, weights_version, with_layers

BriscolaVectorEnv = vector_env()  # the rl extra's Gymnasium, or a one-line exit

VALUE_HIDDEN = (128, 64)
RATE, MINIBATCH = 1e-3, 4096
HELD_OUT_ROUNDS = 4
TABLES = (2, 3, 4, 5, 6)


class SelfPlay:
    """Deals of the policy playing itself, a round (one deal per lane) at a time."""

    def __init__(self, players: int, lanes: int, policy, seed: int, flat_version: int):
        self.env = BriscolaVectorEnv(num_envs=lanes, players=players, opponents="net", team=players in (4, 6),
                                     flat_version=flat_version)  # fmt: skip
        self.policy, self.steps = policy, self.env.steps_per_deal
        self.obs, info = self.env.reset(seed=seed)
        self.mask = info["action_mask"]

    def round(self):
        """The learner's positions of one deal per lane, (steps x lanes, width), and each
        one's label: how the deal ended for its side."""
        positions = []
        for _ in range(self.steps):
            positions.append(self.obs)
            logits = np.where(self.mask, forward(self.policy, self.obs), -np.inf)
            self.obs, _, terminated, _, info = self.env.step(logits.argmax(axis=1))
            self.mask = info["action_mask"]
        if not terminated.all():
            raise RuntimeError(f"a round of {self.steps} steps must end every lane's deal")
        label = (np.sign(info["outcome"]) + 1) / 2  # won 1, drawn 1/2, lost 0
        self.obs, _, _, _, info = self.env.step(np.zeros(self.env.num_envs, dtype=np.int64))  # next-step autoreset
        self.mask = info["action_mask"]
        return np.concatenate(positions), np.tile(label, self.steps).astype(np.float32)


def held_out_loss(network, x, labels) -> float:
    return logistic_loss(forward(network, x), labels)[0]


def main() -> None:
    parser = ScriptParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, required=True, choices=TABLES)
    parser.add_argument(
        "--deals", type=whole(1), default=2_000_000, help="deals to learn from (whole rounds of --lanes)"
    )
    parser.add_argument("--lanes", type=whole(1), default=4096)
    parser.add_argument("--seed", type=SEED, default=1)
    parser.add_argument("--even-if-worse", action="store_true",
                        help="write the new value even when it scores worse on the held-out deals than the one it replaces")  # fmt: skip
    add_folder_options(parser, "net-{P}p.npz and .json")
    args = parser.parse_args()
    steps = BriscolaVectorEnv.steps_in_deal(args.players, team=args.players in (4, 6))
    if args.lanes * steps < MINIBATCH:  # no minibatch would fit a round: nothing would be learnt
        refuse(parser, f"--lanes {args.lanes} gives {args.lanes * steps:,} positions a round, fewer than a "
                       f"minibatch of {MINIBATCH:,}; valid: --lanes {-(-MINIBATCH // steps)} or more")  # fmt: skip
    if args.deals < args.lanes:
        refuse(parser, f"--deals {args.deals:,} is less than a round of --lanes {args.lanes:,} deals; valid: "
                       f"{args.lanes:,} or more")  # fmt: skip
    weights = checked_folders(parser, args, args.players)
    players, rng = args.players, np.random.default_rng(args.seed)
    policy, version = layers(weights, "policy"), weights_version(weights, players)  # the value reads as the policy
    held = SelfPlay(players, args.lanes, policy, 10_000 + args.seed, version)
    rounds = [held.round() for _ in range(HELD_OUT_ROUNDS)]
    held_x, held_y = np.concatenate([x for x, _ in rounds]), np.concatenate([y for _, y in rounds])
    before = held_out_loss(layers(weights, "value"), held_x, held_y) if layers(weights, "value") else float("nan")
    width = held_x.shape[1]
    value = MLP((width, *VALUE_HIDDEN, 1), rng)
    play = SelfPlay(players, args.lanes, policy, args.seed, version)
    n_rounds = args.deals // args.lanes
    print(f"{n_rounds * args.lanes:,} deals to learn from: {n_rounds:,} rounds of {args.lanes:,} lanes", flush=True)
    best, best_layers, started = np.inf, None, time.perf_counter()
    for r in range(n_rounds):
        x, y = play.round()
        order = rng.permutation(len(y))
        rate = RATE * 0.5 * (1 + np.cos(np.pi * r / n_rounds))
        for start in range(0, len(y) - MINIBATCH + 1, MINIBATCH):
            rows = order[start : start + MINIBATCH]
            _, grad = logistic_loss(value.forward(x[rows]), y[rows])
            value.step(value.backward(grad), rate)
        if (r + 1) % max(1, n_rounds // 20) == 0 or r + 1 == n_rounds:
            loss = held_out_loss(value.layers, held_x, held_y)
            if loss < best:
                best, best_layers = loss, [(w.copy(), b.copy()) for w, b in value.layers]
            print(f"{(r + 1) * args.lanes:>10,} deals: held-out log-loss {loss:.4f} (the network it replaces: "
                  f"{before:.4f}) ({time.perf_counter() - started:.0f} s)", flush=True)  # fmt: skip
    facts = provenance(players, args.weights)
    facts["value_training"] = {
        "script": "examples/train_value.py", "data": "net playing itself in the vector environment",
        "deals": n_rounds * args.lanes, "seed": args.seed, "held_out_seed": 10_000 + args.seed, "rate": RATE,
        "batch": MINIBATCH, "value": [width, *VALUE_HIDDEN, 1], "library": f"numpy {np.__version__}",
        "held_out": {"value_log_loss": round(best, 4), "replaced_network_log_loss": round(before, 4)},
        "commit": commit(),
    }  # fmt: skip
    if best_layers is None:
        raise SystemExit("train_value.py: every held-out log-loss was NaN: nothing written")
    if best >= before and not args.even_if_worse:  # (nan, no network replaced: never)
        raise SystemExit(f"train_value.py: the new value's held-out log-loss {best:.4f} is no better than the one it "
                         f"replaces ({before:.4f}): nothing written (--even-if-worse writes it)")  # fmt: skip
    save_networks(args.out, players, with_layers(weights, "value", best_layers), facts)
    print(f"wrote {args.out}/net-{players}p.npz and .json")


if __name__ == "__main__":
    main()
