"""A decision that is not a card in hand is caught and reported, never corrected."""

import textwrap

import numpy as np
import pytest

from sim.config import RunConfig
from sim.play import IllegalDecisionError, play_batch

# Plays well until trick 4, then returns the face-up briscola: a card it may see, never hold.
CHEAT = textwrap.dedent(
    """
    from numba import njit
    from strategies.api import Strategy

    @njit
    def grab_briscola(view, params, rng):
        if view.trick == 4 and view.n_table == 1:
            return view.briscola
        return view.hand[0]

    CHEAT = Strategy("cheat", 1, "Takes the face-up briscola at trick 4.", grab_briscola)
    """
)


@pytest.fixture(scope="module")
def cheat_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("plugins") / "cheat.py"
    path.write_text(CHEAT)
    return str(path)


@pytest.mark.parametrize("players", [2, 4])
def test_an_illegal_card_stops_the_run_naming_strategy_deal_and_view(cheat_file, players):
    strategies = ("greedy", "cheat") * (players // 2)
    config = RunConfig(players=players, strategies=strategies, deals=5, seed=4, threads=1,
                       strategy_files=(cheat_file,))  # fmt: skip
    with pytest.raises(IllegalDecisionError) as caught:
        play_batch(config, first_deal=3, n_deals=5)
    view = caught.value.view
    message = str(caught.value)
    assert "strategy 'cheat' (seat 1)" in message or "strategy 'cheat' (seat 3)" in message
    deal = int(message.split(" of deal ")[1].split(";")[0])
    assert 3 <= deal < 8  # a deal of the batch, by its index in the run
    assert view["trick"] == 4 and len(view["table"]) >= 1
    assert view["briscola"] not in view["hand"]
    assert f"returned card {view['briscola']} " in message
    assert len(view["hand"]) == 3 and view["stock_size"] > 0
    assert len(view["played_by"]) == 4 * players + len(view["table"])


def test_legal_runs_raise_nothing_and_play_to_the_end():
    config = RunConfig(players=6, strategies=("random", "greedy") * 3, deals=2000, seed=4, threads=2)
    batch = play_batch(config, 0, 2000)
    assert np.all(batch.results["side_points"][:, :2].sum(axis=1) == 120)


def test_the_command_says_it_in_one_line_with_exit_1(cheat_file):
    from tests.helpers import REPO, run_cli

    result = run_cli("simulate", "--players", "2", "--strategies", "greedy,cheat", "--strategy-file", cheat_file,
                     "--deals", "50", "--seed", "4", "--summary-only", env={"PYTHONPATH": str(REPO)})  # fmt: skip
    assert result.returncode == 1
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("briscola: error: strategy 'cheat' (seat 1) returned card") and "its view: hand" in line
