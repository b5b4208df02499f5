"""The shipped networks: their weights per table, their provenance, and the one vector
the kernels take them as (the layout ``strategies/net_nb.py`` reads).

Each table's networks lie in ``strategies/weights/``: ``net-{P}p.npz`` holds the layers of
the policy and of the value network (``policy.0.weight`` of shape (inputs, outputs),
``policy.0.bias``, ..., ``value.0.weight``, ...), ``net-{P}p.json`` where they come
from (the plan and seeds that made the data, a hash of the data, the training's seed and
settings, the code's commit) and the sha256 of the ``.npz`` it describes. The training
scripts write both; docs/learned.md says how to retrain them. Every read checks them: a
damaged file, weights that are not the ones their provenance describes, or weights that
are not finite are refused in one line naming the file (``checked_weights``), one table
at a time, so that a damaged table leaves the others playing.

>>> policy = [(np.ones((207, 8)), np.zeros(8)), (np.ones((8, 40)), np.zeros(40))]
>>> vector = pack(policy, [], players=2)
>>> int(vector[0]), int(vector[1]), int(vector[3]), int(vector[4])  # format, width, no value, no auction network
(3, 207, -1, -1)
>>> int(vector[5])  # the flat encoding's version its 207 inputs are
1
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
import zlib
from pathlib import Path

import numpy as np

from kernels.enums import N_CARDS
from strategies.errors import StrategyError
from strategies.net_nb import CONTRACT_INPUTS, FORMAT, HEAD_AUCTION, HEAD_POLICY, HEAD_VALUE, MAX_WIDTH, N_TARGETS
from strategies.observation import FLAT_VERSION, FLAT_VERSIONS, flat_offsets, flat_size, flat_version_of

WEIGHTS = Path(__file__).resolve().parent / "weights"
WEIGHTS_HASH = "weights_sha256"  # the provenance's key for the sha256 of the .npz it describes
# What numpy raises for a file that is not an .npz it can read (cut short, empty, foreign)
DAMAGED = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error)


def weights_path(players: int, folder: Path = WEIGHTS) -> Path:
    return Path(folder) / f"net-{players}p.npz"


def provenance_path(players: int, folder: Path = WEIGHTS) -> Path:
    return Path(folder) / f"net-{players}p.json"


def shipped_tables(folder: Path = WEIGHTS) -> list[int]:
    return sorted(p for p in (2, 3, 4, 5, 6) if weights_path(p, folder).is_file())


def shipped_files(folder: Path = WEIGHTS) -> tuple[str, ...]:
    """Every weights and provenance file of ``folder`` (a table's provenance may be
    missing): what a ``net`` plays with."""
    found = (path(p, folder) for p in shipped_tables(folder) for path in (weights_path, provenance_path))
    return tuple(str(file) for file in found if file.is_file())


def provenance(players: int, folder: Path = WEIGHTS) -> dict:
    """Where ``folder``'s networks at ``players`` come from ({} where it has no weights or
    no provenance), once it is known to describe those weights (``checked_provenance``)."""
    path = weights_path(players, folder)
    return checked_provenance(players, folder, _file_bytes(path)) if path.is_file() else {}


def checked_provenance(players: int, folder: Path, weights: bytes) -> dict:
    """The provenance of the table's weights (their file's bytes: ``weights``), or {}
    where there is none. A provenance vouches for one file: StrategyError, naming it, if
    it cannot be read, records no hash, or records another file's."""
    path = provenance_path(players, folder)
    if not path.is_file():
        return {}
    valid = "valid: the .json a training script wrote with its weights"
    try:
        facts = json.loads(path.read_text())
    except (OSError, ValueError) as error:  # (a decoding error is a ValueError)
        raise StrategyError(f"the provenance {path} cannot be read ({error}); {valid}") from None
    recorded = facts.get(WEIGHTS_HASH) if isinstance(facts, dict) else None
    if recorded is None:
        raise StrategyError(f"the provenance {path} records no {WEIGHTS_HASH}, so it vouches for no weights in "
                            f"particular; {valid}, or none")  # fmt: skip
    actual = weights_hash(weights)
    if recorded != actual:
        raise StrategyError(f"{weights_path(players, folder)} is not the file its provenance {path.name} describes "
                            f"(sha256 {actual[:16]}..., recorded {str(recorded)[:16]}...): changed since a training "
                            f"script wrote them; {valid}")  # fmt: skip
    return facts


