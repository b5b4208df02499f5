"""One run function under the command line and ``sim.app.api`` (``sim.pipeline.running``): the API
runs every command and a study plan, on any backend, as the command line does; a backend
registered as a new one would be is taken by the command line, with its own option."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

import sim
import sim.app.api
from sim.base.config import ConfigError
from tests.helpers import REPO, dataset, run_here

PLAN = """
seed = 5

[[simulate]]
name = "table"
players = 4
strategies = ["greedy", "random"]
deals = 600

[[compare]]
name = "duel"
a = "expert"
b = "greedy"
deals = 400

[[tournament]]
name = "league"
strategies = ["random", "greedy", "highest"]
deals = 300
"""
LEAGUE = ["random", "greedy", "highest"]


def cli_summary(*args, cwd) -> dict:
    result = run_here(*args, "--json", "--quiet", cwd=cwd)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def without_timings(summary: dict) -> dict:
    return {key: value for key, value in summary.items() if key not in ("seconds", "deals_per_second")}


def experiment_summaries(outcome: dict) -> list[dict]:
    """A study's outcome's summaries, less their timings."""
    return [without_timings(experiment["summary"]) for experiment in outcome["experiments"]]


def test_the_api_runs_a_tournament_as_the_command_does(tmp_path):
    run = sim.app.api.tournament(LEAGUE, deals=300, seed=4, threads=1, out=tmp_path / "api")
    printed = cli_summary("tournament", *LEAGUE, "--deals", "300", "--seed", "4", "--threads", "1", "--out", "cli",
                          cwd=tmp_path)  # fmt: skip
    assert without_timings(run.summary) == without_timings(printed)
    assert run.path == tmp_path / "api" and not run.interrupted
    pd.testing.assert_frame_equal(run.results.deals, sim.load(tmp_path / "cli").deals)
    assert sorted(run.results.deals["pair"].unique()) == ["0_1", "0_2", "1_2"]


def test_the_api_runs_a_plan_as_batch_does(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    run = sim.app.api.batch(plan, out=tmp_path / "api", chunk_deals=200, threads=1)
    assert run.summary["status"] == "complete" and run.path == tmp_path / "api"
    assert sorted(run.results.names) == ["duel", "league", "table"]
    printed = cli_summary("batch", "plan.toml", "--out", "cli", "--chunk-deals", "200", "--threads", "1", cwd=tmp_path)
    assert experiment_summaries(run.summary) == experiment_summaries(printed)
    pd.testing.assert_frame_equal(dataset(tmp_path / "api"), dataset(tmp_path / "cli"))


def test_an_option_of_no_backend_is_refused_before_anything_runs(tmp_path):
    with pytest.raises(ConfigError, match="'sheduler' is not an option of any backend; their options: scheduler"):
        sim.app.api.compare("greedy", "random", deals=10, out=tmp_path / "x.parquet", sheduler="tcp://here:8786")
    with pytest.raises(ConfigError, match="--scheduler and --workers are for --backend dask"):
        sim.app.api.simulate("greedy", deals=10, out=tmp_path / "x.parquet", workers=2)
    assert list(tmp_path.iterdir()) == []


def test_the_api_runs_a_tournament_and_a_plan_on_dask_as_here(tmp_path):
    pytest.importorskip("distributed")
    here = sim.app.api.tournament(LEAGUE, deals=300, seed=4, threads=1)
    there = sim.app.api.tournament(LEAGUE, deals=300, seed=4, threads=1, backend="dask", workers=2)
    assert without_timings(there.summary) == without_timings(here.summary) and there.path is None
    columns = list(here.results.deals.columns)
    order = ["pair", "deal", "game"]
    pd.testing.assert_frame_equal(
        there.results.deals[columns].sort_values(order).reset_index(drop=True),
        here.results.deals.sort_values(order).reset_index(drop=True),
        check_categorical=False,  # the same names, which a study lists in another order
    )
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    local = sim.app.api.batch(plan, out=tmp_path / "here", chunk_deals=200, threads=1)
    dask = sim.app.api.batch(plan, out=tmp_path / "dask", chunk_deals=200, threads=1, backend="dask", workers=2)
    assert experiment_summaries(dask.summary) == experiment_summaries(local.summary)
    pd.testing.assert_frame_equal(dataset(tmp_path / "dask"), dataset(tmp_path / "here"))
    status = json.loads((tmp_path / "dask" / "_study.json").read_text())
    assert status["backend_options"] == ["--backend", "dask", "--workers", "2"]  # its --resume runs it there again


def relay(*args, cwd):
    """``briscola ARGS`` in a fresh interpreter with the tests' relay backend registered."""
    return subprocess.run([sys.executable, "-m", "tests.relay_backend", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip


def test_a_new_backend_is_taken_by_the_command_line_with_its_own_option(tmp_path):
    game = ["simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "300", "--seed", "2"]
    shown = relay(*game[:1], "--help", cwd=tmp_path).stdout
    assert "relay (this machine, relayed)" in shown and "--hops" in shown and "With --backend relay" in shown
    ran = relay(*game, "--backend", "relay", "--hops", "2", "--out", "study", "--json", cwd=tmp_path)
    assert ran.returncode == 0 and "briscola: relayed over 2 hops" in ran.stderr, ran.stderr
    assert without_timings(json.loads(ran.stdout)) == without_timings(
        cli_summary(*game, "--summary-only", cwd=tmp_path)
    )
    status = json.loads((tmp_path / "study" / "_study.json").read_text())  # a study of one experiment
    assert status["status"] == "complete" and status["backend_options"] == ["--backend", "relay", "--hops", "2"]
    for args, message in (
        (["--backend", "relay", "--hops", "0"], "--hops 0 must be at least 1"),  # its own check
        (["--backend", "relay", "--workers", "2"], "--scheduler and --workers are for --backend dask"),
        (["--backend", "local", "--hops", "2"], "--hops is for --backend relay"),
        (["--backend", "ray"], "--backend 'ray' is not a backend; valid: local, dask, relay"),
    ):
        refused = relay(*game, *args, "--out", "refused", cwd=tmp_path)
        assert refused.returncode == 2 and refused.stderr.strip().splitlines() == [f"briscola: error: {message}"]
        assert not (tmp_path / "refused").exists()
    completing = {"_BRISCOLA_COMPLETE": "complete_bash", "COMP_WORDS": "briscola simulate --backend re",
                  "COMP_CWORD": "3"}  # fmt: skip
    completed = subprocess.run([sys.executable, "-m", "tests.relay_backend"], cwd=tmp_path, capture_output=True,
                               text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO), **completing})  # fmt: skip
    assert completed.stdout.split() == ["relay"]


def test_the_commands_in_process_are_at_the_top_of_sim():
    """``sim.compare`` and the rest, as the README shows them: the notebook API's own."""
    import sim
    from sim.app import api

    assert all(getattr(sim, name) is getattr(api, name) for name in ("simulate", "compare", "tournament", "batch"))
    assert {"simulate", "compare", "tournament", "batch"} <= set(dir(sim))
