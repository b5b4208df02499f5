"""Input that used to slip through: seeds read through a float, NaN parameters, a
parameter given twice, an address that is not one. Each is refused in one line (exit 2),
or read exactly."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_here


def one_line_refusal(*args) -> str:
    code, out, err = run_here(*args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_seed_is_read_exactly_or_refused():
    code, out, _ = run_here("simulate", "--players", "2", "--strategies", "random", "--deals", "10",
                            "--seed", "9007199254740993.0", "--summary-only", "--json", "--quiet")  # fmt: skip
    assert code == 0 and json.loads(out)["seed"] == 9007199254740993  # not ...992, as a float gives
    assert "is not a whole number" in one_line_refusal("simulate", "--players", "2", "--strategies",
                                                       "random", "--deals", "10", "--seed", "1.5")  # fmt: skip


@pytest.mark.parametrize("strategy, message", [
    ("pimc:inference=nan", "pimc:inference=nan is not a finite number; valid: float in [0.0, 0.99]"),
    ("pimc:points_weight=inf", "is not a finite number"),
    ("pimc:samples=8:samples=16", "strategy pimc: parameter samples is given twice (8 and 16); give it once"),
])  # fmt: skip
def test_a_parameter_that_is_not_a_number_or_given_twice_is_refused(tmp_path, strategy, message):
    err = one_line_refusal("compare", strategy, "random", "--deals", "10", "--seed", "1",
                           "--out", str(tmp_path / "x.parquet"))  # fmt: skip
    assert message in err and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("players, warned", [(2, True), (5, False)])
def test_a_parameter_that_changes_nothing_at_the_table_is_named_in_one_line(players, warned):
    """bid_threshold acts only at Briscola Chiamata: elsewhere the run goes on (a plan
    may span tables) and says, in one line on stderr, that it changes nothing there."""
    code, out, err = run_here("compare", "expert:bid_threshold=0.4", "greedy", "--players", str(players),
                              "--deals", "4", "--seed", "1", "--summary-only", "--json", "--quiet")  # fmt: skip
    assert code == 0 and json.loads(out)["a"] == "expert:bid_threshold=0.4"
    note = (
        f"briscola: warning: expert:bid_threshold=0.4: bid_threshold changes nothing at {players} players (only at 5)"
    )
    assert err.strip().splitlines() == ([note] if warned else []), err


@pytest.mark.parametrize(
    "a, players, rules, note",
    [
        ("expert:signals=false", 2, (), "signals changes nothing at 2 players (only at 4, 6)"),
        ("expert:signals=false", 4, (), "signals changes nothing under the rule signals=none (only with --rule "
                                        "signals=trumps)"),
        ("expert:signals=false", 4, ("--rule", "signals=trumps"), None),
        ("expert:partner_view=false", 4, ("--rule", "partner_view=none"), "partner_view changes nothing under the "
                                                                          "rule partner_view=none"),
        ("pimc:samples=2:opponent_random=0.2", 2, (), "opponent_random changes nothing while adapt=true (only with "
                                                      "adapt=false)"),
        ("pimc:samples=2:opponent_random=0.2:adapt=false", 2, (), None),
    ],
)  # fmt: skip
def test_a_parameter_idle_under_the_rules_or_another_parameter_is_named(a, players, rules, note):
    """expert:signals=false at 2 players scored exactly 0.5 against expert, silently."""
    code, out, err = run_here("compare", a, "expert", "--players", str(players), *rules, "--deals", "2",
                              "--seed", "1", "--summary-only", "--json", "--quiet")  # fmt: skip
    assert code == 0, err
    said = err.strip().splitlines()
    assert said == ([] if note is None else [f"briscola: warning: {json.loads(out)['a']}: {note}"]) or (
        note is not None and len(said) == 1 and note in said[0]
    ), err


def test_a_scheduler_address_that_is_not_one_is_refused(tmp_path):
    pytest.importorskip("distributed")
    err = one_line_refusal("simulate", "--players", "2", "--strategies", "random", "--deals", "10", "--seed",
                           "1", "--backend", "dask", "--scheduler", "not-an-address", "--out", str(tmp_path / "s"))  # fmt: skip
    assert "--scheduler not-an-address: no Dask scheduler answers there" in err and list(tmp_path.iterdir()) == []


def test_a_plan_seed_too_large_for_a_float_is_refused(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text("seed = 9007199254740993.0\n[[simulate]]\nname = 'x'\nplayers = 2\nstrategies = ['random']\n"
                    "deals = 10\n")  # fmt: skip
    err = one_line_refusal("batch", str(plan), "--out", str(tmp_path / "study"))
    assert "key 'seed': 9007199254740992.0 is a float" in err and not (tmp_path / "study").exists()
