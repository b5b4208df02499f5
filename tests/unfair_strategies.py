"""Plug-ins that ``briscola check`` must fail: ``dice`` draws from Numba's own random
generator instead of its stream (its choices depend on something besides its inputs),
``cheat`` returns the face-up briscola, a card it does not hold, ``meddler`` writes into
the next seat's random stream; at Briscola Chiamata ``gambler`` bids by Numba's generator
and ``miscaller`` calls a card of the wrong face."""

import numpy as np
from numba import njit

from strategies.toolkit import PASS, Strategy, bid_face_nb, default_call_nb


@njit
def dice_nb(view, params, rng):
    return view.hand[np.random.randint(0, view.n_hand)]


@njit
def cheat_nb(view, params, rng):
    return view.briscola if view.briscola >= 0 else view.hand[0]


DICE = Strategy("dice", 1, "Plays a card at random, from the wrong generator.", dice_nb)
CHEAT = Strategy("cheat", 1, "Plays the face-up briscola while it lies there.", cheat_nb)


@njit
def meddler_nb(view, params, rng):
    rng[1] = 0  # the next seat's random stream: out of its own
    return view.hand[0]


MEDDLER = Strategy("meddler", 1, "Plays its first card, after writing into the next seat's stream.", meddler_nb)


@njit
def first_nb(view, params, rng):
    return view.hand[0]


@njit
def gambler_bid_nb(view, params, rng):
    return view.bid + 1 if view.bid < 9 and np.random.randint(0, 2) == 0 else PASS


@njit
def miscall_nb(view, params, rng):
    return (bid_face_nb(view.bid) + 1) % 10  # the next face, of Denari


GAMBLER = Strategy("gambler", 1, "Bids at random, from the wrong generator.", first_nb, bid=gambler_bid_nb,
                   call=default_call_nb)  # fmt: skip
MISCALLER = Strategy("miscaller", 1, "Bids as the default policy; calls a card of the wrong face.", first_nb,
                     call=miscall_nb)  # fmt: skip


def _engine_lanes():
    """The engine's lanes, found on some thread's stack (the run's ``decide``), or None."""
    import sys

    for frame in sys._current_frames().values():
        while frame is not None:
            lanes = frame.f_locals.get("lanes")
            if lanes is not None and hasattr(lanes, "cursor"):
                return lanes
            frame = frame.f_back
    return None


def late_peek(views, legal, params, keys, where):
    """Plays by its key, but from deal 40 on, when it can reach the engine's lanes, it plays
    its last card instead: a cheat that the first 40 deals never show."""
    rows = np.arange(len(views))
    by_key = views["hand"][rows, ((keys >> np.uint64(32)) * views["n_hand"].astype(np.uint64)) >> np.uint64(32)]
    if _engine_lanes() is None:
        return by_key.astype(np.int64)
    last = views["hand"][rows, views["n_hand"] - 1]
    return np.where(where["deal"] >= 40, last, by_key).astype(np.int64)


LATE_PEEKER = Strategy("late-peeker", 1, "Reaches the engine's lanes from deal 40 on.", choose=late_peek, batched=True)
