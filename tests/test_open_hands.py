"""benchmarks/open_hands.patch: bench_open_hands.py applies it to a worktree to measure
what the hidden cards cost the search (docs/strength.md), so it must keep applying to
the engine as the engine changes."""

import subprocess

from tests.helpers import REPO


def test_the_open_hands_patch_applies_to_this_revision():
    patch = REPO / "benchmarks" / "open_hands.patch"
    checked = subprocess.run(["git", "apply", "--check", str(patch)], cwd=REPO, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
