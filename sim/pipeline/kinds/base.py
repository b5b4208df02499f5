"""What every run kind fills in (``RunKind``): what it plays, how its files are read,
how it is shown, where its output goes; and the default names of outputs.

A kind's module imports nothing that compiles (the kernels load when a kind plays, not
when a file of its kind is read) and no presentation: what it shows is words, figures
and tables as data (``Table``), which ``sim.present.report`` and ``sim.present.plots`` draw."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple

from sim.base.config import ConfigError, Rules, RunConfig
from sim.pipeline.kinds.words import side_word

MAX_NAMES_IN_PATH = 120  # characters of strategy names a default path holds; longer ones end in a hash


class RefusedRun(ValueError):
    """What ``sim.load`` will not take for a run's results: a trace file, a file whose
    rows are not what its metadata says, a file of a kind this version does not know, a
    tournament lacking a pair. The message is one line, naming the path, what is wrong
    and what to pass instead."""


class RunKind:
    """The interface every kind fills in (the experiment's ``kind`` names it)."""

    name: str
    strategy_keys: tuple[str, ...] = ("strategies",)  # its strategies' keys in a plan
    plan_keys: tuple[str, ...] = ()  # the keys of its own, beside the common ones (and ``trace``, if it traces)
    players_required: bool = False  # a plan entry must name its table
    takes_one_string: bool = False  # its strategies may be one comma list, "a,b"
    folder = None  # its command's output: None, one result file; or a folder of this Layout (sim.base.files),
    # then also its ``index_file``, ``part_label(part)``, ``part_file(part)``, ``parts_called``, its trace
    # file's ``trace_metadata(experiment, labels)`` and the reading of its folder (``listed_parts``,
    # ``folder_summary``, ``folder_frame``): see sim/pipeline/kinds/tournament.py
    traces: bool = False  # its runs may keep their deals move by move (``--trace``, a plan's ``trace = true``)

    def strategy_texts(self, strategies, players: int) -> list[str]:
        """Its strategies as given (a list), before they are checked."""
        return list(strategies)

    def seat_labels(self, labels: tuple[str, ...], players: int) -> tuple[str, ...]:
        """The seats' strategies of its base configuration."""
        return (labels[0],) * players

    def check(self, labels: tuple[str, ...], sprt) -> None:
        """Refuses strategies (canonical labels) or an SPRT this kind cannot play."""
        if sprt is not None:
            raise ConfigError("--sprt is for a comparison (compare)")

    def trace_refusal(self, config) -> str:
        """Why its runs of ``config`` keep no traces (``--trace``, a plan's ``trace = true``); "" if they may."""
        return "" if self.traces else f"a trace is kept by simulate, compare and tournament, not by {self.name}"

    def trace_strategies(self, config: dict, table):
        """Each row's strategy per seat in a trace of its (its metadata, its rows: an
        Arrow table), a row per deal: the seats' strategies."""
        import numpy as np

        names = np.array([strategy["name"] for strategy in config["strategies"]], dtype=object)
        return np.tile(names, (table.num_rows, 1))

    def trace_schema(self):
        """The columns of its traces (sim/base/trace.py)."""
        from sim.base.trace import trace_schema

        return trace_schema()

    def parts(self, experiment) -> list:
        """What it plays apart, each over all its deals: ``[None]``, or a tournament's pairs."""
        return [None]

    def player(self, experiment, part):
        """What plays a part's batches: ``play(first, n, tally, stop, rows, trace) -> done``,
        with ``configs`` (the runs it plays), ``new_tally()`` and ``games`` (games a unit)."""
        raise NotImplementedError

    def new_tally(self, experiment):
        """An empty tally of one of its parts."""
        raise NotImplementedError

    def read_tally(self, experiment, data: dict):
        """A tally from its ``to_dict``."""
        return type(self.new_tally(experiment)).from_dict(data)

    def recount(self, experiment, rows: dict):
        """The tally of a part's rows (columns as numpy arrays), as it was counted while
        they were played (``sim.base.recount``)."""
        return self.tally_of(rows, experiment.config.players, experiment.config.match)

    def tally_of(self, rows: dict, players: int, match: str):
        """The tally of rows of a file of this kind (``recount``, from a file's metadata)."""
        raise NotImplementedError

    def schema(self, experiment):
        """The columns of its rows (pyarrow)."""
        raise NotImplementedError

    def summary(self, experiment, tallies: dict, seconds: float) -> dict:
        """Its command's JSON from the tallies of its parts played (part -> tally, in
        play order) and the seconds they took."""
        raise NotImplementedError

    def part_summary(self, experiment, part, tally, seconds: float) -> dict:
        """The summary a part's own file holds (a tournament's pair: its comparison's)."""
        return self.summary(experiment, {part: tally}, seconds)

    def default_path(self, experiment) -> Path:
        raise NotImplementedError

    def file_metadata(self, experiment, part, tally) -> dict:
        """What a part's result file holds beside the run's metadata and the summary."""
        return {}

    # ------------------------------------------------------------------ reading its files

    balances_seats: bool = True  # every strategy plays every seat alike: seat 0's score is the first lead's
    unpaired: str = ""  # why its rows cannot be paired unit by unit with another run's (sim.present.analysis.paired)
    rated: bool = False  # a report fits its strategies' ratings
    who: str = "A"  # whose score and margin a report and ``briscola diff`` give

    @property
    def file_kind(self) -> str:
        """The kind a part's result file names, and is read as: its own (a tournament's
        pair files: ``compare``)."""
        return self.name

    def strategies_read(self, config: dict, deals) -> list[str]:
        """The strategies of a file or dataset of this kind, from its metadata and rows."""
        raise NotImplementedError

    def file_summary(self, config: dict, deals, tally) -> dict:
        """The summary a file's command printed, made again from its rows' tally."""
        raise NotImplementedError

    def study_columns(self, columns: list[str]) -> list[str]:
        """The columns an experiment of a study reads of its rows."""
        return columns

    def study_view(self, config: dict, deals, summary: dict, strategies: list[str]) -> None:
        """An experiment of a study as its command's file would hold it: its own keys
        added to ``config`` (and to ``deals``' columns), in place."""

    def kept_summary(self, config: dict) -> dict | None:
        """The summary its command printed, as a file or folder keeps it (None: kept by none)."""
        return config.get("summary")

    # ------------------------------------------------------------------ showing it

    def tables(self, summary: dict, interrupted: bool, seconds: float | None) -> list:
        """Its command's tables (``Table``), from its JSON alone."""
        raise NotImplementedError

    def headline(self, summary: dict) -> str:
        """Its main figure in a few words (a study's status)."""
        raise NotImplementedError

    def page_tables(self, summary: dict) -> list:
        """The tables of its summary in a report's page: ``(title, rows as dicts, lines of text under it)``."""
        return []

    lead_plots: tuple[str, ...] = ()  # a report's plots above its tables (``sim.present.plots.PLOTS`` names them)
    report_plots: tuple[str, ...] = ("margin", "scores")  # and below them (then the first lead's, the caller's)

    def strategies_shown(self, strategies: list[str]) -> str:
        """Its strategies in a figure's title."""
        return ", ".join(strategies)

    def margin_of(self, strategies: list[str], players: int) -> str:
        """Whose margin a report's margin histogram shows."""
        return f"A's {side_word(players)} ({strategies[0]}) less B's"

    def score_matrix(self, config: dict):
        """Its strategies' scores against each other (rows against columns; None where
        not played), drawn as a heatmap; None: it has none."""
        return None


class Table(NamedTuple):
    """A table of a command's summary, as data (``sim.present.report`` draws it): its title,
    columns (name, ``left`` or ``right``), rows of text, and the facts printed under it
    on one line. No title and no columns: the facts alone."""

    title: str
    columns: tuple[tuple[str, str], ...]
    rows: list[tuple[str, ...]]
    facts: str = ""


def table_of(config: dict, seats: list[str]) -> RunConfig:
    """A file's table, rules, seed and match format, which its summary states (not the
    deals asked for, nor a comparison's seats: its tallies count what was played)."""
    rules = Rules(**config.get("rules", {}))
    return RunConfig(config["players"], tuple(seats), 1, config["seed"], rules, 1, match=config.get("match", "deal"),
                     resolved=tuple(config.get("resolved", {}).items()))  # fmt: skip


def default_path(config: RunConfig, strategies: str, prefix: str = "", suffix: str = ".parquet") -> Path:
    """``results/[PREFIX]{P}p_{STRATEGIES}_seed{S}_{COUNT}[_{RULE}={VALUE}...]{SUFFIX}``: a run's
    default output, named by everything that decides its results (rules away from their
    defaults, the match format), so that runs that differ in any of these get different
    names (strategies from --strategy-file files are named, not their files)."""
    names = strategies.replace(":", "_")
    if len(names) > MAX_NAMES_IN_PATH:
        names = f"{names[: MAX_NAMES_IN_PATH - 11]}-{hashlib.sha1(names.encode()).hexdigest()[:10]}"
    rules = [f"{key}={value}" for key, value in config.rules.changed().items()]
    parts = [f"{prefix}{config.players}p", names, f"seed{config.seed}", run_count(config), *rules]
    return Path("results") / ("_".join(parts) + suffix)


def run_count(config: RunConfig) -> str:
    """``10000deals``, or ``10000matches_best-of-3`` with a match format (for file names)."""
    return f"{config.deals}deals" if config.match == "deal" else f"{config.deals}matches_{config.match}"
