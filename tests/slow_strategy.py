"""A strategy file for the interruption tests: every decision takes ``seconds``."""

import ctypes

from numba import njit

from strategies.api import Param, Strategy

_usleep = ctypes.CDLL(None).usleep  # the C library's, callable from compiled code
_usleep.argtypes, _usleep.restype = [ctypes.c_uint], ctypes.c_int


@njit
def slow_nb(view, params, rng):
    _usleep(int(params[0] * 1_000_000))
    return view.hand[0]


SLOW = Strategy("slow", 1, "Thinks for seconds, then plays its first card.", slow_nb,
                params=(Param("seconds", float, 3.0, 0.0, 60.0, "time taken by every decision"),))  # fmt: skip
