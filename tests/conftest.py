"""Shared test setup: the repository root on ``sys.path`` (so ``kernels``, ``sim`` and
``strategies`` import however pytest is started) and a Hypothesis profile that suits
kernel calls (no deadline: the first call of a test may wait for Numba)."""

import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

settings.register_profile(
    "briscola",
    deadline=None,
    derandomize=True,  # the same examples on every run: a red test stays red
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("briscola")


def pytest_sessionstart(session):
    """Fills Numba's disk cache once, before any test runs: on a fresh clone each test
    worker would otherwise compile the same engine and strategies at the same time (two
    minutes of both cores in CI). One small run compiles them all, the strategies on the
    second core (``sim.compiling``); with a warm cache it loads in about a second.
    Tests of a cold cache set their own ``NUMBA_CACHE_DIR``."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller has done it
        return
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        warm = [sys.executable, "-m", "sim.cli", "simulate", "--players", "2", "--strategies", "random,random",
                "--deals", "1", "--seed", "1", "--quiet", "--out", str(Path(folder) / "warm.parquet")]  # fmt: skip
        subprocess.run(warm, cwd=ROOT, capture_output=True, check=True, timeout=900)


# Modules whose tests start clusters, study processes or fresh compiles (tens of seconds
# each): pytest-xdist hands tests out in order, so these go first, and the run does not
# end on one worker finishing a long test while the other idles.
LONG_FIRST = ("test_dask_faults.py", "test_study.py", "test_caching.py", "test_plugins.py", "test_check.py",
              "test_interrupt.py", "test_report.py")  # fmt: skip


def pytest_collection_modifyitems(session, config, items):
    rank = {name: place for place, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FIRST)))  # stable: each file keeps its order
