"""The one pipeline: every run kind registered once, strategies resolved once a run."""

from __future__ import annotations

import pytest

import sim.runtime.play
from sim.pipeline.experiments import make_experiment
from sim.pipeline.kinds import KINDS
from sim.pipeline.runs import run_command
from tests.helpers import fixed_batches


def parses_in_a_run(monkeypatch, batch: int) -> tuple[int, int]:
    """Strategy strings parsed while a comparison runs in batches of ``batch`` deals, and the batches."""
    sim.runtime.play._parsed.cache_clear()
    sim.runtime.play._resolved.cache_clear()
    calls, batches = [], []
    parse = sim.runtime.play.parse_spec
    monkeypatch.setattr(sim.runtime.play, "parse_spec", lambda text, loaded: calls.append(text) or parse(text, loaded))
    launch = sim.runtime.play.run_kernel  # every batch of every seating starts the kernels once
    monkeypatch.setattr(sim.runtime.play, "run_kernel", lambda *args: batches.append(1) or launch(*args))
    fixed_batches(monkeypatch, batch)
    experiment = make_experiment("compare", players=2, strategies=["greedy", "expert"], deals=600, seed=3, threads=1)
    before = len(calls)
    outcome = run_command(experiment, out=None)
    assert outcome.units_done == 600
    return len(calls) - before, len(batches)


def test_a_run_parses_its_strategies_once_not_once_a_batch(monkeypatch):
    few, few_batches = parses_in_a_run(monkeypatch, 300)
    many, many_batches = parses_in_a_run(monkeypatch, 30)
    assert many_batches > few_batches
    assert many == few <= 6  # each seat of each seating once, and the warm-up's two random seats


@pytest.mark.parametrize("name", list(KINDS))
def test_every_run_kind_fills_in_the_whole_interface(name):
    kind = KINDS[name]
    strategies = ["greedy", "random"] if name != "tournament" else ["greedy", "random", "highest"]
    experiment = make_experiment(name, players=2, strategies=strategies, deals=40, seed=1, threads=1)
    assert kind.name == name and experiment.run_kind is kind
    tallies = {}
    for part in experiment.parts:
        player = kind.player(experiment, part)
        tally = kind.new_tally(experiment)
        assert player.play(0, 40, tally, sim.runtime.play.StopFlag()) == 40
        assert kind.read_tally(experiment, tally.to_dict()).to_dict() == tally.to_dict()
        tallies[part] = tally
    summary = kind.summary(experiment, tallies, 1.0)
    assert summary["players"] == 2 and summary["seed"] == 1
    assert kind.default_path(experiment).name.startswith("" if name == "simulate" else name)
    assert len(kind.schema(experiment)) > 5
    tables = kind.tables(summary, False, 1.0)  # shown from its JSON alone: every row fills its columns
    assert tables and all(len(row) == len(table.columns) for table in tables for row in table.rows)
    assert isinstance(kind.headline(summary), str) and kind.headline(summary)
