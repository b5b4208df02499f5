"""``briscola compare A B``: is A better than B, by how much, and how sure are we?

Duplicate deals: every deal is played once per seating, with the same cards:

- 2 players: A in seat 0, then in seat 1;
- 4 and 6 players: A's team is team 0, then team 1;
- 3 players: A in seat 0, 1, then 2, against two copies of B.

Strategies draw from random streams keyed by (seed, deal, A or B, copy), not by seat:
the same in every seating of a deal, and different for A and B even when they are the
same strategy, so that A against A plays genuinely different games.

A deal's score is A's mean score over its seatings (win 1, draw 1/2, loss 0); with 3
players each game scores A against each copy of B apart (more points wins), so that two
equal strategies score 1/2 at every table. Deals are independent: intervals come from
the spread of deal scores (with 2 seatings, the pentanomial model of chess testing).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from kernels.enums import MAX_PLAYERS
from sim.compiling import warm_up
from sim.config import RunConfig, n_sides
from sim.engine import play_batch, seat_specs
from sim.interrupt import deferred_interrupt
from sim.results import AtomicParquetWriter, arrow_column, make_parent, match_table, results_schema, results_table
from sim.runner import Pace, batches, default_path, final_metadata, prepare_outputs
from sim.stats import Z_95, elo_from_score, normal_cdf, score_against_copies, sprt_llr

A, B = "A", "B"


def seatings(players: int) -> list[tuple[str, ...]]:
    """Who sits where in each game of a deal: 'A' or 'B' per seat."""
    if players == 3:
        return [tuple(A if seat == a_seat else B for seat in range(3)) for a_seat in range(3)]
    return [tuple(A if seat % 2 == a_side else B for seat in range(players)) for a_side in range(2)]


def seating_config(base: RunConfig, a: str, b: str, seating: tuple[str, ...]) -> RunConfig:
    """The run of one seating: strategies per seat, streams keyed by strategy and copy
    (A's copies 1, 2, ...; B's after every possible copy of A)."""
    strategies, streams, copies = [], [], {A: 0, B: 0}
    for who in seating:
        strategies.append(a if who == A else b)
        streams.append(1 + copies[who] + (0 if who == A else MAX_PLAYERS))
        copies[who] += 1
    return replace(base, strategies=tuple(strategies), streams=tuple(streams))


def game_scores(points: np.ndarray, winner: np.ndarray, standing: np.ndarray, seating: tuple[str, ...]):
    """Per game of one seating (a deal, or a match): A's score, A's result (1 win, 0 draw,
    -1 loss) and A's point margin. ``points`` and ``standing`` are per side (what decides
    the game: points, or deals won in a best-of match), ``winner`` the winning side or -1.
    With 3 players A plays each copy of B apart, by standing: its results are two per
    game (shape (games, 2)), its score their mean, its margin its points less the mean
    of B's; so the results count what the score measures."""
    points, standing = points.astype(np.int64), standing.astype(np.int64)
    if len(seating) == 3:
        a = seating.index(A)
        score = score_against_copies(standing, np.full(len(standing), a))
        result = np.sign(standing[:, [a]] - np.delete(standing, a, axis=1))
        return score, result, points[:, a] - np.delete(points, a, axis=1).mean(axis=1)
    a = seating.index(A) % 2
    result = np.where(winner == a, 1, np.where(winner < 0, 0, -1))
    return (result + 1) / 2.0, result, (points[:, a] - points[:, 1 - a]).astype(np.float64)


def deal_games(results: np.ndarray, sides: int):
    """``game_scores``' inputs for single deals: side points, winner, standing."""
    points = results["side_points"][:, :sides]
    return points, results["winner_side"], points


