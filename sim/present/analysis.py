"""The notebook API: read result files and summarise them, all as pandas objects.

Works on every file the command line writes: ``simulate`` files (a row per deal),
``compare`` files (a row per game) and ``tournament`` datasets (a folder of pair files).

>>> import sim.present.analysis as an                                    # doctest: +SKIP
>>> run = an.load("results/tournament_2p_random-greedy_seed1_10000deals")  # doctest: +SKIP
>>> an.seat_scores(run)                                           # doctest: +SKIP
>>> an.first_lead(run)                                            # doctest: +SKIP
>>> an.score_matrix(run), an.compare_summary(run), an.ratings(run)  # doctest: +SKIP
>>> an.intervals(run, by="pair")                                  # doctest: +SKIP
>>> an.first_lead(run.where(run.deals["pair"] == "0_1"))          # doctest: +SKIP
>>> an.paired("results/a.parquet", "results/b.parquet")           # doctest: +SKIP

Every function takes the run (what ``load`` gives); ``run.where(rows)`` is the same run
over some of its rows.

Scores are a side's results: win 1, draw 1/2 (sides sharing the top), loss 0.
Intervals are 95%, normal approximations; games of one deal (the seatings of a
comparison) are taken together, so the duplicate deals' gain in precision is kept.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from sim.base.config import PLAYER_COUNTS, RULE_TABLES, n_sides, side_of_seat
from sim.base.files import PEOPLE_MARKER
from sim.base.recount import columns_of
from sim.base.results import read_config, rows_frame
from sim.base.stats import (
    CompareTally,
    PairResult,
    RunTally,
    anchor_of,
    fit_ratings,
    mean_interval,
    score_against_copies,
)
from sim.base.stats import score_matrix as stats_score_matrix
from sim.base.version import __version__
from sim.pipeline.kinds import file_kind, folder_kind, kind_of
from sim.pipeline.kinds.base import RefusedRun, RunKind
from sim.pipeline.kinds.compare import a_in_row, players_of, strategy_of

STUDY_FILE = "_study.json"


@dataclass
class Results:
    """A result file or dataset: its rows, its configuration, what wrote it."""

    deals: pd.DataFrame
    config: dict
    kind: str  # the run kind's name (sim.pipeline.kinds): "simulate", "compare", "tournament"; a study's: "study"

    @property
    def run_kind(self) -> RunKind:
        return kind_of(self.kind)

    @property
    def players(self) -> int:
        return int(self.config["players"])

    @property
    def seed(self) -> int:
        return int(self.config["seed"])

    @property
    def rules(self) -> dict:
        """The rules played (those of the table, with their values)."""
        rules = self.config.get("summary", self.config).get("rules", self.config.get("rules", {}))
        return {key: value for key, value in rules.items() if self.players in RULE_TABLES[key]}

    @property
    def match(self) -> str:
        return self.config.get("match", "deal")

    @property
    def strategies(self) -> list[str]:
        """The strategies compared (A then B), of a tournament, or at the table (by seat)."""
        return self.run_kind.strategies_read(self.config, self.deals)

    def where(self, rows) -> Results:
        """The same run over some of its rows (a boolean mask, or a frame of its rows):
        every function of this module takes it, as it takes the whole run."""
        chosen = self.deals.loc[rows.index] if isinstance(rows, pd.DataFrame) else self.deals[rows]
        return replace(self, deals=_with_attrs(chosen.copy(), self.deals))


def load(path: str | os.PathLike) -> Results:
    """Reads a ``simulate`` or ``compare`` file, a ``tournament`` folder (its pair files
    gain a ``pair`` column: ``i_j``, the indices of A and B among the strategies), or a
    study's folder (``briscola batch``): a StudyResults. What is read is checked first: a
    trace file, a file whose rows are not those its metadata describes, a file of a kind
    this version does not read, or a tournament lacking a pair it lists, is a RefusedRun
    (a ValueError) naming it."""
    path = Path(path)
    if path.is_dir() and (path / STUDY_FILE).exists():
        return load_study(path)
    if path.is_dir():
        return _load_folder(path)
    config, deals, _, kind = _read_checked(path)
    deals.attrs["match"] = config.get("match", "deal")  # how a match file's standing is counted
    return Results(deals, config, kind.name)


def load_run(path: str | os.PathLike) -> Results:
    """One run: as ``load``, and a study of one experiment (what a command run on another
    backend writes) is that experiment; a study of several is a ValueError naming them."""
    run = load(path)
    if not isinstance(run, StudyResults):
        return run
    if len(run.names) != 1:
        raise RefusedRun(f"{path} is a study of {len(run.names)} experiments ({', '.join(run.names)}): "
                         f"briscola status {path} shows their summaries, sim.load({str(path)!r}).experiment(NAME) "
                         "reads each")  # fmt: skip
    return run.experiment(run.names[0])


def _read_checked(path: Path) -> tuple[dict, pd.DataFrame, RunTally | CompareTally, RunKind]:
    """A result file's metadata, rows, their tally and its kind, checked against each
    other: the summary it keeps must be the one its rows give."""
    config = read_config(path)
    _refuse_traces(path)
    players = config.get("players") if isinstance(config, dict) else None
    if players not in PLAYER_COUNTS or not isinstance(config.get("seed"), int):
        raise RefusedRun(f"{path}: its metadata names no table and seed (players {players!r}): it was not written "
                         "by briscola, or was damaged")  # fmt: skip
    kind = file_kind(path, config)
    deals = rows_frame(pq.read_table(path))
    held = sum(column.startswith("points_") for column in deals.columns)
    if held != players:
        raise RefusedRun(f"{path}: its metadata says {players} players but its rows hold {held} players' points: "
                         "the metadata and the rows disagree")  # fmt: skip
    if "rows" in config and len(deals) != config["rows"]:
        raise RefusedRun(f"{path} holds {len(deals):,} rows where its metadata says {config['rows']:,}: it was "
                         "changed or damaged since briscola wrote it")  # fmt: skip
    tally = _recount(path, kind, config, deals)
    if "summary" in config:  # (files written before summaries were kept have none)
        _check_summary(path, config["summary"], kind.file_summary(config, deals, tally))
    return config, deals, tally, kind


def _recount(path: Path, kind: RunKind, config: dict, deals: pd.DataFrame):
    """The tally of a file's rows, as its run counted them (``sim.base.recount``)."""
    try:
        return kind.tally_of(columns_of(deals, config["players"]), config["players"], config.get("match", "deal"))
    except (KeyError, ValueError) as error:  # a column gone, seatings that disagree
        raise RefusedRun(f"{path}: its rows are not a run's ({type(error).__name__}: {error}): it was changed or "
                         "damaged since briscola wrote it") from None  # fmt: skip


