"""Luck against skill: how much of a comparison's outcome the cards decide.

A comparison plays every deal once per seating (``briscola compare``), so each deal is
seen with A in each seat: what stays the same across its seatings is the cards', what
changes with them is the strategies'. ``luck(run)`` reads a comparison of two
strategies at every table (deal by deal, no match format; at 3 and 5 players a side is
a seat, and A's score is against each copy of B apart, as ``compare`` scores it):

- ``better``: the strategy with the higher score; ``better_loses``: the share of its
  games it loses (scores below 1/2 in), and ``cards_decide``: the share of deals that
  the same seat (side) won in every seating, whoever sat there: the strategies did not
  change the outcome (at Briscola Chiamata, the same seats ended above 0 game points).
- ``deal_share`` and ``strategy_share``: the shares of the variance of a game's outcome
  (side 0's score) that the deal explains and that the seating explains (which strategy
  sits where), from a two-way analysis of variance; the rest is the two together and
  the chance within play.
- ``a_leads`` against ``a_follows``: A's score in the seatings where its side leads the
  first trick, and in those where B's does; ``lead_gain`` the paired difference.
- ``by_feature``: A's score by what its side was dealt (trump honours, trumps more than
  the other side), and ``regression``: a logistic regression of A winning a game on its
  side's dealt-hand features against the other sides' (``sim.deal_features``), as Giacomelli (2026) regressed
  outcomes on trump-count imbalance, its standard errors clustered by deal. At Briscola
  Chiamata the trumps are known only once the auction has called them, so the
  regression takes what was dealt before it (``CHIAMATA_FEATURES``).
- ``left_out``: the figures that mean nothing at this table, each with why (None in
  their place): at Briscola Chiamata under ``first_lead=caller`` leading is calling.

Every interval is 95%, with deals as the units (the games of a deal share its cards):
normal intervals over per-deal means, and for the variance shares a bootstrap over deals
(``BOOTSTRAP`` resamples, seeded: the same figures every time).

>>> report = sim.luck("results/compare.parquet")             # doctest: +SKIP
>>> report["cards_decide"], report["regression"]              # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.base.config import CHIAMATA, n_sides
from sim.base.stats import Z_95, mean_interval
from sim.present.par import PAR_DEALS, PAR_KEYS, par_figures

BOOTSTRAP = 400
FEATURES = ("trump_imbalance", "trump_ace", "trump_three", "points_imbalance", "leads")
CHIAMATA_FEATURES = ("value_imbalance", "points_imbalance", "leads")  # dealt before the auction
LEAD_FIGURES = ("a_leads", "a_follows", "lead_gain")
LEAD_IS_CALL = (
    "under first_lead=caller the caller leads the first trick: leading is calling, which the auction decides, "
    "not the seating"
)


def luck(run, par_deals: int = PAR_DEALS) -> dict:
    """The luck report of a comparison (a ``sim.load`` result or a path): a dict of
    figures, each ``{"value", "ci_low", "ci_high"}``, the frames ``by_feature`` and
    ``regression``, and at 2 players the exact par's figures over the first
    ``par_deals`` deals (``sim.present.par.par_figures``). ValueError, naming what is
    wrong, for any other run."""
    from sim.present.analysis import Results, load

    run = run if isinstance(run, Results) else load(run)
    games = luck_games(run)
    a, b = games.attrs["a"], games.attrs["b"]
    per_deal = games.groupby("deal")
    a_mean = float(games["a_score"].mean())
    better_is_a = a_mean >= 0.5
    lost = (games["a_score"] < 0.5) if better_is_a else (games["a_score"] > 0.5)
    winners = per_deal["winners"].agg(["min", "max"])
    same_winner = (winners["min"] >= 0) & (winners["min"] == winners["max"])  # no draw, the same in every seating
    leads = games[games["leads"]].groupby("deal")["a_score"].mean()
    follows = games[~games["leads"]].groupby("deal")["a_score"].mean()
    deal_share, strategy_share = _variance_shares(games)
    par = par_figures(run, par_deals)
    left_out = games.attrs["left_out"] | dict.fromkeys(() if par else PAR_KEYS, _par_left_out(run.players))
    figures = {
        "a": a,
        "b": b,
        "players": games.attrs["players"],
        "deals": int(per_deal.ngroups),
        "a_score": _over_deals(games["a_score"], games["deal"]),
        "better": a if better_is_a else b,
        "better_loses": _over_deals(lost.astype(float), games["deal"]),
        "cards_decide": _interval(same_winner.astype(float)),
        "deal_share": deal_share,
        "strategy_share": strategy_share,
        "a_leads": _interval(leads),
        "a_follows": _interval(follows),
        "lead_gain": _interval((leads - follows).dropna()),
        "by_feature": _by_feature(games),
        "regression": _regression(games, games.attrs["terms"]),
        "left_out": left_out,
        **par,
    }
    return figures | dict.fromkeys(left_out)


def _par_left_out(players: int) -> str:
    if players != 2:
        return "the par of a whole deal is solved at 2 players only"
    return "no deal's par was asked for (--par-deals 0)"


def luck_dict(run, par_deals: int = PAR_DEALS) -> dict:
    """``luck`` as JSON: the frames as lists of records (``briscola luck --json``)."""
    report = luck(run, par_deals)
    return {
        key: value.to_dict("records") if isinstance(value, pd.DataFrame) else value for key, value in report.items()
    }


def luck_games(run) -> pd.DataFrame:
    """One row per game of the comparison: ``deal``, its seating ``game``, ``a_score``,
    who won (``winners``: ``_winners``), side 0's ``side0_score``, whether A's side
    ``leads``, and what A's side was dealt (``FEATURES``: against the other sides, their
    mean at 3 and 5 players; at 5 also ``value_imbalance``). Its ``attrs`` name the
    regression's ``terms`` and the figures ``left_out`` at this table."""
    from sim.present.analysis import Results, _with_a_scores, load, side_scores, standings
    from sim.present.features import deal_features

    run = run if isinstance(run, Results) else load(run)
    players, deals = run.players, run.deals
    if run.run_kind.unpaired:
        raise ValueError(f"luck reads one comparison: {run.run_kind.unpaired}")
    if "a_side" not in deals:
        raise ValueError(f"luck reads a comparison of two strategies (briscola compare), not a {run.kind} run")
    if run.match != "deal":
        raise ValueError(f"luck reads deal-by-deal comparisons, not matches ({run.match})")
    scored = _with_a_scores(deals)
    features = deal_features(run)
    sides, a_side, rows = n_sides(players), deals["a_side"].to_numpy(), np.arange(len(deals))
    chiamata = players == CHIAMATA
    prefix = "" if chiamata else "side_"  # at Briscola Chiamata a side is a seat: the auction makes the teams

    def a_against_others(name: str) -> np.ndarray:  # a side feature: A's side's less the others' mean
        values = np.stack([features[f"{prefix}{name}_{side}"].to_numpy(dtype=float) for side in range(sides)], axis=1)
        mine = values[rows, a_side]
        return mine - (values.sum(axis=1) - mine) / (sides - 1)

    def a_holds(honour: str) -> np.ndarray:  # the honour is in a hand of A's side
        by_side = [[seat for seat in range(players) if seat % sides == side] for side in range(sides)]
        held = np.stack([features[[f"{honour}_{s}" for s in seats]].any(axis=1) for seats in by_side], axis=1)
        return held[rows, a_side]

    games = pd.DataFrame({
        "deal": deals["deal"].to_numpy(),
        "game": deals["game"].to_numpy(),
        "a_score": scored["a_score"].to_numpy(dtype=float),
        "winners": _winners(deals["winner_side"].to_numpy(), standings(deals, players), chiamata),
        "side0_score": side_scores(run)["side_0"].to_numpy(dtype=float),
        "leads": a_side == features["leader"].to_numpy() % sides,
        "trump_imbalance": a_against_others("trumps"),
        "trump_ace": a_holds("trump_ace"),
        "trump_three": a_holds("trump_three"),
        "points_imbalance": a_against_others("dealt_points"),
    })  # fmt: skip
    if chiamata:
        games["value_imbalance"] = a_against_others("hand_value")
    lead_is_call = chiamata and run.rules.get("first_lead") == "caller"
    terms = CHIAMATA_FEATURES if chiamata else FEATURES
    games.attrs.update(a=str(scored["a"].iloc[0]), b=str(scored["b"].iloc[0]), players=players,
                       terms=tuple(term for term in terms if not (lead_is_call and term == "leads")),
                       left_out=dict.fromkeys(LEAD_FIGURES, LEAD_IS_CALL) if lead_is_call else {})  # fmt: skip
    return games


