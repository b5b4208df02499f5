"""Counter-based random streams (jitted code only).

Every random number of deal ``i`` comes from ``(seed, i, stream)`` alone, so a run gives
the same deals whatever the thread count, chunk size or machine. A stream is SplitMix64
started from a key mixed out of those three numbers: its n-th output is
``mix64(key + n * GOLDEN)``, a pure function of (seed, deal, stream, n).

``states`` is a uint64 array holding the current counter of each stream a deal uses:
the dealer's first, then one per seat.
"""

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
LOW_32 = np.uint64(0xFFFFFFFF)
U32_SPAN = np.uint64(1 << 32)


@njit(cache=True, inline="always")
def mix64_nb(z):
    """SplitMix64's finaliser: a bijective, well-avalanched mix of a uint64."""
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def seed_key_nb(seed):
    """Key of a run's seed (any int64), computed once per run."""
    return mix64_nb(np.uint64(seed) + GOLDEN)


@njit(cache=True, inline="always")
def start_streams_nb(states, seed_key, deal, seat_streams, n_seats):
    """Starts the streams of deal ``deal``: ``states[0]`` the dealer's (stream 0), and
    ``states[1 + s]`` the one seat ``s`` draws from, stream ``seat_streams[s]`` (usually
    ``1 + s``; a comparison keys them by strategy instead), for the first ``n_seats``."""
    deal_key = mix64_nb(seed_key ^ (np.uint64(deal) * MIX_2))
    states[0] = mix64_nb(deal_key)
    for seat in range(n_seats):
        states[1 + seat] = mix64_nb(deal_key + np.uint64(seat_streams[seat]) * GOLDEN)


@njit(cache=True, inline="always")
def next_local_nb(counter):
    """The next 64 random bits of a stream whose counter is the local ``counter``, and
    the advanced counter. A counter in a local stays in a register, where one in an
    array is stored and reloaded at every draw."""
    counter += GOLDEN
    return mix64_nb(counter), counter


@njit(cache=True, inline="always")
def next_u64_nb(states, stream):
    """Next 64 random bits of ``stream``."""
    bits, states[stream] = next_local_nb(states[stream])
    return bits


@njit(cache=True, inline="always")
def bounded_local_nb(x32, n, counter):
    """Unbiased integer in [0, n) from 32 random bits ``x32`` (Lemire's method), for a
    stream whose counter is the local ``counter``: returns the integer (unsigned: an
    index that needs no negative-index check) and the counter, advanced if fresh bits
    were needed (probability < n / 2**32)."""
    n64 = np.uint64(n)
    m = x32 * n64
    if (m & LOW_32) < n64:
        threshold = (U32_SPAN - n64) % n64
        while (m & LOW_32) < threshold:
            bits, counter = next_local_nb(counter)
            m = (bits >> np.uint64(32)) * n64
    return m >> np.uint64(32), counter


@njit(cache=True, inline="always")
def bounded_from_nb(x32, n, states, stream):
    """``bounded_local_nb`` for the stream ``states[stream]``."""
    value, states[stream] = bounded_local_nb(x32, n, states[stream])
    return np.int64(value)


@njit(cache=True, inline="always")
def bounded_nb(states, stream, n):
    """Unbiased integer in [0, n) from ``stream``."""
    return bounded_from_nb(next_u64_nb(states, stream) >> np.uint64(32), n, states, stream)


@njit(cache=True, inline="always")
def rng_below_nb(rng, n):
    """For strategies: an unbiased integer in [0, n) from their stream ``rng``."""
    return bounded_nb(rng, 0, n)


@njit(cache=True, inline="always")
def rng_uniform_nb(rng):
    """For strategies: a float in [0, 1) from their stream ``rng`` (53 random bits)."""
    return np.float64(next_u64_nb(rng, 0) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
