"""``net``: a learned policy played alone (jitted code only).

Its data (strategies/nets.py packs it) is one float32 vector, read-only, per table:

    [FORMAT, width, policy at, value at, offsets of the flat encoding (N_SEGMENTS + 1)...,
     networks...]

and each network a multilayer perceptron: ``[n_layers, size_0, ..., size_n]``, then per
layer its weights (``size_in x size_out``, row-major: an input's weights lie together)
and its biases; ReLU between layers. The input is the flat encoding of the view
(kernels/observe_nb.py), mostly zeros: the first layer adds the rows of the inputs that
are not zero. The policy's last layer is computed for the cards in hand only.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.enums import N_CARDS
from kernels.observe_nb import N_SEGMENTS, encode_flat_nb
from kernels.rng_nb import rng_uniform_nb
from strategies.auction_nb import best_call_nb, bid_at_threshold_nb
from strategies.expert_nb import throw_cost_nb

FORMAT = 1  # bump with the layout above
HEAD_FORMAT, HEAD_WIDTH, HEAD_POLICY, HEAD_VALUE, HEAD_OFFSETS = 0, 1, 2, 3, 4
MAX_WIDTH = 512  # the widest layer a network may have
TEMPERATURE, BID_THRESHOLD = 0, 1  # parameters


# The work arrays of a network's evaluation: the flat encoding's offsets, the input, two
# layers' activations (each layer written into the one the last did not use), and the
# indices of a layer's inputs that are not zero.
NetWork = namedtuple("NetWork", ["offsets", "x", "a", "b", "rows"])


@njit(cache=True)
def new_work_nb(data):
    """A ``NetWork`` for the networks ``data`` holds (made once per decision)."""
    offsets = np.empty(N_SEGMENTS + 1, dtype=np.int64)
    for k in range(N_SEGMENTS + 1):
        offsets[k] = int(data[HEAD_OFFSETS + k])
    width = int(data[HEAD_WIDTH])
    return NetWork(offsets, np.empty(width, dtype=np.float32), np.empty(MAX_WIDTH, dtype=np.float32),
                   np.empty(MAX_WIDTH, dtype=np.float32), np.empty(max(width, MAX_WIDTH), dtype=np.int64))  # fmt: skip


@njit(cache=True)
def no_work_nb():
    """A ``NetWork`` of empty arrays, for a search that evaluates no network."""
    nothing = np.empty(0, dtype=np.float32)
    return NetWork(np.empty(0, dtype=np.int64), nothing, nothing, nothing, np.empty(0, dtype=np.int64))


@njit(cache=True, fastmath=True)
def dense_nb(data, cursor, x, n_in, n_out, out, rows):
    """``out = relu(x @ W + b)`` for the layer whose weights start at ``data[cursor]``;
    returns where the next layer starts. Only the rows of the inputs that are not zero
    are added: their indices are gathered first, without a branch (skipping them with an
    ``if`` mispredicted so often that a 207-128-64 pass took 1.9 us, not 1.1), and the
    weights are read as a 2-D array (indexed by a flat offset, the loop vectorized worse).
    ``rows``: scratch for ``n_in`` indices."""
    biases = cursor + n_in * n_out
    weights = data[cursor:biases].reshape((n_in, n_out))
    n_rows = 0
    for i in range(n_in):
        rows[n_rows] = i
        n_rows += x[i] != 0.0
    for j in range(n_out):
        out[j] = data[biases + j]
    for k in range(n_rows):
        i = rows[k]
        value = x[i]
        for j in range(n_out):
            out[j] += value * weights[i, j]
    for j in range(n_out):
        out[j] = max(out[j], np.float32(0.0))
    return biases + n_out


@njit(cache=True)
def hidden_nb(data, at, work):
    """The network at ``data[at:]`` run on ``work.x`` up to its last hidden layer: the
    array holding that layer's activations, and where the last layer's weights start."""
    n_layers = int(data[at])
    cursor = at + 2 + n_layers
    current = work.x
    for layer in range(n_layers - 1):
        out = work.a if layer % 2 == 0 else work.b
        cursor = dense_nb(data, cursor, current, int(data[at + 1 + layer]), int(data[at + 2 + layer]), out, work.rows)
        current = out
    return current, cursor


@njit(cache=True, fastmath=True)
def output_nb(data, at, hidden, cursor, column):
    """One output (``column``) of the network at ``data[at:]``, from its last hidden layer."""
    n_layers = int(data[at])
    n_in, n_out = int(data[at + n_layers]), int(data[at + 1 + n_layers])
    total = data[cursor + n_in * n_out + column]
    for i in range(n_in):
        total += hidden[i] * data[cursor + i * n_out + column]
    return total


@njit(cache=True)
def policy_logits_nb(view, data, logits, work):
    """The policy's logits for the cards in hand, ``logits[k]`` for ``view.hand[k]``."""
    encode_flat_nb(view, work.offsets, work.x)
    at = int(data[HEAD_POLICY])
    hidden, cursor = hidden_nb(data, at, work)
    for k in range(view.n_hand):
        logits[k] = output_nb(data, at, hidden, cursor, view.hand[k])


@njit(cache=True, inline="always")
def has_value_nb(data):
    """Whether ``data`` holds a value network (an empty vector: no networks at this table)."""
    return data.shape[0] > HEAD_VALUE and data[HEAD_VALUE] >= 0


@njit(cache=True)
def value_nb(view, data, work):
    """The value network's estimate for the view's seat: the logit of its side's chance
    to win (a draw counting 1/2); NaN when the data holds no value network."""
    at = int(data[HEAD_VALUE])
    if at < 0:
        return np.nan
    encode_flat_nb(view, work.offsets, work.x)
    hidden, cursor = hidden_nb(data, at, work)
    return output_nb(data, at, hidden, cursor, 0)


@njit(cache=True)
def net_nb(view, params, rng, data):
    """The policy's most likely card (``temperature`` 0), or one drawn from its softmax."""
    if view.n_hand == 1:
        return view.hand[0]
    logits = np.empty(N_CARDS, dtype=np.float64)
    policy_logits_nb(view, data, logits, new_work_nb(data))
    temperature = params[TEMPERATURE]
    if temperature > 0.0:
        return view.hand[_sample_nb(logits, view.n_hand, temperature, rng)]
    best, best_key = 0, -np.inf
    for k in range(view.n_hand):
        key = logits[k] - 1e-6 * throw_cost_nb(view.hand[k], view.trump_suit)  # ties: the cheapest
        if key > best_key:
            best, best_key = k, key
    return view.hand[best]


@njit(cache=True)
def _sample_nb(logits, n, temperature, rng):
    top = logits[:n].max()
    weights = np.exp((logits[:n] - top) / temperature)
    draw = rng_uniform_nb(rng) * weights.sum()
    for k in range(n - 1):
        draw -= weights[k]
        if draw < 0.0:
            return k
    return n - 1


@njit(cache=True)
def net_bid_nb(view, params, rng, data):
    """Briscola Chiamata's bids: by the fitted model ``expert`` bids by, at ``bid_threshold``."""
    return bid_at_threshold_nb(view, params[BID_THRESHOLD])


@njit(cache=True)
def net_call_nb(view, params, rng, data):
    """The call: ``expert``'s (the best call at the bid's level by that model)."""
    card, _ = best_call_nb(view, view.bid)
    return card
