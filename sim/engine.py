"""Python-side entry to the kernels: turns a RunConfig into kernel arguments and back.

>>> from sim.config import RunConfig
>>> config = RunConfig(players=2, strategies=("greedy", "random"), deals=10, seed=7, threads=1)
>>> batch = play_batch(config, first_deal=0, n_deals=10, trace=True)
>>> int(batch.results["seat_points"][:, :2].sum(axis=1).min())
120
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from kernels.engine_nb import replay_nb, simulate_nb
from kernels.enums import DEAL_DTYPE, ILLEGAL_DTYPE, MAX_PLAYERS, PLAY_DTYPE, RESULT_DTYPE
from sim.cards import short_name
from sim.config import ConfigError, RunConfig
from strategies.registry import BUILTIN_STRATEGIES, get_strategy

N_PARAMS = 8  # parameter slots per seat, reserved for parametrised strategies


class IllegalDecisionError(RuntimeError):
    """A strategy returned a card that is not in its player's hand."""


@dataclass
class Batch:
    """Deals ``first_deal .. first_deal + len(results) - 1`` of a run."""

    results: np.ndarray  # RESULT_DTYPE
    deals: np.ndarray  # DEAL_DTYPE, empty unless traced
    records: np.ndarray  # PLAY_DTYPE, empty unless traced


def strategy_ids(config: RunConfig) -> np.ndarray:
    ids = np.full(MAX_PLAYERS, -1, dtype=np.int64)
    for seat, name in enumerate(config.strategies):
        try:
            ids[seat] = get_strategy(name).strategy_id
        except KeyError:
            valid = ", ".join(BUILTIN_STRATEGIES)
            raise ConfigError(f"unknown strategy {name!r}; valid strategies: {valid}") from None
    return ids


def effective_threads(config: RunConfig) -> int:
    """Threads a run really uses: as asked, at most as many as Numba has."""
    return min(config.threads, numba.config.NUMBA_NUM_THREADS)


def play_batch(config: RunConfig, first_deal: int, n_deals: int, trace: bool = False) -> Batch:
    """Deals and plays ``n_deals`` deals of the run, from deal index ``first_deal``."""
    results, illegal, params = _kernel_buffers(config, n_deals)
    deals = np.empty(n_deals if trace else 0, dtype=DEAL_DTYPE)
    records = np.empty(n_deals if trace else 0, dtype=PLAY_DTYPE)
    simulate_nb(
        config.seed, first_deal, config.players, config.rules.as_codes(), strategy_ids(config),
        params, results, illegal, deals, records,
    )  # fmt: skip
    _raise_on_illegal(config, results, illegal)
    return Batch(results, deals, records)


def replay(config: RunConfig, deals: np.ndarray, first_deal: int = 0) -> Batch:
    """Plays given DEAL_DTYPE deals (e.g. the same cards twice) and records every move."""
    results, illegal, params = _kernel_buffers(config, deals.shape[0])
    records = np.empty(deals.shape[0], dtype=PLAY_DTYPE)
    replay_nb(
        config.seed, first_deal, config.rules.as_codes(), strategy_ids(config),
        params, deals, results, illegal, records,
    )  # fmt: skip
    _raise_on_illegal(config, results, illegal)
    return Batch(results, deals, records)


def _kernel_buffers(config: RunConfig, n_deals: int):
    """Sets the thread count; returns the result, illegal-decision and parameter arrays."""
    numba.set_num_threads(effective_threads(config))
    results = np.empty(n_deals, dtype=RESULT_DTYPE)
    illegal = np.empty(n_deals, dtype=ILLEGAL_DTYPE)
    params = np.zeros((MAX_PLAYERS, N_PARAMS), dtype=np.float64)
    return results, illegal, params


def _raise_on_illegal(config: RunConfig, results: np.ndarray, illegal: np.ndarray) -> None:
    bad = np.flatnonzero(illegal["play"] >= 0)
    if bad.size == 0:
        return
    first = illegal[bad[0]]
    seat, card = int(first["seat"]), int(first["card"])
    hand = ", ".join(f"{c} ({short_name(c)})" for c in first["hand"] if c >= 0)
    returned = f"{card} ({short_name(card)})" if 0 <= card < 40 else f"{card} (not a card code)"
    raise IllegalDecisionError(
        f"strategy {config.strategies[seat]!r} (seat {seat}) returned card {returned}, not in its hand "
        f"[{hand}], at play {int(first['play'])} of deal {int(results[bad[0]]['deal'])}"
    )