UNCOUNTED = ("seconds", "deals_per_second")  # a summary's timings: not in the rows


def _check_summary(path: Path, stored: dict, recounted: dict) -> None:
    """Refuses a file whose kept summary (what ``report`` shows) is not its rows' own."""
    difference = _first_difference(stored, json.loads(json.dumps(recounted)), "")
    if difference is not None:
        where, kept, counted = difference
        raise RefusedRun(f"{path}: its summary says {where} {kept} where its rows give {counted}: it was changed or "
                         "damaged since briscola wrote it")  # fmt: skip


def _first_difference(kept, counted, where: str):
    """Where ``kept`` first differs from ``counted`` (the keys both hold, timings left
    out): ``(where, kept value, counted value)``, or None."""
    if isinstance(kept, dict) and isinstance(counted, dict):
        for key in [key for key in kept if key in counted and key not in UNCOUNTED]:
            found = _first_difference(kept[key], counted[key], f"{where}.{key}" if where else key)
            if found is not None:
                return found
        return None
    if isinstance(kept, list) and isinstance(counted, list) and len(kept) == len(counted):
        return next((found for k, (one, two) in enumerate(zip(kept, counted))
                     if (found := _first_difference(one, two, f"{where}[{k}]")) is not None), None)  # fmt: skip
    return None if kept == counted else (where, kept, counted)


def _refuse_traces(path: Path) -> None:
    """A trace file (``--trace``: its deals move by move) carries a run's metadata, but
    its rows are moves: it is not the run's results."""
    if "winner_side" not in pq.read_schema(path).names:
        raise RefusedRun(f"{path} is a trace file (its deals move by move), not results: read it with "
                         f"sim.read_results({str(path)!r}), or pass the run's result file (its --out)")  # fmt: skip


