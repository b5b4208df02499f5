"""Tunes ``net``'s policy by playing a pool of opponents (PPO in the vector environment).

It starts from the policy ``train_net.py`` taught by imitating the search.

Imitation learns what the search does in the positions the search reaches playing
itself. Against other players the net meets positions no search game showed it, and it
inherits the search's own weaknesses there (at 2 players ``pimc`` scores less against
``greedy`` than ``expert`` does). Playing against a pool of differently built opponents
(by default ``random``, ``greedy``, ``hoarder``, ``expert`` and the imitation ``net``
itself, as it was before tuning) teaches it those positions from their outcomes.

    .venv/bin/python examples/tune_net.py --players 2 --minutes 20 --out tuned

Each round plays one whole deal in every lane, the lanes split evenly over the pool
(at 4 and 6 players the policy plays every seat of its team), then makes EPOCHS passes
over the round's decisions. The reward is the points the side takes / 120, and +1/-1
for winning/losing at the end. The critic (a fresh network of the value's shape) learns
alone for the first WARM_UP rounds, so that the first policy steps follow real
advantages. The value network ``pimc:value_tricks`` uses is kept as it was.

It rewrites ``--weights``'s ``net-{P}p.npz`` (``--out`` for another folder, needed where
``--weights`` is the shipped networks' folder) and adds
the tuning (seed, rounds, pool, settings, the deals played, and the fingerprint of the
networks each learned opponent in the pool played with) to the list of tunings in its
``.json`` (``--weights`` may hold weights tuned before: the run goes on from them).
Reproducible from ``--rounds`` and ``--seed`` with the same BLAS and thread count; with
``--minutes`` alone, how far it gets depends on the machine.
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
    positive,
    refuse,
    save_networks,
    vector_env,
    whole,
)
from strategies.api import parse_spec
from strategies.errors import StrategyError
from strategies.nets import layers, provenance, weights_version, with_layers
from strategies.registry import builtin_strategies

BriscolaVectorEnv = vector_env()  # the rl extra's Gymnasium, or a one-line exit

TABLES = (2, 3, 4, 5, 6)  # at 5 players the learner plays the cards; its bids and calls are its opponents'
POOL = ("random", "greedy", "hoarder", "expert", "net")
RATE = 2e-4  # Adam's, for the policy; the critic's is CRITIC_RATE
CRITIC_RATE = 1e-3
EPOCHS, MINIBATCH = 3, 4096
CLIP, ENTROPY, LAMBDA = 0.1, 0.002, 0.95
WARM_UP = 10


def ppo_gradient(logits, mask, actions, old_logp, advantage):
    """The gradient at the logits of the clipped surrogate with an entropy bonus."""
    k, picked = len(actions), np.arange(len(actions))
    masked = np.where(mask, logits, -np.inf)
    masked -= masked.max(axis=1, keepdims=True)
    logp = np.where(mask, masked - np.log(np.exp(masked).sum(axis=1, keepdims=True)), 0.0)
    probs = np.where(mask, np.exp(logp), 0.0)
    ratio = np.exp(logp[picked, actions] - old_logp)
    unclipped = np.where(advantage >= 0, ratio < 1 + CLIP, ratio > 1 - CLIP)
    d_logp = -advantage * ratio * unclipped / k
    d_logits = -probs * d_logp[:, None]
    d_logits[picked, actions] += d_logp
    entropy = -(probs * logp).sum(axis=1, keepdims=True)
    d_logits += ENTROPY * probs * (logp + entropy) / k
    return d_logits.astype(np.float32)


def pool_networks(opponents) -> dict:
    """The fingerprint of each learned opponent in the pool (``net`` plays the networks in
    ``strategies/weights``, whatever ``--weights`` says): which networks the policy was
    tuned against."""
    strategies = [parse_spec(spec, builtin_strategies()).strategy for spec in opponents]
    return {strategy.name: strategy.fingerprint() for strategy in strategies if strategy.provenance}


def sample(policy: MLP, obs, mask, rng):
    """A card per row drawn from the policy's softmax over the legal cards, and its log-probability."""
    logits = np.where(mask, policy.forward(obs), -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    actions = (probs.cumsum(axis=1) < rng.random((len(obs), 1))).sum(axis=1).clip(0, 39)
    rows = np.arange(len(obs))
    actions = np.where(mask[rows, actions], actions, probs.argmax(axis=1))  # the cumulative sum's rounding
    return actions, np.log(probs[rows, actions])


class Pool:
    """One vector environment per opponent, stepped together as one set of lanes."""

    def __init__(self, players: int, lanes: int, opponents, seed: int, flat_version: int):
        self.envs = [BriscolaVectorEnv(num_envs=lanes, players=players, opponents=name, team=players in (4, 6),
                                       copy=True, flat_version=flat_version) for name in opponents]  # fmt: skip
        self.obs, self.mask = [], []
        for k, env in enumerate(self.envs):
            obs, info = env.reset(seed=seed * 1000 + k)
            self.obs.append(obs)
            self.mask.append(info["action_mask"])

    def observe(self):
        return np.concatenate(self.obs), np.concatenate(self.mask)

    def step(self, actions):
        rewards, ended, outcomes = [], [], []
        for k, (env, part) in enumerate(zip(self.envs, np.split(actions, len(self.envs)))):
            obs, reward, terminated, _, info = env.step(part)
            self.obs[k], self.mask[k] = obs, info["action_mask"]
            rewards.append(reward)
            ended.append(terminated)
            outcomes.append(info.get("outcome", np.zeros(len(part))))
        return np.concatenate(rewards), np.concatenate(ended), np.concatenate(outcomes)

    def restart(self):
        """After a round every lane's deal is over: the next-step autoreset starts new ones."""
        for k, env in enumerate(self.envs):
            obs, _, _, _, info = env.step(np.zeros(env.num_envs, dtype=np.int64))
            self.obs[k], self.mask[k] = obs, info["action_mask"]


def play_round(pool: Pool, policy: MLP, critic: MLP, steps: int, rng):
    record = {key: [] for key in ("obs", "mask", "action", "logp", "value", "reward")}
    for _ in range(steps):
        obs, mask = pool.observe()
        actions, logp = sample(policy, obs, mask, rng)
        record["obs"].append(obs)
        record["mask"].append(mask)
        record["action"].append(actions)
        record["logp"].append(logp)
        record["value"].append(critic.forward(obs)[:, 0])
        rewards, ended, outcomes = pool.step(actions)
        record["reward"].append(rewards)
    if not ended.all():
        raise RuntimeError(f"a round of {steps} steps must end every lane's deal")
    pool.restart()
    return {key: np.stack(value) for key, value in record.items()}, outcomes


def advantages(values, rewards):
    """Generalised advantage estimates and returns (no discount; the deal ends with the round)."""
    steps = len(values)
    gae, later = np.zeros_like(values), np.zeros(values.shape[1], np.float32)
    for t in reversed(range(steps)):
        next_value = values[t + 1] if t + 1 < steps else 0.0
        later = rewards[t] + next_value - values[t] + LAMBDA * later
        gae[t] = later
    return gae, gae + values


def learn(policy: MLP, critic: MLP, record, rate: float, tune_policy: bool, rng) -> None:
    gae, returns = advantages(record["value"], record["reward"])
    n = gae.size
    flat = {key: value.reshape(n, *value.shape[2:]) for key, value in record.items()}
    advantage = ((gae - gae.mean()) / (gae.std() + 1e-8)).reshape(n).astype(np.float32)
    returns = returns.reshape(n).astype(np.float32)
    for _ in range(EPOCHS):
        order = rng.permutation(n)
        for start in range(0, n, MINIBATCH):
            rows = np.sort(order[start : start + MINIBATCH])
            obs = flat["obs"][rows]
            if tune_policy:
                grad = ppo_gradient(policy.forward(obs), flat["mask"][rows], flat["action"][rows], flat["logp"][rows],
                                    advantage[rows])  # fmt: skip
                policy.step(policy.backward(grad), rate)
            error = (critic.forward(obs)[:, 0] - returns[rows]) / len(rows)
            critic.step(critic.backward(error[:, None].astype(np.float32)), CRITIC_RATE)


def main() -> None:
    parser = ScriptParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, required=True, choices=TABLES)
    parser.add_argument("--minutes", type=positive, default=20.0, help="wall time, where --rounds is 0")
    parser.add_argument("--rounds", type=whole(0), default=0, help="rounds to play (0: as many as --minutes allows)")
    parser.add_argument("--lanes", type=whole(1), default=512, help="lanes per opponent")
    parser.add_argument("--pool", nargs="+", default=list(POOL), help="the opponents (strategy specs)")
    parser.add_argument("--warm-up", type=whole(0), default=WARM_UP, help="rounds the critic learns alone first")
    parser.add_argument("--seed", type=SEED, default=1)
    add_folder_options(parser, "net-{P}p.npz and .json")
    args = parser.parse_args()
    if args.rounds and args.warm_up >= args.rounds:
        refuse(parser, f"--warm-up {args.warm_up} leaves none of the {args.rounds} --rounds to tune the policy in; "
                       f"valid: --warm-up below --rounds")  # fmt: skip
    try:  # before anything runs: the fingerprints the record names, and a spec that is no strategy refused
        networks = pool_networks(args.pool)
    except StrategyError as error:
        refuse(parser, f"--pool: {error}")
    weights = checked_folders(parser, args, args.players)
    players, rng = args.players, np.random.default_rng(args.seed)
    policy = MLP([weights["policy.0.weight"].shape[0]] + [w.shape[1] for w, _ in layers(weights, "policy")], rng)
    policy.layers = [(w.copy(), b.copy()) for w, b in layers(weights, "policy")]
    critic = MLP([w.shape[0] for w, _ in layers(weights, "value")] + [1], rng)
    print(f"tuning against {', '.join(args.pool)}; the first round compiles the kernels (minutes)", flush=True)
    pool = Pool(players, args.lanes, args.pool, args.seed, weights_version(weights, players))  # as the policy reads
    started, rounds, won = time.monotonic(), 0, []
    while (args.rounds and rounds < args.rounds) or (
        not args.rounds and time.monotonic() - started < args.minutes * 60
    ):
        left = 1 - rounds / args.rounds if args.rounds else 1 - (time.monotonic() - started) / (args.minutes * 60)
        record, outcomes = play_round(pool, policy, critic, pool.envs[0].steps_per_deal, rng)
        learn(policy, critic, record, RATE * max(0.05, left), rounds >= args.warm_up, rng)
        rounds += 1
        won.append([np.mean(part > 0) for part in np.split(outcomes, len(args.pool))])
        if rounds % 10 == 0:
            shares = np.mean(won[-10:], axis=0)
            print(f"{time.monotonic() - started:5.0f} s  round {rounds}  won: "
                  + "  ".join(f"{name} {share:.3f}" for name, share in zip(args.pool, shares)), flush=True)  # fmt: skip
    if rounds <= args.warm_up:  # (--minutes ran out first) the policy never took a step
        raise SystemExit(f"tune_net.py: {rounds} rounds in {args.minutes:g} minutes, none past the {args.warm_up} of "
                         "--warm-up: the policy was never tuned, nothing written (more --minutes, or --rounds)")  # fmt: skip
    facts = provenance(players, args.weights)
    tuned_before = facts.get("tuning", [])  # a tuning run may go on from another's weights: each is recorded
    facts["tuning"] = [*tuned_before, {"script": "examples/tune_net.py", "seed": args.seed, "rounds": rounds, "lanes": args.lanes,
                       "pool": args.pool, "deals": rounds * args.lanes * len(args.pool), "rate": RATE,
                       "clip": CLIP, "entropy": ENTROPY, "epochs": EPOCHS, "warm_up": args.warm_up,
                       "won_last_rounds": dict(zip(args.pool, np.round(np.mean(won[-10:], axis=0), 3).tolist())),
                       "pool_networks": networks, "commit": commit()}]  # fmt: skip
    save_networks(args.out, players, with_layers(weights, "policy", policy.layers), facts)
    print(f"wrote {args.out}/net-{players}p.npz and .json after {rounds} rounds")


if __name__ == "__main__":
    main()