@dataclass
class CompareTally:
    """Deal scores (as a histogram over their possible values) and game counts, in
    constant memory. Everything is counted in integers, so the figures are exact and do
    not depend on how the deals were cut into batches (a float sum would)."""

    n_games: int  # games per deal
    score_counts: np.ndarray = field(default=None)  # deals by score, in steps of 1 / (4 n_games)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    # Deal margins in units of 1 / (2 n_games): a game's margin is a multiple of 1/2.
    margin_units: int = 0
    margin_unit_squares: int = 0

    def __post_init__(self):
        if self.score_counts is None:
            self.score_counts = np.zeros(4 * self.n_games + 1, dtype=np.int64)

    @property
    def deals(self) -> int:
        return int(self.score_counts.sum())

    @property
    def score_values(self) -> np.ndarray:
        return np.arange(len(self.score_counts)) / (4 * self.n_games)

    @property
    def margin_unit(self) -> float:
        return 1.0 / (2 * self.n_games)

    def mean_sd(self) -> tuple[float, float]:
        """Mean and standard deviation of the deal scores."""
        p = self.score_counts / self.deals
        mean = float((p * self.score_values).sum())
        return mean, math.sqrt(float((p * (self.score_values - mean) ** 2).sum()))

    def add_scores(self, scores: np.ndarray) -> None:
        """Adds deals' scores: shape (deals, games per deal)."""
        steps = np.rint(scores.sum(axis=1) * 4).astype(np.int64)  # game scores are quarters
        self.score_counts += np.bincount(steps, minlength=len(self.score_counts))

    def merge(self, other: CompareTally) -> None:
        """Adds another tally's deals (other deals of the same comparison)."""
        self.score_counts += other.score_counts
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses
        self.margin_units += other.margin_units
        self.margin_unit_squares += other.margin_unit_squares

    def to_dict(self) -> dict:
        counts = ("wins", "draws", "losses", "margin_units", "margin_unit_squares")
        return {
            "n_games": self.n_games,
            "score_counts": self.score_counts.tolist(),
            **{k: getattr(self, k) for k in counts},
        }

    @classmethod
    def from_dict(cls, data: dict) -> CompareTally:
        return cls(**{**data, "score_counts": np.array(data["score_counts"], dtype=np.int64)})

    def add(self, scores: np.ndarray, results: np.ndarray, margins: np.ndarray) -> None:
        """Adds deals: arrays of shape (deals, games per deal)."""
        self.add_scores(scores)
        self.wins += int((results == 1).sum())
        self.draws += int((results == 0).sum())
        self.losses += int((results == -1).sum())
        units = np.rint(margins.sum(axis=1) * 2).astype(np.int64)  # a deal's margin / margin_unit
        self.margin_units += int(units.sum())
        self.margin_unit_squares += int((units * units).sum())


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def bounds(self) -> tuple[float, float]:
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, tally: CompareTally) -> float:
        return sprt_llr(tally.score_counts, tally.score_values, self.elo0, self.elo1)

    def decision(self, tally: CompareTally) -> str:
        llr = self.llr(tally)
        lower, upper = self.bounds
        return "H1" if llr >= upper else "H0" if llr <= lower else "none"

    def to_dict(self, tally: CompareTally) -> dict:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "llr": round(self.llr(tally), 4), "bounds": [round(b, 4) for b in self.bounds],
                "result": self.decision(tally)}  # fmt: skip


def summary(tally: CompareTally) -> dict:
    """Score, Elo and margin of A with 95% intervals, LOS, and the game counts."""
    n = tally.deals
    score, sd = tally.mean_sd()
    half = Z_95 * sd / math.sqrt(n)
    lo, hi = max(0.0, score - half), min(1.0, score + half)
    unit = tally.margin_unit
    margin = tally.margin_units * unit / n
    margin_sd = unit * math.sqrt(max(0.0, tally.margin_unit_squares / n - (tally.margin_units / n) ** 2))
    margin_half = Z_95 * margin_sd / math.sqrt(n)
    if sd > 0:
        los = normal_cdf((score - 0.5) / (sd / math.sqrt(n)))
    else:
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return {
        "score": score, "score_ci95": [lo, hi],
        "elo": elo_from_score(score), "elo_ci95": [elo_from_score(lo), elo_from_score(hi)],
        "los": los,
        "wins": tally.wins, "draws": tally.draws, "losses": tally.losses,
        "mean_margin": margin, "mean_margin_ci95": [margin - margin_half, margin + margin_half],
    }  # fmt: skip


# ------------------------------------------------------------------ running a comparison


@dataclass
class CompareOutcome(Pace):
    config: RunConfig  # the first seating's
    a: str
    b: str
    tally: CompareTally
    sprt: Sprt | None
    seconds: float
    interrupted: bool
    out: Path | None
    warm_up_seconds: float = 0.0


SPRT_CHECK_DEALS = 1000  # the SPRT is checked after every multiple of this many deals, and only there


def default_compare_path(config: RunConfig, a: str, b: str) -> Path:
    return default_path(config, f"{a}-vs-{b}", prefix="compare_")


