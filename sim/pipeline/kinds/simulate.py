"""``briscola simulate``: deals played with a strategy per seat, a row per deal (or per
deal of a match), tallied per side."""

from __future__ import annotations

from pathlib import Path

from sim.base import summaries
from sim.base.config import RunConfig, n_sides, seat_strategies, side_of_seat
from sim.base.recount import run_tally
from sim.base.results import results_schema, results_table
from sim.base.stats import RunTally
from sim.base.trace import trace_table
from sim.pipeline.kinds.base import RunKind, Table, default_path, table_of
from sim.pipeline.kinds.words import run_facts, side_word, speed

POINT_BANDS = ((62, 65), (66, 70), (71, 80), (81, 90), (91, 100), (101, 120))  # points bids, shown together


class Simulate(RunKind):
    name = "simulate"
    players_required = True
    takes_one_string = True
    traces = True
    balances_seats = False  # unless one strategy plays every seat
    who = "side 0"

    def seat_labels(self, labels, players):
        return tuple(labels)

    def strategy_texts(self, strategies, players: int) -> list[str]:
        """One strategy per seat from a comma list, a list, or one per team."""
        return list(seat_strategies(strategies if isinstance(strategies, str) else ",".join(strategies), players))

    def player(self, experiment, part):
        return SeatsPlayer(experiment.config)

    def new_tally(self, experiment) -> RunTally:
        return RunTally(n_sides(experiment.config.players))

    def tally_of(self, rows: dict, players: int, match: str) -> RunTally:
        return run_tally(rows, players, match)

    def schema(self, experiment):
        return results_schema(experiment.config)

    def summary(self, experiment, tallies, seconds: float) -> dict:
        return summaries.simulate(experiment.config, tallies[None], seconds)

    def default_path(self, experiment) -> Path:
        config = experiment.config
        return default_path(config, "-".join(config.side_strategy(side) for side in range(n_sides(config.players))))

    # ------------------------------------------------------------------ reading its files

    def strategies_read(self, config: dict, deals) -> list[str]:
        """The strategies at the table, by seat (those its summary names when no deal was played)."""
        if deals.empty:  # a run stopped before its first deal: the names its summary gives
            sides = config.get("summary", {}).get("sides", [])
            return list(dict.fromkeys(side["strategy"] for side in sides))
        return list(dict.fromkeys(str(deals[f"strategy_{seat}"].iloc[0]) for seat in range(config["players"])))

    def file_summary(self, config: dict, deals, tally) -> dict:
        stored, players = config["summary"], config["players"]
        if len(deals):  # a match's first deal seats its players as the run did
            first = deals[deals["match_deal"] == 0] if "match_deal" in deals else deals
            seats = [str(first[f"strategy_{seat}"].iloc[0]) for seat in range(players)]
        else:  # a run stopped before its first deal: nothing to count, the names its summary gives
            seats = [stored["sides"][side_of_seat(seat, players)]["strategy"] for seat in range(players)]
        return summaries.simulate(table_of(config, seats), tally, stored.get("seconds", 0.0))

    # ------------------------------------------------------------------ showing it

    def tables(self, summary: dict, interrupted: bool, seconds: float | None) -> list[Table]:
        """The table of ``briscola simulate`` (its JSON holds its seconds); at Briscola
        Chiamata, its tables by role and bid, then the facts."""
        title = f"{summary['players']} players, {summary['deals']:,} deals"
        chiamata = "chiamata" in summary
        if "matches" in summary:
            title += f": {summary['matches']:,} {summary['match']} matches (wins, draws, losses and points per match)"
        elif chiamata:
            title += " of Briscola Chiamata: each seat's deals won (game points > 0), drawn (thrown in), lost"
        points = "game points" if chiamata else "points"
        columns = (
            side_word(summary["players"]),
            "seats",
            "strategy",
            "wins",
            "draws",
            "losses",
            "win rate",
            "95% CI",
            points,
        )
        rows = []
        for row in summary["sides"]:
            lo, hi = row["win_rate_ci95"]
            rows.append((str(row["side"]), ",".join(map(str, row["seats"])), row["strategy"], f"{row['wins']:,}",
                         f"{row['draws']:,}", f"{row['losses']:,}", f"{row['win_rate']:.4f}", f"{lo:.4f}-{hi:.4f}",
                         f"{row['mean_points']:.2f}"))  # fmt: skip
        facts = run_facts(summary) + speed(
            summary["deals"], "deals", summary.get("seconds"), summary.get("deals_per_second")
        )
        sides = Table(title + (" (interrupted)" if interrupted else ""), _aligned(columns, "strategy"), rows)
        if not chiamata:
            return [sides._replace(facts=facts)]
        return [sides, *chiamata_tables(summary["chiamata"]), Table("", (), [], facts)]

    def headline(self, summary: dict) -> str:
        if "chiamata" in summary:
            callers = [row for row in summary["chiamata"]["roles"] if row["role"] == "caller"]
            deals = sum(row["deals"] for row in callers)
            gain = sum(row["mean_game_points"] * row["deals"] for row in callers) / max(1, deals)
            made = sum(b["made"] for b in summary["chiamata"]["bids"]) / max(1, deals)
            return f"callers gain {gain:+.3f} game points a deal, make {made:.1%} of their calls"
        side = summary["sides"][0]
        lo, hi = side["win_rate_ci95"]
        return f"{side['strategy']} ({side_word(summary['players'])} 0) wins {side['win_rate']:.4f} ({lo:.4f}-{hi:.4f})"

    def page_tables(self, summary: dict) -> list:
        word = side_word(summary.get("players", 2))
        sides = [
            {(word if key == "side" else key): value for key, value in row.items()} for row in summary.get("sides", [])
        ]
        tables = [("Summary (as briscola simulate printed it)", sides, [])] if "sides" in summary else []
        if "chiamata" in summary:
            figures = summary["chiamata"]
            tables.append(("Briscola Chiamata: game points by role", figures["roles"], chiamata_lines(figures)))
            tables.append(("Briscola Chiamata: winning bids and their success", figures["bids"], []))
        return tables

    def margin_of(self, strategies: list[str], players: int) -> str:
        side = side_word(players)
        return "seat 0 less the others' mean" if players in (3, 5) else f"{side} 0 less {side} 1"