def _load_folder(path: Path) -> Results:
    """A kind's folder (a tournament's): the part files its index lists, each checked, and
    the index's summary checked against them."""
    if (path / PEOPLE_MARKER).exists():  # deals of every table and seed: no one run
        raise RefusedRun(f"{path} holds the deals people played on the page (briscola play), of many tables and "
                         f"seeds: sim.people({str(path)!r}) reads them, sim.person_ratings rates them")  # fmt: skip
    kind = folder_kind(path)
    index = path / kind.index_file
    try:
        config = json.loads(index.read_text())
        kind.strategies_read(config, None)
    except (ValueError, KeyError, TypeError) as error:
        raise RefusedRun(f"{index} does not read ({type(error).__name__}: {error})") from None
    frames, tallies = [], {}
    for label, file, part in kind.listed_parts(path, config):
        _, rows, tally, read_as = _read_checked(file)
        if read_as.name != kind.file_kind:
            raise RefusedRun(f"{file} is a {read_as.name} file where {index} lists a {kind.file_kind} file: "
                             f"not the {kind.name}'s")  # fmt: skip
        frames.append(rows.assign(**{kind.part_column: label}))
        tallies[part] = tally
    _check_summary(index, config, kind.folder_summary(config, tallies))  # a tournament's matrix and ratings
    deals = kind.folder_frame(frames)
    deals.attrs["match"] = config.get("match", "deal")
    return Results(deals, config, kind.name)


@dataclass
class StudyResults(Results):
    """A study (``briscola batch``): every row of its chunks done (``deals``, with an
    ``experiment`` column, ``pair`` in tournaments, and a column per grid factor of its
    plan: ``factors``), its status (``config``, as ``briscola status --json`` prints it),
    and each experiment on its own. Only chunks
    that verify count: a damaged or missing one is left out, named in a warning and in
    ``config["experiments"][i]["damaged"]``, and its experiment is partial."""

    folder: Path = None
    study: object = None  # sim.pipeline.study.Study, as read and verified

    @property
    def names(self) -> list[str]:
        return [e["name"] for e in self.config["experiments"]]

    @property
    def factors(self) -> pd.DataFrame:
        """Each experiment's grid factors (the plan's axes: the key, or a rule's name, and
        the value it took; a list joined by ``+``), a row per experiment, a column per
        factor (empty where its entry has no such axis): what its name shows, as data."""
        table = pd.DataFrame.from_dict({e["name"]: e.get("factors", {}) for e in self.config["experiments"]},
                                       orient="index")  # fmt: skip
        return table.rename_axis("experiment")

    @property
    def partial(self) -> list[str]:
        """The experiments not complete yet (partial or pending)."""
        return [e["name"] for e in self.config["experiments"] if e["status"] != "complete"]

    def experiment(self, name: str) -> Results:
        """One experiment's rows and configuration, as its own command's file would hold
        them: every function of this module works on it."""
        state = self.study.by_name.get(name)
        if state is None:
            raise KeyError(f"no experiment {name!r} in {self.folder}; its experiments: {', '.join(self.names)}")
        kind = state.experiment.run_kind
        deals = _read_parts(self.folder, [state], self.study.rows, kind.study_columns(state.columns))
        print_, outcome = state.fingerprint, {e["name"]: e for e in self.config["experiments"]}[name]
        summary = outcome["summary"] or {}
        config = {"players": print_["players"], "seed": print_["seed"], "rules": print_["rules"], "match": print_["match"],
                  "deals": print_["deals"], "strategies": print_["strategies"], "versions": print_.get("versions", {}),
                  "fingerprints": print_["fingerprints"], "provenance": state.networks,
                  "version": __version__, "status": outcome["status"],
                  "summary": summary, "study": str(self.folder), "experiment": name,
                  "factors": outcome.get("factors", {})}  # fmt: skip
        kind.study_view(config, deals, summary, print_["strategies"])
        deals.attrs["match"] = print_["match"]
        return Results(deals, config, kind.name)

    def traces(self, name: str) -> pd.DataFrame:
        """The deals of experiment ``name`` move by move (a plan's ``trace = true``; the
        columns of ``briscola simulate --trace``), from its chunks that verify."""
        state = self.study.by_name.get(name)
        if state is None:
            raise KeyError(f"no experiment {name!r} in {self.folder}; its experiments: {', '.join(self.names)}")
        if not state.experiment.trace:
            raise KeyError(f"experiment {name!r} of {self.folder} keeps no traces (its plan entry has no trace = true)")
        parts = [pq.read_table(state.trace_part(c)) for c in state.needed() if c in state.records]
        if not parts:
            return pd.DataFrame()
        import pyarrow as pa

        return pa.concat_tables(parts).to_pandas()


