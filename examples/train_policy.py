"""Trains a small policy from scratch in the vector environment with PPO, numpy alone.

It saves the policy where ``--out`` says, in the layout the batched plug-in
``examples/agents/numpy_mlp.py`` loads from ``numpy_mlp.npz`` beside it; to play it,
copy the plug-in beside the file:

    .venv/bin/python examples/train_policy.py --deals 1536000 --out my-agent/numpy_mlp.npz
    cp examples/agents/numpy_mlp.py my-agent/
    .venv/bin/briscola compare numpy-mlp random --players 2 --deals 20000 --seed 99 \\
        --strategy-file my-agent/numpy_mlp.py

The policy: the flat observation (version 1 of the flat encoding, which the plug-ins
beside ``numpy_mlp.npz`` read) -> 128 ReLU units -> a score per card, softmax over the
legal cards (the plug-in plays the card of highest score). Beside it a value network of
the same shape estimates what the position is worth. Learning: PPO (clipped surrogate,
generalised advantage estimation, an entropy bonus), Adam with a rate that falls to
nothing over the run's deals. Each round plays one whole deal in each of 1,024 lanes
against ``random`` (20 learner's cards each at 2 players), then makes 4 passes over those
20,480 decisions in minibatches of 4,096. The reward is the points the learner's side
takes / 120, and +1/-1 for winning/losing at the end; no discount within a deal. The
learner's seat moves round the table a deal at a time.

A run is its deal budget (``--deals``, whole rounds of ``--envs``): the same budget,
``--envs`` and ``--seed`` make the same policy on any machine, however busy (with the
same BLAS and thread count). Every option and ``--out`` are checked before the first
round; the file appears whole once trained, and replaces an existing one only with
``--overwrite``, and only a policy this script wrote.
"""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import numpy as np

from sim.base.config import ConfigError
from sim.base.files import check_writable, write_atomically
from sim.rl.learn import SEED, ScriptParser, refuse, vector_env, whole

BriscolaVectorEnv = vector_env()  # the rl extra's Gymnasium, or a one-line exit

DEALS = 1_536_000  # the default budget: 1,500 rounds of 1,024 lanes
POLICY = ("w1", "b1", "w2", "b2")  # what the plug-in loads (the value network is not saved)
HIDDEN = 128
RATE = 3e-3  # Adam's at the start, falling linearly with the deals left (1e-3 learnt half as fast)
EPOCHS, MINIBATCH = 4, 4096  # passes over each round's decisions, and their size
CLIP, ENTROPY, LAMBDA = 0.2, 0.01, 0.95
STEPS = 20  # the learner's cards in a deal at 2 players: a round is one deal per lane
FLAT_VERSION = 1  # the observation's: examples/agents/ read it (and docs/agents.md's figures were measured so)


