"""``--overwrite`` replaces only what briscola wrote: anything else in the way is refused
in one line naming it, and left as it was."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.helpers import command


def foreign_folder(folder):
    """A folder holding someone's work, and briscola's own file names beside it."""
    (folder / "thesis").mkdir(parents=True)
    (folder / "thesis" / "chapter1.tex").write_text("three years of work")
    (folder / "other_run.parquet").write_bytes(b"not briscola's")
    return {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def untouched(kept: dict) -> bool:
    return all(path.exists() and path.read_bytes() == data for path, data in kept.items())


def test_a_tournament_does_not_overwrite_a_folder_of_someone_elses_files(tmp_path, capsys):
    victim = tmp_path / "victim"
    kept = foreign_folder(victim)
    code, out, err = command(capsys, "tournament", "random", "greedy", "--deals", "20", "--seed", "1",
                             "--out", str(victim), "--overwrite", "--quiet")  # fmt: skip
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "which briscola did not write" in err and str(victim / "other_run.parquet") in err
    assert untouched(kept) and sorted(p.name for p in victim.iterdir()) == ["other_run.parquet", "thesis"]


def test_a_tournament_replaces_its_own_folder(tmp_path, capsys):
    out = tmp_path / "league"
    for deals in ("20", "30"):
        code, _, _ = command(capsys, "tournament", "random", "greedy", "highest", "--deals", deals, "--seed", "1",
                             "--out", str(out), "--overwrite", "--quiet")  # fmt: skip
        assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["_tournament.json", "pair_0_1.parquet", "pair_0_2.parquet",
                                                     "pair_1_2.parquet"]  # fmt: skip
    assert len(pd.read_parquet(out / "pair_0_1.parquet")) == 60
    assert [p.name for p in tmp_path.iterdir()] == ["league"]  # nothing set aside is left


def test_a_dask_run_does_not_overwrite_a_folder_of_someone_elses_files(tmp_path, capsys):
    pytest.importorskip("distributed")
    victim = tmp_path / "victim2"
    (victim / "notes").mkdir(parents=True)
    (victim / "notes" / "todo.txt").write_text("call the bank")
    (victim / "_study.json").write_text("{}")  # looks like a study, but holds a stranger's notes
    code, _, err = command(capsys, "simulate", "--players", "2", "--strategies", "random", "--deals", "20",
                           "--seed", "1", "--backend", "dask", "--workers", "1", "--out", str(victim),
                           "--overwrite", "--quiet")  # fmt: skip
    assert code == 2 and str(victim / "notes" / "todo.txt") in err
    assert (victim / "notes" / "todo.txt").read_text() == "call the bank" and (victim / "_study.json").exists()


def test_a_report_does_not_overwrite_a_folder_of_someone_elses_files(tmp_path, capsys):
    run = tmp_path / "run.parquet"
    assert command(capsys, "simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "50",
                   "--seed", "1", "--out", str(run), "--quiet")[0] == 0  # fmt: skip
    assert command(capsys, "report", str(run))[0] == 0
    report = tmp_path / "run_report"
    (report / "my_notes.md").write_text("what the plots mean")
    code, _, err = command(capsys, "report", str(run), "--overwrite")
    assert code == 2 and str(report / "my_notes.md") in err and (report / "my_notes.md").exists()
    (report / "my_notes.md").unlink()
    assert command(capsys, "report", str(run), "--overwrite")[0] == 0  # its own report is drawn again
    assert (report / "index.html").exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