def load_study(folder: Path) -> StudyResults:
    """A study's folder: what is done so far, even while it runs or after a crash; every
    chunk verified first."""
    from sim.pipeline.study import Study  # here: reading result files must not load the kernels (numba)

    study = Study.read(folder)
    outcome = study.outcome()
    if study.damaged:
        named = "; ".join(f"experiment {name!r} {d.chunk.label}: {d.problem}" for name, d in study.damaged[:3])
        more = f" and {len(study.damaged) - 3} more" if len(study.damaged) > 3 else ""
        warnings.warn(f"{folder}: {len(study.damaged)} chunk(s) do not verify and are left out ({named}{more}); "
                      "briscola batch PLAN --out FOLDER --resume plays them again", StudyDamaged, stacklevel=2)  # fmt: skip
    found = StudyResults(pd.DataFrame(), outcome, "study", folder=folder, study=study)
    found.deals = _with_factors(_read_parts(folder, study.states, study.rows), found.factors)
    return found


def _with_factors(deals: pd.DataFrame, factors: pd.DataFrame) -> pd.DataFrame:
    """A study's rows with a column per grid factor, from their experiment's; a factor
    named as a column the rows hold already (``match``) is ``NAME_factor``."""
    if factors.columns.empty or "experiment" not in deals:
        return deals
    named = factors.rename(columns={key: f"{key}_factor" for key in factors.columns if key in deals.columns})
    return deals.join(named, on=deals["experiment"].astype(str))


class StudyDamaged(UserWarning):
    """Some chunks of a study did not verify: its rows leave them out."""


def _read_parts(folder: Path, states, rows: bool, columns: list[str] | None = None) -> pd.DataFrame:
    """The rows of the verified chunks of some experiments of a study, as
    ``pandas.read_parquet(folder)`` reads them: rows a crash left without their record,
    or damaged, are not the study's."""
    import pyarrow.dataset as ds

    files = [str(s.part(c)) for s in states for c in s.needed() if c in s.records] if rows else []
    if not files:
        return pd.DataFrame(columns=columns)
    partitioning = ds.HivePartitioning.discover(infer_dictionary=True)
    dataset = ds.dataset(files, format="parquet", partitioning=partitioning, partition_base_dir=str(folder))
    return rows_frame(dataset.to_table(columns=columns))


def standings(deals: pd.DataFrame, players: int) -> np.ndarray:
    """What decides each row, per side: its points; at Briscola Chiamata (a side per
    seat) each seat's game points."""
    prefix = "game_points" if players == 5 else "side_points"
    return deals[[f"{prefix}_{side}" for side in range(n_sides(players))]].to_numpy()


def side_scores(run: Results) -> pd.DataFrame:
    """Each side's score in each row (columns ``side_0`` ...): win 1, draw 1/2 (sides
    sharing the top), loss 0. With 3 players a seat scores against each other seat apart
    (more points wins), as ``briscola compare`` scores, so equal play scores 1/2 there too;
    at Briscola Chiamata (5) likewise on game points."""
    return _side_scores(_checked(run).deals, run.players)


def _side_scores(deals: pd.DataFrame, players: int) -> pd.DataFrame:
    points = standings(deals, players)
    if players in (3, 5):
        return pd.DataFrame(
            {f"side_{s}": score_against_copies(points, np.full(len(points), s)) for s in range(players)},
            index=deals.index,
        )
    winner = deals["winner_side"].to_numpy()
    shares_top = points == points.max(axis=1, keepdims=True)
    scores = {}
    for side in range(n_sides(players)):
        scores[f"side_{side}"] = np.where(winner == side, 1.0, np.where((winner < 0) & shares_top[:, side], 0.5, 0.0))
    return pd.DataFrame(scores, index=deals.index)


def seat_scores(run: Results) -> pd.DataFrame:
    """Score of each strategy from each seat: rows (strategy, seat) with ``games``,
    ``score``, ``ci_low``, ``ci_high``."""
    deals, players = _checked(run).deals, run.players
    scores = _side_scores(deals, players)
    rows = []
    for seat in range(players):
        side = side_of_seat(seat, players)
        frame = pd.DataFrame({"strategy": deals[f"strategy_{seat}"].astype(str), "score": scores[f"side_{side}"]})
        for strategy, group in frame.groupby("strategy"):
            rows.append({"strategy": strategy, "seat": seat, **_mean_interval(group["score"])})
    return pd.DataFrame(rows).set_index(["strategy", "seat"]).sort_index()