def _winners(winner_side: np.ndarray, standing: np.ndarray, chiamata: bool) -> np.ndarray:
    """Who won each game, as one number, -1 for a draw: the winning side; at Briscola
    Chiamata, whose auction makes the sides anew in every seating, the seats that ended
    above 0 game points, one bit each (-1: the deal was thrown in)."""
    if not chiamata:
        return winner_side
    bits = ((standing > 0) << np.arange(standing.shape[1])).sum(axis=1)
    return np.where(winner_side < 0, -1, bits)


def _interval(values: pd.Series) -> dict:
    """Mean and 95% normal interval of independent values (one per deal)."""
    mean, low, high = mean_interval(values)
    return {"value": mean, "ci_low": low, "ci_high": high, "deals": len(values)}


def _over_deals(values: pd.Series, deal: pd.Series) -> dict:
    """A per-game figure, averaged per deal first: the deal is the unit."""
    return _interval(values.groupby(deal.to_numpy()).mean())


def _variance_shares(games: pd.DataFrame) -> tuple[dict, dict]:
    """Shares of the variance of side 0's score explained by the deal and by the seating
    (who sits where: two-way ANOVA, one game per deal and seating), with bootstrap
    intervals."""
    table = games.pivot_table(index="deal", columns="game", values="side0_score", aggfunc="mean")
    scores = table.dropna().to_numpy()  # deals x seatings

    def shares(y: np.ndarray) -> tuple[float, float]:
        grand = y.mean()
        total = ((y - grand) ** 2).sum()
        by_deal = y.shape[1] * ((y.mean(axis=1) - grand) ** 2).sum()
        by_seating = y.shape[0] * ((y.mean(axis=0) - grand) ** 2).sum()
        return (by_deal / total, by_seating / total) if total > 0 else (float("nan"), float("nan"))

    value = shares(scores)
    rng = np.random.default_rng(0)
    resampled = np.array([shares(scores[rng.integers(0, len(scores), len(scores))]) for _ in range(BOOTSTRAP)])
    low, high = np.nanpercentile(resampled, [2.5, 97.5], axis=0)
    return tuple(
        {"value": float(value[k]), "ci_low": float(low[k]), "ci_high": float(high[k]), "deals": len(scores)}
        for k in range(2)
    )


