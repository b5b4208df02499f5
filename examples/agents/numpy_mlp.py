"""A batched plug-in that plays a trained numpy MLP (``numpy_mlp.npz`` beside it, as
``examples/train_policy.py`` writes it): the flat observation -> 128 ReLU units -> a score
per card; it plays the legal card of highest score.

    briscola compare numpy-mlp expert --players 2 --strategy-file examples/agents/numpy_mlp.py

The weights are read by Python as the file loads, so they travel with it to Dask workers
and their bytes enter the strategy's fingerprint.
"""

from pathlib import Path

import numpy as np

from strategies.api import Strategy
from strategies.observation import encode_flat

WEIGHTS = dict(np.load(Path(__file__).with_name("numpy_mlp.npz")))
VERSION = 1  # of the flat encoding: the one train_policy.py trains on


def choose(views, legal, params, keys):
    hidden = np.maximum(encode_flat(views, trained_at=2, version=VERSION) @ WEIGHTS["w1"] + WEIGHTS["b1"], 0.0)
    scores = hidden @ WEIGHTS["w2"] + WEIGHTS["b2"]
    return np.where(legal, scores, -np.inf).argmax(axis=1)


NUMPY_MLP = Strategy(
    "numpy-mlp", 1, "a numpy MLP trained by examples/train_policy.py", choose=choose, batched=True, tables=(2,)
)  # trained on 2-player observations
