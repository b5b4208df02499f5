"""Trains ``net``'s auction network for Briscola Chiamata from a study of deals played out.

``net`` bids the next level while its best call there expects at least its
``bid_threshold`` in game points, and calls that card. What a call expects comes from
the chance that the caller's side takes the bid's target: ``expert`` reads that chance
off a model fitted by hand (a line through its hand's value, strategies/auction_nb.py);
the auction network learns it. From the caller's hand seen with the called card's suit
as trump, the called face, whether the caller holds that card (alone) and its seat, it
gives the logit of the chance to take at least 61, 62, ... 120 points: one output per
target, each learnt from every deal (its side's points are above it or not).

The data: a study whose experiment at 5 players keeps traces (``trace = true``;
``examples/auction-data.toml``: ``net`` playing every seat, its bidding threshold
varied so that contracts of every height are called). A deal's row gives the caller,
the called card and the side's points, its trace the caller's hand.

    .venv/bin/briscola batch examples/auction-data.toml
    .venv/bin/python examples/train_auction.py --study results/auction-data --out auction

It adds the network to the networks of ``--weights``'s ``net-5p.npz`` (the shipped
``strategies/weights`` by default; the policy and value networks are copied as they
are), writes them into ``--out`` (by default ``--weights``; needed where that is the
shipped networks' folder) and records its training in the ``.json``. Reproducible from
``--seed`` with the same BLAS and thread count.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import numpy as np

from kernels.enums import CHIAMATA_PLAYERS, N_CARDS, N_FACES, N_SUITS
from sim.rl.learn import (
    MLP,
    SEED,
    ScriptParser,
    add_folder_options,
    checked_folders,
    checked_split,
    checked_study,
    commit,
    held_out_split,
    logistic_loss,
    positive,
    refuse,
    save_networks,
    traced_experiments,
    whole,
)
from strategies.net_nb import CONTRACT_INPUTS, FIRST_TARGET, N_TARGETS
from strategies.nets import provenance, with_layers

HIDDEN = (64, 32)
HAND = 8


def read_contracts(parser, folder: Path):
    """Per deal with a caller: the caller's hand (8 cards), seat, the called card, and the
    caller's side's points; with the experiments' names and seeds."""
    study = checked_study(parser, folder)
    names = traced_experiments(study, CHIAMATA_PLAYERS)
    if not names:
        refuse(parser, f"--study {folder} holds no experiment at 5 players with trace = true")
    hands, seats, called, points, deals = [], [], [], [], []
    for name in names:
        rows = study.experiment(name).deals.set_index("deal")
        traces = study.traces(name).set_index("deal")
        played = rows.index[rows["caller"] >= 0]
        for deal in played:
            caller = int(rows.at[deal, "caller"])
            hands.append(np.asarray(traces.at[deal, "hands"])[HAND * caller : HAND * (caller + 1)])
            seats.append(caller)
            called.append(int(rows.at[deal, "called"]))
            points.append(int(rows.at[deal, "side_points_0"]))  # side 0: the caller's
            deals.append(int(deal))  # the experiments share a seed: the same deal index, the same deal
    facts = {"experiments": names, "strategies": sorted({s for n in names for s in study.experiment(n).config["strategies"]}),
             "seeds": sorted({study.experiment(n).config["seed"] for n in names})}  # fmt: skip
    return np.array(hands), np.array(seats), np.array(called), np.array(points), np.array(deals), facts


def contract_inputs(hands, seats, called) -> np.ndarray:
    """The network's inputs (strategies/net_nb.py's contract_inputs_nb), one row per deal."""
    n = len(seats)
    x = np.zeros((n, CONTRACT_INPUTS), dtype=np.float32)
    rows = np.arange(n)[:, None]
    trump = (called // N_FACES)[:, None]
    x[rows, ((hands // N_FACES - trump) % N_SUITS) * N_FACES + hands % N_FACES] = 1.0
    x[np.arange(n), N_CARDS + called % N_FACES] = 1.0
    x[np.arange(n), N_CARDS + N_FACES] = (hands == called[:, None]).any(axis=1)
    x[np.arange(n), N_CARDS + N_FACES + 1 + seats] = 1.0
    return x


def targets(points) -> np.ndarray:
    """Per deal and target 61 .. 120, whether the side took that many points or more."""
    return (points[:, None] >= FIRST_TARGET + np.arange(N_TARGETS)[None, :]).astype(np.float32)


def main() -> None:
    parser = ScriptParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--study", type=Path, required=True, help="a study folder with a 5-player experiment keeping traces"
    )
    parser.add_argument("--epochs", type=whole(1), default=10)
    parser.add_argument("--batch", type=whole(1), default=1024)
    parser.add_argument("--rate", type=positive, default=1e-3)
    parser.add_argument("--seed", type=SEED, default=1)
    add_folder_options(parser, "net-5p.npz and .json")
    args = parser.parse_args()
    weights = checked_folders(parser, args, CHIAMATA_PLAYERS)
    started, rng = time.perf_counter(), np.random.default_rng(args.seed)
    hands, seats, called, points, deals, facts = read_contracts(parser, args.study)
    x, y = contract_inputs(hands, seats, called), targets(points)
    train_rows, held_rows = held_out_split(deals)
    checked_split(parser, train_rows, held_rows, args.batch)
    network = MLP((CONTRACT_INPUTS, *HIDDEN, N_TARGETS), rng)
    print(f"{len(y):,} contracts ({time.perf_counter() - started:.0f} s)", flush=True)
    steps, step, best, best_layers = args.epochs * (len(train_rows) // args.batch), 0, np.inf, None
    for epoch in range(args.epochs):
        order = rng.permutation(train_rows)
        for start in range(0, len(order) - args.batch + 1, args.batch):
            rows = order[start : start + args.batch]
            _, grad = logistic_loss(network.forward(x[rows]), y[rows])
            network.step(network.backward(grad), args.rate * 0.5 * (1 + np.cos(np.pi * step / steps)))
            step += 1
        held_loss, _ = logistic_loss(network.forward(x[held_rows]), y[held_rows])
        if held_loss < best:
            best, best_layers = held_loss, [(w.copy(), b.copy()) for w, b in network.layers]
        print(
            f"epoch {epoch + 1}: held-out log-loss {held_loss:.4f} ({time.perf_counter() - started:.0f} s)", flush=True
        )
    digest = hashlib.sha256(np.concatenate([hands.ravel(), seats, called, points]).astype(np.int64).tobytes())
    record = provenance(CHIAMATA_PLAYERS, args.weights)
    record["auction_training"] = {
        "script": "examples/train_auction.py", "data": {**facts, "plan": str(args.study / "_plan.toml"),
                                                        "contracts": len(y), "sha256": digest.hexdigest()[:16]},
        "seed": args.seed, "epochs": args.epochs, "batch": args.batch, "rate": args.rate,
        "auction": [CONTRACT_INPUTS, *HIDDEN, N_TARGETS], "library": f"numpy {np.__version__}",
        "held_out": {"log_loss": round(best, 4), "deals": "the last 5% of deal indices, in every experiment"},
        "commit": commit(),
    }  # fmt: skip
    save_networks(args.out, CHIAMATA_PLAYERS, with_layers(weights, "auction", best_layers), record)
    print(f"wrote {args.out}/net-5p.npz and .json")


if __name__ == "__main__":
    main()
