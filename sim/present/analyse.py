"""Every move of a traced run valued: which card was best, and what the one played cost.

``analyse(trace)`` replays each traced deal on the one-deal seam (``Deal.replay``) and,
at every card played, asks the search (``pimc``'s ``card_means_nb``) what each card of
the hand is worth from what that seat could see: the expected score (win 1, draw 1/2,
loss 0) and the expected point margin, over deals of the hidden cards drawn as ``pimc``
draws them, the others modelled as playing its policy. At 2 players once the stock is
empty nothing is hidden, and exact search values the cards instead (``exact_end_values``:
both sides playing perfectly). It returns ``sim.moves(trace)`` (a row per card played) with:

- ``best_card``: the card the search values most;
- ``score_cost``: the expected score the card played gives up against the best one (0
  when it is the best), and ``points_cost``: the expected point margin it gives up
  against the card best for points (which may differ: points past the win are worth
  nothing to the score);
- ``verdict``: ``best``, ``good`` (a cost below ``VERDICTS``' first threshold),
  ``inaccuracy``, ``mistake`` or ``blunder``;
- ``card_kind``: ``trump``, ``points`` (a card with points, not a trump) or ``liscio``;
- ``par_cost``: from where the face-up search of the deal's par is exact (the last
  ``sim.present.par.EXACT_CARDS`` cards: at 2 players the last 7 tricks), the points
  the card played gives up for its side against the best card with every hand face up
  and best play after: its cost against perfect knowledge, a wrong guess of the cards
  hidden from the seat included; ``par_points``: the points its side ends the deal with
  by the best card and best play after. NaN before that, and at Briscola Chiamata.
  ``par_shortfall(moves)`` adds them up per strategy and game: over those tricks, the
  par at their start less the result is exactly A's par costs less B's.

``move_costs(moves)`` adds them up per strategy, phase (``stock`` or ``end``) and lead
or follow: where A loses to B; ``par_shortfall(moves)`` how far each strategy falls
short of the deal's par. The search's budget is ``samples`` deals of the hidden
cards and ``rollouts`` orders of the stock per decision; each decision's draws come from
its seat's own stream, so the same trace and budget give the same figures.

>>> moves = sim.analyse("results/trace.parquet", samples=16)                 # doctest: +SKIP
>>> sim.move_costs(moves)                                                    # doctest: +SKIP
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from kernels.enums import FACE_POINTS, N_CARDS, N_FACES
from sim.base.config import CHIAMATA, Rules
from sim.base.results import read_config
from sim.base.stats import mean_interval
from sim.present.moves import moves as trace_moves
from sim.present.par import exact_face_up_values
from sim.runtime.deal import Deal  # importing sim.runtime also quiets Numba's note on first-class functions

# Thresholds on the expected score a move gives up (0.05: one game in twenty lost). A
# search's own noise is a few hundredths at the default budget: below the first, a move
# is called good, not best.
VERDICTS = (("inaccuracy", 0.05), ("mistake", 0.10), ("blunder", 0.20))
SAMPLES, ROLLOUTS = 16, 1  # the default budget: 1,000 2-player deals in about a minute on one thread


def analyse(trace, samples: int = SAMPLES, rollouts: int = ROLLOUTS) -> pd.DataFrame:
    """The moves of a trace file (``sim.moves``), each valued by the search."""
    from strategies.pimc_nb import card_means_nb

    config = read_config(trace)
    players, rules = int(config["players"]), Rules(**config.get("rules", {}))
    frame = trace_moves(trace)
    searches = [_search_params(samples, rollouts, weight) for weight in (0.0, 1.0)]
    data = _pimc().data_for(players)
    means = np.zeros((2, 8), dtype=np.float64)
    best_cards, score_costs, points_costs, par_costs, par_points = [], [], [], [], []
    for row in pq.read_table(trace).to_pylist():
        stock = [*row["stock"], row["briscola"]]
        for deal, move in _played(row, rules):
            view = deal.view()
            seen = view[0]
            hand = list(seen["hand"][: seen["n_hand"]])
            if len(hand) == 1:  # no choice: nothing to value
                score = margin = np.zeros(1)
            elif players == 2 and seen["stock_size"] == 0:
                score, margin = exact_end_values(seen)
            else:
                for k, params in enumerate(searches):  # the same draws for both: one stream
                    card_means_nb(view[0], params, np.array([deal.key], dtype=np.uint64), data, means[k])
                score, margin = means[0, : len(hand)], (means[1, : len(hand)] - means[0, : len(hand)]) * 120.0
            played, best = hand.index(move), int(np.argmax(score))
            face_up = exact_face_up_values(deal, stock) if players != CHIAMATA else None
            par_costs.append(np.nan if face_up is None else float(face_up.max() - face_up[played]))
            par_points.append(np.nan if face_up is None else float(face_up.max()))
            best_cards.append(hand[best])
            score_costs.append(float(score[best] - score[played]))
            points_costs.append(float(margin.max() - margin[played]))
    frame["best_card"] = np.array(best_cards, dtype=np.int8)
    frame["score_cost"] = np.maximum(np.array(score_costs), 0.0)
    frame["points_cost"] = np.array(points_costs)
    frame["verdict"] = _verdicts(frame)
    frame["card_kind"] = _card_kinds(frame)
    frame["par_cost"] = np.array(par_costs, dtype=np.float64)
    frame["par_points"] = np.array(par_points, dtype=np.float64)
    return frame


def exact_end_values(view) -> tuple[np.ndarray, np.ndarray]:
    """At 2 players once the stock is empty: each card of the hand's score (win 1, draw
    1/2) and final point margin for the seat's side, both sides playing perfectly after
    it (exact search, ``card_values_nb``). Nothing is hidden then: the other hand is
    every card neither played nor held."""
    from strategies.endgame_nb import card_values_nb, new_hands_nb

    seat, n, n_table = int(view["seat"]), int(view["n_hand"]), int(view["n_table"])
    own = [int(c) for c in view["hand"][:n]]
    gone = {int(c) for c in view["history"][: int(view["n_played"])]} | set(own)
    other = [c for c in range(N_CARDS) if c not in gone]
    hands, n_hand = new_hands_nb()
    for who, cards in ((seat, own), (1 - seat, other)):
        hands[who, : len(cards)] = cards
        n_hand[who] = len(cards)
    values = np.zeros(n)
    card_values_nb(hands, n_hand, view["table"].astype(np.int8), n_table, int(view["leader"]), 2,
                   int(view["trump_suit"]), np.zeros(1, dtype=np.int64), 0, seat, values)  # fmt: skip
    final = int(view["points"][seat % 2]) + values  # its side's points so far, and all it takes from here
    return np.where(final > 60, 1.0, np.where(final == 60, 0.5, 0.0)), 2 * final - 120


def write_moves(moves: pd.DataFrame, out, trace, samples: int, rollouts: int) -> None:
    """The valued moves as a Parquet file (whole or not at all), the trace's run and the
    search's budget in its metadata."""
    import pyarrow as pa

    from sim.base.files import METADATA_KEY, write_atomically

    meta = {**read_config(trace), "kind": "analysis", "trace": str(trace), "samples": samples, "rollouts": rollouts}
    table = pa.Table.from_pandas(moves, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), METADATA_KEY: json.dumps(meta)})
    write_atomically(Path(out), lambda temporary: pq.write_table(table, temporary, compression="zstd"))


