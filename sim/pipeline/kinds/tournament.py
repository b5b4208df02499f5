"""``briscola tournament S1 S2 ...``: every pair compared on the same duplicate deals,
and one rating per strategy (the ratings' statistics: sim/base/stats.py). Each pair is a part
of its own: a comparison, with a file of its own in the tournament's folder."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from sim.base import summaries
from sim.base.config import ConfigError
from sim.base.files import Layout
from sim.base.stats import PairResult
from sim.pipeline.kinds.base import RefusedRun, Table, default_path, table_of
from sim.pipeline.kinds.compare import DuplicateDeals, DuplicatesPlayer, seated, seating_letters
from sim.pipeline.kinds.words import run_facts, units

INDEX_FILE = "_tournament.json"  # its folder's summary and status, beside a file per pair


class Tournament(DuplicateDeals):
    name = "tournament"
    folder = Layout("tournament", (r"_tournament\.json", r"pair_\d+_\d+\.parquet"))
    index_file = INDEX_FILE
    file_kind = "compare"  # a pair's file is a comparison's
    called = "a tournament"

    parts_called = "pairs"
    part_column = "pair"  # the column of its rows read together that names their part
    rated = True
    unpaired = "a tournament holds several comparisons: take one pair file (pair_I_J.parquet) instead"

    def check(self, labels, sprt) -> None:
        super().check(labels, sprt)
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise ConfigError(f"a tournament takes two or more different strategies, not {', '.join(labels)}")

    def parts(self, experiment) -> list[tuple[int, int]]:
        return list(itertools.combinations(range(len(experiment.strategies)), 2))

    def player(self, experiment, part):
        i, j = part
        return DuplicatesPlayer(experiment.config, experiment.strategies[i], experiment.strategies[j],
                                self.part_label(part))  # fmt: skip

    def trace_schema(self):
        """A comparison's trace, its pair (``i_j``) first: every pair's games in one file."""
        import pyarrow as pa

        return super().trace_schema().insert(0, pa.field("pair", pa.string()))

    def trace_strategies(self, config: dict, table):
        """A and B of each row's pair (``i_j``: their indices among the strategies) where
        its game's seating puts them."""
        names = np.array(config["strategies"], dtype=object)
        pairs = np.array([label.split("_") for label in table["pair"].to_pylist()], dtype=np.int64).reshape(-1, 2)
        return seated(config["seatings"], table["game"].to_numpy(), names[pairs[:, 0]], names[pairs[:, 1]])

    def trace_metadata(self, experiment, parts: list[str]) -> dict:
        """What its trace file says of it beside the run: the strategies (by index, as the
        pairs name them), the seatings (a letter per seat) and the pairs it holds."""
        players = experiment.config.players
        return {"kind": self.name, "strategies": list(experiment.strategies), "seatings": seating_letters(players),
                self.parts_called: parts}  # fmt: skip

    def summary(self, experiment, tallies, seconds: float) -> dict:
        """Over the pairs played (a pair not begun is left out)."""
        return _rated(experiment.config, list(experiment.strategies), tallies)

    def part_summary(self, experiment, part, tally, seconds: float) -> dict:
        """A pair's file holds its comparison's summary."""
        i, j = part
        a, b = experiment.strategies[i], experiment.strategies[j]
        return summaries.compare(experiment.config, a, b, tally, None)

    def default_path(self, experiment) -> Path:
        return default_path(experiment.config, "-".join(experiment.strategies), prefix="tournament_", suffix="")

    def part_label(self, part) -> str:
        """A pair's label in its folder: ``i_j``, the indices of A and B among the strategies."""
        return f"{part[0]}_{part[1]}"

    def part_file(self, part) -> str:
        return f"pair_{self.part_label(part)}.parquet"

    # ------------------------------------------------------------------ reading its folder

    def strategies_read(self, config: dict, deals) -> list[str]:
        return list(config["strategies"])

    def listed_parts(self, path: Path, config: dict) -> list[tuple[str, Path, tuple[int, int]]]:
        """The pair files its folder's index lists: (label ``i_j``, file, pair); RefusedRun
        for one missing."""
        names = self.strategies_read(config, None)
        every = [f"{i}_{j}" for i, j in itertools.combinations(range(len(names)), 2)]
        listed = config.get("pairs", every if config.get("status") == "complete" else None)
        if listed is None:  # a partial tournament of an earlier version: the pairs there
            listed = sorted(file.stem.removeprefix("pair_") for file in path.glob("pair_*.parquet"))
        parts = []
        for label in listed:
            i, j = map(int, label.split("_"))
            file = path / self.part_file((i, j))
            if not file.exists():
                raise RefusedRun(f"{path} lacks {file.name} ({names[i]} against {names[j]}), a pair its {INDEX_FILE} "
                                 "lists: the tournament's folder is incomplete")  # fmt: skip
            parts.append((label, file, (i, j)))
        return parts

    def folder_summary(self, config: dict, tallies: dict) -> dict:
        """Its matrix and ratings, from the tallies of its pair files (pair -> tally)."""
        names = self.strategies_read(config, None)
        return _rated(table_of(config, [names[0]] * config["players"]), names, tallies)

    def folder_frame(self, frames: list):
        """The rows of its pair files, each with its ``pair``; strategies as categories."""
        import pandas as pd

        deals = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        for column in [c for c in deals.columns if c.startswith("strategy_")]:
            deals[column] = deals[column].astype("category")
        return deals

    def study_columns(self, columns: list[str]) -> list[str]:
        return columns + [self.part_column]  # the pair: from its folder's name

    def study_view(self, config: dict, deals, summary: dict, strategies: list[str]) -> None:
        config.update({key: value for key, value in summary.items() if key in ("matrix", "ratings", "anchor")})
        deals["pair"] = deals["pair"].astype(str)  # as a tournament's folder gives it

    def kept_summary(self, config: dict) -> dict:
        """Its folder's index holds its summary's keys beside its status."""
        keys = ("players", "seed", "rules", "match", "deals", "matches", "strategies", "anchor", "matrix", "ratings")
        return {key: config[key] for key in keys if key in config}

    # ------------------------------------------------------------------ showing it

    def tables(self, summary: dict, interrupted: bool, seconds: float | None) -> list[Table]:
        """The tables of ``briscola tournament``, from its JSON: the score matrix, the ratings."""
        row = summary
        count, unit = units(row)
        facts = f"{row['players']} players, {count:,} duplicate {unit} per pair, {run_facts(row)}"
        matrix = [(name, *("-" if s is None else f"{s:.3f}" for s in scores))
                  for name, scores in zip(row["strategies"], row["matrix"])]  # fmt: skip
        ratings = []
        ordered = sorted(row["ratings"], key=lambda r: -r["rating"] if r["rating"] is not None else math.inf)
        for rank, rating in enumerate(ordered, start=1):
            if rating["rating"] is None:
                ratings.append(("-", rating["strategy"], "-", "not played yet"))
                continue
            lo, hi = rating["ci95"]
            interval = "(anchor)" if rating["strategy"] == row.get("anchor") else f"{lo:+.1f} to {hi:+.1f}"
            ratings.append((str(rank), rating["strategy"], f"{rating['rating']:+.1f}", interval))
        return [
            Table(
                "Score of the row against the column" + (" (interrupted)" if interrupted else ""),
                (("", "left"), *((name, "right") for name in row["strategies"])),
                matrix,
                facts,
            ),  # fmt: skip
            Table(
                "Ratings (Bradley-Terry, Elo scale)",
                tuple(
                    (c, "left" if c == "strategy" else "right") for c in ("rank", "strategy", "rating", "95% interval")
                ),
                ratings,
                f"played in {seconds:.1f} s" if seconds else "",
            ),  # fmt: skip
        ]

    def headline(self, summary: dict) -> str:
        rated = [r for r in summary["ratings"] if r["rating"] is not None]
        best = max(rated, key=lambda r: r["rating"]) if rated else None
        return f"best: {best['strategy']} {best['rating']:+.1f} Elo" if best else "-"

    lead_plots = ("heatmap",)  # the matrix at a glance first
    report_plots = ("ratings", "scores")  # no margin: pooled over pairs of unlike strength, it means nothing

    def page_tables(self, summary: dict) -> list:
        """Its score matrix and its ratings, strongest first and the anchor named, as
        ``briscola tournament`` prints them."""
        if "matrix" not in summary:
            return []
        tables = self.tables(summary, False, None)
        return [(table.title, [dict(zip([name or "strategy" for name, _ in table.columns], row)) for row in table.rows],
                 [table.facts] if table.facts else []) for table in tables]  # fmt: skip

    def score_matrix(self, config: dict):
        return config["matrix"]


def _rated(config, names: list[str], tallies: dict) -> dict:
    """The tournament's JSON over the pairs played (pair -> tally; one not begun is left out)."""
    pairs = [PairResult(i, j, tally) for (i, j), tally in tallies.items() if tally.units > 0]
    return summaries.tournament(config, names, pairs)
