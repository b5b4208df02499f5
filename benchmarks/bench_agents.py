"""Batched agents and the training environment, timed side by side in one run.

    .venv/bin/python benchmarks/bench_agents.py            # about 3 minutes; needs the rl and onnx extras
    .venv/bin/python benchmarks/bench_agents.py --quick    # a rough look

1. The vector environment: learning-seat steps per second on one thread at 2 players,
   the flat observation written every step, against ``random`` and against ``expert``;
   beside it the same game stepped one deal at a time by a plain Python loop
   (``BriscolaEnv``, the single form, as environments written in Python step).
2. A trivial numpy policy (a fixed score per card) as a batched strategy, in the whole
   ``briscola simulate`` command at 2 players on one thread: decisions per second, and
   the same policy written as a jitted strategy, run alike (the lock-step overhead).
3. An ONNX MLP of BriscolaBot's size (the flat encoding's 207 inputs -> 256 -> 256 -> 40),
   random weights, run by onnxruntime in ``briscola simulate`` at 2 players: deals per second.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

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
from pathlib import Path
import numpy as np
import onnxruntime
from strategies.api import Strategy
from strategies.observation import encode_flat

OPTIONS = onnxruntime.SessionOptions()
OPTIONS.intra_op_num_threads = 1
SESSION = onnxruntime.InferenceSession(Path(__file__).with_name("mlp.onnx").read_bytes(), OPTIONS,
                                       providers=["CPUExecutionProvider"])


def choose(views, legal, params, keys):
    (scores,) = SESSION.run(None, {"obs": encode_flat(views)})
    return np.where(legal, scores, -np.inf).argmax(axis=1)


MLP = Strategy("onnx-256", 1, "207-256-256-40 MLP, random weights", choose=choose, batched=True)
"""


def env_steps(opponents: str, seconds: float) -> float:
    from sim.env import BriscolaVectorEnv

    env = BriscolaVectorEnv(num_envs=4096, players=2, opponents=opponents, threads=1, copy=False)
    obs, info = env.reset(seed=1)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        obs, reward, terminated, truncated, info = env.step(info["action_mask"].argmax(axis=1))
        steps += env.num_envs
    return steps / (time.perf_counter() - started)


def python_loop_steps(opponents: str, seconds: float) -> float:
    from sim.env import BriscolaEnv

    env = BriscolaEnv(players=2, opponents=opponents, threads=1)
    obs, info = env.reset(seed=1)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
        steps += 1
        if terminated:
            obs, info = env.reset()
    return steps / (time.perf_counter() - started)


def command_seconds(folder: Path, strategies: str, deals: int, plug_in: str) -> float:
    """Wall seconds of the whole ``briscola simulate`` command, as a user runs it."""
    args = [sys.executable, "-m", "sim.cli", "simulate", "--strategies", strategies, "--players", "2",
            "--deals", str(deals), "--seed", "1", "--threads", "1", "--strategy-file", plug_in,
            "--summary-only", "--quiet", "--json"]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(args, cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), "OPENBLAS_NUM_THREADS": "1"})  # fmt: skip
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


def main() -> None:
    parser = argparse.ArgumentParser(description="Batched agents and the environment, side by side.")
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    seconds = 2.0 if quick else 6.0
    print("1. the environment, 2 players, one thread, learning-seat steps/s (flat observation every step)")
    for opponents in ("random", "expert"):
        env_steps(opponents, 0.5)  # compiled and warm
        fast, loop = env_steps(opponents, seconds), python_loop_steps(opponents, seconds / 2)
        print(
            f"   against {opponents:6}: vector env (4,096 deals) {fast:12,.0f}   one deal at a time in "
            f"Python {loop:9,.0f}   ratio {fast / loop:6.1f}x"
        )
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
        mlp_deals = 20_000 if quick else 100_000
        command_seconds(folder, "onnx-256,random", 1000, "mlp.py")
        mlp = min(command_seconds(folder, "onnx-256,random", mlp_deals, "mlp.py") for _ in range(2))
        print(f"3. ONNX MLP 207-256-256-40, briscola simulate onnx-256,random, {mlp_deals:,} deals, one thread")
        print(
            f"   {mlp_deals / mlp:12,.0f} deals/s ({mlp:.1f} s, whole command; {mlp_deals * 20 / mlp:,.0f} decisions/s)"
        )


if __name__ == "__main__":
    main()
