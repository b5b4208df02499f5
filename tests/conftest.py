"""Shared test setup: the repository root on ``sys.path`` (so ``kernels``, ``sim`` and
``strategies`` import however pytest is started) and a Hypothesis profile that suits
kernel calls (no deadline: the first call of a test may wait for Numba)."""

import fcntl
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# As the command sets it (sim.app.cli.run), for the tests that call main() or the kernels in
# their own process: the kernels' OpenMP threads sleep between calls instead of spinning.
# Spinning, they took the cores from the Python between calls, the other test workers'
# included: a check of a batched strategy at 2 players took 18 s of CPU here, 2.5 s so.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

settings.register_profile(
    "briscola",
    deadline=None,
    derandomize=True,  # the same examples on every run: a red test stays red
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("briscola")


WARM_LOCK = Path(tempfile.gettempdir()) / f"briscola-tests-warm-up-{os.getpid()}.lock"


def pytest_sessionstart(session):
    """Fills Numba's disk cache once, before any test plays: on a fresh clone each test
    worker would otherwise compile the same engine and strategies at the same time (two
    minutes of both cores in CI). ``tests/warm_up.py`` compiles them all, the strategies on
    the second core; with a warm cache it loads in about a second.
    Under xdist the run starts at once and holds a lock for as long as it lasts, while
    the workers start and collect; each waits for the lock before its first test
    (``pytest_runtest_setup``). Tests of a cold cache set their own ``NUMBA_CACHE_DIR``."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller started it
        return
    warm = [sys.executable, str(ROOT / "tests" / "warm_up.py")]  # a run compiles only what it plays
    if not session.config.getoption("numprocesses", None):  # one process: nothing to overlap
        subprocess.run(warm, cwd=ROOT, capture_output=True, check=True, timeout=900)
        return
    lock = open(WARM_LOCK, "w")  # noqa: SIM115 - held by the run, released when it exits
    fcntl.flock(lock, fcntl.LOCK_EX)
    subprocess.Popen(warm, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(lock.fileno(),))
    lock.close()  # the run's copy holds the lock now


def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        WARM_LOCK.unlink(missing_ok=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """Tells each xdist worker where the warm-up's lock is."""
    node.workerinput["warm_lock"] = str(WARM_LOCK)


_warmed = False


def pytest_runtest_setup(item):
    """A worker's first test waits for the warm-up to end (a failed one too: then each
    test compiles what it needs, as without it)."""
    global _warmed
    workerinput = getattr(item.config, "workerinput", None)
    if _warmed or workerinput is None:
        return
    with open(workerinput["warm_lock"]) as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)
    _warmed = True


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the cores, since many tests wait on processes
    they start (a command, a study, a Dask cluster): 3 workers on this 2-core machine
    ran the tests in 0.93x the time of 2."""
    return (os.cpu_count() or 1) + 1


# Modules whose tests start clusters, study processes or fresh compiles (tens of seconds
# each): pytest-xdist hands tests out in order, so these go first, and the run does not
# end on one worker finishing a long test while the other idles.
LONG_FIRST = ("test_dask_faults.py", "test_study.py", "test_caching.py", "test_plugins.py", "test_check.py",
              "test_interrupt.py", "test_report.py")  # fmt: skip


def pytest_collection_modifyitems(session, config, items):
    rank = {name: place for place, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FIRST)))  # stable: each file keeps its order
