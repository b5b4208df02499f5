"""Greedy, exactly as the C yardstick plays it (shared/yardstick/briscola_ref.c).

The C program is built into a temporary folder and run; its decks are reproduced here
from the RNG described in its header, turned into our deals and played by the kernels
(and by the reference engine) with greedy on both seats. Every game must end with the
same points as in C. The C stays outside the product: this file only runs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kernels.enums import DEAL_DTYPE
from sim.base import reference
from sim.base.config import RunConfig
from sim.base.trace import trace_rows
from sim.runtime.play import play_batch, replay

YARDSTICK = Path(__file__).resolve().parents[2] / "shared" / "yardstick" / "briscola_ref.c"
GAMES = 3000
SEED = 20240611
MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1

# The C codes a card 10 * suit + r, r its strength index from the weakest; ours
# 10 * suit + face, faces in the order Ace, 2, 3, ..., King.
C_RANKS = ["2", "4", "5", "6", "7", "Jack", "Knight", "King", "3", "Ace"]
OUR_FACES = ["Ace", "2", "3", "4", "5", "6", "7", "Jack", "Knight", "King"]
C_TO_OURS = [10 * (c // 10) + OUR_FACES.index(C_RANKS[c % 10]) for c in range(40)]


# ------------------------------------------------------------------ the C program's RNG


class Xoshiro256StarStar:
    """xoshiro256** seeded with four successive splitmix64 outputs of the seed."""

    def __init__(self, seed: int):
        x = seed
        self.s = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & MASK64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            self.s.append(z ^ (z >> 31))

    def next(self) -> int:
        s = self.s
        result = (rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result


def rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64


def bounded(x: int, n: int, rng: Xoshiro256StarStar) -> int:
    """Lemire's method on the 32-bit value x, redrawing from rng's high halves."""
    m = x * n
    if (m & MASK32) < n:
        threshold = (1 << 32) % n
        while (m & MASK32) < threshold:
            m = (rng.next() >> 32) * n
    return m >> 32


def c_deck(rng: Xoshiro256StarStar) -> list[int]:
    """One shuffled deck in C codes: Fisher-Yates from i = 39 down, two indices per output
    (high half for i, low half for i - 1), a last output's high half for i = 1."""
    deck = list(range(40))
    for i in range(39, 1, -2):
        r = rng.next()
        j = bounded(r >> 32, i + 1, rng)
        deck[i], deck[j] = deck[j], deck[i]
        j = bounded(r & MASK32, i, rng)
        deck[i - 1], deck[j] = deck[j], deck[i - 1]
    j = bounded(rng.next() >> 32, 2, rng)
    deck[1], deck[j] = deck[j], deck[1]
    return deck


def yardstick_deals(games: int, seed: int) -> tuple[np.ndarray, int]:
    """The C program's games as our DEAL_DTYPE deals, and its RNG's s[0] afterwards
    (greedy-greedy draws no random number while playing)."""
    rng = Xoshiro256StarStar(seed)
    deals = np.zeros(games, dtype=DEAL_DTYPE)
    deals["players"] = 2
    deals["hand_size"] = 3
    deals["hands"] = -1
    deals["stock"] = -1
    deals["removed"] = -1
    deals["n_removed"] = 0
    deals["n_stock"] = 34
    for g in range(games):
        deck = [C_TO_OURS[c] for c in c_deck(rng)]
        deals["hands"][g, 0, :3] = [deck[0], deck[2], deck[4]]
        deals["hands"][g, 1, :3] = [deck[1], deck[3], deck[5]]
        deals["briscola"][g] = deck[6]
        deals["stock"][g, :34] = deck[7:40] + [deck[6]]  # the turned card is drawn last
    return deals, rng.s[0]


# ------------------------------------------------------------------ the C program