def run_comparison(
    base: RunConfig,
    a: str,
    b: str,
    out: Path | None,
    sprt=None,
    overwrite: bool = False,
    command: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    stop=None,
) -> CompareOutcome:
    """Plays ``base.deals`` duplicate deals of A against B (fewer when the SPRT ``sprt``
    decides first), writing one row per game to ``out`` (None: summary only). ``stop``:
    the StopFlag of a caller's Ctrl-C handler (a tournament's), else this run installs one."""
    from sim.report import compare_dict

    seating_list = seatings(base.players)
    configs = [seating_config(base, a, b, seating) for seating in seating_list]
    for config in configs:
        seat_specs(config)  # unknown strategies fail before any file is opened
    prepare_outputs(out, None, overwrite)
    warm_up_seconds = sum(warm_up(config) for config in configs)
    make_parent(out)
    tally = CompareTally(len(configs))
    writer = None
    started = time.perf_counter()
    try:
        with nullcontext(stop) if stop is not None else deferred_interrupt() as stop:
            if out is not None:
                schema = compare_schema(configs[0])
                writer = AtomicParquetWriter(out, schema)
            # With an SPRT, batches end on every multiple of SPRT_CHECK_DEALS: the test is
            # checked there, at deal counts that do not depend on speed or threads.
            for first, n in batches(base.deals, stop, SPRT_CHECK_DEALS if sprt is not None else None):
                done = _play_duplicates(
                    configs, seating_list, first, n, tally, writer, schema if writer else None, stop
                )
                if on_progress is not None:
                    on_progress(done)
                at_checkpoint = (first + done) % SPRT_CHECK_DEALS == 0
                if sprt is not None and at_checkpoint and sprt.decision(tally) != "none":
                    break
            seconds = time.perf_counter() - started
            outcome = CompareOutcome(configs[0], a, b, tally, sprt, seconds, stop.is_set(), out, warm_up_seconds)
            if writer is not None:
                metadata = final_metadata(configs[0], command, stop, tally.deals, seconds)
                metadata["compare"] = {"a": a, "b": b, "seatings": ["".join(s) for s in seating_list],
                                       "sprt": None if sprt is None else sprt.to_dict(tally)}  # fmt: skip
                metadata["summary"] = compare_dict(outcome)  # what the command prints, for briscola report
                writer.close(metadata)
                writer.commit()
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    return outcome


def _play_duplicates(configs, seating_list, first: int, n: int, tally: CompareTally, writer, schema, stop) -> int:
    """Plays games ``first .. first + n - 1`` from every seating into ``tally`` (and
    ``writer``, when there is one: rows by deal, then seating, whatever the batches).
    Returns how many: after a stop, only the first games played from every seating."""
    import pyarrow as pa

    played = [_play_seating(config, first, n, stop) for config in configs]
    done = min(games.completed for games in played)
    scores, tables = [], []
    for game, (config, seating, games) in enumerate(zip(configs, seating_list, played)):
        games = games.head(done)
        scores.append(game_scores(*_outcomes(games, config), seating))
        if writer is not None:
            tables.append(_with_seating(_rows(games, config), schema, game, seating, config.players))
    tally.add(*(np.stack([g[k] for g in scores], axis=1) for k in range(3)))
    if writer is not None:
        writer.write(pa.concat_tables(tables).sort_by([("deal", "ascending"), ("game", "ascending")]))
    return done


def compare_schema(config: RunConfig):
    """A result file's columns, plus the seating (``game``) and the side of A."""
    import pyarrow as pa

    schema = results_schema(config)
    return schema.insert(1, pa.field("game", pa.int8())).insert(2, pa.field("a_side", pa.int8()))


def _play_seating(config: RunConfig, first: int, n: int, stop):
    """Games (deals or matches) ``first .. first + n - 1`` of one seating: a Batch, or a
    MatchBatch with a match format."""
    from sim.matches import play_matches

    if config.match == "deal":
        return play_batch(config, first, n, stop=stop)
    return play_matches(config, first, n, stop=stop)


def _outcomes(games, config: RunConfig):
    """``game_scores``' inputs (side points, winner, standing) of a seating's games."""
    if config.match == "deal":
        return deal_games(games.results, n_sides(config.players))
    return games.points, games.winner, games.standing


def _rows(games, config: RunConfig):
    """A seating's games as result-file rows."""
    schema = results_schema(config)
    if config.match == "deal":
        return results_table(games.results, config, schema)
    return match_table(games, config, schema)


def _with_seating(table, schema, game: int, seating, players: int):
    """Adds a compare file's columns: the seating (``game``) and A's side."""
    a_side = seating.index(A) if players == 3 else seating.index(A) % 2
    n = table.num_rows
    table = table.add_column(1, schema.field("game"), arrow_column(np.full(n, game, dtype=np.int8)))
    return table.add_column(2, schema.field("a_side"), arrow_column(np.full(n, a_side, dtype=np.int8)))
