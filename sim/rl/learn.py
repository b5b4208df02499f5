"""Small multilayer perceptrons trained with numpy alone: what ``examples/train_net.py``
trains ``net``'s networks with (numpy trains them as fast as PyTorch does on 2 cores,
docs/learned.md, and needs nothing more installed).

A network is a list of (weight, bias) layers, weights of shape (inputs, outputs), ReLU
between layers: the layout ``strategies/nets.py`` packs for the kernels.

>>> rng = np.random.default_rng(0)
>>> net = MLP((4, 8, 2), rng)
>>> x = rng.random((16, 4)).astype(np.float32)
>>> target = (x[:, 0] > 0.5).astype(np.int64)
>>> before = cross_entropy(net.forward(x), np.ones((16, 2), bool), target)[0]
>>> for _ in range(200):
...     logits = net.forward(x)
...     loss, grad = cross_entropy(logits, np.ones((16, 2), bool), target)
...     net.step(net.backward(grad), rate=1e-2)
>>> bool(loss < before)
True
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import NoReturn

import numpy as np

from sim.base.config import ConfigError, parse_count
from sim.base.files import check_writable, write_atomically
from strategies.errors import StrategyError
from strategies.nets import (
    WEIGHTS,
    WEIGHTS_HASH,
    checked_weights,
    pack_file,
    provenance_path,
    weights_hash,
    weights_path,
)

BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8  # Adam's
DEALS_HELD_OUT = 0.05  # the share of deals (the last indices) kept out of training to judge it


class MLP:
    """A perceptron with ReLU hidden layers, trained by Adam."""

    def __init__(self, sizes, rng: np.random.Generator):
        self.layers = [
            (rng.normal(0, np.sqrt(2 / n_in), (n_in, n_out)).astype(np.float32), np.zeros(n_out, np.float32))
            for n_in, n_out in zip(sizes[:-1], sizes[1:])
        ]
        self._moments = [[np.zeros_like(a) for a in layer] for layer in self.layers for _ in (0, 1)]
        self._steps = 0
        self._inputs: list[np.ndarray] = []

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The outputs for ``x``; keeps what ``backward`` needs."""
        self._inputs = []
        return forward(self.layers, x, self._inputs)

    def backward(self, grad: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The gradient of each layer's (weight, bias), from the loss's gradient at the outputs."""
        grads = []
        for k in range(len(self.layers) - 1, -1, -1):
            x = self._inputs[k]
            grads.append((x.T @ grad, grad.sum(axis=0)))
            if k > 0:
                grad = (grad @ self.layers[k][0].T) * (x > 0)
        return grads[::-1]

    def step(self, grads, rate: float) -> None:
        """One Adam step."""
        self._steps += 1
        correction1, correction2 = 1 - BETA1**self._steps, 1 - BETA2**self._steps
        for k, (layer, layer_grads) in enumerate(zip(self.layers, grads)):
            first, second = self._moments[2 * k], self._moments[2 * k + 1]
            for param, grad, m, v in zip(layer, layer_grads, first, second):
                m *= BETA1
                m += (1 - BETA1) * grad
                v *= BETA2
                v += (1 - BETA2) * grad * grad
                param -= rate * (m / correction1) / (np.sqrt(v / correction2) + EPSILON)


def cross_entropy(logits: np.ndarray, mask: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """Softmax cross-entropy over the legal outputs (``mask``): the mean loss, and its
    gradient at the logits."""
    masked = np.where(mask, logits, -np.inf)
    masked -= masked.max(axis=1, keepdims=True)
    weights = np.exp(masked)
    probs = weights / weights.sum(axis=1, keepdims=True)
    rows = np.arange(len(target))
    loss = -np.log(np.maximum(probs[rows, target], 1e-12)).mean()
    grad = probs
    grad[rows, target] -= 1.0
    return float(loss), (grad / len(target)).astype(np.float32)


def forward(layers, x: np.ndarray, inputs: list | None = None) -> np.ndarray:
    """The outputs of the network ``layers`` (a list of (weight, bias)) for ``x``, ReLU
    between layers; each layer's input appended to ``inputs`` when given."""
    for k, (weight, bias) in enumerate(layers):
        if inputs is not None:
            inputs.append(x)
        x = x @ weight + bias
        if k < len(layers) - 1:
            x = np.maximum(x, 0.0)
    return x


def logistic_loss(logits: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """Binary cross-entropy of ``sigmoid(logits)`` against targets in [0, 1] of the same
    shape (or, for one output, ``(n,)``): the loss averaged over every output, and its
    gradient at the logits."""
    z = logits.astype(np.float64)
    target = target.reshape(z.shape)
    loss = np.mean(np.maximum(z, 0) - z * target + np.log1p(np.exp(-np.abs(z))))
    grad = (1.0 / (1.0 + np.exp(-z)) - target) / z.size
    return float(loss), grad.astype(np.float32)


def commit() -> str:
    """The code's commit, as ``git describe`` names it (``-dirty`` with changes not
    committed): where networks were trained, for their provenance."""
    import subprocess
    from pathlib import Path

    try:
        return subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=7"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def save_networks(folder: Path, players: int, weights: dict, facts: dict) -> None:
    """Writes a table's networks and their provenance, bound to them by the sha256 of the
    weights' file, into ``folder``, once the kernels are known to take them (``pack_file``
    checks every shape and value). Each file appears whole or not at all, so a run killed
    while saving leaves the weights it would have replaced (killed between the two, the
    provenance no longer matches the weights, and reading them says so)."""
    try:
        pack_file(weights, players)
    except StrategyError as error:  # a training that diverged: its NaN would play on as some card
        raise SystemExit(f"{script()}: the trained networks cannot be saved ({error}): nothing written") from None
    written = {}

    def write_weights(temporary: Path) -> None:
        with open(temporary, "wb") as file:  # a file object: np.savez would add ".npz" to a name
            np.savez(file, **weights)
        written[WEIGHTS_HASH] = weights_hash(temporary.read_bytes())

    write_atomically(weights_path(players, Path(folder)), write_weights)
    record = json.dumps({**facts, **written}, indent=1, allow_nan=False) + "\n"
    write_atomically(provenance_path(players, Path(folder)), lambda temporary: temporary.write_text(record))


def script() -> str:
    """The running script's name, for its messages."""
    return Path(sys.argv[0]).name


def refuse(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """A training script's bad input: one line on stderr naming it, exit code 2, before
    any work."""
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


class ScriptParser(argparse.ArgumentParser):
    """A training script's options: argparse's own errors (an unknown option, a value its
    type refuses) are one line too (``refuse``; argparse's would add its usage line)."""

    def error(self, message: str) -> NoReturn:
        refuse(self, message)


def whole(low: int, high: int | None = None, why: str = ""):
    """An option's type: a whole number written as the briscola command takes counts
    (``2000000``, ``2e6``: ``parse_count``), from ``low`` (to ``high``; ``why`` says why
    there), in argparse's one-line refusal otherwise.

    >>> whole(1)("2e6"), whole(0, 3)("3")
    (2000000, 3)
    """
    valid = f"valid: a whole number, {low:,} or more" if high is None else f"valid: {low:,} to {high:,}{why}"

    def parse(text: str) -> int:
        try:
            value = parse_count(text)
        except ConfigError as error:
            raise argparse.ArgumentTypeError(f"{error}; {valid}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value:,} is out of range; {valid}")
        return value

    return parse


def positive(text: str) -> float:
    """An option's type: a finite number above 0 (a learning rate, minutes)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number above 0; valid: such as 1e-3 or 20")
    return value


SEED = whole(0, 2**32 - 1)  # every script's --seed (the environments' seeds are made from it)


def add_folder_options(parser: argparse.ArgumentParser, reads: str) -> None:
    """``--weights`` and ``--out``, the folders every training script reads and writes.
    ``--out`` defaults to ``--weights``, but never to the shipped networks: a run replaces
    them only when told to by ``--out strategies/weights``."""
    parser.add_argument("--weights", type=Path, default=WEIGHTS,
                        help=f"folder to read {reads} from (default: the shipped networks, strategies/weights)")  # fmt: skip
    parser.add_argument("--out", type=Path, help="folder to write to (default: --weights, unless that is the shipped "
                        "networks' folder)")  # fmt: skip


def checked_folders(parser: argparse.ArgumentParser, args: argparse.Namespace, players: int, need: bool = True) -> dict:
    """Before any training: checks ``--out`` (``checked_out``), and reads the table's
    networks from ``--weights``, refusing a file that is not networks the kernels take
    ({}: none there, where not ``need``ed)."""
    checked_out(parser, args, players)
    if not weights_path(players, args.weights).is_file():
        if need:
            refuse(parser, f"--weights {args.weights} holds no net-{players}p.npz; valid: a folder of networks, such "
                           f"as strategies/weights or one a training script wrote")  # fmt: skip
        return {}
    try:
        return checked_weights(players, args.weights)
    except StrategyError as error:
        refuse(parser, f"--weights: {error}")


def checked_out(parser: argparse.ArgumentParser, args: argparse.Namespace, players: int) -> None:
    """Sets ``--out``'s default (``--weights``) and refuses, before any work, a default
    that would replace the shipped networks and a folder the table's networks cannot be
    written into."""
    if args.out is None:
        if Path(args.weights).resolve() == WEIGHTS:
            refuse(parser, "--out is needed: by default a run writes where --weights reads, here the shipped networks "
                           "(strategies/weights), which it replaces only when told; valid: --out FOLDER, or --out "
                           "strategies/weights to replace them")  # fmt: skip
        args.out = args.weights
    if args.out.exists() and not args.out.is_dir():
        refuse(parser, f"--out {args.out} is a file; valid: a folder, new or not, to write net-{players}p.npz and "
                       ".json into")  # fmt: skip
    for path in (weights_path(players, args.out), provenance_path(players, args.out)):
        if path.is_dir():
            refuse(parser, f"--out {args.out} holds a folder {path.name}, where the networks go; valid: a folder "
                           "without one")  # fmt: skip
    try:
        check_writable(weights_path(players, args.out), "--out")
    except ConfigError as error:
        refuse(parser, str(error))


def checked_study(parser: argparse.ArgumentParser, folder: Path):
    """``sim.load(folder)``, a study made by ``briscola batch``, or a one-line refusal."""
    from sim.pipeline.study import STUDY_FILE
    from sim.present.analysis import load

    if not (Path(folder) / STUDY_FILE).is_file():
        refuse(parser, f"--study {folder} is not a study's folder (no {STUDY_FILE}); valid: the out folder of "
                       "briscola batch PLAN")  # fmt: skip
    try:
        return load(folder)
    except (ValueError, OSError) as error:  # a damaged or foreign study: sim.load names what (ConfigError is one)
        refuse(parser, f"--study {error}")


def traced_experiments(study, players: int) -> list[str]:
    """The study's experiments at ``players`` that keep every deal move by move (``trace``):
    the data the training scripts read."""
    return [name for name in study.names
            if study.study.by_name[name].experiment.trace and study.experiment(name).config["players"] == players]  # fmt: skip


def held_out_split(deals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows to train on and those held out: rows whose deal index is at or above the
    rows' (1 - DEALS_HELD_OUT) quantile, so every row of a deal (its renamed copies too)
    stays on one side (the shipped networks were split so)."""
    if len(deals) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    held = deals >= np.quantile(deals, 1 - DEALS_HELD_OUT)
    return np.flatnonzero(~held), np.flatnonzero(held)


def checked_split(parser: argparse.ArgumentParser, train_rows: np.ndarray, held_rows: np.ndarray, batch: int) -> None:
    """Refuses data too small to hold some deals out, or a minibatch larger than the rows
    to train on: no step would run, and the untrained network would be written as if
    trained."""
    if len(train_rows) == 0 or len(held_rows) == 0:
        refuse(parser, f"--study holds too few deals to train on some and judge on others ({len(train_rows):,} rows "
                       f"to train on, {len(held_rows):,} held out); valid: a study of 40 deals or more")  # fmt: skip
    rows = len(train_rows)
    if not 1 <= batch <= rows:
        refuse(parser, f"--batch {batch} does not fit the {rows:,} rows to train on; valid: 1 to {rows:,} "
                       "(or a larger study)")  # fmt: skip


def vector_env():
    """``sim.rl.env.BriscolaVectorEnv``, or a one-line exit naming the extra it needs (the
    scripts that play deals: tuning and the value's self-play)."""
    try:
        from sim.rl.env import BriscolaVectorEnv
    except ImportError as missing:  # Gymnasium comes with the rl extra
        raise SystemExit(f"{script()}: {missing}") from None
    return BriscolaVectorEnv