def side_strategy_scores(run: Results) -> pd.DataFrame:
    """Score of each strategy from each side (the seat with 2 or 3 players, the team with
    4 or 6: a team's figures once, not once per seat): rows (strategy, side) with
    ``games``, ``score``, ``ci_low``, ``ci_high``. A mixed team is named ``a+b``. With a
    match format the games are matches, and sides are named by their first deal's seats,
    as the run's summary names them."""
    deals, players = _checked(run).deals, run.players
    if "match_deal" in deals:
        first_deals = deals["match_deal"] == 0
        scores = {
            f"side_{s}": _match_scores(_with_attrs(deals.assign(a_side=s), deals), players)
            for s in range(n_sides(players))
        }
        scores = pd.DataFrame(scores, index=deals.index)[first_deals]
        deals = deals[first_deals]
    else:
        scores = _side_scores(deals, players)
    rows = []
    for side in range(n_sides(players) if len(deals) else 0):
        columns = [f"strategy_{seat}" for seat in range(players) if side_of_seat(seat, players) == side]
        frame = deals[columns].astype(str).assign(score=scores[f"side_{side}"])
        by_label = {}
        for combination, group in frame.groupby(columns):
            label = "+".join(dict.fromkeys(combination if isinstance(combination, tuple) else (combination,)))
            by_label.setdefault(label, []).append(group["score"])
        for label, parts in by_label.items():
            rows.append({"strategy": label, "side": side, **_mean_interval(pd.concat(parts))})
    columns = ["strategy", "side", "games", "score", "ci_low", "ci_high"]
    return pd.DataFrame(rows, columns=columns).set_index(["strategy", "side"]).sort_index()


def balanced_seats(run: Results) -> bool:
    """Whether every strategy plays every seat alike (comparisons, tournaments, or one
    strategy everywhere): only then is seat 0's score the first lead's advantage."""
    return run.run_kind.balances_seats or len(run.strategies) == 1


def first_lead(run: Results) -> pd.Series:
    """The score of the side that leads the first trick (seat 0), averaged over the
    seatings of each deal. Against itself a side scores 1/2: above 1/2 is the first
    lead's advantage. Meaningful where strategies are balanced over the seats: in
    comparisons and tournaments, or with one strategy everywhere (``balanced_seats``);
    elsewhere it is only seat 0's strategy's score. With a match format, only the deals
    played from every seating count: a match that ended sooner skipped the others."""
    deals = _checked(run).deals
    scores = _side_scores(deals, run.players)["side_0"]
    keys = _deal_keys(deals)
    if not keys:
        return pd.Series(_mean_interval(scores), name="first_lead")
    by_deal = scores.groupby([deals[k] for k in keys])
    per_deal = by_deal.mean()[by_deal.size() == deals["game"].nunique()]
    return pd.Series(_mean_interval(per_deal), name="first_lead")


def margins(run: Results) -> pd.Series:
    """Point margin of each row: side 0 less side 1 (with 3 players: seat 0 less the mean
    of the others; at Briscola Chiamata the same in game points); in comparison files,
    A's side less B's."""
    return _margins(_checked(run).deals, run.players)


def _margins(deals: pd.DataFrame, players: int) -> pd.Series:
    points = standings(deals, players).astype(float)
    mine = points[np.arange(len(deals)), a_in_row(deals)] if "a_side" in deals else points[:, 0]
    others = (points.sum(axis=1) - mine) / (points.shape[1] - 1)
    return pd.Series(mine - others, index=deals.index, name="margin")


def compare_summary(run: Results) -> pd.DataFrame:
    """For comparison files and tournaments: A's score against B, per pair (rows ``a``,
    ``b``, ``deals``, ``score``, ``ci_low``, ``ci_high``), a deal's seatings taken together.
    With a match format the units are matches, and ``deals`` is ``matches``. With 3
    players A scores against each copy of B apart, as ``briscola compare`` does. For the
    whole matrix, both ways round: ``score_matrix``."""
    frame = _with_a_scores(_checked(run).deals)
    rows = []
    for _, pair in frame.groupby("pair", sort=True) if "pair" in frame else [(None, frame)]:
        rows.append({"a": pair["a"].iloc[0], "b": pair["b"].iloc[0], **_mean_interval(_unit_scores(pair).mean(axis=1))})
    return pd.DataFrame(rows).rename(columns={"games": "matches" if "match" in frame else "deals"})


def _unit_scores(pair: pd.DataFrame) -> pd.DataFrame:
    """A's score per duplicate unit (deal, or match with a match format) and seating."""
    unit = "match" if "match" in pair else "deal"
    return pair.groupby([unit, "game"])["a_score"].first().unstack("game")


