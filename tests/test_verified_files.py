"""Result files and tournament folders are checked before they are trusted: a file whose
rows are not those its metadata describes, or a tournament lacking a pair, is named in
one line by ``report`` and ``diff`` and is an error for ``sim.load``."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

import sim
from tests.helpers import command


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    for name, extra in (("plain", []), ("redeal", ["--rule", "trump_redeal=ace-three"])):
        assert sim.cli.main(["compare", "expert", "greedy", "--deals", "300", "--seed", "1", "--out",
                             str(folder / f"{name}.parquet"), "--quiet", *extra]) == 0  # fmt: skip
    assert sim.cli.main(["tournament", "random", "greedy", "highest", "--deals", "50", "--seed", "1", "--out",
                         str(folder / "league"), "--quiet"]) == 0  # fmt: skip
    return folder


def rewrite(source, target, rows=None, metadata=None):
    """The file written again as someone's script might: fewer rows, or other metadata."""
    table = pq.read_table(source)
    meta = dict(pq.read_metadata(source).metadata)
    if metadata is not None:
        meta[b"briscola"] = json.dumps(metadata).encode()
    table = table.slice(0, rows if rows is not None else table.num_rows).replace_schema_metadata(meta)
    pq.write_table(table, target)
    return target


def one_line(code, out, err) -> str:
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_file_that_lost_rows_is_named_by_report_and_diff(runs, tmp_path, capsys):
    short = rewrite(runs / "plain.parquet", tmp_path / "short.parquet", rows=500)
    message = "holds 500 rows where its metadata says 600"
    assert message in one_line(*command(capsys, "report", str(short)))
    assert message in one_line(*command(capsys, "diff", str(short), str(runs / "redeal.parquet")))
    with pytest.raises(ValueError, match=message):
        sim.load(short)
    assert len(sim.load(runs / "plain.parquet").deals) == 600  # a whole file reads as before


def test_a_tournament_lacking_a_pair_is_named(runs, tmp_path, capsys):
    import shutil

    league = shutil.copytree(runs / "league", tmp_path / "league")
    (league / "pair_0_2.parquet").unlink()
    err = one_line(*command(capsys, "report", str(league)))
    assert "lacks pair_0_2.parquet (random against highest)" in err


@pytest.mark.parametrize("metadata, message", [
    ({"players": 4, "seed": 1}, "its metadata says 4 players but its rows hold 2"),
    ({}, "its metadata names no table and seed"),
])  # fmt: skip
def test_metadata_that_does_not_fit_the_rows_is_one_clear_error(runs, tmp_path, capsys, metadata, message):
    wrong = rewrite(runs / "plain.parquet", tmp_path / "wrong.parquet", metadata=metadata)
    with pytest.raises(ValueError, match=message):
        sim.load(wrong)
    assert message in one_line(*command(capsys, "report", str(wrong)))
