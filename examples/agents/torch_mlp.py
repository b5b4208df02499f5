"""A batched plug-in that plays a PyTorch module (its state dict, ``torch_mlp.pt`` beside
it, written by ``export_policy.py``): the flat observation in, a score per card out; it
plays the legal card of highest score.

    briscola compare torch-mlp expert --players 2 --strategy-file examples/agents/torch_mlp.py

``torch.load`` reads the file through Python, so it travels with the plug-in to Dask
workers and its bytes enter the strategy's fingerprint.
"""

from pathlib import Path

import numpy as np
import torch

from strategies.api import Strategy
from strategies.observation import encode_flat, flat_size

torch.set_num_threads(1)  # the kernels already run a thread per core
STATE = torch.load(Path(__file__).with_name("torch_mlp.pt"), weights_only=True)
VERSION = 1  # of the flat encoding: the numpy MLP's, exported
MODEL = torch.nn.Sequential(torch.nn.Linear(flat_size(2, VERSION), STATE["0.weight"].shape[0]), torch.nn.ReLU(),
                            torch.nn.Linear(STATE["0.weight"].shape[0], 40))  # fmt: skip
MODEL.load_state_dict(STATE)
MODEL.eval()


def choose(views, legal, params, keys):
    with torch.no_grad():
        scores = MODEL(torch.from_numpy(encode_flat(views, trained_at=2, version=VERSION))).numpy()
    return np.where(legal, scores, -np.inf).argmax(axis=1)


TORCH_MLP = Strategy("torch-mlp", 1, "a PyTorch MLP", choose=choose, batched=True, tables=(2,))