def _by_feature(games: pd.DataFrame) -> pd.DataFrame:
    """A's score by what its side was dealt, deals as the units within each group."""
    rows = []
    for name, mask in _feature_groups(games).items():
        for held in (True, False):
            chosen = games[mask == held]
            rows.append({"feature": name, "held": held, "games": len(chosen),
                         **_over_deals(chosen["a_score"], chosen["deal"])})  # fmt: skip
    return pd.DataFrame(rows).rename(columns={"value": "a_score"})


def _feature_groups(games: pd.DataFrame) -> dict[str, pd.Series]:
    """The groups of games ``by_feature`` shows: at Briscola Chiamata what A's seat was
    dealt before the auction, then what it holds of the suit the auction called."""
    if games.attrs["players"] != CHIAMATA:
        return {
            "A's side holds the Ace of trumps": games["trump_ace"],
            "A's side holds the Three of trumps": games["trump_three"],
            "A's side leads the first trick": games["leads"],
            "A's side was dealt more trumps": games["trump_imbalance"] > 0,
            "A's side was dealt fewer trumps": games["trump_imbalance"] < 0,
        }
    lead = "A leads the first trick (seat 0, first to bid)"
    leads = {lead: games["leads"]} if "leads" in games.attrs["terms"] else {}  # not when leading is calling
    return {
        "A's hand is worth more than the others' mean (best suit, before the auction)": games["value_imbalance"] > 0,
        "A was dealt more card points than the others' mean": games["points_imbalance"] > 0,
        **leads,
        "A holds the Ace of trumps (the suit called)": games["trump_ace"],
        "A holds the Three of trumps (the suit called)": games["trump_three"],
        "A holds more trumps than the others' mean (the suit called)": games["trump_imbalance"] > 0,
    }


def _regression(games: pd.DataFrame, terms: tuple[str, ...] = FEATURES) -> pd.DataFrame:
    """Logistic regression of A winning a game (draws left out) on its side's features
    ``terms``, fitted by Newton's method; 95% intervals from standard errors clustered
    by deal."""
    decided = games[games["a_score"] != 0.5]
    x = np.column_stack([np.ones(len(decided)), decided[list(terms)].to_numpy(dtype=float)])
    y = (decided["a_score"] > 0.5).to_numpy(dtype=float)
    beta = np.zeros(x.shape[1])
    for _ in range(25):
        p = 1 / (1 + np.exp(-x @ beta))
        hessian = x.T @ (x * (p * (1 - p))[:, None])
        step = np.linalg.solve(hessian, x.T @ (y - p))
        beta += step
        if np.abs(step).max() < 1e-10:
            break
    p = 1 / (1 + np.exp(-x @ beta))
    bread = np.linalg.inv(x.T @ (x * (p * (1 - p))[:, None]))
    scores = pd.DataFrame(x * (y - p)[:, None]).groupby(decided["deal"].to_numpy()).sum().to_numpy()
    se = np.sqrt(np.diag(bread @ (scores.T @ scores) @ bread))
    return pd.DataFrame({"term": ["intercept", *terms], "coef": beta, "ci_low": beta - Z_95 * se,
                         "ci_high": beta + Z_95 * se, "odds_ratio": np.exp(beta)})  # fmt: skip
