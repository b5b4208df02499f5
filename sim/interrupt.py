"""Ctrl-C during a run: a first one stops the run promptly and keeps what is done, a
second one stops at once and keeps nothing.

The kernels run on a worker thread with the GIL released (``sim.play``), so the main
thread is always free to take the signal: the first Ctrl-C is acknowledged at once,
and the kernels see the request in a ``StopFlag`` before their next decision.
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


@contextmanager
def deferred_interrupt(stopping: str = STOPPING):
    """Yields the run's StopFlag. A first Ctrl-C sets it (the run ends its batch early,
    and its files are closed as partial) and says ``stopping``; a second raises
    KeyboardInterrupt (temporary files are removed). Outside the main thread, signals
    cannot be caught: no handler."""
    stop = StopFlag()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def request_stop(signum, frame):
        if stop.is_set():
            print(QUITTING, file=sys.stderr, flush=True)
            raise KeyboardInterrupt
        stop.set()
        print(stopping, file=sys.stderr, flush=True)

    previous = signal.signal(signal.SIGINT, request_stop)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)
