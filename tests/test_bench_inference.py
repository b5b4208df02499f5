"""benchmarks/bench_inference.py, whose figures docs/strength.md quotes, pairs each
sampled deal with the true hands: at 2 players, once the stock is empty, a seat knows
the other hand exactly, so every hidden card must come out in the right hand."""

import subprocess
import sys

from tests.helpers import REPO


def test_at_two_players_the_last_tricks_place_every_hidden_card_right():
    script = REPO / "benchmarks" / "bench_inference.py"
    ran = subprocess.run([sys.executable, str(script), "--players", "2", "--deals", "6", "--trust", "0.6"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    rows = {
        line.split("|")[1].strip(): line.split("|")[2:-1] for line in ran.stdout.splitlines() if line.startswith("| ")
    }
    assert [float(share) for share in rows["last tricks"]] == [1.0, 1.0]
    assert all(0.0 < float(share) < 1.0 for share in rows["stock"]), rows