def ratings(run: Results) -> pd.DataFrame:
    """Bradley-Terry ratings (Elo scale), fitted as ``briscola tournament`` does: rows
    ``strategy`` with ``rating``, ``ci_low``, ``ci_high``, ``anchor`` (True for the one
    rated 0 by definition, whose interval is none), from the strongest down.

    Works on every kind of file: a tournament's pairs, a comparison (A against B), or a
    simulation, read as side 0's strategy against the other side's as seated (so the
    first lead is not balanced out there: compare them with ``briscola compare``). The
    anchor is ``random`` if it plays, else the run's first strategy."""
    names, pairs = _pair_results(run)
    fitted = fit_ratings(names, pairs)
    anchor = anchor_of(names)
    rows = [{"strategy": r["strategy"], "rating": r["rating"], "ci_low": None if r["strategy"] == anchor else (r["ci95"] or [None])[0],
             "ci_high": None if r["strategy"] == anchor else (r["ci95"] or [None, None])[1]} for r in fitted]  # fmt: skip
    table = pd.DataFrame(rows).set_index("strategy").astype(float)  # None (not linked, or the anchor): NaN
    return table.assign(anchor=table.index == anchor).sort_values("rating", ascending=False, kind="stable")


def score_matrix(run: Results) -> pd.DataFrame:
    """The score of the row strategy against the column strategy, every pair both ways
    round (B against A is 1 less A against B), as ``briscola tournament`` prints it; NaN
    on the diagonal and for a pair not played. Strategies in the run's order."""
    names, pairs = _pair_results(run)
    matrix = [[np.nan if s is None else s for s in row] for row in stats_score_matrix(len(names), pairs)]
    return pd.DataFrame(matrix, index=pd.Index(names, name="strategy"), columns=pd.Index(names, name="against"))


def _pair_results(run: Results) -> tuple[list[str], list[PairResult]]:
    """The run's strategies (its order, or the rows' when they play others) and the tally
    of each pair's duplicate units, as the commands count them."""
    frame = _with_a_scores(_as_comparison(_checked(run).deals))
    labels = list(dict.fromkeys([*frame["a"], *frame["b"]]))
    names = list(run.strategies) if set(labels) <= set(run.strategies) else labels
    pairs = []
    for _, pair in frame.groupby("pair", sort=True) if "pair" in frame else [(None, frame)]:
        tally = CompareTally(pair["game"].nunique())
        tally.add_scores(_unit_scores(pair).to_numpy())
        pairs.append(PairResult(names.index(pair["a"].iloc[0]), names.index(pair["b"].iloc[0]), tally))
    return names, pairs


def _with_attrs(frame: pd.DataFrame, source: pd.DataFrame) -> pd.DataFrame:
    """``frame`` carrying ``source``'s attrs (how a match file's standing is counted)."""
    frame.attrs = dict(source.attrs)
    return frame


def _as_comparison(deals: pd.DataFrame) -> pd.DataFrame:
    """The rows of a comparison as they are; a simulation's as one game per deal with
    side 0 as A (the sides must each play one strategy: with 3 players, seats 1 and 2)."""
    if "a_side" in deals:
        return deals
    players = players_of(deals)
    seats_of_b = [seat for seat in range(players) if side_of_seat(seat, players) != 0]
    seats_of_a = [seat for seat in range(players) if seat not in seats_of_b]
    first_deals = deals[deals["match_deal"] == 0] if "match_deal" in deals else deals  # seats rotate in a match
    for seats in (seats_of_a, seats_of_b):
        if pd.unique(first_deals[[f"strategy_{seat}" for seat in seats]].astype(str).to_numpy().ravel()).size > 1:
            raise ValueError(f"seats {seats} play several strategies: a simulation is read as one strategy (side 0) "
                             "against another; compare mixed tables with briscola compare")  # fmt: skip
    return _with_attrs(deals.assign(a_side=0, game=0), deals)


def unit_figures(run: Results) -> pd.DataFrame:
    """Per duplicate unit (a deal, or a match with a match format; the index): the
    ``score`` and point ``margin`` of A in a comparison, of side 0 in a simulation (as in
    ``ratings``), averaged over the unit's seatings. Deals are independent units."""
    if run.run_kind.unpaired:
        raise ValueError(run.run_kind.unpaired)
    rows = _as_comparison(_checked(run).deals)
    frame = _with_a_scores(rows).assign(margin=_margins(rows, run.players))
    unit = "match" if "match" in frame else "deal"
    per_game = frame.groupby([unit, "game"]).agg(score=("a_score", "first"), margin=("margin", "sum"))
    return per_game.groupby(unit).mean()


