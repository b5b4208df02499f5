"""``--overwrite`` replaces only what briscola wrote: anything else in the way is refused
in one line naming it, and left as it was."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.helpers import run_here


def foreign_folder(folder):
    """A folder holding someone's work, and briscola's own file names beside it."""
    (folder / "thesis").mkdir(parents=True)
    (folder / "thesis" / "chapter1.tex").write_text("three years of work")
    (folder / "other_run.parquet").write_bytes(b"not briscola's")
    return {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def untouched(kept: dict) -> bool:
    return all(path.exists() and path.read_bytes() == data for path, data in kept.items())


def test_a_tournament_does_not_overwrite_a_folder_of_someone_elses_files(tmp_path):
    victim = tmp_path / "victim"
    kept = foreign_folder(victim)
    code, out, err = run_here("tournament", "random", "greedy", "--deals", "20", "--seed", "1",
                              "--out", str(victim), "--overwrite", "--quiet")  # fmt: skip
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "which briscola did not write" in err and str(victim / "other_run.parquet") in err
    assert untouched(kept) and sorted(p.name for p in victim.iterdir()) == ["other_run.parquet", "thesis"]


def test_a_tournament_replaces_its_own_folder(tmp_path):
    out = tmp_path / "league"
    for deals in ("20", "30"):
        code, _, _ = run_here("tournament", "random", "greedy", "highest", "--deals", deals, "--seed", "1",
                              "--out", str(out), "--overwrite", "--quiet")  # fmt: skip
        assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["_tournament.json", "pair_0_1.parquet", "pair_0_2.parquet",
                                                     "pair_1_2.parquet"]  # fmt: skip
    assert len(pd.read_parquet(out / "pair_0_1.parquet")) == 60
    assert [p.name for p in tmp_path.iterdir()] == ["league"]  # nothing set aside is left


def test_a_dask_run_does_not_overwrite_a_folder_of_someone_elses_files(tmp_path):
    pytest.importorskip("distributed")
    victim = tmp_path / "victim2"
    (victim / "notes").mkdir(parents=True)
    (victim / "notes" / "todo.txt").write_text("call the bank")
    (victim / "_study.json").write_text("{}")  # looks like a study, but holds a stranger's notes
    code, _, err = run_here("simulate", "--players", "2", "--strategies", "random", "--deals", "20",
                            "--seed", "1", "--backend", "dask", "--workers", "1", "--out", str(victim),
                            "--overwrite", "--quiet")  # fmt: skip
    assert code == 2 and str(victim / "notes" / "todo.txt") in err
    assert (victim / "notes" / "todo.txt").read_text() == "call the bank" and (victim / "_study.json").exists()


def test_a_report_does_not_overwrite_a_folder_of_someone_elses_files(tmp_path):
    run = tmp_path / "run.parquet"
    assert run_here("simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "50",
                    "--seed", "1", "--out", str(run), "--quiet")[0] == 0  # fmt: skip
    assert run_here("report", str(run))[0] == 0
    report = tmp_path / "run_report"
    (report / "my_notes.md").write_text("what the plots mean")
    code, _, err = run_here("report", str(run), "--overwrite")
    assert code == 2 and str(report / "my_notes.md") in err and (report / "my_notes.md").exists()
    (report / "my_notes.md").unlink()
    assert run_here("report", str(run), "--overwrite")[0] == 0  # its own report is drawn again
    assert (report / "index.html").exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def linked(tmp_path, name: str, target) -> tuple:
    """``name`` in a folder of its own, a symbolic link to ``target`` (kept elsewhere)."""
    (tmp_path / "here").mkdir(exist_ok=True)
    link = tmp_path / "here" / name
    link.symlink_to(target)
    return link, target


def left_beside(link) -> list[str]:
    """What a run left in the link's folder besides the link (a temporary, a real folder)."""
    return sorted(p.name for p in link.parent.iterdir() if p != link)


def test_a_tournament_overwrites_through_a_linked_folder_and_keeps_the_link(tmp_path):
    args = ("tournament", "random", "greedy", "highest", "--seed", "1", "--quiet")
    real = tmp_path / "disk" / "league"
    real.parent.mkdir()
    assert run_here(*args, "--deals", "20", "--out", str(real))[0] == 0
    link, _ = linked(tmp_path, "league", real)
    assert run_here(*args, "--deals", "30", "--out", str(link), "--overwrite")[0] == 0
    assert link.is_symlink() and link.resolve() == real  # the link is kept, and names the new tournament
    assert len(pd.read_parquet(real / "pair_0_1.parquet")) == 60  # the folder it points to holds the new one
    assert left_beside(link) == [] and [p.name for p in real.parent.iterdir()] == ["league"]


