"""Calling kernels: the one thread that runs them (a kernel runs there while the calling
thread waits, free to run signal handlers, so a Ctrl-C is heard however long the kernel
takes), and a kernel's compiled form for a loop that calls it again and again, its
unchanging arguments boxed once."""

from __future__ import annotations

import functools
import os
import queue
import threading
import time
from dataclasses import dataclass, field

import numba

STOP_WAIT = 0.8  # seconds the kernels get to finish their decisions once asked to stop
WAIT_STEP = 0.05  # how often the waiting thread looks at the stop flag


def run_kernel(kernel, arguments: tuple, threads: int, stop) -> bool:
    """Calls a kernel on the kernel thread while this one waits; True once it has returned.

    The kernels release the GIL, so this thread stays free to run signal handlers: a
    Ctrl-C is acknowledged at once however long the batch. Once ``stop`` is set, the
    kernels return before their next decision; a strategy whose decision takes longer
    than STOP_WAIT is left to finish it on its own (False: the caller copies what is
    done, as the kernel may still write into the deals it was playing). A second Ctrl-C
    (an exception here) goes on at once.
    """
    finished, _ = call_on_kernel_thread(kernel, arguments, threads, stop)
    return finished


def call_on_kernel_thread(function, arguments: tuple, threads: int, stop, asking: threading.Event | None = None):
    """``function(*arguments)`` on the kernel thread, as ``run_kernel`` runs a kernel:
    (True, what it returned), or (False, None) once ``stop`` has been set for STOP_WAIT
    and the call is left to finish on its own (a batched strategy that stalls stops the
    run as a slow jitted one does). What it raises is raised here.

    A kernel left behind ends at its next decision, and the next call waits for it (two
    parallel kernels at once would fight over Numba's thread pool). A call left behind
    while ``asking`` is set (in a batched strategy's code, which may never end) is left
    its thread: later calls get another."""
    job = _KernelJob(function, arguments, threads)
    _kernel_thread().put(job)
    stopped_at = None
    try:
        while not job.done.wait(WAIT_STEP):
            if stop.is_set():
                stopped_at = stopped_at or time.monotonic()
                if time.monotonic() - stopped_at > STOP_WAIT:
                    if asking is not None and asking.is_set():
                        _leave_kernel_thread()
                    return False, None
    except BaseException:
        stop.set()
        raise
    if job.failure is not None:
        raise job.failure
    return True, job.result


def compiled_for(kernel, arguments: tuple):
    """``kernel``'s compiled form for arguments of these types, to be called without
    Numba's dispatch: typing a run context (record arrays, plug-in functions) costs about
    2 ms a call, more than a step of 4,096 deals. Every later call must pass arguments of
    the very same types (the same contexts and lanes; int64 arrays; a bool): the compiled
    form does not check them, and reads a float64 array given for an int64 one as bits."""
    if not hasattr(kernel, "overloads"):  # the kernels run as Python (NUMBA_DISABLE_JIT)
        return kernel
    types = tuple(kernel.typeof_pyval(argument) for argument in arguments)
    if types not in kernel.overloads:
        kernel.compile(types)  # from the disk cache when it is there
    return kernel.overloads[types].entry_point


def bound_call(bound_kernel, arguments: tuple, rest: tuple):
    """A call of ``bound_kernel`` (a kernel's bound form, kernels/bound_nb.py) with
    ``arguments`` boxed once, Numba's dispatch skipped (``compiled_for``): ``call(*rest)``,
    every later ``rest`` of the types of the one given here. Unboxing a run context costs
    about 100 us a call (its plug-in functions are looked up one by one); a step of one
    deal, 2 us."""
    from kernels.bound_nb import bind_nb  # here: the command line starts without Numba's structures

    bound = bind_nb(arguments)
    return functools.partial(compiled_for(bound_kernel, (bound, *rest)), bound)


@dataclass
class _KernelJob:
    kernel: object
    arguments: tuple
    threads: int
    done: threading.Event = field(default_factory=threading.Event)
    failure: BaseException | None = None
    result: object = None

    def run(self) -> None:
        try:
            numba.set_num_threads(self.threads)  # a per-thread setting in Numba
            self.result = self.kernel(*self.arguments)
        except BaseException as error:  # noqa: BLE001 - raised again in the waiting thread
            self.failure = error
        finally:
            self.done.set()


_kernel_jobs: dict[int, queue.SimpleQueue] = {}  # by process: a forked child starts its own thread
_kernel_jobs_lock = threading.Lock()


def _kernel_thread() -> queue.SimpleQueue:
    """The queue of the one thread that runs kernels, one job at a time (never two
    parallel kernels at once); a daemon, so that a decision left to finish never holds
    up the exit."""
    with _kernel_jobs_lock:
        jobs = _kernel_jobs.get(os.getpid())
        if jobs is None:
            jobs = _kernel_jobs[os.getpid()] = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(jobs,), name="briscola-kernels", daemon=True).start()
        return jobs


def _leave_kernel_thread() -> None:
    """The kernel thread is left to a call that may never end: later calls get a new one."""
    with _kernel_jobs_lock:
        _kernel_jobs.pop(os.getpid(), None)


def _serve(jobs: queue.SimpleQueue) -> None:
    while True:
        jobs.get().run()
