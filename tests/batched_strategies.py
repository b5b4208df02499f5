"""Batched strategies for the tests: ``brandom`` plays as ``random`` does, in numpy, from
the keys the kernels give it; ``jrandom`` is the same, jitted, with the default auction
(what ``brandom`` has at Briscola Chiamata); ``bbidder`` bids, calls and plays batched;
``bfirst`` plays the first card of its hand; the others break the batched contract one
way each."""

import os
import time

import numpy as np
from numba import njit

from strategies.api import Strategy
from strategies.toolkit import rng_below_nb


def below(keys, n):
    """An integer in [0, n) from each key, as the kernels' rng_below_nb draws it (but
    for its rare second draw, probability below n / 2**32)."""
    return (((keys >> np.uint64(32)) * n.astype(np.uint64)) >> np.uint64(32)).astype(np.int64)


def random_cards(views, legal, params, keys):
    return views["hand"][np.arange(len(views)), below(keys, views["n_hand"])].astype(np.int64)


@njit
def random_card_nb(view, params, rng):
    n = view.n_hand
    return view.hand[0] if n == 1 else view.hand[rng_below_nb(rng, n)]


def lowest_legal(views, legal, params, keys):
    return np.argmax(legal, axis=1)


def bid_or_pass(views, legal, params, keys):
    """The lowest legal bid, or pass, on the key's low bit."""
    lowest = np.argmax(legal, axis=1)
    return np.where((keys & np.uint64(1)).astype(bool) & legal.any(axis=1), lowest, -1)


def wrong_shape(views, legal, params, keys):
    return np.zeros((len(views), 2), dtype=np.int64)


def raising(views, legal, params, keys):
    raise ValueError("the model is not loaded")


def exiting(views, legal, params, keys):
    raise SystemExit(0)


def closing(views, legal, params, keys):
    raise GeneratorExit


def stalling(views, legal, params, keys, where):
    """``random`` until a deal from STALL_AT_DEAL (default 20,000) is asked of it, then
    it never answers; it touches the file STALL_FLAG (if set) once it stalls."""
    if (where["deal"] >= int(os.environ.get("STALL_AT_DEAL", "20000"))).any():
        if os.environ.get("STALL_FLAG"):
            open(os.environ["STALL_FLAG"], "w").close()
        while True:
            time.sleep(1)
    return random_cards(views, legal, params, keys)


def late_raising(views, legal, params, keys, where):
    """``random`` until deal 300, then it raises."""
    if (where["deal"] >= 300).any():
        raise ValueError("the model ran out of memory")
    return random_cards(views, legal, params, keys)


_STARTED: list[bool] = []


def slow_start(views, legal, params, keys):
    """``random``, after a start-up of 2.5 s at its first call (a model's session)."""
    if not _STARTED:
        time.sleep(2.5)
        _STARTED.append(True)
    return random_cards(views, legal, params, keys)


def first_cards(views, legal, params, keys):
    return views["hand"][:, 0].astype(np.int64)


def crowd_sensitive(views, legal, params, keys):
    """The (number of views in the call mod k)-th of a view's k legal cards: its answer
    depends on what shares its call, as a float network's near-tie can."""
    pick = len(views) % legal.sum(axis=1)
    rank = np.cumsum(legal, axis=1) - 1
    return np.argmax(legal & (rank == pick[:, None]), axis=1)


def not_in_hand(views, legal, params, keys):
    return np.argmin(legal, axis=1)  # a card it does not hold


BRANDOM = Strategy("brandom", 1, "random, batched in numpy", choose=random_cards, batched=True)
JRANDOM = Strategy("jrandom", 1, "random, jitted, with the default auction", choose=random_card_nb)
BBIDDER = Strategy("bbidder", 1, "bids, calls and plays batched", choose=lowest_legal, bid=bid_or_pass,
                   call=lowest_legal, batched=True)  # fmt: skip
WRONG_SHAPE = Strategy("wrong-shape", 1, "returns a 2-column array", choose=wrong_shape, batched=True)
RAISING = Strategy("raising", 1, "raises", choose=raising, batched=True)
EXITING = Strategy("exiting", 1, "raises SystemExit(0)", choose=exiting, batched=True)
CLOSING = Strategy("closing", 1, "raises GeneratorExit", choose=closing, batched=True)
STALLING = Strategy("stalling", 1, "random, until it never answers", choose=stalling, batched=True)
LATE_RAISING = Strategy("late-raising", 1, "random, then raises from deal 300", choose=late_raising, batched=True)
SLOW_START = Strategy("slow-start", 1, "random, after 2.5 s at its first call", choose=slow_start, batched=True)
BFIRST = Strategy("bfirst", 1, "the first card of its hand, batched", choose=first_cards, batched=True)
CROWD = Strategy("crowd", 1, "a card picked by how many views share its call", choose=crowd_sensitive, batched=True)
NOT_IN_HAND = Strategy("not-in-hand", 1, "plays a card it does not hold", choose=not_in_hand, batched=True)
