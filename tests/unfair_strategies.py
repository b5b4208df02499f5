"""Plug-ins that ``briscola check`` must fail: ``dice`` draws from Numba's own random
generator instead of its stream (its choices depend on something besides its inputs),
``cheat`` returns the face-up briscola, a card it does not hold, ``meddler`` writes into
the next seat's random stream."""

import numpy as np
from numba import njit

from strategies.toolkit import Strategy


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