def test_a_linked_folder_of_someone_elses_files_is_refused_and_left_whole(tmp_path):
    victim = tmp_path / "disk" / "victim"
    kept = foreign_folder(victim)
    link, _ = linked(tmp_path, "victim", victim)
    code, _, err = run_here("tournament", "random", "greedy", "--deals", "20", "--seed", "1",
                            "--out", str(link), "--overwrite", "--quiet")  # fmt: skip
    assert code == 2 and "which briscola did not write" in err
    assert untouched(kept) and link.is_symlink() and left_beside(link) == []


@pytest.mark.parametrize("command_args", [
    ("simulate", "--players", "2", "--strategies", "greedy,random"),
    ("compare", "greedy", "random"),
])  # fmt: skip
def test_a_result_file_is_overwritten_through_its_link(tmp_path, command_args):
    real = tmp_path / "disk" / "run.parquet"
    real.parent.mkdir()
    assert run_here(*command_args, "--deals", "20", "--seed", "1", "--out", str(real), "--quiet")[0] == 0
    link, _ = linked(tmp_path, "run.parquet", real)
    assert run_here(*command_args, "--deals", "30", "--seed", "1", "--out", str(link), "--overwrite",
                    "--quiet")[0] == 0  # fmt: skip
    assert link.is_symlink() and link.resolve() == real
    assert pd.read_parquet(real)["deal"].max() == 29 and left_beside(link) == []


def test_a_report_is_drawn_again_through_its_linked_folder(tmp_path):
    run = tmp_path / "run.parquet"
    assert run_here("simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "50",
                    "--seed", "1", "--out", str(run), "--quiet")[0] == 0  # fmt: skip
    real = tmp_path / "disk" / "plots"
    real.mkdir(parents=True)
    (tmp_path / "run_report").symlink_to(real)
    assert run_here("report", str(run), "--overwrite")[0] == 0
    assert (tmp_path / "run_report").is_symlink() and (real / "index.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disk", "run.parquet", "run_report"]


def test_a_killed_runs_temporary_link_is_removed_without_emptying_what_it_points_to(tmp_path):
    from sim.base.files import host_tag

    precious = tmp_path / "disk" / "league"
    precious.mkdir(parents=True)
    (precious / "pair_0_1.parquet").write_bytes(b"a pair of someone's tournament")
    out = tmp_path / "league"
    stale = tmp_path / f".league.{host_tag()}-999999999-0a1b2c3d.tmp"  # a dead process's, as an earlier bug left
    stale.symlink_to(precious)
    assert run_here("tournament", "random", "greedy", "--deals", "20", "--seed", "1", "--out", str(out),
                    "--quiet")[0] == 0  # fmt: skip
    assert not stale.is_symlink() and (precious / "pair_0_1.parquet").exists()


def test_a_study_is_made_and_run_again_through_a_linked_folder(tmp_path):
    pytest.importorskip("distributed")
    real = tmp_path / "disk" / "study"
    real.parent.mkdir()
    link, _ = linked(tmp_path, "study", real)  # dangling: the study is made where it points
    args = ("simulate", "--players", "2", "--strategies", "greedy,random", "--seed", "1", "--backend", "dask",
            "--workers", "1", "--out", str(link), "--quiet")  # fmt: skip
    assert run_here(*args, "--deals", "20")[0] == 0
    assert link.is_symlink() and (real / "_study.json").exists()
    assert run_here(*args, "--deals", "30", "--overwrite")[0] == 0
    assert link.is_symlink() and len(pd.read_parquet(real)) == 30 and left_beside(link) == []


def test_a_folder_of_someone_elses_files_is_not_kept_as_a_report(tmp_path):
    run = tmp_path / "run.parquet"
    assert run_here("simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "50",
                    "--seed", "1", "--out", str(run), "--quiet")[0] == 0  # fmt: skip
    report = tmp_path / "run_report"
    report.mkdir()
    (report / "my_notes.md").write_text("what the plots will mean")
    code, out, err = run_here("report", str(run))
    assert code == 2 and out == "" and "kept" not in err and len(err.strip().splitlines()) == 1
    assert f"holds no report but {report / 'my_notes.md'}" in err
    assert [p.name for p in report.iterdir()] == ["my_notes.md"]  # left as it was
    (report / "my_notes.md").unlink()  # an empty folder: the report is drawn in it
    code, _, err = run_here("report", str(run))
    assert code == 0 and f"wrote {report / 'index.html'}" in err
    code, _, err = run_here("report", str(run))  # a report drawn before: kept
    assert code == 0 and f"kept the existing report {report}" in err