def _aligned(columns: tuple[str, ...], *left: str) -> tuple[tuple[str, str], ...]:
    """Columns with their alignment: those named in ``left`` to the left, figures to the right."""
    return tuple((column, "left" if column in left else "right") for column in columns)


def chiamata_lines(figures: dict) -> list[str]:
    """The deals thrown in and each strategy's calls alone, in words (the console and the page)."""
    lines = [f"thrown in (all passed): {figures['thrown_in']:,} deals; cappotto: {figures['cappotti']:,}"]
    for alone in figures["alone"]:
        lo, hi = alone["mean_game_points_ci95"]
        lines.append(f"{alone['strategy']} calling alone: {alone['deals']:,} deals, made {alone['made']:,}, mean "
                     f"{alone['mean_game_points']:+.2f} game points ({lo:+.2f} to {hi:+.2f})")  # fmt: skip
    return lines


def chiamata_tables(figures: dict) -> list[Table]:
    """Briscola Chiamata's tables: game points by role (and strategy), then each bid's success."""
    mixed = len({row["strategy"] for row in figures["roles"]}) > 1
    by_strategy = ("strategy",) if mixed else ()
    roles = []
    for row in figures["roles"]:
        lo, hi = row["mean_game_points_ci95"]
        roles.append((row["role"], *([row["strategy"]] if mixed else []), f"{row['deals']:,}",
                      f"{row['mean_game_points']:+.3f}", f"{lo:+.3f} to {hi:+.3f}"))  # fmt: skip
    bids = []
    for strategy in dict.fromkeys(row["strategy"] for row in figures["roles"]):
        mine = [row for row in figures["bids"] if row["strategy"] == strategy]
        for label, target, deals, made in _bid_bands(mine):
            bids.append(
                (label, *([strategy] if mixed else []), target, f"{deals:,}", f"{made:,}", f"{made / deals:.3f}")
            )
    return [
        Table(
            "by role: mean game points per deal",
            _aligned(("role", *by_strategy, "deals", "game points", "95% CI"), "role", "strategy"),
            roles,
            "; ".join(chiamata_lines(figures)),
        ),  # fmt: skip
        Table(
            "by winning bid: how often the caller's side took its target",
            _aligned(("bid", *by_strategy, "target", "deals", "made", "rate"), "bid", "strategy"),
            bids,
        ),  # fmt: skip
    ]


def _bid_bands(rows: list[dict]) -> list[tuple[str, str, int, int]]:
    """The bids for the console: each rank, then points bids in bands (the JSON has each)."""
    bands = [(row["bid"], str(row["target"]), row["deals"], row["made"]) for row in rows if row["target"] == 61]
    for low, high in POINT_BANDS:
        inside = [row for row in rows if row["target"] > 61 and low <= row["target"] <= high]
        if inside:
            label = f"{low}-{high}"
            bands.append((label, label, sum(r["deals"] for r in inside), sum(r["made"] for r in inside)))
    return bands


class SeatsPlayer:
    """Plays a run's deals (or matches) batch by batch, into its tally and rows."""

    def __init__(self, config: RunConfig):
        self.config = config
        self.configs = [config]
        from sim.runtime.play import check_seats  # here: reading a file of this kind must not load the kernels

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
        from kernels.tally_nb import tally_results_nb
        from sim.runtime.play import NOT_PLAYED, play_batch

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
        from sim.pipeline.matches import match_table, play_matches, rotated
        from sim.runtime.play import Batch

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
