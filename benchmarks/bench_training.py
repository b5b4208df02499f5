"""Which library trains ``net``'s networks: PyTorch against numpy alone (sim/rl/learn.py), side by side.

The same policy network as examples/train_net.py (207 -> 128 -> 64 -> 40, ReLU, a
softmax cross-entropy over the legal cards), the same Adam steps on minibatches of
1,024 random observations, timed alternately in one run; on ``--threads`` threads.

    .venv/bin/python benchmarks/bench_training.py --threads 2
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sim.rl.learn import MLP, cross_entropy

SIZES = (207, 128, 64, 40)
BATCH = 1024


def batches(rng, n):
    for _ in range(n):
        obs = (rng.random((BATCH, SIZES[0])) < 0.1).astype(np.float32)
        mask = rng.random((BATCH, 40)) < 0.1
        mask[np.arange(BATCH), rng.integers(0, 40, BATCH)] = True
        target = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        yield obs, mask, target


class NumpyMLP:
    """sim/rl/learn.py's: what examples/train_net.py trains with."""

    def __init__(self, rng):
        self.net = MLP(SIZES, rng)

    def step(self, obs, mask, target):
        _, grad = cross_entropy(self.net.forward(obs), mask, target)
        self.net.step(self.net.backward(grad), rate=1e-3)


class TorchMLP:
    def __init__(self, torch):
        self.torch = torch
        layers = []
        for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
            layers += [torch.nn.Linear(n_in, n_out), torch.nn.ReLU()]
        self.net = torch.nn.Sequential(*layers[:-1])
        self.optimiser = torch.optim.Adam(self.net.parameters(), lr=1e-3)

    def step(self, obs, mask, target):
        torch = self.torch
        logits = self.net(torch.from_numpy(obs)).masked_fill(~torch.from_numpy(mask), -1e9)
        loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(target))
        self.optimiser.zero_grad()
        loss.backward()
        self.optimiser.step()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    data = list(batches(rng, args.steps))
    learners = {"numpy": NumpyMLP(rng), "torch": TorchMLP(torch)}
    rates = {name: [] for name in learners}
    with threadpool_limits(args.threads):
        for _ in range(args.rounds):
            for name, learner in learners.items():
                started = time.perf_counter()
                for obs, mask, target in data:
                    learner.step(obs, mask, target)
                rates[name].append(args.steps * BATCH / (time.perf_counter() - started))
    best = {name: max(r) for name, r in rates.items()}
    for name, rate in best.items():
        print(f"{name}: {rate:,.0f} samples/s (best of {args.rounds}, {args.threads} threads)")
    print(f"torch / numpy: {best['torch'] / best['numpy']:.2f}x")


if __name__ == "__main__":
    main()
