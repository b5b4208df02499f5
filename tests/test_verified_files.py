"""Result files and tournament folders are checked before they are trusted: a file whose
rows are not those its metadata describes, or a tournament lacking a pair, is named in
one line by ``report`` and ``diff`` and is an error for ``sim.load``."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

import sim
from tests.helpers import run_here


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    for name, extra in (("plain", []), ("redeal", ["--rule", "trump_redeal=ace-three"])):
        assert sim.app.cli.main(["compare", "expert", "greedy", "--deals", "300", "--seed", "1", "--out",
                             str(folder / f"{name}.parquet"), "--quiet", *extra]) == 0  # fmt: skip
    assert sim.app.cli.main(["tournament", "random", "greedy", "highest", "--deals", "50", "--seed", "1", "--out",
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


def test_a_file_that_lost_rows_is_named_by_report_and_diff(runs, tmp_path):
    short = rewrite(runs / "plain.parquet", tmp_path / "short.parquet", rows=500)
    message = "holds 500 rows where its metadata says 600"
    assert message in one_line(*run_here("report", str(short)))
    assert message in one_line(*run_here("diff", str(short), str(runs / "redeal.parquet")))
    with pytest.raises(ValueError, match=message):
        sim.load(short)
    assert len(sim.load(runs / "plain.parquet").deals) == 600  # a whole file reads as before


def test_a_tournament_lacking_a_pair_is_named(runs, tmp_path):
    import shutil

    league = shutil.copytree(runs / "league", tmp_path / "league")
    (league / "pair_0_2.parquet").unlink()
    err = one_line(*run_here("report", str(league)))
    assert "lacks pair_0_2.parquet (random against highest)" in err


@pytest.mark.parametrize("metadata, message", [
    ({"players": 4, "seed": 1}, "its metadata says 4 players but its rows hold 2"),
    ({}, "its metadata names no table and seed"),
])  # fmt: skip
def test_metadata_that_does_not_fit_the_rows_is_one_clear_error(runs, tmp_path, metadata, message):
    wrong = rewrite(runs / "plain.parquet", tmp_path / "wrong.parquet", metadata=metadata)
    with pytest.raises(ValueError, match=message):
        sim.load(wrong)
    assert message in one_line(*run_here("report", str(wrong)))


def edited(metadata: dict, where: list, value) -> dict:
    """The metadata with one figure of its summary changed (as a flipped digit would)."""
    metadata = json.loads(json.dumps(metadata))
    figure = metadata["summary"]
    for key in where[:-1]:
        figure = figure[key]
    figure[where[-1]] = value
    return metadata


@pytest.mark.parametrize("name, where", [
    ("plain.parquet", ["score"]),
    ("plain.parquet", ["elo_ci95", 1]),
    ("league/pair_0_2.parquet", ["wins"]),
])  # fmt: skip
def test_a_summary_that_is_not_its_rows_is_refused_by_report_and_load(runs, tmp_path, name, where):
    source = runs / name
    metadata = json.loads(pq.read_metadata(source).metadata[b"briscola"])
    figure = metadata["summary"]
    for key in where:
        figure = figure[key]
    wrong = rewrite(source, tmp_path / "edited.parquet", metadata=edited(metadata, where, figure + 1))
    with pytest.raises(ValueError, match="its summary says .* where its rows give"):
        sim.load(wrong)
    err = one_line(*run_here("report", str(wrong)))
    assert f"its summary says {where[0]}" in err and "changed or damaged" in err
    assert not (tmp_path / "edited_report").exists()


def test_a_simulate_summary_is_checked_and_its_timings_are_not_figures(tmp_path, capsys):
    run = tmp_path / "run.parquet"
    assert sim.app.cli.main(["simulate", "--players", "4", "--strategies", "greedy,random", "--deals", "300", "--seed",
                         "2", "--match", "best-of-3", "--out", str(run), "--quiet"]) == 0  # fmt: skip
    metadata = json.loads(pq.read_metadata(run).metadata[b"briscola"])
    slower = rewrite(run, tmp_path / "slower.parquet", metadata=edited(metadata, ["seconds"], 99.0))
    assert len(sim.load(slower).deals) == len(sim.load(run).deals)  # a timing is not in the rows
    rate = metadata["summary"]["sides"][0]["win_rate"]
    wrong = rewrite(run, tmp_path / "wrong.parquet", metadata=edited(metadata, ["sides", 0, "win_rate"], rate / 2))
    capsys.readouterr()
    assert "its summary says sides[0].win_rate" in one_line(*run_here("report", str(wrong)))


def test_rows_changed_under_their_summary_are_refused(runs, tmp_path):
    """The summary kept beside the rows checks the rows too: a game's winner changed."""
    table = pq.read_table(runs / "plain.parquet")
    winners = table.column("winner_side").to_pylist()
    winners[0] = 1 - winners[0] if winners[0] >= 0 else 0
    import pyarrow as pa

    index = table.schema.get_field_index("winner_side")
    table = table.set_column(index, table.schema.field(index), pa.array(winners, type=pa.int8()))
    changed = tmp_path / "changed.parquet"
    pq.write_table(table.replace_schema_metadata(pq.read_metadata(runs / "plain.parquet").metadata), changed)
    assert "where its rows give" in one_line(*run_here("report", str(changed)))


