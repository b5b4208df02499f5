"""Ctrl-C and SIGTERM during a run: a first Ctrl-C stops the run promptly and keeps what
is done, a second one stops at once and keeps nothing. SIGTERM (what SLURM, systemd
and docker send) is one Ctrl-C: the run stops and keeps what is done, however many are
sent (the kill that may follow is theirs to send).

The kernels run on a worker thread with the GIL released (``sim.runtime.play``), so the main
thread is always free to take the signal: the first one is acknowledged at once, and
the kernels see the request in a ``StopFlag`` before their next decision.
"""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager

import numpy as np

STOPPING = "briscola: stopping: keeping every deal done so far (Ctrl-C again to quit at once, keeping nothing)"
QUITTING = "briscola: quitting at once; this run's files are removed"
STUDY_STOPPING = ("briscola: stopping: every chunk done is kept, those in progress are played again by --resume "
                  "(Ctrl-C again to quit at once)")  # fmt: skip


class StopFlag:
    """A stop request that the kernels read (``array[0]``) before every decision."""

    def __init__(self) -> None:
        self.array = np.zeros(1, dtype=np.int8)

    def set(self) -> None:
        self.array[0] = 1

    def is_set(self) -> bool:
        return bool(self.array[0])


STOPPED_BY: list[int] = []  # the signals that stopped a run of this process: SIGTERM exits 143, not 130


class Terminated(KeyboardInterrupt):
    """SIGTERM outside a run (while it starts or ends): unwinds as Ctrl-C does, so that
    nothing half-written is left."""


@contextmanager
def deferred_interrupt(stopping: str = STOPPING):
    """Yields the run's StopFlag. A first Ctrl-C or a SIGTERM sets it (the run ends its
    batch early, and its files are closed as partial) and says ``stopping``; a second
    Ctrl-C raises KeyboardInterrupt (temporary files are removed). Outside the main
    thread, signals cannot be caught: no handler."""
    stop = StopFlag()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def request_stop(signum, frame):
        if stop.is_set():
            if signum == signal.SIGTERM:
                return  # already stopping
            print(QUITTING, file=sys.stderr, flush=True)
            raise KeyboardInterrupt
        stop.set()
        STOPPED_BY.append(signum)
        # SIGTERM comes from a scheduler or a supervisor, not a keyboard: no Ctrl-C advice
        said = stopping if signum == signal.SIGINT else f"briscola: SIGTERM: {stopping.removeprefix('briscola: ')}"
        said = said if signum == signal.SIGINT else said.split(" (Ctrl-C again")[0]
        print(said, file=sys.stderr, flush=True)

    previous = {number: signal.signal(number, request_stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
