"""``net``: a learned policy played alone (jitted code only).

Its data (strategies/nets.py packs it) is one float32 vector, read-only, per table:

    [FORMAT, width, policy at, value at, auction at, flat encoding version,
     offsets of the flat encoding (N_SEGMENTS + 1)..., networks...]

(a network's "at" -1 where the table has none; the version and offsets: those of the
flat encoding the policy and value networks were trained on) and each network a
multilayer perceptron: ``[n_layers, size_0, ..., size_n]``, then per layer its weights
(``size_in x size_out``, row-major: an input's weights lie together) and its biases;
ReLU between layers. The policy's and the value's input is the flat encoding of the view
(kernels/observe_nb.py), mostly zeros: the first layer adds the rows of the inputs that
are not zero. The policy's last layer is computed for the cards in hand only.

The auction network (Briscola Chiamata) values a contract: from the caller's hand seen
with the called card's suit as trump, the called face, whether the caller holds the card
(alone) and its seat (CONTRACT_INPUTS values), the logit of the chance that the
caller's side takes at least 61 + k points, for k = 0 .. N_TARGETS - 1.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.enums import CHIAMATA_PLAYERS, N_CARDS, N_FACES, N_SUITS, PASS
from kernels.inlined_strategies_nb import holds_nb
from kernels.observe_nb import N_SEGMENTS, encode_flat_nb
from kernels.rng_nb import rng_uniform_nb
from kernels.rules_nb import bid_face_nb, bid_target_nb
from strategies.auction_nb import best_call_nb, bid_at_threshold_nb, contract_gain_nb
from strategies.expert_nb import throw_cost_nb

FORMAT = 3  # bump with the layout above
HEAD_FORMAT, HEAD_WIDTH, HEAD_POLICY, HEAD_VALUE, HEAD_AUCTION, HEAD_VERSION, HEAD_OFFSETS = 0, 1, 2, 3, 4, 5, 6
CONTRACT_INPUTS = N_CARDS + N_FACES + 1 + CHIAMATA_PLAYERS  # hand, called face, alone, seat
N_TARGETS, FIRST_TARGET = 60, 61  # the auction network's outputs: at least 61 .. 120 points
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
    width = max(int(data[HEAD_WIDTH]), CONTRACT_INPUTS)
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
def has_policy_nb(data):
    """Whether ``data`` holds a policy network (an empty vector: no networks at this table)."""
    return data.shape[0] > HEAD_POLICY and data[HEAD_POLICY] >= 0


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


@njit(cache=True, inline="always")
def softmax_weights_nb(logits, n, temperature):
    """The softmax of ``logits[:n]`` at ``temperature``, not yet divided by its sum."""
    top = logits[:n].max()
    return np.exp((logits[:n] - top) / temperature)


@njit(cache=True)
def _sample_nb(logits, n, temperature, rng):
    weights = softmax_weights_nb(logits, n, temperature)
    draw = rng_uniform_nb(rng) * weights.sum()
    for k in range(n - 1):
        draw -= weights[k]
        if draw < 0.0:
            return k
    return n - 1


@njit(cache=True)
def net_bid_nb(view, params, rng, data):
    """Briscola Chiamata's bids: the next level while its best call there expects at least
    ``bid_threshold`` game points, valued by the auction network (by the model ``expert``
    bids by, where the data holds no auction network)."""
    level = view.bid + 1
    if level > view.max_bid:
        return PASS
    if not has_auction_nb(data):
        return bid_at_threshold_nb(view, params[BID_THRESHOLD])
    _, gain = learned_call_nb(view, level, data, new_work_nb(data))
    return level if gain >= params[BID_THRESHOLD] else PASS


@njit(cache=True)
def net_call_nb(view, params, rng, data):
    """The call: the card whose contract the auction network values most (``expert``'s
    where there is none)."""
    if not has_auction_nb(data):
        card, _ = best_call_nb(view, view.bid)
        return card
    card, _ = learned_call_nb(view, view.bid, data, new_work_nb(data))
    return card


@njit(cache=True, inline="always")
def has_auction_nb(data):
    return data.shape[0] > HEAD_AUCTION and data[HEAD_AUCTION] >= 0


@njit(cache=True)
def learned_call_nb(view, bid, data, work):
    """The card to call at ``bid`` and the caller's expected game points with it (cappotto
    aside: 2 (2p - 1) with a partner, 4 (2p - 1) alone, p the auction network's chance of
    the bid's target), of the four cards of the bid's face."""
    face, target = bid_face_nb(bid), bid_target_nb(bid)
    best, best_gain = face, -1e9
    for suit in range(N_SUITS):
        card = suit * N_FACES + face
        alone = holds_nb(view, card)
        chance = 1.0 / (1.0 + np.exp(-contract_logit_nb(view, card, alone, target, data, work)))
        gain = contract_gain_nb(chance, alone)
        if gain > best_gain:
            best, best_gain = card, gain
    return best, best_gain


# 6 arguments: the contract, and the networks with their work arrays.
@njit(cache=True)
def contract_logit_nb(view, card, alone, target, data, work):
    """The auction network's logit that the caller's side takes ``target`` points or more
    with ``view.hand`` calling ``card`` (module docstring)."""
    x = work.x
    contract_inputs_nb(view.hand, view.n_hand, card, alone, view.seat, x)
    at = int(data[HEAD_AUCTION])
    hidden, cursor = hidden_nb(data, at, work)
    return output_nb(data, at, hidden, cursor, min(max(target - FIRST_TARGET, 0), N_TARGETS - 1))


@njit(cache=True)
def contract_inputs_nb(hand, n_hand, card, alone, seat, x):
    """The auction network's inputs, ``x[:CONTRACT_INPUTS]``: the hand with the suits
    renamed so that the called card's is suit 0 (the others kept in order after it), the
    called face, whether the caller holds it, the caller's seat."""
    x[:CONTRACT_INPUTS] = 0.0
    trump = card // N_FACES
    for k in range(n_hand):
        suit, face = hand[k] // N_FACES, hand[k] % N_FACES
        x[((suit - trump) % N_SUITS) * N_FACES + face] = 1.0
    x[N_CARDS + card % N_FACES] = 1.0
    x[N_CARDS + N_FACES] = 1.0 if alone else 0.0
    x[N_CARDS + N_FACES + 1 + seat] = 1.0
