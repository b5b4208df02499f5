"""How much narrower a comparison's interval gets when the deal's features are used as
control variates: the share of the variance of a deal's score (A's, averaged over the
deal's seatings: the unit ``compare``'s interval is over) that the dealt hands explain.

A control variate with a known mean narrows an interval by 1 - sqrt(1 - R^2), R^2 the
share of the variance it explains. The features are those of ``sim.deal_features``,
taken symmetrically (how uneven the sides' trumps and points, whether the Ace and Three
of trumps are dealt, the face-up card's points): duplicate deals give A both sides of
every deal, so a feature of one side alone averages out of a deal's score already.

Usage: python benchmarks/control_variates.py RESULT_FILE [RESULT_FILE ...]
(comparisons: ``briscola compare A B --out FILE``).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sim  # noqa: E402


def explained_share(path: str) -> tuple[int, float]:
    """Deals, and the R^2 of a deal's score on its symmetric dealt-hand features."""
    run = sim.load(path)
    score = sim.luck_games(run).groupby("deal")["a_score"].mean()
    first_rows = run.deals.groupby("deal").head(1).index
    features = sim.deal_features(run).loc[first_rows]
    side_gap = lambda name: (features[f"{name}_0"].astype(int) - features[f"{name}_1"].astype(int)).abs()  # noqa: E731
    dealt = lambda prefix: features[[c for c in features if c.startswith(prefix)]].any(axis=1)  # noqa: E731
    columns = [side_gap("side_trumps"), side_gap("side_dealt_points"), features["briscola_points"],
               dealt("trump_ace_"), dealt("trump_three_")]  # fmt: skip
    x = np.column_stack([np.ones(len(score))] + [np.asarray(c, dtype=float) for c in columns])
    y = score.to_numpy()
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    return len(y), 1 - (y - x @ beta).var() / y.var()


if __name__ == "__main__":
    for path in sys.argv[1:]:
        deals, r2 = explained_share(path)
        print(f"{path}: {deals:,} deals, R^2 {r2:.4f}, interval narrower by {1 - np.sqrt(1 - r2):.2%}")
