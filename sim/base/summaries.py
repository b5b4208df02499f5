"""Each command's summary as one JSON-ready dict, from its tallies alone: pure data, no
I/O. What a command prints with ``--json``, what a result file keeps in its metadata
and what a study keeps per experiment are these dicts; ``sim.present.report`` draws its tables
from them.

>>> from sim.base.config import RunConfig
>>> from sim.base.stats import RunTally
>>> config = RunConfig(players=2, strategies=("greedy", "random"), deals=10, seed=1, threads=1)
>>> simulate(config, RunTally(2), seconds=0.0)["sides"][0]["strategy"]
'greedy'
"""

from __future__ import annotations

import math

from sim.base.cards import bid_name, bid_target
from sim.base.config import RunConfig
from sim.base.stats import ROLES, Z_95, PairResult, RunTally, anchor_of, fit_ratings, score_matrix, wilson_interval
from sim.base.stats import summary as compare_figures

SCORE_DIGITS = 6  # JSON figures are rounded: scores and rates, Elo, points and margins
ELO_DIGITS = 2
POINTS_DIGITS = 4


def rounded(value, digits: int):
    """``value`` (a number, None, or a list of them) rounded for JSON."""
    if isinstance(value, list):
        return [rounded(item, digits) for item in value]
    return None if value is None or math.isnan(value) else round(value, digits) + 0.0  # no NaN in JSON, no -0.0


def run_keys(config: RunConfig) -> dict:
    """What every JSON summary says of its run: the seed and the table's rules, the match
    format when it is not single deals, and what a name such as ``best`` resolved to."""
    keys = {"seed": config.seed, "rules": config.rules.for_table(config.players)}
    if config.match != "deal":
        keys["match"] = config.match
    if config.resolved:
        keys["resolved"] = dict(config.resolved)
    return keys


def unit_key(config: RunConfig) -> str:
    """What a comparison's duplicate units are called in its JSON: ``deals``, or
    ``matches`` with a match format (then a unit is a match of several deals)."""
    return "deals" if config.match == "deal" else "matches"


# ------------------------------------------------------------------ briscola simulate


def simulate(config: RunConfig, tally: RunTally, seconds: float) -> dict:
    """The JSON of ``briscola simulate``. With a match format it also tells the format and
    the matches played; wins, draws, losses and mean points are then per match."""
    summary = {"players": config.players, "deals": tally.deals_played, **run_keys(config)}
    if config.match != "deal":
        summary["matches"] = tally.units
    deals_per_second = tally.deals_played / seconds if seconds > 0 else 0.0
    summary.update(
        seconds=round(seconds, 3), deals_per_second=round(deals_per_second, 1), sides=side_rows(config, tally)
    )
    if tally.chiamata is not None:
        summary["chiamata"] = chiamata(tally.chiamata)
    return summary


def side_rows(config: RunConfig, tally: RunTally) -> list[dict]:
    """Per side, in side order: the figures of the summary (the JSON's ``sides``)."""
    rows = []
    for side, mine in enumerate(tally.sides):
        n = mine.units
        rows.append({
            "side": side, "seats": config.side_seats(side), "strategy": config.side_strategy(side),
            "wins": mine.wins, "draws": mine.draws, "losses": mine.losses,
            "win_rate": rounded(mine.wins / n if n else 0.0, SCORE_DIGITS),
            "win_rate_ci95": rounded(list(wilson_interval(mine.wins, n)), SCORE_DIGITS),
            "mean_points": rounded(mine.points / n if n else 0.0, POINTS_DIGITS),
        })  # fmt: skip
    return rows


def chiamata(tally) -> dict:
    """Briscola Chiamata's figures: deals thrown in and cappotti; then for each strategy
    at the table (one at a table of one strategy), its mean game points in each role, how
    often each bid that won it the auction took its target, and how it fared alone."""
    roles, bids, alone = [], [], []
    for strategy, mine in tally.strategies.items():
        for role, n, total, squares in zip(ROLES, mine.role_deals, mine.role_points, mine.role_squares):
            roles.append({"role": role, "strategy": strategy, "deals": n, **_mean_figures(n, total, squares)})
        bids += [
            {"bid": bid_name(level), "strategy": strategy, "target": bid_target(level), "deals": calls, "made": made,
             "made_rate": rounded(made / calls, SCORE_DIGITS)}
            for level, (calls, made) in enumerate(zip(mine.bid_calls, mine.bid_made)) if calls
        ]  # fmt: skip
        alone.append({"strategy": strategy, "deals": mine.alone_calls, "made": mine.alone_made,
                      **_mean_figures(mine.alone_calls, mine.alone_points, mine.alone_squares)})  # fmt: skip
    return {"thrown_in": tally.thrown_in, "cappotti": tally.cappotti, "roles": roles, "bids": bids, "alone": alone}


def _mean_figures(n: int, total: int, squares: int) -> dict:
    """Mean game points of ``n`` deals, with a 95% interval (normal approximation)."""
    mean = total / n if n else 0.0
    half = Z_95 * math.sqrt(max(0.0, squares / n - mean * mean) / n) if n > 1 else 0.0
    return {"mean_game_points": rounded(mean, POINTS_DIGITS),
            "mean_game_points_ci95": rounded([mean - half, mean + half], POINTS_DIGITS)}  # fmt: skip


# ------------------------------------------------------------------ briscola compare


def compare(config: RunConfig, a: str, b: str, tally, sprt) -> dict:
    """The JSON of ``briscola compare``: exactly the keys docs/results.md lists."""
    figures = compare_figures(tally)
    for key, digits in (("score", SCORE_DIGITS), ("score_ci95", SCORE_DIGITS), ("elo", ELO_DIGITS),
                        ("elo_ci95", ELO_DIGITS), ("los", SCORE_DIGITS), ("mean_margin", POINTS_DIGITS),
                        ("mean_margin_ci95", POINTS_DIGITS)):  # fmt: skip
        figures[key] = rounded(figures[key], digits)
    return {
        "a": a, "b": b, "players": config.players, **run_keys(config),
        unit_key(config): tally.units,
        "games": tally.units * tally.n_games,  # seatings of every unit
        **figures,
        "sprt": None if sprt is None else sprt.to_dict(tally),
    }  # fmt: skip


# ------------------------------------------------------------------ briscola tournament


def tournament(config: RunConfig, names: list[str], pairs: list[PairResult]) -> dict:
    """The JSON of ``briscola tournament``: the pairs played so far (in play order)."""
    units = pairs[0].tally.units if pairs else 0
    ratings = [
        {**r, "rating": rounded(r["rating"], ELO_DIGITS), "ci95": rounded(r["ci95"], ELO_DIGITS)}
        for r in fit_ratings(names, pairs)
    ]
    return {
        "players": config.players, **run_keys(config),
        unit_key(config): units,  # per pair
        "strategies": names, "anchor": anchor_of(names),
        "matrix": [rounded(row, SCORE_DIGITS) for row in score_matrix(len(names), pairs)],
        "ratings": ratings,
    }  # fmt: skip