def new_networks(size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The policy (w1, b1, w2, b2: what the plug-in loads) and the value network (v*)."""

    def layer(n_in, n_out, scale):
        return rng.normal(0, scale, (n_in, n_out)).astype(np.float32), np.zeros(n_out, dtype=np.float32)

    (w1, b1), (w2, b2) = layer(size, HIDDEN, np.sqrt(2 / size)), layer(HIDDEN, 40, 0.01)
    (v1, c1), (v2, c2) = layer(size, HIDDEN, np.sqrt(2 / size)), layer(HIDDEN, 1, 0.01)
    return {"w1": w1, "b1": b1, "w2": w2, "b2": b2, "v1": v1, "c1": c1, "v2": v2, "c2": c2}


def policy(net, obs, mask):
    """Hidden units, and the probability and log-probability of each card (0 if illegal)."""
    hidden = np.maximum(obs @ net["w1"] + net["b1"], 0.0)
    logits = np.where(mask, hidden @ net["w2"] + net["b2"], -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    probs = weights / weights.sum(axis=1, keepdims=True)
    return hidden, probs, np.where(mask, logits - np.log(weights.sum(axis=1, keepdims=True)), 0.0)


def value(net, obs):
    hidden = np.maximum(obs @ net["v1"] + net["c1"], 0.0)
    return hidden, (hidden @ net["v2"] + net["c2"])[:, 0]


class Adam:
    def __init__(self, net):
        self.t = 0
        self.m = {k: np.zeros_like(v) for k, v in net.items()}
        self.v = {k: np.zeros_like(v) for k, v in net.items()}

    def step(self, net, grads, rate):
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            m, v = self.m[k] / (1 - 0.9**self.t), self.v[k] / (1 - 0.999**self.t)
            net[k] -= rate * m / (np.sqrt(v) + 1e-8)


def play_round(env, net, obs, info, rng):
    """One deal in every lane: the decisions, their log-probabilities, values and rewards."""
    n, size = obs.shape
    record = {"obs": np.empty((STEPS, n, size), np.float32), "mask": np.empty((STEPS, n, 40), bool),
              "action": np.empty((STEPS, n), np.int64), "logp": np.empty((STEPS, n), np.float32),
              "value": np.empty((STEPS, n), np.float32), "reward": np.empty((STEPS, n), np.float32)}  # fmt: skip
    lanes = np.arange(n)
    for t in range(STEPS):
        record["obs"][t], record["mask"][t] = obs, info["action_mask"]
        _, probs, logp = policy(net, obs, info["action_mask"])
        actions = (probs.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1).clip(0, 39)
        actions = np.where(info["action_mask"][lanes, actions], actions, probs.argmax(axis=1))  # rounding's edge
        record["action"][t], record["logp"][t] = actions, logp[lanes, actions]
        record["value"][t] = value(net, obs)[1]
        obs, rewards, terminated, _, info = env.step(actions)
        record["reward"][t] = rewards
    if not terminated.all():  # every lane ends its deal at the 20th step at 2 players
        raise RuntimeError("a round must end every lane's deal")
    won = float(np.mean(info["outcome"] > 0))
    obs, *_, info = env.step(actions)  # the next-step autoreset: a new deal in every lane
    return record, won, obs, info


def advantages(record):
    """Generalised advantage estimates and returns (no discount; the deal ends at STEPS)."""
    values, rewards = record["value"], record["reward"]
    gae, later = np.zeros_like(values), np.zeros(values.shape[1], np.float32)
    for t in reversed(range(STEPS)):
        next_value = values[t + 1] if t + 1 < STEPS else 0.0
        later = rewards[t] + next_value - values[t] + LAMBDA * later
        gae[t] = later
    return gae, gae + values


def gradients(net, obs, mask, actions, old_logp, advantage, returns):
    """Of the clipped surrogate (with the entropy bonus) and half the value's squared error."""
    k, picked = len(actions), np.arange(len(actions))
    hidden, probs, logp = policy(net, obs, mask)
    ratio = np.exp(logp[picked, actions] - old_logp)
    unclipped = np.where(advantage >= 0, ratio < 1 + CLIP, ratio > 1 - CLIP)
    d_logp = -advantage * ratio * unclipped / k  # d loss / d log-probability of the card played
    d_logits = -probs * d_logp[:, None]
    d_logits[picked, actions] += d_logp
    entropy = -(probs * logp).sum(axis=1, keepdims=True)
    d_logits += ENTROPY * probs * (logp + entropy) / k
    d_hidden = (d_logits @ net["w2"].T) * (hidden > 0)
    value_hidden, values = value(net, obs)
    d_value = ((values - returns) / k)[:, None]
    d_value_hidden = (d_value @ net["v2"].T) * (value_hidden > 0)
    return {"w2": hidden.T @ d_logits, "b2": d_logits.sum(axis=0), "w1": obs.T @ d_hidden, "b1": d_hidden.sum(axis=0),
            "v2": value_hidden.T @ d_value, "c2": d_value.sum(axis=0), "v1": obs.T @ d_value_hidden,
            "c1": d_value_hidden.sum(axis=0)}  # fmt: skip


def learn(net, adam, record, rate, rng) -> None:
    gae, returns = advantages(record)
    n = gae.size
    flat = {key: array.reshape(n, -1) if array.ndim == 3 else array.reshape(n) for key, array in record.items()}
    advantage = (gae.reshape(n) - gae.mean()) / (gae.std() + 1e-8)
    returns = returns.reshape(n)
    for _ in range(EPOCHS):
        order = rng.permutation(n)
        for start in range(0, n, MINIBATCH):
            i = order[start : start + MINIBATCH]
            grads = gradients(net, flat["obs"][i], flat["mask"][i], flat["action"][i], flat["logp"][i],
                              advantage[i], returns[i])  # fmt: skip
            adam.step(net, grads, rate)


def train(deals: int, envs: int, seed: int, out: Path, quiet: bool = False) -> float:
    """Trains on ``deals`` deals (whole rounds of ``envs``, one at least) and saves the
    policy into ``out``; returns the share of the last rounds' deals it won (playing its
    stochastic policy)."""
    rounds = max(1, deals // envs)
    rng = np.random.default_rng(seed)
    env = BriscolaVectorEnv(num_envs=envs, players=2, opponents="random", copy=False, flat_version=FLAT_VERSION)
    net = new_networks(env.single_observation_space.shape[0], rng)
    adam = Adam(net)
    obs, info = env.reset(seed=seed)
    started, won = time.monotonic(), []
    for done in range(rounds):
        record, share, obs, info = play_round(env, net, obs.copy(), info, rng)
        won.append(share)
        learn(net, adam, record, RATE * max(0.02, 1 - done / rounds), rng)
        if not quiet and len(won) % 20 == 0:
            print(f"{time.monotonic() - started:5.0f} s  {len(won) * envs:>9,} deals  won {np.mean(won[-20:]):.3f}",
                  flush=True)  # fmt: skip
    policy = {key: net[key] for key in POLICY}
    if not all(np.isfinite(array).all() for array in policy.values()):
        raise SystemExit("train_policy.py: the training diverged (its weights are not finite): nothing written")
    write_atomically(out, lambda temporary: _save(temporary, policy))
    return float(np.mean(won[-20:]))


def _save(path: Path, arrays: dict) -> None:
    with open(path, "wb") as file:  # a file object: np.savez would add ".npz" to another name
        np.savez(file, **arrays)


def checked_out(parser, out: Path, overwrite: bool) -> None:
    """Refuses, before the first round, an ``--out`` that cannot or must not be written:
    not an .npz name, a folder, an existing file without ``--overwrite`` or one that is
    not a policy this script wrote, a folder that cannot be written in."""
    if out.suffix != ".npz":
        refuse(parser, f"--out {out} does not end in .npz; valid: a file name such as my-agent/numpy_mlp.npz "
                       "(the plug-in loads numpy_mlp.npz beside it)")  # fmt: skip
    if out.is_dir():
        refuse(parser, f"--out {out} is a folder; valid: a file path, such as {out / 'numpy_mlp.npz'}")
    if out.exists() and not overwrite:
        refuse(parser, f"--out {out} already exists; pass --overwrite to replace it")
    if out.exists() and not is_policy(out):
        refuse(parser, f"--out {out} is not a policy this script wrote (arrays {', '.join(POLICY)}): --overwrite "
                       "replaces only those; move it away, or choose another path")  # fmt: skip
    try:
        check_writable(out, "--out")
    except ConfigError as error:
        refuse(parser, str(error))


def is_policy(path: Path) -> bool:
    """Whether ``path`` holds what this script writes: the arrays of a policy, no more."""
    try:
        with np.load(path) as saved:
            return sorted(saved.files) == sorted(POLICY)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return False


def main() -> None:
    parser = ScriptParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=whole(1), default=DEALS,
                        help=f"deals to train on, in whole rounds of --envs (default {DEALS:,})")  # fmt: skip
    parser.add_argument("--envs", type=whole(1), default=1024, help="lanes: deals played at once, a round")
    parser.add_argument("--seed", type=SEED, default=1)
    parser.add_argument("--out", type=Path, required=True, help="the .npz to write, such as my-agent/numpy_mlp.npz")
    parser.add_argument("--overwrite", action="store_true", help="replace --out if it is a policy this script wrote")
    args = parser.parse_args()
    if args.deals < args.envs:
        refuse(parser, f"--deals {args.deals:,} is less than a round of --envs {args.envs:,} deals; valid: "
                       f"{args.envs:,} or more")  # fmt: skip
    checked_out(parser, args.out, args.overwrite)
    rounds = args.deals // args.envs
    print(f"{rounds * args.envs:,} deals: {rounds:,} rounds of {args.envs:,}", flush=True)
    won = train(args.deals, args.envs, args.seed, args.out)
    print(f"saved {args.out} (the last rounds won {won:.3f} of their deals, playing at random by the policy)")


if __name__ == "__main__":
    main()
