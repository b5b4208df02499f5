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
