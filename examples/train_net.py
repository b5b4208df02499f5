"""Trains ``net``'s networks for one table from traces of the search playing itself.

The data: a study of a ``briscola batch`` plan whose experiment at the table keeps its
deals move by move (``trace = true``; ``examples/net-data.toml``: ``pimc`` playing every
seat), read through ``sim.load``, so only chunks that verify count. Each decision of a deal
is rebuilt by the reference engine (sim/base/reference.py) as the deciding seat saw it, and
encoded as issue 21's flat observation. The policy learns the card the search chose
(cross-entropy over the legal cards); the value network, the deal's outcome for that
seat's side (win 1, draw 1/2, loss 0; a logistic output). Decisions with one card left
are not taken: ``net`` plays them without asking its network. ``--flat-version`` picks the
flat encoding's version (the newest by default; the shipped networks read version 1).

    .venv/bin/briscola batch examples/net-data.toml
    .venv/bin/python examples/train_net.py --players 2 --study results/net-data --out round-1

It writes ``net-{P}p.npz`` into ``--out`` (by default the ``--weights`` folder, needed
where that is the shipped ``strategies/weights``; the layers, in the layout
strategies/nets.py packs for the kernels) and ``net-{P}p.json`` (the provenance: the
data's plan, experiment, seed and a hash of its deals, the training's seed and settings,
the commit, the sha256 of the weights).
Training needs numpy alone (sim/rl/learn.py) and is reproducible from ``--seed`` with the
same BLAS and thread count (``OPENBLAS_NUM_THREADS``). Decisions of the last 5% of the
deals are held out to report the policy's agreement with the search.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from kernels.enums import CHIAMATA_PLAYERS, N_CARDS, N_FACES, N_SUITS
from sim.app.check import view_record
from sim.base.config import Rules, side_of_seat
from sim.base.reference import chiamata_decisions, views_along
from sim.rl.learn import (
    MLP,
    SEED,
    ScriptParser,
    add_folder_options,
    checked_folders,
    checked_split,
    checked_study,
    commit,
    cross_entropy,
    held_out_split,
    logistic_loss,
    positive,
    refuse,
    save_networks,
    traced_experiments,
    whole,
)
from strategies.nets import provenance, with_layers
from strategies.observation import FLAT_VERSION, FLAT_VERSIONS, encode_flat, flat_size, legal_mask

POLICY_HIDDEN = (128, 64)  # two ReLU layers: small enough for 20k deals/s on one thread at 2 players
VALUE_HIDDEN = (128, 64)
HAND_SIZE = 3
# Renamed copies of a decision: the 4 suits have 24 orders, the decision as it is one of them
MAX_AUGMENT = 23
AUGMENT_BOUND = ": the suits have 24 orders, and the decisions as they are take one"


def read_study(parser, folder: Path, players: int) -> tuple[list[dict], dict]:
    """The traced deals of the study's experiment at ``players`` (its chunks that verify),
    each with its ``winner_side`` from the experiment's rows, and the experiment's
    configuration (``sim.load``'s)."""
    study = checked_study(parser, folder)
    traced = traced_experiments(study, players)
    if len(traced) != 1:
        found = ", ".join(traced) or "none"
        refuse(parser, f"--study {folder} must hold one experiment at {players} players with trace = true "
                       f"(found: {found})")  # fmt: skip
    experiment = study.experiment(traced[0])
    winner = dict(zip(experiment.deals["deal"], experiment.deals["winner_side"]))
    rows = pa.Table.from_pandas(study.traces(traced[0]), preserve_index=False).to_pylist()
    for row in rows:
        row["winner_side"] = winner[row["deal"]]
    return rows, {**experiment.config, "plan": str(folder / "_plan.toml")}


def teachers_networks(meta: dict, players: int) -> dict:
    """The networks the data's strategies played with (a second round's teacher, such as
    ``pimc:policy_prior``, reads the shipped ones): per strategy that reads networks, the
    fingerprint the study recorded and the provenance it recorded beside it (a study
    made before it recorded them: the shipped strategy's, if its fingerprint is still the
    recorded one)."""
    from strategies.registry import builtin_strategies

    builtins, found = builtin_strategies(), {}
    for name, recorded in meta["fingerprints"].items():
        facts = meta.get("provenance", {}).get(name)
        strategy = builtins.get(name)
        if facts is None and (strategy is None or not strategy.provenance):
            continue
        found[name] = {"fingerprint": recorded}
        if facts is None and strategy.fingerprint() == recorded:
            facts = strategy.provenance(players)
        if facts is None:
            print(f"train_net: {name}'s networks changed since the data was made; only its fingerprint is recorded")
        else:
            found[name]["provenance"] = facts
    return found


def decisions(row: dict, players: int, rules: Rules):
    """(view as a dict, card chosen) for every card a seat chose with two or more in hand."""
    if players == CHIAMATA_PLAYERS:
        for phase, view, card in chiamata_decisions(row, rules.first_lead, rules.auction):
            if phase == "play" and len(view["hand"]) > 1:
                yield view, card
        return
    hands = [list(row["hands"][HAND_SIZE * s : HAND_SIZE * (s + 1)]) for s in range(players)]
    stock = list(row["stock"])
    for view, card in zip(views_along(players, hands, row["briscola"], stock, list(row["plays"]),
                                      rules.partner_view, rules.signals), row["plays"]):  # fmt: skip
        if len(view["hand"]) > 1:
            yield view, card


def outcome(row: dict, seat: int, players: int, view: dict) -> float:
    """The deal's result for ``seat``'s side: 1 won, 1/2 drawn, 0 lost."""
    winner = row["winner_side"]
    if winner < 0:
        return 0.5
    if players == CHIAMATA_PLAYERS:
        side = 0 if seat in (view["caller"], row_partner(row)) else 1
    else:
        side = side_of_seat(seat, players)
    return float(winner == side)


def row_partner(row: dict) -> int:
    called = row["called"]
    for seat in range(CHIAMATA_PLAYERS):
        if called in row["hands"][8 * seat : 8 * (seat + 1)]:
            return seat
    return -1


def dataset(parser, rows: list[dict], meta: dict, players: int):
    """Observations, legal masks, chosen cards, outcomes and each decision's deal."""
    rules = Rules(**meta["rules"])
    records, cards, values, deals = [], [], [], []
    for row in rows:
        for view, card in decisions(row, players, rules):
            records.append(view_record(view, players, {"removed": row["removed"] or [-1]}))
            cards.append(card)
            values.append(outcome(row, view["seat"], players, view))
            deals.append(row["deal"])
    if not records:  # (at Briscola Chiamata a deal may be thrown in, unplayed)
        refuse(parser, f"--study holds no decision in its {len(rows):,} deals; valid: a study of 40 deals or more")
    return np.concatenate(records), np.array(cards), np.array(values, np.float32), np.array(deals)


CARD_FIELDS = ("briscola", "face_up", "removed_two", "table", "hand", "partner_hands", "history", "called")


def with_suits_permuted(views: np.ndarray, cards: np.ndarray, rng: np.random.Generator):
    """The same decisions with the suits renamed (one random permutation per decision):
    Briscola treats every suit alike, the trump's included, so each is as true a
    position, and the search would have chosen the renamed card."""
    suits = np.array([rng.permutation(N_SUITS) for _ in range(len(views))])  # (n, 4)
    rows = np.arange(len(views))[:, None]

    def rename(codes):
        codes = codes.astype(np.int64)
        shape = codes.shape
        flat = codes.reshape(len(codes), -1)
        renamed = np.where(flat >= 0, suits[rows, np.maximum(flat, 0) // N_FACES] * N_FACES + flat % N_FACES, flat)
        return renamed.reshape(shape)

    out = views.copy()
    for name in CARD_FIELDS:
        out[name] = rename(views[name])
    out["trump_suit"] = np.where(
        views["trump_suit"] >= 0, suits[np.arange(len(views)), np.maximum(views["trump_suit"], 0)], -1
    )
    every_card = np.broadcast_to(np.arange(N_CARDS), (len(views), N_CARDS))
    out["played_by"][rows, rename(every_card)] = views["played_by"]
    return out, rename(cards[:, None])[:, 0]


def encoded(views, cards, values, deals, augment: int, rng, version: int = FLAT_VERSION):
    """The observations (the flat encoding's ``version``), masks, cards, values and deals,
    with ``augment`` renamed copies."""
    parts = [(views, cards)] + [with_suits_permuted(views, cards, rng) for _ in range(augment)]
    all_views = np.concatenate([v for v, _ in parts])
    return (encode_flat(all_views, version=version), legal_mask(all_views), np.concatenate([c for _, c in parts]),
            np.tile(values, augment + 1), np.tile(deals, augment + 1))  # fmt: skip


def train(obs, mask, cards, values, train_rows, held_rows, args):
    """Both networks, trained together on the same minibatches (numpy alone, sim/rl/learn.py);
    each epoch reports the held-out decisions."""
    rng = np.random.default_rng(args.seed)
    width = obs.shape[1]
    policy, value = MLP((width, *POLICY_HIDDEN, 40), rng), MLP((width, *VALUE_HIDDEN, 1), rng)
    steps, step = args.epochs * (len(train_rows) // args.batch), 0
    best = {"agreement": -1.0, "value_log_loss": np.inf}
    started = time.perf_counter()
    for epoch in range(args.epochs):
        shuffled = rng.permutation(train_rows)
        for start in range(0, len(shuffled) - args.batch + 1, args.batch):
            rows = np.sort(shuffled[start : start + args.batch])
            rate = args.rate * 0.5 * (1 + np.cos(np.pi * step / steps))  # cosine decay to nothing
            x = obs[rows]
            _, grad = cross_entropy(policy.forward(x), mask[rows], cards[rows])
            policy.step(policy.backward(grad), rate)
            _, grad = logistic_loss(value.forward(x), values[rows])
            value.step(value.backward(grad), rate)
            step += 1
        agreement, value_loss = evaluate(policy, value, obs, mask, cards, values, held_rows)
        if agreement > best["agreement"]:
            best["agreement"], best["policy"] = agreement, [(w.copy(), b.copy()) for w, b in policy.layers]
        if value_loss < best["value_log_loss"]:
            best["value_log_loss"], best["value"] = value_loss, [(w.copy(), b.copy()) for w, b in value.layers]
        print(f"epoch {epoch + 1}: held-out agreement with the search {agreement:.4f}, value log-loss "
              f"{value_loss:.4f} ({time.perf_counter() - started:.0f} s)", flush=True)  # fmt: skip
    policy.layers, value.layers = best["policy"], best["value"]  # each at its best epoch on the held-out deals
    return policy, value, {"agreement": round(best["agreement"], 4), "value_log_loss": round(best["value_log_loss"], 4)}


def evaluate(policy, value, obs, mask, cards, values, rows):
    x = obs[rows]
    chosen = np.where(mask[rows], policy.forward(x), -np.inf).argmax(axis=1)
    loss, _ = logistic_loss(value.forward(x), values[rows])
    return float((chosen == cards[rows]).mean()), loss


def data_hash(rows: list[dict]) -> str:
    """A hash of the deals trained on (every card dealt and played, and the outcome, in
    deal order): the same for the same deals whichever files or machine held them."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps([row["deal"], row["hands"], row["briscola"], row["stock"], row["plays"],
                                  row["winner_side"]]).encode())  # fmt: skip
    return digest.hexdigest()[:16]


def kept_networks(weights: dict, folder: Path, players: int) -> tuple[dict, dict]:
    """Of the table's networks read from ``folder``, those this script does not train (the
    auction network, ``train_auction.py``'s), and their provenance: kept as they are."""
    kept = {key: value for key, value in weights.items() if key.startswith("auction.")}
    facts = provenance(players, folder)
    return kept, {"auction_training": facts["auction_training"]} if kept and "auction_training" in facts else {}


def main() -> None:
    parser = ScriptParser(description="Train net's policy and value networks for one table.")
    parser.add_argument("--players", type=int, required=True, choices=(2, 3, 4, 5, 6))
    parser.add_argument(
        "--study",
        type=Path,
        required=True,
        help="a study folder (briscola batch) holding an experiment at --players with trace = true",
    )
    parser.add_argument("--seed", type=SEED, default=1, help="the training's seed (initial weights, order)")
    parser.add_argument("--epochs", type=whole(1), default=8)
    parser.add_argument("--batch", type=whole(1), default=1024)
    parser.add_argument(
        "--rate", type=positive, default=3e-3, help="Adam's learning rate at the start, decaying to 0 (cosine)"
    )
    parser.add_argument("--augment", type=whole(0, MAX_AUGMENT, AUGMENT_BOUND), default=0,
                        help=f"copies of each decision with the suits renamed (at most {MAX_AUGMENT})")  # fmt: skip
    parser.add_argument("--max-deals", type=whole(0), default=0, help="use the first N deals only (0: all)")
    parser.add_argument("--flat-version", type=int, choices=FLAT_VERSIONS, default=FLAT_VERSION,
                        help="the flat encoding's version the networks read (docs/agents.md)")  # fmt: skip
    add_folder_options(parser, "the auction network to keep (5 players)")
    args = parser.parse_args()
    read = checked_folders(parser, args, args.players, need=args.players == CHIAMATA_PLAYERS)  # the auction's kept
    started = time.perf_counter()
    rows, meta = read_study(parser, args.study, args.players)
    rows.sort(key=lambda row: row["deal"])
    if args.max_deals:
        rows = rows[: args.max_deals]
    views, cards, values, deals = dataset(parser, rows, meta, args.players)
    n_decisions = len(cards)
    obs, mask, cards, values, deals = encoded(views, cards, values, deals, args.augment,
                                              np.random.default_rng(args.seed), args.flat_version)  # fmt: skip
    renamed = f", {len(cards) - n_decisions:,} more with the suits renamed" if args.augment else ""
    print(
        f"{len(rows):,} deals, {n_decisions:,} decisions{renamed} ({time.perf_counter() - started:.0f} s)", flush=True
    )
    train_rows, held_rows = held_out_split(deals)
    checked_split(parser, train_rows, held_rows, args.batch)
    policy, value, quality = train(obs, mask, cards, values, train_rows, held_rows, args)
    kept, kept_facts = kept_networks(read, args.weights, args.players)
    weights = with_layers(with_layers(kept, "policy", policy.layers), "value", value.layers)
    teachers = teachers_networks(meta, args.players)
    facts = {
        "table": f"{args.players} players", "flat_encoding_width": flat_size(args.players, args.flat_version),
        "flat_encoding_version": args.flat_version,
        "data": {"strategies": sorted(set(meta["strategies"])), "plan": meta["plan"], "experiment": meta["experiment"],
                 "seed": meta["seed"], "rules": meta["rules"], "deals": len(rows), "decisions": n_decisions,
                 **({"networks": teachers} if teachers else {}),
                 "deals_sha256": data_hash(rows)},
        "training": {"script": "examples/train_net.py", "seed": args.seed, "epochs": args.epochs,
                     "batch": args.batch, "rate": args.rate, "augment": args.augment, "library": f"numpy {np.__version__}", "policy": [int(obs.shape[1]), *POLICY_HIDDEN, 40],
                     "value": [int(obs.shape[1]), *VALUE_HIDDEN, 1], "held_out": quality},
        "commit": commit(),
        **kept_facts,
    }  # fmt: skip
    save_networks(args.out, args.players, weights, facts)
    print(f"wrote {args.out}/net-{args.players}p.npz and .json ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
