"""Batched agents and the training environment, timed side by side in one run.

    .venv/bin/python benchmarks/bench_agents.py            # about 5 minutes; needs the rl and onnx extras
    .venv/bin/python benchmarks/bench_agents.py --quick    # a rough look

1. The vector environment: learning-seat steps per second on one thread at 2 players,
   the flat observation written every step, against ``random`` and against ``expert``.
   Beside it, in the same run: the environment's single form (``BriscolaEnv``, one deal
   at a time from a Python loop), and against ``random`` a plain Python environment, as
   the Briscola environments written in Python are: the rules of ``sim/base/reference.py``,
   the learner's view as Python lists, the same flat observation built from it with
   numpy at every step (a step: the learner's card and the opponent's). Then PettingZoo's
   AEC form (``BriscolaAEC``, every seat learning: a step is one card, the observation
   and mask of the next seat written), driven as PettingZoo's own loop drives it. The
   vector environment against a batched opponent (the numpy MLP of examples/agents/, in
   lock-step). And what encoding a view costs beside stepping it.
2. A trivial numpy policy (a fixed score per card) as a batched strategy, in the whole
   ``briscola simulate`` command at 2 players on one thread: decisions per second, and
   the same policy written as a jitted strategy, run alike (the lock-step overhead).
3. An ONNX MLP of BriscolaBot's size (the flat encoding's 207 inputs -> 256 -> 256 -> 40),
   random weights, run by onnxruntime in ``briscola simulate`` at 2 players: deals per
   second, in float32 and with its weights quantized to int8, on one thread and on both
   cores (the kernels and onnxruntime take turns: lock-step).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sim.base.reference import Game  # noqa: E402 - after the path is set

VERSION = 1  # of the flat encoding, everywhere here: 207 values at 2 players, as the figures were first measured

FIXED = """
import numpy as np
from numba import njit
from strategies.api import Strategy

SCORE = np.random.default_rng(0).random(40)


def choose(views, legal, params, keys):
    return np.where(legal, SCORE, -1.0).argmax(axis=1)


@njit
def choose_nb(view, params, rng):
    best = view.hand[0]
    for k in range(view.n_hand):
        best = view.hand[k] if SCORE[view.hand[k]] > SCORE[best] else best
    return best


FIXED = Strategy("fixed", 1, "a fixed score per card, batched", choose=choose, batched=True)
FIXED_NB = Strategy("fixed-nb", 1, "a fixed score per card, jitted", choose=choose_nb)
"""

ONNX = """
import os
from pathlib import Path
import numpy as np
import onnxruntime
from strategies.api import Strategy
from strategies.observation import encode_flat

OPTIONS = onnxruntime.SessionOptions()
OPTIONS.intra_op_num_threads = int(os.environ.get("MLP_THREADS", "1"))
OPTIONS.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no spinning beside the kernels
MODEL = Path(__file__).with_name(os.environ.get("MLP_MODEL", "mlp.onnx"))
SESSION = onnxruntime.InferenceSession(MODEL.read_bytes(), OPTIONS, providers=["CPUExecutionProvider"])


def choose(views, legal, params, keys):
    (scores,) = SESSION.run(None, {"obs": encode_flat(views, version=1)})
    return np.where(legal, scores, -np.inf).argmax(axis=1)