def skip_or_fail(reason: str):
    """Outside CI a missing yardstick only skips; in CI (where ../shared is laid beside
    the clone) it fails, so that the cross-check can never vanish unnoticed."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}: CI must run the exact cross-check")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def yardstick(tmp_path_factory):
    if not YARDSTICK.is_file():
        skip_or_fail(f"no C yardstick at {YARDSTICK}")
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        skip_or_fail("no C compiler")
    exe = tmp_path_factory.mktemp("yardstick") / "briscola_ref"
    subprocess.run([compiler, "-O3", "-o", str(exe), str(YARDSTICK), "-lm"], check=True, capture_output=True)
    return exe


def run_yardstick(exe: Path, games: int, pair: str, seed: int, *options: str) -> str:
    done = subprocess.run([str(exe), str(games), pair, str(seed), *options], check=True, capture_output=True, text=True)
    return done.stdout


def dumped_points(output: str, games: int) -> tuple[list[int], int]:
    """The seat-0 points of each game from ``--dump`` output, and the final RNG word."""
    lines = output.splitlines()
    points = []
    for i, line in enumerate(lines[:games]):
        game, taken = line.split()
        assert int(game) == i
        points.append(int(taken))
    final = re.search(r"\brng=([0-9a-f]{16})\b", output)
    assert final, "no rng= in the yardstick's summary line"
    return points, int(final.group(1), 16)


def test_card_mapping_is_a_bijection_that_keeps_strength_and_points():
    assert sorted(C_TO_OURS) == list(range(40))
    c_points = [0, 0, 0, 0, 0, 2, 3, 4, 10, 11]  # by C strength index, from its source
    for c, ours in enumerate(C_TO_OURS):
        assert ours // 10 == c // 10
        assert reference.points(ours) == c_points[c % 10]
        assert reference.strength(ours) == c % 10


def test_greedy_matches_the_yardstick_game_by_game(yardstick):
    output = run_yardstick(yardstick, GAMES, "greedy-greedy", SEED, "--no-alt", "--dump")
    c_points, c_final_state = dumped_points(output, GAMES)
    deals, final_state = yardstick_deals(GAMES, SEED)
    assert final_state == c_final_state, "the decks are not the C program's decks"

    config = RunConfig(players=2, strategies=("greedy", "greedy"), deals=GAMES, seed=0)
    batch = replay(config, deals)
    ours = batch.results["seat_points"][:, 0].astype(int).tolist()
    differing = [(g, c_points[g], ours[g]) for g in range(GAMES) if ours[g] != c_points[g]]
    assert not differing, f"{len(differing)} games differ (game, C, kernels): {differing[:10]}"
    assert len(set(c_points)) > 30  # real games, not a constant

    # The reference engine plays the same games to the same points, and agrees with
    # every card of the kernels' traces.
    rows = trace_rows(batch)
    for g in range(0, GAMES, 10):
        row = rows[g]
        played = reference.play_deal(2, reference.hands_of(row), row["briscola"], row["stock"], reference.greedy_player)
        assert played["seat_points"][0] == c_points[g], f"game {g}"
        assert played["plays"] == row["plays"], f"game {g}"


def statistics(seat0_points: np.ndarray) -> dict[str, tuple[float, float]]:
    """Seat 0's win and draw shares and mean points, each with its standard error."""
    n = len(seat0_points)
    out = {}
    for name, hits in (("win", seat0_points > 60), ("draw", seat0_points == 60)):
        p = hits.mean()
        out[name] = (p, np.sqrt(p * (1 - p) / n))
    out["mean"] = (seat0_points.mean(), seat0_points.std(ddof=1) / np.sqrt(n))
    return out


@pytest.mark.slow  # statistical: its power takes many deals; CI runs it (-m slow)
@pytest.mark.parametrize("pair", ["random-random", "greedy-random"])
def test_kernels_agree_with_the_yardstick_statistically(yardstick, pair):
    """Random play uses a different RNG in C, so only the statistics can agree: within
    5 combined standard errors (a false alarm about once in 1.7 million)."""
    games = 400_000
    output = run_yardstick(yardstick, games, pair, 7, "--no-alt", "--dump")
    c_points, _ = dumped_points(output, games)
    strategies = tuple(pair.split("-"))
    config = RunConfig(players=2, strategies=strategies, deals=games, seed=7)
    ours = play_batch(config, 0, games).results["seat_points"][:, 0].astype(float)
    c_stats, our_stats = statistics(np.array(c_points, dtype=float)), statistics(ours)
    for name in ("win", "draw", "mean"):
        (c_value, c_error), (our_value, our_error) = c_stats[name], our_stats[name]
        z = (our_value - c_value) / np.hypot(c_error, our_error)
        assert abs(z) < 5, f"{pair} {name}: C {c_value:.4f}, kernels {our_value:.4f} (z = {z:.1f})"
