"""A study trusts only what verifies: a damaged, copied or missing part, an edited record
or a lost status file is named by ``status`` and ``sim.load`` and played again by
``--resume``; readers never block a run; plans too large are refused before they are
listed."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

import sim
from sim.present.analysis import StudyDamaged
from tests.helpers import dataset, run_here

PLAN = """
seed = 3

[[simulate]]
name = "solo"
players = 2
strategies = ["greedy", "random"]
deals = 4000

[[compare]]
name = "duel"
a = "greedy"
b = "random"
deals = 2000
"""


def status(study: Path) -> dict:
    code, out, err = run_here("status", str(study), "--json")
    assert code == 0, err
    return json.loads(out)


def summaries(outcome: dict) -> dict:
    return {e["name"]: {k: v for k, v in e["summary"].items() if k not in ("seconds", "deals_per_second")}
            for e in outcome["experiments"]}  # fmt: skip


@pytest.fixture()
def made(tmp_path):
    """A finished study in chunks of 1,000 deals, and a copy of it kept as the reference."""
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    code, _, err = run_here("batch", str(plan), "--out", str(tmp_path / "study"), "--chunk-deals", "1000",
                            "--quiet")  # fmt: skip
    assert code == 0, err
    shutil.copytree(tmp_path / "study", tmp_path / "reference")
    return plan, tmp_path / "study", tmp_path / "reference"


def resume(plan: Path, study: Path) -> str:
    code, _, err = run_here("batch", str(plan), "--out", str(study), "--resume", "--quiet")
    assert code == 0, err
    return err


def flip_a_bit(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x10
    path.write_bytes(bytes(data))


DAMAGES = {
    "a flipped bit": lambda study: flip_a_bit(study / "experiment=solo" / "part-000000001000.parquet"),
    "another chunk's part": lambda study: shutil.copy(study / "experiment=solo" / "part-000000002000.parquet",
                                                      study / "experiment=solo" / "part-000000001000.parquet"),
    "another experiment's part and record": lambda study: [
        shutil.copy(study / "experiment=duel" / name, study / "experiment=solo" / name)
        for name in ("part-000000001000.parquet", "_chunks/part-000000001000.json")],
    "a part gone": lambda study: (study / "experiment=solo" / "part-000000001000.parquet").unlink(),
}  # fmt: skip


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_chunk_is_named_left_out_and_played_again(made, damage):
    plan, study, reference = made
    DAMAGES[damage](study)
    seen = status(study)
    solo = seen["experiments"][0]
    assert seen["status"] == "partial" and solo["status"] == "partial" and solo["chunks_done"] == 3
    assert [d["chunk"] for d in solo["damaged"]] == ["part-000000001000"] and seen["experiments"][1]["damaged"] == []
    assert solo["summary"]["deals"] == 3000  # the summary counts only what verifies
    with pytest.warns(StudyDamaged, match="part-000000001000"):
        loaded = sim.load(study)
    assert loaded.partial == ["solo"] and len(loaded.experiment("solo").deals) == 3000
    assert not set(loaded.experiment("solo").deals["deal"]) & set(range(1000, 2000))
    err = resume(plan, study)
    assert "experiment 'solo' part-000000001000" in err and "played again" in err
    pd.testing.assert_frame_equal(dataset(study), dataset(reference))
    assert summaries(status(study)) == summaries(status(reference))


def test_an_edited_record_is_damaged_and_summaries_agree_with_the_rows(made):
    plan, study, reference = made
    record = study / "experiment=duel" / "_chunks" / "part-000000000000.json"
    edited = json.loads(record.read_text())
    edited["tally"]["score_counts"][-1] += 100  # a one-digit edit of its tally: 100 deals more won
    record.write_text(json.dumps(edited, indent=1))
    duel = status(study)["experiments"][1]
    assert duel["summary"]["deals"] == 1000 and [d["chunk"] for d in duel["damaged"]] == ["part-000000000000"]
    resume(plan, study)
    outcome = status(study)
    assert summaries(outcome) == summaries(status(reference))
    # The summaries agree with the rows: recomputed from the dataset, the same figures.
    loaded = sim.load(study)
    rows = sim.compare_summary(loaded.experiment("duel")).iloc[0]
    duel, solo = outcome["experiments"][1]["summary"], outcome["experiments"][0]["summary"]
    assert rows["deals"] == duel["deals"] and rows["score"] == pytest.approx(duel["score"], abs=1e-6)
    solo_rows = loaded.experiment("solo").deals
    assert len(solo_rows) == solo["deals"] and (solo_rows["winner_side"] == 0).sum() == solo["sides"][0]["wins"]


def sealed(record: Path, edit) -> None:
    """A record edited, and its checksum made again, as someone who read the code would."""
    from sim.pipeline.study import record_checksum

    data = json.loads(record.read_text())
    edit(data)
    data["checksum"] = record_checksum(data)
    record.write_text(json.dumps(data, indent=1))


def test_a_resealed_record_whose_tally_is_not_its_rows_is_damaged(made):
    plan, study, reference = made

    def three_hundred_won_more(record):
        sides = record["tally"]["sides"]
        sides[0]["wins"], sides[0]["losses"] = sides[0]["wins"] + 300, sides[0]["losses"] - 300
        sides[1]["wins"], sides[1]["losses"] = sides[1]["wins"] - 300, sides[1]["losses"] + 300

    sealed(study / "experiment=solo" / "_chunks" / "part-000000000000.json", three_hundred_won_more)
    solo = status(study)["experiments"][0]
    assert [d["chunk"] for d in solo["damaged"]] == ["part-000000000000"]
    assert "tallies its rows do not give" in solo["damaged"][0]["problem"] and solo["summary"]["deals"] == 3000
    resume(plan, study)
    assert summaries(status(study)) == summaries(status(reference))


def test_an_sprt_block_resealed_apart_from_its_rows_is_damaged(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(
        'seed = 3\n[[compare]]\nname = "duel"\na = "greedy"\nb = "greedy"\ndeals = 3000\nsprt = [-2, 2]\n'
    )  # no decision in 3,000 deals: every block's rows are kept
    study = tmp_path / "study"
    assert run_here("batch", str(plan), "--out", str(study), "--chunk-deals", "3000", "--quiet")[0] == 0

    def moved_between_blocks(record):  # the chunk's tally unchanged: a game won moved from a block to another
        first, second = record["blocks"][0], record["blocks"][1]
        first["wins"], first["draws"] = first["wins"] + 1, first["draws"] - 1
        second["wins"], second["draws"] = second["wins"] - 1, second["draws"] + 1

    sealed(study / "experiment=duel" / "_chunks" / "part-000000000000.json", moved_between_blocks)
    duel = status(study)["experiments"][0]
    assert [d["chunk"] for d in duel["damaged"]] == ["part-000000000000"]


def copy_in(study: Path, source: str, target: str) -> None:
    (study / target).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(study / source, study / target)


STRAYS = {
    "a part under a name no chunk has": (
        lambda study: copy_in(study, "experiment=solo/part-000000001000.parquet", "experiment=solo/part-000000009000.parquet"),
        ["experiment=solo/part-000000009000.parquet"]),
    "a part and its record under another name": (
        lambda study: [copy_in(study, f"experiment=solo/{name}1000.{ext}", f"experiment=solo/{name}4000.{ext}")
                       for name, ext in (("part-00000000", "parquet"), ("_chunks/part-00000000", "json"))],
        ["experiment=solo/_chunks/part-000000004000.json", "experiment=solo/part-000000004000.parquet"]),
    "a part in an experiment the plan does not have": (
        lambda study: copy_in(study, "experiment=duel/part-000000000000.parquet", "experiment=old/part-000000000000.parquet"),
        ["experiment=old/part-000000000000.parquet"]),
}  # fmt: skip


@pytest.mark.parametrize("stray", STRAYS)
def test_a_part_that_is_no_chunk_of_the_plan_is_named_and_set_aside(made, stray):
    plan, study, reference = made
    copy, paths = STRAYS[stray]
    copy(study)
    assert len(pd.read_parquet(study)) > len(pd.read_parquet(reference))  # counted twice, as the issue saw
    seen = status(study)
    assert seen["status"] == "complete" and [s["path"] for s in seen["strays"]] == paths
    assert all(s["resume"] == "sets it aside in _set_aside/" for s in seen["strays"])
    code, out, _ = run_here("status", str(study))
    assert code == 0 and f"not the study's: {paths[-1]} is no chunk of the plan (pandas.read_parquet" in out
    assert len(sim.load(study).deals) == len(pd.read_parquet(reference))  # sim.load reads the study alone
    err = resume(plan, study)
    assert f"set aside {len(paths)} file" in err and "_set_aside" in err
    pd.testing.assert_frame_equal(dataset(study), dataset(reference))  # every deal once
    assert status(study)["strays"] == [] and all((study / "_set_aside" / path).exists() for path in paths)


def test_chunks_left_by_another_chunk_size_are_set_aside(made):
    plan, study, reference = made
    recorded = json.loads((study / "_study.json").read_text())
    recorded["experiments"][0]["units_per_chunk"] = 1500  # edited: chunks 0, 1500, 3000
    (study / "_study.json").write_text(json.dumps(recorded))
    strays = [s["path"] for s in status(study)["strays"]]
    assert (
        "experiment=solo/part-000000001000.parquet" in strays and "experiment=solo/part-000000002000.parquet" in strays
    )
    resume(plan, study)
    pd.testing.assert_frame_equal(dataset(study), dataset(reference))


def test_rows_whose_record_never_came_are_named_and_played_again(made):
    plan, study, reference = made
    (study / "experiment=duel" / "_chunks" / "part-000000001000.json").unlink()  # a kill between rows and record
    (stray,) = status(study)["strays"]
    assert stray["path"] == "experiment=duel/part-000000001000.parquet" and "chunk not done" in stray["problem"]
    resume(plan, study)
    pd.testing.assert_frame_equal(dataset(study), dataset(reference))


def test_a_parquet_file_briscola_did_not_write_is_named_and_left_where_it_is(made):
    plan, study, reference = made
    mine = study / "experiment=solo" / "my_rows.parquet"
    pd.DataFrame({"deal": [1, 2]}).to_parquet(mine)
    (stray,) = status(study)["strays"]
    assert stray["read_by_pandas"] and stray["resume"] == "leaves it: briscola did not write it"
    err = resume(plan, study)
    assert "1 file (experiment=solo/my_rows.parquet) that briscola did not write" in err and mine.exists()


def test_a_broken_status_file_is_one_line_and_a_lost_one_is_rebuilt(made):
    plan, study, reference = made
    (study / "_study.json").write_text('{"format": 2, "experiments": [')
    for args in (["status", str(study)], ["batch", str(plan), "--out", str(study), "--resume"]):
        code, out, err = run_here(*args)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and str(study / "_study.json") in err
    (study / "_study.json").unlink()
    err = resume(plan, study)
    assert "_study.json was missing: rebuilt" in err
    assert status(study) == {**status(reference), "out": str(study)}
    pd.testing.assert_frame_equal(dataset(study), dataset(reference))


def test_readers_never_take_the_lock_a_run_needs(made, monkeypatch):
    """status and sim.load look at a study many times a second while runs start beside
    them: every run starts (the readers' look is a shared lock, and a run waits it out)."""
    plan, study, _ = made
    taken = []
    real_flock = fcntl.flock

    def flock(handle, operation):
        taken.append(operation)
        return real_flock(handle, operation)

    monkeypatch.setattr(fcntl, "flock", flock)
    from sim.pipeline.study import read_outcome

    read_outcome(study)
    assert taken and not any(op & fcntl.LOCK_EX for op in taken)  # readers: shared only
    done = threading.Event()

    def poll():
        while not done.is_set():
            read_outcome(study)

    reader = threading.Thread(target=poll)
    reader.start()
    try:
        codes = [run_here("batch", str(plan), "--out", str(study), "--resume", "--quiet")[0] for _ in range(10)]
    finally:
        done.set()
        reader.join()
    assert codes == [0] * 10


def test_two_new_studies_in_one_folder_at_once_one_is_refused_in_one_line(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    runs = [subprocess.Popen([sys.executable, "-m", "sim.app.cli", "batch", str(plan), "--out", str(tmp_path / "study"),
                              "--quiet"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]  # fmt: skip
    ended = [(run.wait(timeout=300), run.stderr.read()) for run in runs]
    assert sorted(code for code, _ in ended) == [0, 2]
    refused = next(err for code, err in ended if code == 2)
    assert len(refused.strip().splitlines()) == 1 and "already exists" in refused and "Traceback" not in refused
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


TOO_LARGE = {
    "10**18 deals": ("[[simulate]]\nname = 'huge'\nplayers = 2\nstrategies = ['greedy']\ndeals = 1_000_000_000_000_000_000\n",
                     "chunks"),
    "a 10-axis grid": ("[[compare]]\nname = 'grid'\na = ['greedy', 'random', 'lowest']\nb = ['highest', 'hoarder', 'expert']\n"
                       "players = [2, 3, 4]\ndeals = [10, 20, 30]\nseed = [1, 2, 3]\nsprt = [[0, 5], [0, 10], [0, 20]]\n"
                       "alpha = [0.01, 0.02, 0.05]\nbeta = [0.01, 0.02, 0.05]\nmatch = ['deal', 'best-of-3', 'best-of-5']\n"
                       "rules = { trump_redeal = ['off', 'ace-three'] }\n", "expands into 39,366 experiments"),
    "a name too long": (f"[[simulate]]\nname = '{'x' * 300}'\nplayers = 2\nstrategies = ['greedy']\ndeals = 10\n",
                        "makes a folder name of 311 bytes"),
}  # fmt: skip


@pytest.mark.parametrize("case", TOO_LARGE)
def test_plans_too_large_are_refused_before_they_are_listed(tmp_path, case):
    text, message = TOO_LARGE[case]
    (tmp_path / "plan.toml").write_text("seed = 1\n" + text)
    result = subprocess.run([sys.executable, "-m", "sim.app.cli", "batch", "plan.toml", "--out", "study"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.toml"]  # nothing written, nothing left


@pytest.mark.parametrize("full_at", ["_chunks", "_study.json"])  # a chunk's record, or the status file
def test_a_full_disk_is_one_line_naming_the_file_and_the_study_resumes(made, monkeypatch, full_at):
    import errno

    plan, study, reference = made
    shutil.rmtree(study)
    real_write = Path.write_text
    writes = []

    def write_text(self, *args, **kwargs):
        if full_at in str(self):
            writes.append(self)
        if len(writes) > 2:  # a few chunks in, the disk is full (the status file: once the first experiment is done)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)
    code, out, err = run_here("batch", str(plan), "--out", str(study), "--chunk-deals", "1000", "--quiet")
    monkeypatch.undo()
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert f"cannot write {study}" in err and "No space left on device" in err
    assert f"briscola batch {plan} --out {study} --resume" in err
    resume(plan, study)
    pd.testing.assert_frame_equal(dataset(study), dataset(reference))


def test_a_full_disk_during_simulate_names_the_file_and_leaves_nothing(tmp_path, monkeypatch):
    import errno

    import pyarrow.parquet as pq

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", full)
    out = tmp_path / "run.parquet"
    code, _, err = run_here("simulate", "--players", "2", "--strategies", "greedy", "--deals", "3000",
                            "--seed", "1", "--out", str(out), "--quiet")  # fmt: skip
    assert code == 1 and err.strip() == f"briscola: error: cannot write {out}: No space left on device"
    assert list(tmp_path.iterdir()) == []