def weights_hash(weights: bytes) -> str:
    """What a provenance records of its weights: the sha256 of the .npz's bytes."""
    return hashlib.sha256(weights).hexdigest()


def layers(weights, name: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) pairs of network ``name`` in ``weights`` (a mapping of arrays)."""
    found = []
    while f"{name}.{len(found)}.weight" in weights:
        k = len(found)
        found.append((np.asarray(weights[f"{name}.{k}.weight"]), np.asarray(weights[f"{name}.{k}.bias"])))
    return found


def pack(policy, value, players: int, auction=()) -> np.ndarray:
    """The kernels' vector of a policy, a value network and (Briscola Chiamata) an auction
    network (lists of (weight, bias); ``value`` and ``auction`` may be empty) for ``players``.
    The policy and the value network read the flat encoding's version their inputs'
    width names (``networks_version``)."""
    version = networks_version(policy or value, players)
    starts = flat_offsets(players, version)
    head = [FORMAT, starts[-1], -1, -1, -1, version, *starts]
    nets = []
    cursor = len(head)
    widths = ", ".join(f"{flat_size(players, v)} in version {v}" for v in FLAT_VERSIONS)
    flat = f" (the flat encoding at {players} players has {widths})"
    for where, name, network, shape, note in ((HEAD_POLICY, "policy", policy, (starts[-1], N_CARDS), flat),
                                              (HEAD_VALUE, "value", value, (starts[-1], 1), flat),
                                              (HEAD_AUCTION, "auction", auction, (CONTRACT_INPUTS, N_TARGETS), "")):  # fmt: skip
        if not network:
            continue
        head[where] = cursor
        packed = _pack_network(network, shape, name, note)
        nets.append(packed)
        cursor += len(packed)
    return np.concatenate([np.asarray(head, dtype=np.float32), *nets]).astype(np.float32)


def networks_version(network, players: int) -> int:
    """The flat encoding's version a network (a list of (weight, bias)) was trained on:
    the one whose width at ``players`` is its inputs' (FLAT_VERSION for no network, or
    for a width no version has: ``pack`` then names the widths it may have)."""
    if not network or np.ndim(network[0][0]) != 2:
        return FLAT_VERSION
    return flat_version_of(np.shape(network[0][0])[0], players) or FLAT_VERSION


def weights_version(weights, players: int) -> int:
    """The flat encoding's version the networks of ``weights`` (a mapping of arrays, as
    ``net-{P}p.npz`` holds them) read: what a script feeding them observations asks the
    environment or ``encode_flat`` for."""
    return networks_version(layers(weights, "policy") or layers(weights, "value"), players)


def pack_file(weights, players: int) -> np.ndarray:
    """``pack`` of the networks a ``net-{P}p.npz`` holds (a mapping of arrays)."""
    return pack(layers(weights, "policy"), layers(weights, "value"), players, layers(weights, "auction"))


def _pack_network(network, shape: tuple[int, int], name: str, note: str = "") -> np.ndarray:
    """One network's part of the vector, its every shape checked first: the kernels read
    the vector by offsets, so a layer of the wrong size would read another's weights."""
    inputs, outputs = shape
    sizes = [np.shape(network[0][0])[0]] + [np.shape(weight)[-1] for weight, _ in network]
    for k, (weight, bias) in enumerate(network):
        if np.ndim(weight) != 2 or np.shape(weight)[0] != sizes[k] or np.shape(bias) != (sizes[k + 1],):
            raise StrategyError(f"the {name} network's layer {k} has weights {np.shape(weight)} and biases "
                                f"{np.shape(bias)}; after {sizes[k]} values it must be ({sizes[k]}, n) and (n,)")  # fmt: skip
    if (sizes[0], sizes[-1]) != (inputs, outputs):
        raise StrategyError(f"the {name} network maps {sizes[0]} inputs to {sizes[-1]} outputs; it must map "
                            f"{inputs} to {outputs}{note}")  # fmt: skip
    if max(sizes[1:]) > MAX_WIDTH:  # the input is the flat encoding, of any width
        raise StrategyError(f"the {name} network has a layer of {max(sizes[1:])}; at most {MAX_WIDTH}")
    for k, (weight, bias) in enumerate(network):
        if not all(_finite_numbers(array) for array in (weight, bias)):  # a NaN would play on as some card
            raise StrategyError(f"the {name} network's layer {k} holds values that are not finite numbers (NaN, "
                                "infinite or not numbers); valid: finite numbers, as a training that converged leaves "
                                "them")  # fmt: skip
    parts = [np.asarray([len(network), *sizes], dtype=np.float32)]
    for weight, bias in network:
        parts += [np.ascontiguousarray(weight, dtype=np.float32).ravel(), np.asarray(bias, dtype=np.float32)]
    return np.concatenate(parts)


