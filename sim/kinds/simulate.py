"""``briscola simulate``: deals played with a strategy per seat, a row per deal (or per
deal of a match), tallied per side."""

from __future__ import annotations

from pathlib import Path

from kernels.tally_nb import tally_results_nb
from sim import summaries
from sim.config import RunConfig, n_sides, seat_strategies
from sim.kinds.base import RunKind, default_path
from sim.matches import match_table, play_matches, rotated
from sim.play import NOT_PLAYED, Batch, check_seats, play_batch
from sim.recount import run_tally
from sim.results import results_schema, results_table
from sim.stats import RunTally
from sim.trace import trace_table


class Simulate(RunKind):
    name = "simulate"
    players_required = True
    takes_one_string = True
    plan_keys = ("trace",)
    traces = True

    def seat_labels(self, labels, players):
        return tuple(labels)

    def strategy_texts(self, strategies, players: int) -> list[str]:
        """One strategy per seat from a comma list, a list, or one per team."""
        return list(seat_strategies(strategies if isinstance(strategies, str) else ",".join(strategies), players))

    def player(self, experiment, part):
        return SeatsPlayer(experiment.config)

    def new_tally(self, experiment) -> RunTally:
        return RunTally(n_sides(experiment.config.players))

    def recount(self, experiment, rows: dict) -> RunTally:
        return run_tally(rows, experiment.config.players, experiment.config.match)

    def schema(self, experiment):
        return results_schema(experiment.config)

    def summary(self, experiment, tallies, seconds: float) -> dict:
        return summaries.simulate(experiment.config, tallies[None], seconds)

    def default_path(self, experiment) -> Path:
        config = experiment.config
        return default_path(config, "-".join(config.side_strategy(side) for side in range(n_sides(config.players))))


class SeatsPlayer:
    """Plays a run's deals (or matches) batch by batch, into its tally and rows."""

    def __init__(self, config: RunConfig):
        self.config = config
        self.configs = [config]
        check_seats(config)  # bad ones fail here, before anything runs
        self.schema = results_schema(config)

    def new_tally(self) -> RunTally:
        return RunTally(n_sides(self.config.players))

    def deals_played(self, tally: RunTally, completed: int) -> int:
        return tally.deals_played

    def play(self, first: int, n: int, tally: RunTally, stop, rows=None, trace=None) -> int:
        """Plays deals (or matches) ``first .. first + n - 1``: writes their rows to
        ``rows`` (and their moves to ``trace``) if given, tallies them; returns how many
        were finished (fewer once ``stop`` is set)."""
        play = self._play_deals if self.config.match == "deal" else self._play_matches
        return play(first, n, tally, stop, rows, trace)

    def _play_deals(self, first, n, tally, stop, rows, trace) -> int:
        config = self.config
        batch = play_batch(config, first, n, trace=trace is not None, stop=stop)
        completed, counts = tally_results_nb(batch.results, tally.n_sides, NOT_PLAYED)
        batch = batch.head(completed)
        if rows is not None:
            rows.write(results_table(batch.results, config, self.schema))
        if trace is not None:
            trace.write(trace_table(batch))
        tally.add_counts(counts, completed)
        if tally.chiamata is not None:
            tally.chiamata.add(batch.results, config.strategies)
        return completed

    def _play_matches(self, first, n, tally, stop, rows, trace) -> int:
        config = self.config
        matches = play_matches(config, first, n, trace=trace is not None, stop=stop)
        if rows is not None:
            rows.write(match_table(matches, config, self.schema))
        if trace is not None:
            for k, batch in enumerate(matches.batches):
                played = matches.played[:, k]
                trace.write(trace_table(Batch(batch.results[played], batch.deals[played], batch.records[played])))
        tally.add_outcomes(matches.winner, matches.points, matches.standing)
        tally.deals_played += int(matches.played.sum())
        if tally.chiamata is not None:
            for k, batch in enumerate(matches.batches):
                tally.chiamata.add(batch.results[matches.played[:, k]], rotated(config, k).strategies)
        return matches.completed