def move_costs(moves: pd.DataFrame, by=("strategy", "phase", "leads")) -> pd.DataFrame:
    """The analysed moves added up per group: moves, the mean and total score cost, the
    mean points cost, and how many of each verdict."""
    grouped = moves.groupby(list(by), observed=True)
    table = grouped.agg(moves=("score_cost", "size"), mean_score_cost=("score_cost", "mean"),
                        total_score_cost=("score_cost", "sum"), mean_points_cost=("points_cost", "mean"),
                        mean_par_cost=("par_cost", "mean"))  # fmt: skip
    counts = pd.crosstab([moves[b] for b in by], moves["verdict"])
    for verdict in ("inaccuracy", "mistake", "blunder"):
        table[verdict] = counts[verdict] if verdict in counts else 0
    return table.reset_index()


def par_shortfall(moves: pd.DataFrame) -> pd.DataFrame:
    """How far each strategy falls short of the deal's par over the tricks the face-up
    search values exactly: its moves' ``par_cost`` added up per game, then averaged over
    the games (a row per strategy: points per game, with a 95% interval over deals, the
    unit whose games share their cards)."""
    game = [key for key in ("pair", "deal", "game") if key in moves]  # a tournament's pairs, their seatings
    moves = moves[moves["par_cost"].notna()]
    per_game = moves.groupby(["strategy", *game], observed=True)["par_cost"].sum().reset_index()
    rows = []
    for strategy, games in per_game.groupby("strategy", observed=True):
        per_deal = games.groupby("deal")["par_cost"].mean()
        mean, low, high = mean_interval(per_deal)
        rows.append({"strategy": strategy, "par_shortfall": mean, "ci_low": low, "ci_high": high,
                     "deals": len(per_deal)})  # fmt: skip
    return pd.DataFrame(rows)


def _played(row: dict, rules: Rules):
    """The replayed deal before each card played, and the card."""
    for deal, move in Deal.replay(row, rules):
        if deal.phase == "play":
            yield deal, move


def _pimc():
    from strategies.registry import builtin_strategies

    return builtin_strategies()["pimc"]


def _search_params(samples: int, rollouts: int, points_weight: float) -> np.ndarray:
    """``pimc``'s parameters at its defaults, but the budget, the weight of points, and
    every other seat modelled as playing its best (no chance of a random card): a move
    costs what it gives up against the best play, and with nothing hidden the search is
    exact."""
    from strategies.api import parse_spec

    text = f"pimc:samples={samples}:rollouts={rollouts}:points_weight={points_weight}:adapt=false:opponent_random=0"
    return parse_spec(text, {"pimc": _pimc()}).param_vector()


def _verdicts(frame: pd.DataFrame) -> np.ndarray:
    cost = frame["score_cost"].to_numpy()
    verdict = np.where(frame["card"] == frame["best_card"], "best", "good").astype(object)
    for name, threshold in VERDICTS:
        verdict[cost >= threshold] = name
    return verdict


def _card_kinds(frame: pd.DataFrame) -> np.ndarray:
    """trump, points (a card with points, not a trump) or liscio, by the deal's trump suit."""
    cards = frame["card"].to_numpy()
    trump = frame["trump_suit"].to_numpy()
    has_points = FACE_POINTS[cards % N_FACES] > 0
    return np.where(cards // N_FACES == trump, "trump", np.where(has_points, "points", "liscio"))
