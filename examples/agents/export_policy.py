"""Writes the numpy MLP's weights (``numpy_mlp.npz``) as an ONNX model and as a PyTorch
state dict, for the ONNX and PyTorch plug-ins beside this file:

    .venv/bin/python examples/agents/export_policy.py    # needs the onnx and torch extras

The three plug-ins then play the same policy (the tests check they choose alike).
"""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def to_onnx(weights: dict, path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    size, hidden = weights["w1"].shape
    nodes = [
        helper.make_node("MatMul", ["obs", "w1"], ["h1"]), helper.make_node("Add", ["h1", "b1"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["r1"]), helper.make_node("MatMul", ["r1", "w2"], ["h2"]),
        helper.make_node("Add", ["h2", "b2"], ["scores"]),
    ]  # fmt: skip
    graph = helper.make_graph(
        nodes, "briscola-mlp",
        [helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", size])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", 40])],
        [numpy_helper.from_array(weights[k].astype(np.float32), k) for k in ("w1", "b1", "w2", "b2")],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # read by every onnxruntime of the last years
    onnx.checker.check_model(model)
    onnx.save(model, path)


def to_torch(weights: dict, path: Path) -> None:
    import torch

    state = {"0.weight": weights["w1"].T, "0.bias": weights["b1"], "2.weight": weights["w2"].T, "2.bias": weights["b2"]}
    torch.save({k: torch.tensor(np.ascontiguousarray(v)) for k, v in state.items()}, path)


if __name__ == "__main__":
    weights = dict(np.load(HERE / "numpy_mlp.npz"))
    to_onnx(weights, HERE / "onnx_mlp.onnx")
    to_torch(weights, HERE / "torch_mlp.pt")
    print(f"wrote {HERE / 'onnx_mlp.onnx'} and {HERE / 'torch_mlp.pt'}")
