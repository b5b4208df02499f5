"""``briscola check``: the built-ins pass it; a strategy that breaks a rule, depends on
more than its inputs, or takes too long fails it with the deal and the view."""

from __future__ import annotations

import json

import pytest

from tests.helpers import REPO, SLOW_FILE, run_cli, run_here

UNFAIR = str(REPO / "tests" / "unfair_strategies.py")
HOSTILE = str(REPO / "tests" / "hostile_strategy.py")


def check(*args):
    return run_here("check", *args, "--quiet")


@pytest.mark.parametrize(
    "strategy, deals", [("expert", "30"), ("greedy", "30"), ("random", "30"), ("pimc:samples=4", "6")]
)
def test_built_ins_pass_at_every_table_and_rule(strategy, deals):
    result = check(strategy, "--deals", deals, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["passed"] and len(report["tables"]) == 17
    assert {(t["players"], t["rules"]) for t in report["tables"]} >= {
        (2, "default"),
        (3, "removed_two=denari"),
        (6, "partner_view=none"),
        (4, "signals=trumps"),
        (6, "signals=trumps"),
        (5, "default"),
        (5, "auction=ranks"),
    }
    assert all(t["decisions_asked_again"] > 0 and t["deals_per_second"] > 0 for t in report["tables"])
    assert all(t["threads_checked"] for t in report["tables"])  # this machine has 2 cores
    assert all(t["score_ci95"][0] <= t["score"] <= t["score_ci95"][1] for t in report["tables"])


def test_a_strategy_reading_more_than_its_inputs_fails():
    result = check("dice", "--strategy-file", UNFAIR, "--deals", "50", "--players", "2")
    assert result.returncode == 1
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith("briscola: check failed: 2 players, rules default: deal ")
    assert ("asked again" in message or "threads" in message) and "the view: hand [" in message


def test_a_chiamata_bid_reading_more_than_its_inputs_fails():
    result = check("gambler", "--strategy-file", UNFAIR, "--deals", "50", "--players", "5")
    assert result.returncode == 1
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith("briscola: check failed: 5 players, rules default: deal")
    assert "auction differs" in message or ("bid" in message and "asked again" in message)


def test_a_chiamata_call_of_the_wrong_face_fails():
    result = check("miscaller", "--strategy-file", UNFAIR, "--deals", "50", "--players", "5")
    assert result.returncode == 1 and "a call names a card of the bid's face" in result.stderr


def test_an_illegal_strategy_fails_with_its_view():
    result = check("cheat", "--strategy-file", UNFAIR, "--deals", "50", "--players", "4")
    assert result.returncode == 1
    assert (
        "illegal decision" in result.stderr and "not in its hand" in result.stderr and "its view: hand" in result.stderr
    )


def test_writing_into_another_seats_stream_fails():
    result = check("meddler", "--strategy-file", UNFAIR, "--deals", "20", "--players", "2")
    assert result.returncode == 1 and "it wrote outside its random stream" in result.stderr


def test_a_decision_over_the_limit_fails():
    result = check("slow:seconds=0.05", "--strategy-file", SLOW_FILE, "--deals", "1", "--players", "2",
                   "--decision-limit", "0.01")  # fmt: skip
    assert result.returncode == 1 and "over the limit of 0.01 s" in result.stderr


def test_writing_into_the_view_passes_with_a_note():
    result = check("hostile", "--strategy-file", HOSTILE, "--deals", "50", "--players", "2,3")
    assert result.returncode == 0, result.stderr
    assert "passes every check" in result.stdout and "writes into its view" in result.stdout
    assert "params" in result.stdout and "played_by" in result.stdout


def test_bad_input_is_one_line_and_exit_2():
    for args, message in [
        (("nosuch",), "unknown strategy 'nosuch'"),
        (("expert", "--players", "7"), "--players 7 is not a Briscola table"),
        (("expert", "--players", "two"), "--players 'two': give table sizes separated by commas"),
        (("expert", "--decision-limit", "-1"), "--decision-limit -1 must be above 0 seconds"),
    ]:
        code, _, err = run_here("check", *args, "--quiet")  # in this process: main() without a start
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_on_one_thread_the_threads_check_is_said_not_made():
    result = run_cli("check", "greedy", "--deals", "30", "--players", "2", "--json", "--quiet",
                     env={"PYTHONPATH": str(REPO), "NUMBA_NUM_THREADS": "1"})  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert [t["threads_checked"] for t in json.loads(result.stdout)["tables"]] == [False, False]


@pytest.mark.parametrize("seed", [5, 6])  # 5: a seed whose key is below 2**63, which Numba would type int64
def test_check_asks_again_with_the_streams_the_run_drew_from_whatever_the_seed(seed):
    code, _, err = run_here("check", "random", "--players", "2", "--deals", "20", "--seed", str(seed), "--quiet")
    assert code == 0, err


def test_a_batched_strategy_that_cheats_only_after_the_first_deals_fails():
    """The decisions asked again are drawn from the whole run, not its first 40 deals."""
    result = check("late-peeker", "--strategy-file", UNFAIR, "--deals", "300", "--players", "2")
    assert result.returncode == 1, result.stderr
    assert "asked again" in result.stderr.strip().splitlines()[-1]


def test_the_deals_asked_again_span_the_run():
    from sim.app.check import ASKED_AGAIN_DEALS, asked_again_deals
    from sim.base.config import RunConfig

    drawn = asked_again_deals(RunConfig(players=2, strategies=("random",) * 2, deals=10_000, seed=3))
    assert len(set(drawn)) == ASKED_AGAIN_DEALS and max(drawn) > 5_000 and all(0 <= d < 10_000 for d in drawn)


def test_a_strategy_declaring_its_tables_is_checked_there_and_passed_by_elsewhere(tmp_path):
    """``tables=(2,)``: check says "not played" at the others and passes; a run there is
    refused in one line."""
    plug_in = tmp_path / "two_only.py"
    plug_in.write_text(
        "from strategies.api import Strategy\nfrom tests.batched_strategies import random_cards\n"
        'TWO = Strategy("two-only", 1, "2 players only", choose=random_cards, batched=True, tables=(2,))\n'
    )
    result = run_here("check", "two-only", "--strategy-file", plug_in, "--deals", "20", "--json")
    assert result.returncode == 0, result.stderr
    tables = json.loads(result.stdout)["tables"]
    assert [(t["players"], t["not_played"]) for t in tables] == [(2, False), (2, False), (3, True), (4, True),
                                                                    (6, True), (5, True)]  # fmt: skip
    assert "3 players: not played" in result.stderr
    refused = run_here("compare", "two-only", "random", "--players", "4", "--deals", "20", "--seed", "1",
                       "--strategy-file", plug_in, "--summary-only")  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "briscola: error: strategy 'two-only' is not played at 4 players: it plays at 2 (its declared tables)"
    )


def test_a_strategy_that_raises_is_named_with_the_table_where_it_did(tmp_path):
    """A 2-player network without declared tables raised a shape error at 3 players,
    named without the table."""
    plug_in = tmp_path / "two_shaped.py"
    plug_in.write_text(
        "import numpy as np\nfrom strategies.api import Strategy\nfrom tests.batched_strategies import random_cards\n"
        "def choose(views, legal, params, keys):\n"
        "    if views['players'][0] != 2:\n        raise ValueError('matmul: shapes differ')\n"
        "    return random_cards(views, legal, params, keys)\n"
        'TWO = Strategy("two-shaped", 1, "2 players, undeclared", choose=choose, batched=True)\n'
    )
    result = run_here("check", "two-shaped", "--strategy-file", plug_in, "--deals", "10", "--quiet")
    assert result.returncode == 2
    assert result.stderr.strip().startswith("briscola: error: 3 players, rules default: strategy 'two-shaped' raised")