def intervals(run: Results, by=None, value: str = "score") -> pd.DataFrame:
    """The mean of ``value`` per group of rows, with its 95% interval over duplicate units
    (deals, or matches with a match format) as the independent draws: a unit's rows in a
    group are averaged first, so a deal's seatings never count as separate evidence.

    ``value``: ``score`` (A's, or side 0's in a simulation, as ``unit_figures``),
    ``margin`` or a numeric column of the rows (with a match format a match's value is its
    score, or the sum over its deals). ``by``: nothing (the whole run), a column's name, a
    Series or array aligned with the rows, or a list of these. Rows per group:
    ``units``, the mean (named as ``value``), ``ci_low``, ``ci_high``."""
    rows = _as_comparison(_checked(run).deals)
    frame = _with_a_scores(rows).assign(margin=_margins(rows, run.players))
    figure = "a_score" if value == "score" else value
    if figure not in frame or not pd.api.types.is_numeric_dtype(frame[figure]):
        raise ValueError(f"no figure {value!r} in these rows: give 'score', 'margin' or a numeric column of the rows")
    groups = [
        _grouping(frame, key, k) for k, key in enumerate(by if isinstance(by, list) else [] if by is None else [by])
    ]
    unit = "match" if "match" in frame else "deal"
    units = [frame[key].rename(f"_{key}") for key in ("pair", unit) if key in frame]
    per_game = frame.groupby([*groups, *units, frame["game"].rename("_game")], observed=True)[figure]
    per_game = per_game.first() if value == "score" else per_game.sum()
    per_unit = per_game.groupby(level=list(range(len(groups) + len(units))), observed=True).mean()
    if not groups:
        return pd.DataFrame([_mean_interval(per_unit)]).rename(columns={"games": "units", "score": value})
    found = pd.DataFrame({key: _mean_interval(unit_values) for key, unit_values in
                          per_unit.groupby(level=list(range(len(groups))), observed=True)}).T  # fmt: skip
    found.index.names = [group.name for group in groups]
    return found.astype({"games": int}).rename(columns={"games": "units", "score": value})


def _grouping(frame: pd.DataFrame, key, k: int) -> pd.Series:
    """One grouping of ``intervals``: a column of the rows, or values aligned with them."""
    if isinstance(key, str):
        return frame[key]
    if isinstance(key, pd.Series):
        return key.reindex(frame.index)
    return pd.Series(np.asarray(key), index=frame.index, name=f"group_{k}")


def paired(first, second) -> pd.DataFrame:
    """Two runs of the same seed compared unit by unit (deal, or match): does a rule or a
    parameter change the outcome, and by how much?

    ``first`` and ``second`` are paths or ``Results`` of the same kind, table, seed and
    match format (a comparison: A's score and margin; a simulation: side 0's). Returns
    rows ``score`` and ``margin`` with each run's mean (``first``, ``second``), the mean
    ``difference`` (second less first) and its 95% interval (``ci_low``, ``ci_high``)
    from the spread of the paired differences, the ``units`` paired and the
    ``correlation`` of the two runs' units (the higher, the more pairing saves)."""
    runs = [run if isinstance(run, Results) else load(run) for run in (first, second)]
    for what in ("kind", "players", "seed", "match"):
        values = [getattr(run, what) for run in runs]
        if values[0] != values[1]:
            raise ValueError(f"the runs differ in {what} ({values[0]} and {values[1]}): pairing deals needs "
                             "the same kind of run, table, seed and match format")  # fmt: skip
    joined = unit_figures(runs[0]).join(unit_figures(runs[1]), suffixes=("_first", "_second"), how="inner")
    if len(joined) < 2:
        raise ValueError(f"the runs share {len(joined)} deals: pairing needs at least 2")
    rows = []
    for figure in ("score", "margin"):
        one, two = joined[f"{figure}_first"], joined[f"{figure}_second"]
        difference = _mean_interval(two - one)
        rows.append({"figure": figure, "first": float(one.mean()), "second": float(two.mean()),
                     "difference": difference["score"], "ci_low": difference["ci_low"], "ci_high": difference["ci_high"],
                     "units": len(joined), "correlation": float(one.corr(two)) if one.std() and two.std() else float("nan")})  # fmt: skip
    return pd.DataFrame(rows).set_index("figure")


def _with_a_scores(deals: pd.DataFrame) -> pd.DataFrame:
    """The rows of a comparison with A's score in each and the names of A and B. With a
    match format every row of a match carries the match's score."""
    if "a_side" not in deals:
        raise ValueError("not a comparison: these rows have no 'a_side' column")
    players = players_of(deals)
    if "match" in deals:
        a_score = _match_scores(deals, players)
    elif players in (3, 5):
        a_score = score_against_copies(standings(deals, players), deals["a_side"].to_numpy())
    else:
        a_score = _side_scores(deals, players).to_numpy()[np.arange(len(deals)), deals["a_side"].to_numpy()]
    return deals.assign(a_score=a_score, a=strategy_of(deals, "a"), b=strategy_of(deals, "b"))