MLP = Strategy("onnx-256", 1, "207-256-256-40 MLP, random weights", choose=choose, batched=True)
"""


NUMPY_MLP = str(REPO / "examples" / "agents" / "numpy_mlp.py")  # a batched numpy network, 207-128-40


def env_steps(opponents: str, seconds: float) -> float:
    from sim.rl.env import BriscolaVectorEnv

    env = BriscolaVectorEnv(num_envs=4096, players=2, opponents=opponents, threads=1, copy=False,
                            strategy_files=(NUMPY_MLP,), flat_version=VERSION)  # fmt: skip
    obs, info = env.reset(seed=1)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        obs, reward, terminated, truncated, info = env.step(info["action_mask"].argmax(axis=1))
        steps += env.num_envs
    return steps / (time.perf_counter() - started)


class PlainPythonEnv:
    """2-player Briscola against a uniformly random opponent, in plain Python: the
    learner is seat 0; ``step`` plays its card, the opponent's, ends the trick when it is
    full and returns the learner's next observation (flat layout), reward and mask."""

    def __init__(self, seed: int):
        from strategies.observation import flat_layout

        self._random = random.Random(seed)
        self._at = {name: start for name, start, _, _ in flat_layout(2, VERSION)}

    def reset(self):
        deck = list(range(40))
        self._random.shuffle(deck)
        self.game = Game(2, [deck[0:3], deck[3:6]], deck[6], deck[7:])
        self.briscola, self.played = deck[6], []
        if self.game.to_play == 1:
            self._opponent()
        return self._observe()

    def step(self, card: int):
        game, before = self.game, self.game.points[0]
        game.play(card)
        self.played.append((0, card))
        if len(game.table) < 2:
            self._opponent()
        self._end_trick_if_full()
        if not game.over and game.to_play == 1:
            self._opponent()
            self._end_trick_if_full()
        obs, mask = self._observe()
        return obs, (game.points[0] - before) / 120, game.over, mask

    def _opponent(self):
        card = self._random.choice(self.game.hands[1])
        self.game.play(card)
        self.played.append((1, card))

    def _end_trick_if_full(self):
        if len(self.game.table) == 2:
            self.game.end_trick()

    def _observe(self):
        game, at = self.game, self._at
        obs, mask = np.zeros(207, dtype=np.float32), np.zeros(40, dtype=np.bool_)
        obs[[at["hand"] + c for c in game.hands[0]]] = 1.0
        mask[game.hands[0]] = True
        if game.draw_pile:
            obs[at["briscola"] + self.briscola] = 1.0
        for position, card in enumerate(game.table):
            obs[at["table"] + 40 * position + card] = 1.0
        on_table = len(game.table)
        for seat, card in self.played[: len(self.played) - on_table]:
            obs[at["played"] + 40 * seat + card] = 1.0
        obs[at["trump"] + game.trump_suit] = 1.0
        obs[at["points"] : at["points"] + 2] = np.array(game.points) / 120
        obs[at["stock"]] = len(game.draw_pile) / 40
        return obs, mask


def encoding_cost(seconds: float) -> tuple[float, float]:
    """Nanoseconds a view of ``encode_flat`` + ``legal_mask`` (a batched strategy's calls)
    on the 4,096 views of an environment in mid-deal, and of the environment's step."""
    from sim.rl.env import BriscolaVectorEnv
    from strategies.observation import encode_flat, legal_mask

    env = BriscolaVectorEnv(num_envs=4096, players=2, opponents="random", threads=1, copy=False,
                            flat_version=VERSION)  # fmt: skip
    obs, info = env.reset(seed=1)
    for _ in range(7):
        obs, *_, info = env.step(info["action_mask"].argmax(axis=1))
    views = env._lanes.views[:, 1].copy()
    out, calls, started = np.empty((len(views), 207), dtype=np.float32), 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        encode_flat(views, out, version=VERSION), legal_mask(views)
        calls += 1
    encode = (time.perf_counter() - started) / calls / len(views) * 1e9
    return encode, 1e9 / env_steps("random", seconds)


def plain_python_steps(seconds: float) -> float:
    env = PlainPythonEnv(seed=1)
    obs, mask = env.reset()
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        obs, reward, over, mask = env.step(int(mask.argmax()))
        steps += 1
        if over:
            obs, mask = env.reset()
    return steps / (time.perf_counter() - started)


def single_env_steps(opponents: str, seconds: float) -> float:
    from sim.rl.env import BriscolaEnv

    env = BriscolaEnv(players=2, opponents=opponents, threads=1, flat_version=VERSION)
    obs, info = env.reset(seed=1)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
        steps += 1
        if terminated:
            obs, info = env.reset()
    return steps / (time.perf_counter() - started)


def aec_steps(seconds: float) -> float:
    """Steps per second of ``BriscolaAEC`` at 2 players: ``last()`` then ``step()`` with the
    first legal card, as PettingZoo's ``agent_iter`` loop does; a new deal at each end."""
    from sim.rl.aec import BriscolaAEC

    env = BriscolaAEC(players=2, auction="random", flat_version=VERSION)
    env.reset(seed=1)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(int(observation["action_mask"].argmax()))
        steps += 1
    return steps / (time.perf_counter() - started)


def command_seconds(folder: Path, strategies: str, deals: int, plug_in: str, threads: int = 1, **env) -> float:
    """Wall seconds of the whole ``briscola simulate`` command, as a user runs it."""
    args = [sys.executable, "-m", "sim.app.cli", "simulate", "--strategies", strategies, "--players", "2",
            "--deals", str(deals), "--seed", "1", "--threads", str(threads), "--strategy-file", plug_in,
            "--summary-only", "--quiet", "--json"]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(args, cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), "OPENBLAS_NUM_THREADS": "1", **env})  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    json.loads(done.stdout)
    return time.perf_counter() - started


