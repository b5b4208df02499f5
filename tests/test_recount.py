"""A run's tallies counted again from its rows (sim.base.recount) are exactly those the run
counted while it played, at every table, for every kind and match format: what readers
check a file's summary and a chunk's record against."""

from __future__ import annotations

import pytest

from sim.base.recount import RowsDisagree, columns_of, compare_tally, run_tally
from sim.pipeline.chunks import chunks_of, run_chunk
from sim.pipeline.experiments import make_experiment

TABLES = [(2, "deal"), (3, "deal"), (4, "deal"), (5, "deal"), (6, "deal"), (2, "best-of-3"), (3, "best-of-5"),
          (4, "two-deals-120"), (5, "five-deals"), (6, "best-of-3"), (3, "two-deals-120")]  # fmt: skip
SEATS = {2: ["greedy", "random"], 3: ["greedy", "random", "expert"], 4: ["greedy", "random"],
         5: ["greedy", "random", "expert", "random", "greedy"], 6: ["greedy", "random"]}  # fmt: skip


def played(kind: str, players: int, match: str):
    strategies = SEATS[players] if kind == "simulate" else ["greedy", "random"]
    experiment = make_experiment(kind, players=players, strategies=strategies, deals=240, seed=5, match=match)
    return run_chunk(experiment, chunks_of(experiment, 240)[0], rows=True)


@pytest.mark.parametrize("players, match", TABLES)
@pytest.mark.parametrize("kind, recount", [("simulate", run_tally), ("compare", compare_tally)])
def test_the_rows_give_the_tally_the_run_counted(kind, recount, players, match):
    result = played(kind, players, match)
    assert recount(columns_of(result.table, players), players, match).to_dict() == result.tally.to_dict()


def test_rows_no_comparison_writes_are_named():
    result = played("compare", 2, "deal")
    rows = columns_of(result.table, 2)
    rows = {name: column[1:] for name, column in rows.items()}  # seating 0 lost its first deal
    with pytest.raises(RowsDisagree, match="seating 1 holds other deals than seating 0"):
        compare_tally(rows, 2, "deal")
