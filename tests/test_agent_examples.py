"""The agent examples as a researcher uses them: the trained numpy MLP in ``compare``, the
same network through onnxruntime and PyTorch choosing the same cards, its weights in its
identity and on Dask workers, and the training script, shortened."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from sim.base.config import RunConfig
from sim.runtime.play import play_batch
from strategies.observation import flat_size
from strategies.registry import load_strategy_file
from tests.helpers import REPO, dataset, run_cli, run_here

AGENTS = REPO / "examples" / "agents"


def plays(name: str, file: str, deals: int = 300):
    config = RunConfig(players=2, strategies=(name, "random"), deals=deals, seed=21, threads=1,
                       strategy_files=(str(AGENTS / file),))  # fmt: skip
    return play_batch(config, 0, deals, trace=True).records["plays"]


def test_the_trained_numpy_mlp_beats_random(tmp_path):
    done = run_here("compare", "numpy-mlp", "random", "--players", "2", "--deals", "1000", "--seed", "5",
                    "--strategy-file", AGENTS / "numpy_mlp.py", "--json", "--summary-only", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["score_ci95"][0] > 0.75


@pytest.mark.parametrize("name, file, package", [("onnx-mlp", "onnx_mlp.py", "onnxruntime"),
                                                 ("torch-mlp", "torch_mlp.py", "torch")])  # fmt: skip
def test_onnx_and_pytorch_play_the_numpy_networks_cards(name, file, package):
    pytest.importorskip(package)
    assert np.array_equal(plays(name, file), plays("numpy-mlp", "numpy_mlp.py"))


def test_the_exported_models_are_the_numpy_weights(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    torch = pytest.importorskip("torch")
    for name in ("export_policy.py", "numpy_mlp.npz"):
        shutil.copy(AGENTS / name, tmp_path)
    done = subprocess.run([sys.executable, "export_policy.py"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    weights = np.load(AGENTS / "numpy_mlp.npz")
    graph = {t.name: numpy_helper.to_array(t) for t in onnx.load(tmp_path / "onnx_mlp.onnx").graph.initializer}
    assert all(np.array_equal(graph[k], weights[k]) for k in ("w1", "b1", "w2", "b2"))
    state = torch.load(tmp_path / "torch_mlp.pt", weights_only=True)
    assert np.array_equal(state["0.weight"].numpy().T, weights["w1"])


def test_the_weights_are_part_of_the_strategys_identity(tmp_path):
    for name in ("numpy_mlp.py", "numpy_mlp.npz"):
        shutil.copy(AGENTS / name, tmp_path)
    (first,) = load_strategy_file(tmp_path / "numpy_mlp.py")
    assert any(f.endswith("numpy_mlp.npz") for f in first.files)  # found as it loaded: it travels with the file
    weights = dict(np.load(tmp_path / "numpy_mlp.npz"))
    weights["b2"] = weights["b2"] + 1.0
    np.savez(tmp_path / "numpy_mlp.npz", **weights)
    (second,) = load_strategy_file(tmp_path / "numpy_mlp.py")
    assert second.fingerprint() != first.fingerprint()  # each the bytes it loaded


def test_a_batched_plug_in_with_weights_plays_on_dask_as_here(tmp_path):
    pytest.importorskip("distributed")
    for name in ("numpy_mlp.py", "numpy_mlp.npz"):
        shutil.copy(AGENTS / name, tmp_path)
    (tmp_path / "plan.toml").write_text('seed = 4\nstrategy_files = ["numpy_mlp.py"]\n[[compare]]\nname = "mlp"\n'
                                        'a = "numpy-mlp"\nb = "greedy"\ndeals = 400\n')  # fmt: skip
    env = {"PYTHONPATH": str(REPO)}
    local = run_cli("batch", "plan.toml", "--out", "local", "--chunk-deals", "200", "--quiet", cwd=tmp_path, env=env)
    assert local.returncode == 0, local.stderr
    there = run_cli("batch", "plan.toml", "--out", "dask", "--chunk-deals", "200", "--backend", "dask", "--workers",
                    "1", "--quiet", cwd=tmp_path, env=env)  # fmt: skip
    assert there.returncode == 0, there.stderr
    pd.testing.assert_frame_equal(dataset(tmp_path / "dask"), dataset(tmp_path / "local"))


@pytest.mark.slow  # statistical: learning shows only after 51,200 deals of training; CI runs it (-m slow)
def test_the_training_script_learns_and_the_plug_in_plays_what_it_saved(tmp_path):
    """A shortened run (100 rounds of 512 deals, about 30 s) already plays well above
    chance: an untrained policy scores about 0.5 against random."""
    sys.path.insert(0, str(REPO / "examples"))
    try:
        import train_policy
    finally:
        sys.path.remove(str(REPO / "examples"))
    out = tmp_path / "numpy_mlp.npz"
    train_policy.train(deals=100 * 512, envs=512, seed=3, out=out, quiet=True)
    shutil.copy(AGENTS / "numpy_mlp.py", tmp_path)
    done = run_here("compare", "numpy-mlp", "random", "--players", "2", "--deals", "1000", "--seed", "5",
                    "--strategy-file", tmp_path / "numpy_mlp.py", "--json", "--summary-only", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["score"] > 0.6  # 0.735 here (seed 4 of training: 0.733)


def test_the_docs_first_agent_plays_from_any_folder(tmp_path):
    """docs/agents.md's first example, with weights beside it, run from another folder
    (it read its weights from the working folder, so it failed there and on Dask)."""
    import re

    source = re.search(r"```python\n(.*?)```", (REPO / "docs" / "agents.md").read_text(), re.S).group(1)
    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / "my_agent.py").write_text(source)
    np.savez(folder / "weights.npz", w=np.random.default_rng(1).normal(size=(flat_size(2), 40)))
    done = run_here("compare", "my-agent", "random", "--players", "2", "--deals", "200", "--seed", "1",
                    "--strategy-file", folder / "my_agent.py", "--json", "--summary-only", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    elsewhere = run_here("compare", "my-agent", "random", "--players", "3", "--deals", "10", "--seed", "1",
                         "--strategy-file", folder / "my_agent.py", "--summary-only", cwd=tmp_path)  # fmt: skip
    assert elsewhere.returncode == 2 and "is not played at 3 players" in elsewhere.stderr