def _match_scores(deals: pd.DataFrame, players: int) -> np.ndarray:
    """A's score in its match, on every row. Two sides: from the match's winner. Three
    players: against each copy of B by the match standing (deals won, or points over
    both deals in ``two-deals-120``), counted per player from the rows of the match;
    Briscola Chiamata (``five-deals``) likewise, by game points over the five deals."""
    a = deals["a_side"].to_numpy()
    if players not in (3, 5):
        winner = deals["match_winner_side"].to_numpy()
        return np.where(winner == a, 1.0, np.where(winner < 0, 0.5, 0.0))
    step = deals["match_deal"].to_numpy()
    player_of_seat = (np.arange(players)[None, :] + step[:, None]) % players  # seat s holds player (s + k) % P
    if deals.attrs.get("match") in ("two-deals-120", "five-deals"):
        gained = standings(deals, players)
    else:
        winner = deals["winner_side"].to_numpy()
        gained = (np.arange(3)[None, :] == winner[:, None]).astype(float)  # the seat that won the deal
    per_player = np.zeros((len(deals), players))
    np.put_along_axis(per_player, player_of_seat, gained, axis=1)
    keys = [k for k in ("pair", "game", "match") if k in deals]
    standing = pd.DataFrame(per_player, index=deals.index).groupby([deals[k] for k in keys]).transform("sum")
    return score_against_copies(standing.to_numpy(), a)


def _deal_keys(deals: pd.DataFrame) -> list[str]:
    """Columns that identify one deal's games: the deal (and the pair in tournaments)."""
    if "game" not in deals:
        return []
    return ["pair", "deal"] if "pair" in deals else ["deal"]


def caller_by_strength(run: Results, width: int = 10) -> pd.DataFrame:
    """Briscola Chiamata: the caller's mean game points, and how often its side took its
    target, by the strength of its hand at the call (``caller_strength``: its card points,
    plus 6 and the strength of each trump; in bands of ``width``), for each strategy that
    called (at a mixed table each its own). Rows by (``strategy``, band: its lowest value)
    with ``games``, ``game_points`` (mean), ``ci_low``, ``ci_high``, ``made`` (rate),
    ``alone`` (share of callers playing alone)."""
    deals = _checked(run).deals
    called = deals[deals["caller"] >= 0]
    seats = called["caller"].to_numpy()
    rows = np.arange(len(called))
    points = np.stack([called[f"game_points_{s}"].to_numpy() for s in range(5)], axis=1)[rows, seats]
    strategies = np.stack([called[f"strategy_{s}"].astype(str).to_numpy() for s in range(5)], axis=1)[rows, seats]
    frame = pd.DataFrame({"strategy": strategies, "band": (called["caller_strength"] // width * width).to_numpy(),
                          "points": points, "made": called["made"].to_numpy(),
                          "alone": (called["caller"] == called["partner"]).to_numpy()})  # fmt: skip
    found = []
    for (strategy, band), group in frame.groupby(["strategy", "band"]):
        interval = _mean_interval(group["points"].astype(float))
        found.append({"strategy": strategy, "strength": int(band), "games": interval["games"],
                      "game_points": interval["score"], "ci_low": interval["ci_low"], "ci_high": interval["ci_high"],
                      "made": float(group["made"].mean()), "alone": float(group["alone"].mean())})  # fmt: skip
    columns = ["strategy", "strength", "games", "game_points", "ci_low", "ci_high", "made", "alone"]
    return pd.DataFrame(found, columns=columns).set_index(["strategy", "strength"])


def _mean_interval(values: pd.Series) -> dict:
    mean, low, high = mean_interval(values, ddof=0)  # as the CLI
    return {"games": len(values), "score": mean, "ci_low": low, "ci_high": high}


def _checked(run: Results) -> Results:
    """The run a function of this module is given: what ``load`` reads, not its rows."""
    if not isinstance(run, Results) or isinstance(run, StudyResults):
        given = "a study: take study.experiment(NAME)" if isinstance(run, Results) else f"a {type(run).__name__}"
        raise TypeError(f"pass a run as sim.load(PATH) reads it (run.where(ROWS) for some of its rows), not {given}")
    return run
