"""What every run kind fills in (``RunKind``), and the default names of outputs."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sim.config import ConfigError, RunConfig

MAX_NAMES_IN_PATH = 120  # characters of strategy names a default path holds; longer ones end in a hash


class RunKind:
    """The interface every kind fills in (the experiment's ``kind`` names it)."""

    name: str
    strategy_keys: tuple[str, ...] = ("strategies",)  # its strategies' keys in a plan
    plan_keys: tuple[str, ...] = ()  # the keys of its own, beside the common ones
    players_required: bool = False  # a plan entry must name its table
    takes_one_string: bool = False  # its strategies may be one comma list, "a,b"
    layout: str = "file"  # its command's output: one result file, or a folder ("tournament")
    traces: bool = False  # a study may keep its deals move by move (a plan's ``trace = true``)

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
        they were played (``sim.recount``)."""
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