@pytest.mark.parametrize("column", ["deck", "hand_1"])
def test_cards_changed_under_their_deal_are_refused(runs, tmp_path, column):
    """No figure of the summary counts the cards, so what reads them deals them again from
    the seed and compares: two cards of one row's hand (or deck) swapped."""
    import pyarrow as pa

    table = pq.read_table(runs / "plain.parquet")
    cards = table.column(column).to_pylist()
    if column == "deck":
        row = bytearray(cards[7])
        row[0], row[1] = row[1], row[0]
        cards[7] = bytes(row)
    else:
        cards[7] = [cards[7][1], cards[7][0], *cards[7][2:]]
    index = table.schema.get_field_index(column)
    table = table.set_column(index, table.schema.field(index), pa.array(cards, type=table.schema.field(index).type))
    changed = tmp_path / "changed.parquet"
    pq.write_table(table.replace_schema_metadata(pq.read_metadata(runs / "plain.parquet").metadata), changed)
    assert f"row 7 ({column}) does not hold the cards of deal 3" in one_line(*run_here("luck", str(changed)))
    with pytest.raises(ValueError, match="does not hold the cards"):
        sim.deal_features(sim.load(changed))  # where the cards are read: sim.load stays free of the kernels


def test_a_tournaments_matrix_and_ratings_are_its_pairs_own(runs, tmp_path):
    import shutil

    league = shutil.copytree(runs / "league", tmp_path / "league")
    record = json.loads((league / "_tournament.json").read_text())
    record["ratings"][1]["rating"] += 100
    (league / "_tournament.json").write_text(json.dumps(record))
    err = one_line(*run_here("report", str(league)))
    assert "_tournament.json: its summary says ratings[1].rating" in err
    with pytest.raises(ValueError, match="ratings"):
        sim.load(league)


def test_a_file_of_a_kind_this_version_does_not_read_is_refused_not_read_as_another(runs, tmp_path):
    """A file names its kind; one this version does not know (a later version's) is
    refused in one line naming it and the kinds it reads, never read as a simulation."""
    from sim.present.analysis import RefusedRun

    metadata = json.loads(pq.read_metadata(runs / "plain.parquet").metadata[b"briscola"])
    for unknown in ({**metadata, "kind": "gauntlet"}, {key: value for key, value in metadata.items() if key != "compare"}
                    | {"kind": "gauntlet"}):  # fmt: skip
        other = rewrite(runs / "plain.parquet", tmp_path / "other.parquet", metadata=unknown)
        with pytest.raises(RefusedRun, match="of kind 'gauntlet'.*it reads simulate, compare"):
            sim.load(other)
        err = one_line(*run_here("report", str(other)))
        assert "kind 'gauntlet'" in err and not (tmp_path / "other_report").exists()
        assert "kind 'gauntlet'" in one_line(*run_here("diff", str(other), str(runs / "redeal.parquet")))


def test_a_file_names_the_kind_it_is_read_as_and_files_of_earlier_versions_read_as_before(runs, tmp_path):
    """A comparison's file and a tournament's pair files are comparisons' files; a file
    written before files named their kind is read by the keys it holds."""
    for name in ("plain.parquet", "league/pair_0_1.parquet"):
        assert json.loads(pq.read_metadata(runs / name).metadata[b"briscola"])["kind"] == "compare"
    metadata = json.loads(pq.read_metadata(runs / "plain.parquet").metadata[b"briscola"])
    earlier = rewrite(runs / "plain.parquet", tmp_path / "earlier.parquet",
                      metadata={key: value for key, value in metadata.items() if key != "kind"})  # fmt: skip
    run = sim.load(earlier)
    assert run.kind == "compare" and run.strategies == ["expert", "greedy"] and len(run.deals) == 600
