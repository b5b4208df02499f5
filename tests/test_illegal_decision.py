"""A decision that is not a card in hand is caught and reported, never corrected."""

import textwrap

import numpy as np
import pytest

from sim.base.config import RunConfig
from sim.runtime.play import IllegalDecisionError, play_batch

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
    from tests.helpers import run_here

    result = run_here("simulate", "--players", "2", "--strategies", "greedy,cheat", "--strategy-file", cheat_file,
                      "--deals", "50", "--seed", "4", "--summary-only")  # fmt: skip
    assert result.returncode == 1
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("briscola: error: strategy 'cheat' (seat 1) returned card") and "its view: hand" in line


WIDE = textwrap.dedent(
    """
    import numpy as np
    from numba import njit
    from strategies.api import Strategy

    @njit
    def wide_nb(view, params, rng):
        return view.hand[0] + 65536  # a card in hand, once the high bits are cut off

    def wide(views, legal, params, keys):
        return views["hand"][:, 0].astype(np.int64) + 65536

    def unsigned(views, legal, params, keys):
        return np.full(len(views), np.iinfo(np.uint64).max, dtype=np.uint64)  # -1 (a pass) once cast

    WIDE = Strategy("wide", 1, "A card in hand plus 65536.", wide_nb)
    BWIDE = Strategy("bwide", 1, "The same, batched.", choose=wide, batched=True)
    UNSIGNED = Strategy("unsigned", 1, "Returns 2**64 - 1.", choose=unsigned, bid=unsigned, batched=True)
    """
)


@pytest.mark.parametrize("name", ["wide", "bwide"])
def test_a_value_beyond_any_card_is_named_as_it_was_returned(tmp_path, name):
    """It was cut to 16 bits and named as a card the strategy holds."""
    (tmp_path / "wide.py").write_text(WIDE)
    config = RunConfig(players=2, strategies=(name, "random"), deals=3, seed=1, threads=1,
                       strategy_files=(str(tmp_path / "wide.py"),))  # fmt: skip
    with pytest.raises(IllegalDecisionError) as caught:
        play_batch(config, 0, 3)
    card = caught.value.view["hand"][0]
    assert f"returned card {card + 65536} (not a card code), not in its hand" in str(caught.value)


@pytest.mark.parametrize("players", [2, 5])
def test_an_unsigned_value_beyond_int64_is_refused_not_wrapped(tmp_path, players):
    from strategies.errors import StrategyError

    (tmp_path / "wide.py").write_text(WIDE)
    config = RunConfig(players=players, strategies=("unsigned",) + ("random",) * (players - 1), deals=3, seed=1,
                       threads=1, strategy_files=(str(tmp_path / "wide.py"),))  # fmt: skip
    what = "a bid is -1 \\(pass\\)" if players == 5 else "a card code is 0..39"
    with pytest.raises(StrategyError, match=f"strategy 'unsigned' returned 18446744073709551615 deciding a .*: {what}"):
        play_batch(config, 0, 3)
