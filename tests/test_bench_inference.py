"""benchmarks/bench_inference.py, whose figures docs/strength.md quotes, pairs each
sampled deal with the true hands (and asserts the deciding seat's true hand is its
view's). Two cases are known exactly: at 2 players, once the stock is empty, a seat
knows the other hand, so every hidden card comes out right; at 4 players, leading a
trick after it, the two opponents hold as many cards each and the partner's are shown,
so uniform deals put a hidden card in the right hand half the time."""

import subprocess
import sys

from tests.helpers import REPO


def shares(players: int, deals: int) -> dict[str, list[float]]:
    """The script's table: {phase: [uniform share, share at trust 0.6]}."""
    script = REPO / "benchmarks" / "bench_inference.py"
    ran = subprocess.run([sys.executable, str(script), "--players", str(players), "--deals", str(deals), "--trust",
                          "0.6"], capture_output=True, text=True, check=True)  # fmt: skip
    cells = [line.split("|")[1:-1] for line in ran.stdout.splitlines() if line.startswith("| ")]
    return {row[0].strip(): [float(cell) for cell in row[1:]] for row in cells if row[0].strip() != "phase"}


def test_at_two_players_the_last_tricks_place_every_hidden_card_right():
    table = shares(players=2, deals=6)
    assert table["last tricks"] == [1.0, 1.0]
    assert all(0.0 < share < 1.0 for share in table["stock"]), table


def test_at_four_players_uniform_deals_place_half_the_hidden_cards_right_after_the_stock():
    uniform, weighed = shares(players=4, deals=30)["last tricks"]
    assert abs(uniform - 0.5) < 0.03, uniform
    assert weighed > uniform + 0.02, (weighed, uniform)  # the plays seen say something
