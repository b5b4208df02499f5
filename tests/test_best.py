"""``best``: one name for the strongest built-in setting at each table, resolved before a
run and recorded in its result; and ``briscola strategies``' measured strength."""

import json

import pytest

import sim
from sim.app.check import check_strategy
from sim.base.results import read_config
from sim.pipeline.experiments import make_experiment
from strategies.api import Alias
from strategies.errors import StrategyError
from strategies.library import BEST
from strategies.registry import builtin_strategies
from tests.helpers import run_here


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_best_resolves_to_its_tables_setting(players):
    experiment = make_experiment("compare", players=players, strategies=["best", "expert"], deals=10, seed=1)
    assert experiment.strategies == (BEST.settings[players], "expert")
    assert experiment.config.resolved == (("best", BEST.settings[players]),)
    assert experiment.config.strategies[0] == BEST.settings[players]  # the seats play the setting itself


def test_the_settings_differ_by_table_and_name_built_ins():
    assert len(set(BEST.settings.values())) > 1 and set(BEST.settings) == {2, 3, 4, 5, 6}
    for setting in BEST.settings.values():
        assert setting.split(":")[0] in builtin_strategies()


def test_a_compare_of_best_records_what_it_played(tmp_path):
    out = tmp_path / "best.parquet"
    done = run_here("compare", "best", "random", "--players", "2", "--deals", "4", "--seed", "1", "--out", out)
    assert done.returncode == 0, done.stderr
    setting = BEST.settings[2]
    assert f"best is {setting}" in done.stdout  # the printed summary says it
    metadata = read_config(out)
    assert metadata["resolved"] == {"best": setting} and metadata["summary"]["resolved"] == {"best": setting}
    seat = metadata["strategies"][0]
    assert (seat["name"], seat["params"]["samples"], seat["params"]["policy_prior"]) == ("pimc", 4, 0.6)
    assert sim.load(out).strategies[0] == setting  # read back and verified against its rows


def test_a_simulation_and_a_tournament_resolve_it_at_their_table():
    played = sim.simulate("best,random,random", players=3, deals=2, seed=1)
    assert played.summary["resolved"] == {"best": BEST.settings[3]}
    assert played.summary["sides"][0]["strategy"] == BEST.settings[3]
    rated = sim.tournament(["best", "random", "greedy"], players=6, deals=2, seed=1)
    assert rated.summary["resolved"] == {"best": BEST.settings[6]}
    assert BEST.settings[6] in rated.summary["strategies"]


def test_check_plays_each_tables_setting():
    reports = check_strategy("best", deals=4, players=(6,))
    assert reports and {r.setting for r in reports} == {BEST.settings[6]} and not any(r.failure for r in reports)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "7"], "--players 7 is not a Briscola table; valid: 2, 3, 4, 5, 6"),
        (["--players", "2", "--strategies", "best:samples=8"], "strategy best takes no parameters"),
    ],
)
def test_bad_input_with_best_is_one_line(tmp_path, args, message):
    args = args if "--strategies" in args else [*args, "--strategies", "best"]
    done = run_here("simulate", *args, "--deals", "4", "--seed", "1", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_table_without_a_setting_is_refused_by_name():
    two_only = Alias("two", 1, "a setting at 2 players only", {2: "expert"})
    assert two_only.resolve("two", 2) == "expert"
    with pytest.raises(StrategyError, match="strategy two names a setting at 2 players, not at 4"):
        two_only.resolve("two", 4)


def test_a_plug_in_cannot_take_the_name(tmp_path):
    (tmp_path / "mine.py").write_text(
        "from dataclasses import replace\nfrom strategies.library import GREEDY\nMINE = replace(GREEDY, name='best')\n"
    )
    done = run_here("strategies", "--strategy-file", "mine.py", cwd=tmp_path)
    assert done.returncode == 2 and "'best'" in done.stderr and "rename it" in done.stderr, done.stderr


def test_strategies_shows_each_built_ins_strength_against_expert():
    listed = {s["name"]: s for s in json.loads(run_here("strategies", "--json").stdout)}
    for name, strategy in builtin_strategies().items():  # the shipped measurements are of today's versions
        (measured,) = listed[name]["strength"]
        assert (measured["strategy"], measured["version"], measured["against"]) == (name, strategy.version, "expert")
        low, high = measured["score_ci95"]
        assert low <= measured["score"] <= high and measured["deals"] > 0 and measured["seed"]
    best = listed["best"]
    assert best["settings"] == {f"{p}p": setting for p, setting in BEST.settings.items()}
    assert {m["players"]: m["strategy"] for m in best["strength"]} == BEST.settings  # today's setting, each table
    shown = run_here("strategies").stdout
    assert "against expert" in shown and f"seed {best['strength'][0]['seed']}" in shown
    assert f"{best['strength'][0]['score']:.3f}" in shown


def test_a_study_resolves_it_at_each_table_of_its_grid(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text("seed = 3\n[[compare]]\nname = 'b'\nplayers = [2, 6]\na = 'best'\nb = 'random'\ndeals = 2\n")
    done = sim.batch(plan, out=tmp_path / "study")
    summaries = {e["summary"]["players"]: e["summary"] for e in done.summary["experiments"]}
    assert {p: (s["a"], s["resolved"]["best"]) for p, s in summaries.items()} == {
        p: (BEST.settings[p], BEST.settings[p]) for p in (2, 6)
    }