def write_onnx(path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    sizes = [207, 256, 256, 40]
    weights, nodes, last = [], [], "obs"
    for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        weights += [numpy_helper.from_array(rng.normal(0, n_in**-0.5, (n_in, n_out)).astype(np.float32), f"w{k}"),
                    numpy_helper.from_array(np.zeros(n_out, dtype=np.float32), f"b{k}")]  # fmt: skip
        nodes += [helper.make_node("MatMul", [last, f"w{k}"], [f"m{k}"]),
                  helper.make_node("Add", [f"m{k}", f"b{k}"], [f"a{k}"])]  # fmt: skip
        last = f"a{k}"
        if k < 2:
            nodes.append(helper.make_node("Relu", [last], [f"r{k}"]))
            last = f"r{k}"
    nodes.append(helper.make_node("Identity", [last], ["scores"]))
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["n", 207])],
                              [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["n", 40])], weights)  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def write_quantized(model: Path, path: Path) -> None:
    """The same network with int8 weights, as onnxruntime's dynamic quantization makes it
    (activations quantized at each call; VNNI instructions where the CPU has them)."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.getLogger().setLevel(logging.ERROR)  # its advice to pre-process first
    quantize_dynamic(model, path, weight_type=QuantType.QInt8)


def main() -> None:
    parser = argparse.ArgumentParser(description="Batched agents and the environment, side by side.")
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    seconds = 2.0 if quick else 6.0
    print("1. the environment, 2 players, one thread, learning-seat steps/s (flat observation every step)")
    plain = 0.0
    for opponents in ("random", "expert"):
        env_steps(opponents, 0.5)  # compiled and warm
        fast, single = env_steps(opponents, seconds), single_env_steps(opponents, seconds / 2)
        line = f"   against {opponents:6}: vector env (4,096 deals) {fast:12,.0f}   single form {single:9,.0f}"
        if opponents == "random":
            plain = plain_python_steps(seconds / 2)
            line += (f"   plain Python env {plain:9,.0f}   vector / plain {fast / plain:6.1f}x"
                     f"   single / plain {single / plain:4.1f}x")  # fmt: skip
        print(line)
    env_steps("numpy-mlp", 0.5)
    mlp = env_steps("numpy-mlp", seconds)
    print(f"   against examples/agents/numpy_mlp.py (batched, in lock-step): vector env {mlp:12,.0f}")
    aec_steps(0.5)
    aec = aec_steps(seconds / 2)
    print(f"   PettingZoo AEC (every seat learning; a step is one card): {aec:9,.0f}   AEC / plain {aec / plain:4.1f}x")
    encode, step = encoding_cost(seconds / 2)
    print(f"   encode_flat + legal_mask of a view: {encode:.0f} ns, beside the environment's step of it: {step:.0f} ns")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "fixed.py").write_text(FIXED)
        (folder / "mlp.py").write_text(ONNX)
        write_onnx(folder / "mlp.onnx")
        deals = 50_000 if quick else 200_000
        for strategies in ("fixed,random", "fixed-nb,random"):
            command_seconds(folder, strategies, 1000, "fixed.py")  # warm caches
        batched = min(command_seconds(folder, "fixed,random", deals, "fixed.py") for _ in range(2))
        jitted = min(command_seconds(folder, "fixed-nb,random", deals, "fixed.py") for _ in range(2))
        print(f"2. a fixed score per card, briscola simulate fixed,random, {deals:,} deals, one thread (whole command)")
        print(
            f"   batched (numpy): {deals * 20 / batched:12,.0f} decisions/s ({batched:.1f} s)   jitted: "
            f"{deals * 20 / jitted:12,.0f} decisions/s ({jitted:.1f} s)   lock-step costs {batched / jitted:.2f}x"
        )
        write_quantized(folder / "mlp.onnx", folder / "mlp-int8.onnx")
        mlp_deals = 20_000 if quick else 200_000
        print(f"3. ONNX MLP 207-256-256-40, briscola simulate onnx-256,random, {mlp_deals:,} deals (whole command)")
        for model, threads in (("mlp.onnx", 1), ("mlp.onnx", 2), ("mlp-int8.onnx", 1), ("mlp-int8.onnx", 2)):
            env = {"MLP_MODEL": model, "MLP_THREADS": str(threads)}
            command_seconds(folder, "onnx-256,random", 1000, "mlp.py", threads, **env)
            mlp = min(command_seconds(folder, "onnx-256,random", mlp_deals, "mlp.py", threads, **env) for _ in range(2))
            kind = "float32" if model == "mlp.onnx" else "int8 weights (quantize_dynamic)"
            print(f"   {kind:32} --threads {threads} (onnxruntime too): {mlp_deals / mlp:9,.0f} deals/s ({mlp:.1f} s)")


if __name__ == "__main__":
    main()
