"""A batched plug-in that plays an ONNX model with onnxruntime (``onnx_mlp.onnx`` beside
it, written by ``export_policy.py``): the flat observation in, a score per card out; it
plays the legal card of highest score.

    briscola compare onnx-mlp expert --players 2 --strategy-file examples/agents/onnx_mlp.py

The model's bytes are read by Python (not by onnxruntime's C++), so they travel with the
file to Dask workers and enter the strategy's fingerprint.
"""

from pathlib import Path

import numpy as np
import onnxruntime

from strategies.api import Strategy
from strategies.observation import encode_flat

OPTIONS = onnxruntime.SessionOptions()
OPTIONS.intra_op_num_threads = 1  # a small model: one thread is enough (docs/agents.md: bigger ones, int8)
SESSION = onnxruntime.InferenceSession(Path(__file__).with_name("onnx_mlp.onnx").read_bytes(), OPTIONS,
                                       providers=["CPUExecutionProvider"])  # fmt: skip
VERSION = 1  # of the flat encoding: the numpy MLP's, exported


def choose(views, legal, params, keys):
    (scores,) = SESSION.run(None, {"obs": encode_flat(views, trained_at=2, version=VERSION)})
    return np.where(legal, scores, -np.inf).argmax(axis=1)


ONNX_MLP = Strategy("onnx-mlp", 1, "an MLP run by onnxruntime", choose=choose, batched=True, tables=(2,))
