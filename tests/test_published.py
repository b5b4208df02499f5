"""The published agent measured in docs/strength.md (benchmarks/published): it plays by the
rules it is described by, and passes the checks every strategy passes."""

import functools

import numpy as np
import pytest

from kernels.enums import VIEW_DTYPE
from strategies.registry import load_strategy_file
from tests.helpers import REPO, run_here

PUBLISHED = REPO / "benchmarks" / "published" / "briscola_gym.py"
DENARI, COPPE, SPADE = 0, 10, 20  # a card is suit * 10 + face: Ace 0, Two 1, Three 2, ... King 9


@functools.cache
def gym_greedy():
    """The plug-in's decision function, loaded as --strategy-file loads it (and once)."""
    (strategy,) = load_strategy_file(PUBLISHED)
    return strategy.choose


def decide(hand, table, trump_suit):
    view = np.zeros(1, dtype=VIEW_DTYPE)
    view["players"], view["seat"], view["trump_suit"] = 2, len(table), trump_suit
    view["hand"][0, : len(hand)], view["n_hand"] = hand, len(hand)
    view["table"][0, : len(table)], view["n_table"] = table, len(table)
    epsilon_0 = np.zeros(1)  # its params: never a random card
    return gym_greedy()(view[0], epsilon_0, np.array([7], dtype=np.uint64))


@pytest.mark.parametrize(
    ("hand", "table", "card"),
    [
        ([DENARI + 9, SPADE + 2, COPPE + 1], [], COPPE + 1),  # leads its card worth least (the Two)
        ([DENARI + 1, SPADE + 3], [], DENARI + 1),  # the first of two worth nothing
        ([SPADE + 0, COPPE + 2, DENARI + 6], [DENARI + 9], COPPE + 2),  # a King taken with the trump Three: +14
        ([SPADE + 0, DENARI + 6], [DENARI + 9], DENARI + 6),  # a Seven cannot take a King: lose 4, not 15
        ([DENARI + 0, COPPE + 2], [DENARI + 2], DENARI + 0),  # the Ace takes the Three: +21, more than the trump's +20
    ],
)
def test_gym_greedy_plays_by_its_rules(hand, table, card):
    assert decide(hand, table, trump_suit=1) == card


def test_gym_greedy_passes_check():
    result = run_here("check", "gym-greedy", "--strategy-file", str(PUBLISHED), "--deals", "30", "--players", "2,4")
    assert result.returncode == 0, result.stderr
    assert "passes every check" in result.stdout
