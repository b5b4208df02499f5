"""Replaying a traced deal (sim/web/replay.py, ``briscola play --replay``): one game of a
comparison's trace, its hands step by step as the deal dealt and drew them, its moves
valued, the seating's strategies named; and the refusals."""

import pytest

import sim
from sim.base.config import ConfigError
from sim.web.replay import replayed
from tests.helpers import run_here


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replay")
    sim.compare("expert", "greedy", players=2, deals=4, seed=8, out=folder / "c.parquet", trace=folder / "t.parquet")
    return folder / "t.parquet"


def test_a_game_replayed_step_by_step(trace):
    shown = replayed(trace, 2, game=1, samples=4)
    assert shown["names"] == ["greedy", "expert"]  # the second seating: B first
    steps, moves = shown["steps"], shown["moves"]
    assert len(steps) == len(moves) + 1 == 41 and steps[-1]["hands"] == [[], []]
    for step, move in zip(steps, moves):  # each card comes from its seat's hand as it stood
        assert move["card"] in step["hands"][move["seat"]]
    dealt = [card for hand in shown["deal"]["hands"] for card in hand] + shown["deal"]["stock"]
    drawn_in = {card for step in steps for hand in step["hands"] for card in hand}
    assert drawn_in == set(dealt) and sum(shown["points"]) == 120
    other = replayed(trace, 2, game=0, samples=4)
    assert (other["deal"]["hands"], other["deal"]["stock"]) == (shown["deal"]["hands"], shown["deal"]["stock"])
    assert other["names"] == ["expert", "greedy"]  # the same cards, the other seating


def test_what_cannot_be_replayed_is_refused_in_one_line(trace, tmp_path):
    with pytest.raises(ConfigError, match="choose one of"):
        replayed(trace, 2)
    with pytest.raises(ConfigError, match="holds deals 0 to 3"):
        replayed(trace, 9, game=0)
    for args, says in ((("--replay", tmp_path / "none.parquet"), "does not exist"),
                       (("--replay", trace, "--deal", "9", "--game", "0"), "holds deals")):  # fmt: skip
        done = run_here("play", "--no-browser", *args)
        assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr
