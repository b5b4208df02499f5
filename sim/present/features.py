"""What each deal dealt, as columns to group and regress on.

Every result row carries its deal (``hand_0``, ``hand_1``, ... and ``deck``: see
docs/results.md). ``deal_features`` turns the hands into the figures people ask about:

>>> run = sim.load("results/compare.parquet")                                   # doctest: +SKIP
>>> features = sim.deal_features(run)                                           # doctest: +SKIP
>>> run.deals.join(features).groupby("trump_ace_0")["points_0"].mean()          # doctest: +SKIP

Columns, per seat ``s`` (card points: Ace 11, Three 10, King 4, Knight 3, Jack 2):

- ``trumps_s``: trumps dealt to seat ``s``; ``trump_points_s``: their card points;
- ``trump_ace_s``, ``trump_three_s``: whether it was dealt the Ace, the Three of trumps;
- ``dealt_points_s``: the card points of its whole hand;
- per side ``k`` (a team at 4 and 6 players, a seat otherwise; not at Briscola Chiamata,
  whose sides are known only once the called card is out): ``side_trumps_k``,
  ``side_dealt_points_k``;
- ``briscola_points``: the face-up card's points (it is drawn last, by the seat that
  draws the stock's last card); ``trump_suit``: 0-3 (at Briscola Chiamata the called
  card's suit, -1 for a deal thrown in);
- ``leader``: the seat that leads the first trick;
- at Briscola Chiamata, ``hand_value_s``: what seat ``s``'s hand is worth with its best
  suit as trump, as the default auction policy values it (its card points, plus 6 and
  the strength, 0-9, of each card of that suit): what it was dealt, before the auction.

Trumps at Briscola Chiamata are those of the called card's suit: known only after the
auction, which the strategies play, so the trump figures there are not the deal's alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.base.cards import trump_suits
from sim.base.config import CHIAMATA, n_sides
from sim.base.results import card_matrix, misdealt_row


def deal_features(run) -> pd.DataFrame:
    """The dealt-hand features of every row of ``run`` (``sim.load``'s result, or its
    path), indexed as ``run.deals``. The cards are first checked against their deals,
    dealt again from the run's seed. ValueError for rows without their hands (a file
    written before rows carried the deal), or whose cards are not their deals'."""
    run, deals = trusted_deals(run)
    return hand_features(deals, run.players, run.rules)


def trusted_deals(run):
    """``run`` loaded (from a path, or as given) and its rows, once their cards are checked
    against their deals, dealt again from the run's seed; ValueError, naming the row,
    where they are missing or differ."""
    from sim.present.analysis import load

    run = load(run) if isinstance(run, str | bytes) or hasattr(run, "__fspath__") else run
    deals, players = run.deals, run.players
    missing = [f"hand_{seat}" for seat in range(players) if f"hand_{seat}" not in deals]
    if missing:
        raise ValueError(
            f"these rows carry no dealt hands ({', '.join(missing)} missing): the file was written by a version "
            "before result rows carried the deal; run it again to have them"
        )
    misdealt = misdealt_row(deals, run.config)  # checked here, where they are read: sim.load stays kernel-free
    if misdealt is not None:
        raise ValueError(f"{misdealt}: the rows were changed or damaged since briscola wrote them")
    return run, deals


def hand_features(deals: pd.DataFrame, players: int, rules: dict) -> pd.DataFrame:
    """``deal_features`` of rows whose cards are trusted: the figures alone, from the
    ``hand_*`` columns, ``briscola`` (``called`` at Briscola Chiamata) and the table's
    ``rules``."""
    from kernels.enums import FACE_ACE, FACE_POINTS, FACE_THREE, N_FACES

    hands = np.stack([card_matrix(deals[f"hand_{seat}"]) for seat in range(players)], axis=1)  # (rows, seats, cards)
    trump = trump_suits(deals, players)
    is_trump = hands // N_FACES == trump[:, None, None]
    points = FACE_POINTS[hands % N_FACES]
    columns = {}
    for seat in range(players):
        trumps, face = is_trump[:, seat], hands[:, seat] % N_FACES
        columns[f"trumps_{seat}"] = trumps.sum(axis=1).astype(np.int8)
        columns[f"trump_points_{seat}"] = (points[:, seat] * trumps).sum(axis=1).astype(np.int16)
        columns[f"trump_ace_{seat}"] = (trumps & (face == FACE_ACE)).any(axis=1)
        columns[f"trump_three_{seat}"] = (trumps & (face == FACE_THREE)).any(axis=1)
        columns[f"dealt_points_{seat}"] = points[:, seat].sum(axis=1).astype(np.int16)
    if players != CHIAMATA:
        sides = n_sides(players)
        for side in range(sides):
            seats = range(side, players, sides)
            columns[f"side_trumps_{side}"] = sum(columns[f"trumps_{s}"] for s in seats).astype(np.int8)
            columns[f"side_dealt_points_{side}"] = sum(columns[f"dealt_points_{s}"] for s in seats).astype(np.int16)
    if players == CHIAMATA:
        for seat in range(players):
            columns[f"hand_value_{seat}"] = _best_suit_values(hands[:, seat])
    briscola = deals["briscola"].to_numpy() if "briscola" in deals else np.full(len(deals), -1)
    columns["briscola_points"] = np.where(briscola >= 0, FACE_POINTS[briscola % N_FACES], 0).astype(np.int16)
    columns["trump_suit"] = trump.astype(np.int8)
    columns["leader"] = first_leaders(deals, players, rules)
    return pd.DataFrame(columns, index=deals.index)


def _best_suit_values(hands: np.ndarray) -> np.ndarray:
    """Each hand's worth with its best suit as trump (kernels' ``hand_suit_value_nb``)."""
    from kernels.inlined_strategies_nb import best_suit_values_nb

    values = np.empty(len(hands), dtype=np.int16)
    best_suit_values_nb(np.ascontiguousarray(hands), values)
    return values


def first_leaders(deals: pd.DataFrame, players: int, rules: dict) -> np.ndarray:
    """Seat 0 leads the first trick; at Briscola Chiamata under first_lead=caller, the
    caller (seat 0 for a deal thrown in)."""
    if players == CHIAMATA and rules.get("first_lead") == "caller":
        return np.maximum(deals["caller"].to_numpy(), 0).astype(np.int8)
    return np.zeros(len(deals), dtype=np.int8)
