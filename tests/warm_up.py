"""The test session's warm-up (tests/conftest.py runs it once, before any test plays):
everything a run may compile (``sim.runtime.compiling.ready_everything``), then the
training environments' step kernel, which the tests of sim/rl use. With a warm cache it
loads in about a second."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.rl.env import BriscolaVectorEnv  # noqa: E402
from sim.runtime.compiling import ready_everything  # noqa: E402

if __name__ == "__main__":
    ready_everything()
    BriscolaVectorEnv(num_envs=1).reset(seed=0)