def checked_weights(players: int, folder: Path = WEIGHTS, name: str = "net") -> dict[str, np.ndarray]:
    """The arrays of ``folder``'s weights at ``players`` (``name``'s, for the error of a
    table without them), once they are known to be the file their provenance describes,
    to be an .npz numpy reads, and to pack for the kernels with finite values; else
    StrategyError naming the file. Each table is read alone."""
    path = weights_path(players, folder)
    if not path.is_file():
        tables = ", ".join(map(str, shipped_tables(folder))) or "none"
        raise StrategyError(f"{name} has no weights for {players} players ({path}); tables with weights: {tables}")
    content = _file_bytes(path)
    checked_provenance(players, folder, content)
    try:
        with np.load(io.BytesIO(content)) as saved:
            weights = {key: saved[key] for key in saved.files}
    except DAMAGED as error:
        raise StrategyError(f"the weights {path} are damaged: not an .npz numpy can read ({type(error).__name__}: "
                            f"{error}); valid: the .npz a training script wrote") from None  # fmt: skip
    try:
        pack_file(weights, players)
    except StrategyError as error:
        raise StrategyError(f"the weights {path}: {error}") from None
    return weights


def _finite_numbers(array) -> bool:
    array = np.asarray(array)
    return np.issubdtype(array.dtype, np.number) and bool(np.isfinite(array).all())


def net_data(players: int, folder: Path = WEIGHTS, name: str = "net") -> np.ndarray:
    """The kernels' vector of the networks of ``folder`` (the shipped ones by default) at
    ``players``, checked (``checked_weights``)."""
    return pack_file(checked_weights(players, folder, name), players)


def search_data(players: int, folder: Path = WEIGHTS, name: str = "pimc") -> np.ndarray:
    """What the search strategies take: the networks' vector, or none at a table without
    weights (they then play by their hand-written rules alone; ``name``, for an error
    about the weights, as ``net_data``'s)."""
    if not weights_path(players, folder).is_file():
        return np.zeros(0, dtype=np.float32)
    return net_data(players, folder, name)


def with_layers(weights: dict, name: str, network) -> dict:
    """``weights`` (a mapping of arrays, as ``net-{P}p.npz`` holds them) with network
    ``name``'s layers replaced by ``network`` (a list of (weight, bias))."""
    kept = {key: value for key, value in weights.items() if not key.startswith(f"{name}.")}
    for k, (weight, bias) in enumerate(network):
        kept[f"{name}.{k}.weight"], kept[f"{name}.{k}.bias"] = weight, bias
    return kept


def _file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise StrategyError(f"the weights {path} cannot be read ({error.strerror or error})") from None
