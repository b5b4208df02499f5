"""The par: what the cards give each side with every hand face up and best play.

Bridge calls it the double-dummy result: every seat sees every hand and the stock's
order, and both sides play perfectly.

- ``par(run)``: the exact par of whole 2-player deals (``strategies/solve_nb.py``), from
  the rows' decks, once their cards are checked against their deals. At more players a
  whole deal is out of reach of exact search: none is given.
- ``exact_face_up_values(deal, stock)``: at a decision of the one-deal seam with at most
  ``EXACT_CARDS[players]`` cards left in the hands and the stock (at 2 players the last
  7 tricks), at every table but Briscola Chiamata, what each card of the mover's hand
  gives its side (``strategies/par_nb.py``): ``sim.analyse`` writes what the card played
  cost against the best (``par_cost``) and ``par_shortfall`` adds each strategy's up.
- ``par_figures(run)``: what the par says of a comparison (``sim.luck`` reports them).

>>> pars = sim.par("results/compare.parquet", deals=200)                        # doctest: +SKIP
>>> pars["par_0"].mean()                                                        # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.base.results import card_matrix

# By players: the last cards (hands and stock) whose every card ``analyse`` values with
# every hand face up: a decision's values in a few milliseconds at most.
EXACT_CARDS = {2: 14, 3: 12, 4: 14, 6: 18}
PAR_DEALS = 100  # the deals ``luck`` solves by default: about a second each on one thread
PAR_KEYS = ("par_agrees", "a_over_par", "par_share")  # par_figures' figures


def par(run, deals: int | None = PAR_DEALS) -> pd.DataFrame:
    """The exact par of the first ``deals`` distinct deals of a 2-player ``run``
    (``sim.load``'s result, or its path; None: every deal): a row per deal, indexed by
    the deal, with ``par_0`` and ``par_1`` the points each seat takes with every hand face
    up and both playing perfectly. ValueError at other tables, and for rows without
    their cards or whose cards are not their deals'."""
    from sim.present.features import first_leaders, trusted_deals

    run, rows = trusted_deals(run)
    if run.players != 2:
        raise ValueError(
            f"the par of a whole deal is solved at 2 players, not {run.players}: at more players exact search of a "
            "whole deal is out of reach (briscola analyse gives the par of the last tricks at every table)"
        )
    unique = rows.drop_duplicates("deal")
    unique = unique if deals is None else unique.iloc[:deals]
    pars = exact_pars_2p(card_matrix(unique["deck"]), first_leaders(unique, 2, run.rules))
    frame = pd.DataFrame({"par_0": pars, "par_1": 120 - pars}, index=unique["deal"].to_numpy())
    frame.index.name = "deal"
    return frame


def exact_pars_2p(decks: np.ndarray, leaders: np.ndarray) -> np.ndarray:
    """Player 0's exact par of each 2-player deck (the result rows' ``deck`` layout: the
    hands round by round, then the stock, the briscola last), ``leaders`` leading first."""
    from strategies.solve_nb import exact_pars_2p_nb

    pars = np.zeros(len(decks), dtype=np.int64)
    exact_pars_2p_nb(np.ascontiguousarray(decks, dtype=np.int64), np.asarray(leaders, dtype=np.int64), pars)
    return pars


def par_figures(run, deals: int = PAR_DEALS) -> dict:
    """What the exact par says of a 2-player comparison, over its first ``deals`` deals
    (nothing with 0 or at other tables); each figure with a 95% interval, deals as the
    units:

    - ``par_agrees``: the share of games won by the seat the par names (deals whose par
      or game is a draw left out): how often the cards face up decide the winner;
    - ``a_over_par``: A's points less the par of its seat: what A takes beyond the
      cards' face-up worth, against B (B's is the same, negated: the points are shared);
    - ``par_share``: the share of the variance of seat 0's points the par explains
      (squared correlation over games; its interval by bootstrap over deals).
    """
    from sim.base.stats import mean_interval

    if deals == 0 or run.players != 2:
        return {}
    pars = par(run, deals)
    rows = run.deals[run.deals["deal"].isin(pars.index)]
    deal, winner, a_side = rows["deal"].to_numpy(), rows["winner_side"].to_numpy(), rows["a_side"].to_numpy()
    points = rows[["side_points_0", "side_points_1"]].to_numpy(dtype=float)
    dealt = pars.loc[deal].to_numpy(dtype=float)
    games = np.arange(len(rows))
    favoured = np.where(dealt[:, 0] > 60, 0, np.where(dealt[:, 0] < 60, 1, -1))
    decided = (favoured >= 0) & (winner >= 0)

    def over_deals(values: np.ndarray, mask: np.ndarray) -> dict:
        per_deal = pd.Series(values[mask]).groupby(deal[mask]).mean()
        mean, low, high = mean_interval(per_deal)
        return {"value": mean, "ci_low": low, "ci_high": high, "deals": len(per_deal)}

    return {
        "par_deals": len(pars),  # not a figure: how many deals the three are over
        "par_agrees": over_deals((winner == favoured).astype(float), decided),
        "a_over_par": over_deals(points[games, a_side] - dealt[games, a_side], np.ones(len(rows), dtype=bool)),
        "par_share": _explained_share(points[:, 0], dealt[:, 0], deal),
    }


def _explained_share(y: np.ndarray, x: np.ndarray, deal: np.ndarray, resamples: int = 400) -> dict:
    """The squared correlation of ``y`` with ``x`` over games, and its 95% interval from a
    bootstrap over deals (seeded: the same figures every time)."""

    def share(rows: np.ndarray) -> float:  # NaN where a resample's values do not vary
        if len(rows) < 3 or y[rows].std() == 0 or x[rows].std() == 0:
            return float("nan")
        return float(np.corrcoef(y[rows], x[rows])[0, 1] ** 2)

    _, inverse = np.unique(deal, return_inverse=True)
    games_of = [np.flatnonzero(inverse == k) for k in range(inverse.max() + 1)]
    rng = np.random.default_rng(0)
    draws = [share(np.concatenate([games_of[k] for k in rng.integers(0, len(games_of), len(games_of))]))
             for _ in range(resamples)]  # fmt: skip
    low, high = np.nanpercentile(draws, [2.5, 97.5])
    return {"value": share(np.arange(len(y))), "ci_low": float(low), "ci_high": float(high), "deals": len(games_of)}


def exact_face_up_values(deal, stock: list[int]) -> np.ndarray | None:
    """What each card of the mover's hand (in its view's order) gives its side (at 3
    players, the mover itself, against the two others together) in points over the whole
    deal, every hand face up and best play after, at a decision of the one-deal seam
    ``deal`` (``sim.runtime.deal.Deal``); None while more than ``EXACT_CARDS`` cards are
    left. ``stock``: the deal's whole stock in drawing order, the face-up briscola last."""
    from strategies.endgame_nb import new_stack_nb
    from strategies.par_nb import face_up_values_nb, new_positions_nb

    if int(deal.view()[0]["stock_size"]) > EXACT_CARDS[deal.players]:  # surely too many: no seat's view needed
        return None
    positions = new_positions_nb(2)
    _fill_position(positions[0], deal, stock)
    if positions[0]["n_hand"].sum() + positions[0]["n_stock"] - positions[0]["drawn"] > EXACT_CARDS[deal.players]:
        return None
    mover = deal.to_move
    values = np.zeros(positions[0]["hands"].shape[-1], dtype=np.int64)
    face_up_values_nb(positions[0], values, positions[1:], new_stack_nb())
    return values[: int(positions[0]["n_hand"][mover])]


def _fill_position(position, deal, stock: list[int]) -> None:
    """The position of the deal now, every hand face up, in par_nb's record."""
    players = deal.players
    views = [deal.view(seat)[0] for seat in range(players)]
    public = views[0]
    position["players"], position["trump"] = players, int(public["trump_suit"])
    position["hands"][:] = -1
    for seat, view in enumerate(views):
        n = int(view["n_hand"])
        position["hands"][seat, :n] = view["hand"][:n]
        position["n_hand"][seat] = n
        position["points"][seat] = int(public["points"][seat])
    n_table = int(public["n_table"])
    position["plays"][:n_table] = public["table"][:n_table]
    position["n_table"], position["leader"] = n_table, int(public["leader"])
    position["stock"][: len(stock)] = stock
    position["n_stock"], position["drawn"] = len(stock), len(stock) - int(public["stock_size"])
