"""A study keeps its deals move by move when its plan asks (``trace = true``): the same
rows as ``simulate --trace`` writes, kept apart from the rows' dataset, verified like
the rows (a damaged trace is named and played again), and read by ``sim.load``."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

import sim
from sim.pipeline.kinds import KINDS
from sim.present.analysis import StudyDamaged
from tests.helpers import run_here

PLAN = """
seed = 5

[[simulate]]
name = "data"
players = [2, 5]
strategies = ["greedy"]
deals = 3000
trace = true

[[simulate]]
name = "plain"
players = 2
strategies = ["greedy", "random"]
deals = 500
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    folder = tmp_path_factory.mktemp("traces")
    (folder / "plan.toml").write_text(PLAN)
    ran = run_here("batch", folder / "plan.toml", "--out", folder / "study", "--chunk-deals", "1000", "--quiet")
    assert ran.returncode == 0, ran.stderr
    return folder


def by_deal(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.sort_values("deal").reset_index(drop=True)
    return frame.map(lambda v: v.tolist() if hasattr(v, "tolist") else v)  # list cells compared as lists


@pytest.mark.parametrize("players", [2, 5])
def test_a_studys_traces_are_the_commands_traces(made, tmp_path, players):
    trace = tmp_path / "trace.parquet"
    code, _, err = run_here("simulate", "--players", str(players), "--strategies", "greedy", "--deals",
                            "3000", "--seed", "5", "--trace", str(trace), "--summary-only", "--quiet")  # fmt: skip
    assert code == 0, err
    kept = sim.load(made / "study").traces(f"data/players={players}")
    pd.testing.assert_frame_equal(by_deal(kept), by_deal(pd.read_parquet(trace)))


def test_traces_stay_out_of_the_rows_and_only_the_plan_entry_asking_keeps_them(made):
    study = made / "study"
    rows = pd.read_parquet(study)
    assert len(rows) == 3000 + 3000 + 500 and "plays" not in rows.columns
    assert not (study / "experiment=plain" / "_traces").exists()
    with pytest.raises(KeyError, match="keeps no traces"):
        sim.load(study).traces("plain")


def test_a_damaged_trace_is_named_left_out_and_played_again(made, tmp_path):
    study = tmp_path / "study"
    shutil.copytree(made / "study", study)
    part = study / "experiment=data%2Fplayers%3D2" / "_traces" / "part-000000001000.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 3] ^= 0x10
    part.write_bytes(bytes(data))
    code, out, _ = run_here("status", str(study), "--json")
    damaged = json.loads(out)["experiments"][0]["damaged"]
    assert [d["chunk"] for d in damaged] == ["part-000000001000"] and "trace" in damaged[0]["problem"]
    with pytest.warns(StudyDamaged):
        assert len(sim.load(study).traces("data/players=2")) == 2000
    code, _, err = run_here("batch", str(made / "plan.toml"), "--out", str(study), "--resume", "--quiet")
    assert code == 0 and "played again" in err, err
    pd.testing.assert_frame_equal(by_deal(sim.load(study).traces("data/players=2")),
                                  by_deal(sim.load(made / "study").traces("data/players=2")))  # fmt: skip


ENTRIES = {  # a plan entry of each kind that traces, and its command
    "simulate": (
        'players = 2\nstrategies = ["expert", "greedy"]',
        ["simulate", "--players", "2", "--strategies", "expert,greedy"],
    ),
    "compare": ('a = "expert"\nb = "greedy"', ["compare", "expert", "greedy"]),
    "tournament": ('strategies = ["expert", "greedy", "random"]', ["tournament", "expert", "greedy", "random"]),
}


def test_every_kind_that_traces_keeps_its_commands_trace_in_a_study(tmp_path):
    assert set(ENTRIES) == {name for name, kind in KINDS.items() if kind.traces}
    entries = "".join(
        f'[[{kind}]]\nname = "{kind}"\ndeals = 20\ntrace = true\n{keys}\n' for kind, (keys, _) in ENTRIES.items()
    )
    (tmp_path / "plan.toml").write_text("seed = 4\n" + entries)
    done = run_here("batch", tmp_path / "plan.toml", "--out", tmp_path / "study", "--chunk-deals", "10", "--quiet")
    assert done.returncode == 0, done.stderr
    for kind, (_, command) in ENTRIES.items():
        trace = tmp_path / f"{kind}.parquet"
        done = run_here(*command, "--deals", "20", "--seed", "4", "--trace", trace, "--summary-only", "--quiet")
        assert done.returncode == 0, done.stderr
        expected = pd.read_parquet(trace)
        order = [column for column in ("pair", "deal", "game") if column in expected]
        kept = sim.load(tmp_path / "study").traces(kind).sort_values(order, ignore_index=True)
        pd.testing.assert_frame_equal(kept, expected.sort_values(order, ignore_index=True))
