"""The statistics of every command, apart from running it: pure functions and tallies
that a notebook imports without the kernels.

- ``simulate``: win rates with Wilson intervals, tallied per side (``RunTally``).
- ``compare``: duplicate deals. A deal is played once per seating (``seatings``), each
  seating a *game*; a deal's score is A's mean over its games. Scores are tallied as an
  exact integer histogram (``CompareTally``), which gives the score's interval, Elo,
  LOS and the SPRT's log-likelihood ratio (``Sprt``).
- ``tournament``: Bradley-Terry ratings on the logistic Elo scale, fitted by maximum
  likelihood to every pair's games (a draw counts half a win): P(i beats j) = 1 / (1 +
  10^((r_j - r_i) / 400)), anchored at ``random`` = 0 when it plays, else at the first
  strategy named. Intervals are 95% and robust to how the games were played: the spread
  of each pair's score is measured from its deal scores (duplicate deals make it smaller
  than for independent games), and enters through a sandwich estimate of the covariance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

Z_95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (well-behaved near 0 and 1).

    >>> lo, hi = wilson_interval(50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.404, 0.596)
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # The interval always holds p; min/max only undo floating-point rounding at 0 and 1.
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


@dataclass
class SideTally:
    """Wins, draws, losses and points of one side over the deals seen so far."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0

    @property
    def units(self) -> int:
        """Deals, or matches with a match format."""
        return self.wins + self.draws + self.losses


ROLES = ("caller", "partner", "defender")
N_BIDS = 69  # Briscola Chiamata's bid levels: 10 ranks, then 62..120 points


@dataclass
class RoleTally:
    """One strategy's Briscola Chiamata deals, in integers: its seats' game points by the
    role they played, the auctions it won (by bid) and how it fared calling alone."""

    role_deals: list = field(default_factory=lambda: [0] * len(ROLES))
    role_points: list = field(default_factory=lambda: [0] * len(ROLES))  # game points
    role_squares: list = field(default_factory=lambda: [0] * len(ROLES))
    bid_calls: list = field(default_factory=lambda: [0] * N_BIDS)  # deals it won at each bid
    bid_made: list = field(default_factory=lambda: [0] * N_BIDS)  # of them, targets taken
    alone_calls: int = 0
    alone_made: int = 0
    alone_points: int = 0  # its game points when alone
    alone_squares: int = 0

    def merge(self, other: RoleTally) -> None:
        for name, value in vars(other).items():
            mine = getattr(self, name)
            setattr(self, name, [a + b for a, b in zip(mine, value)] if isinstance(value, list) else mine + value)


@dataclass
class ChiamataTally:
    """Briscola Chiamata deals counted by role and by bid, per strategy (at a mixed table
    each strategy's own figures), in integers: exact, and the same however the deals were
    batched. The caller playing alone counts as caller."""

    thrown_in: int = 0
    cappotti: int = 0
    strategies: dict = field(default_factory=dict)  # strategy label -> RoleTally

    def add(self, results: np.ndarray, seat_strategies) -> None:
        """Adds finished RESULT_DTYPE rows of a 5-player run whose seats played ``seat_strategies``."""
        called = results[results["caller"] >= 0]
        self.thrown_in += len(results) - len(called)
        self.cappotti += int(called["cappotto"].sum())
        rows = np.arange(len(called))
        points = called["game_points"][:, :5].astype(np.int64)
        caller, partner = called["caller"].astype(np.int64), called["partner"].astype(np.int64)
        roles = np.full(points.shape, 2)
        roles[rows, partner] = 1
        roles[rows, caller] = 0
        made, bids, alone = called["made"] == 1, called["bid"].astype(np.int64), caller == partner
        caller_points = points[rows, caller]
        for label in dict.fromkeys(seat_strategies):
            tally = self.strategies.setdefault(label, RoleTally())
            seats = np.array([strategy == label for strategy in seat_strategies])
            for role in range(len(ROLES)):
                chosen = points[(roles == role) & seats[None, :]]
                tally.role_deals[role] += len(chosen)
                tally.role_points[role] += int(chosen.sum())
                tally.role_squares[role] += int((chosen * chosen).sum())
            mine = seats[caller]  # the deals whose auction it won
            tally.bid_calls = (np.array(tally.bid_calls) + np.bincount(bids[mine], minlength=N_BIDS)).tolist()
            tally.bid_made = (np.array(tally.bid_made) + np.bincount(bids[mine & made], minlength=N_BIDS)).tolist()
            alone_points = caller_points[mine & alone]
            tally.alone_calls += len(alone_points)
            tally.alone_made += int((mine & alone & made).sum())
            tally.alone_points += int(alone_points.sum())
            tally.alone_squares += int((alone_points * alone_points).sum())

    def merge(self, other: ChiamataTally) -> None:
        self.thrown_in += other.thrown_in
        self.cappotti += other.cappotti
        for label, theirs in other.strategies.items():
            self.strategies.setdefault(label, RoleTally()).merge(theirs)

    def to_dict(self) -> dict:
        strategies = {label: {name: list(value) if isinstance(value, list) else value
                              for name, value in vars(tally).items()} for label, tally in self.strategies.items()}  # fmt: skip
        return {"thrown_in": self.thrown_in, "cappotti": self.cappotti, "strategies": strategies}

    @classmethod
    def from_dict(cls, data: dict) -> ChiamataTally:
        strategies = {label: RoleTally(**tally) for label, tally in data["strategies"].items()}
        return cls(data["thrown_in"], data["cappotti"], strategies)


@dataclass
class RunTally:
    n_sides: int
    sides: list[SideTally] = field(default_factory=list)
    deals_played: int = 0  # with a match format, more than the games (matches) tallied
    chiamata: ChiamataTally | None = None  # 5 players: the deals by role and by bid

    def __post_init__(self):
        if not self.sides:
            self.sides = [SideTally() for _ in range(self.n_sides)]
        if self.n_sides == 5 and self.chiamata is None:
            self.chiamata = ChiamataTally()

    @property
    def units(self) -> int:
        """Units tallied: deals, or matches with a match format (``deals_played`` counts
        the deals either way)."""
        return self.sides[0].units

    def merge(self, other: RunTally) -> None:
        """Adds another tally's games (of other deals of the same run)."""
        for mine, theirs in zip(self.sides, other.sides):
            mine.wins += theirs.wins
            mine.draws += theirs.draws
            mine.losses += theirs.losses
            mine.points += theirs.points
        self.deals_played += other.deals_played
        if self.chiamata is not None:
            self.chiamata.merge(other.chiamata)

    def to_dict(self) -> dict:
        data = {"sides": [vars(side).copy() for side in self.sides], "deals_played": self.deals_played}
        if self.chiamata is not None:
            data["chiamata"] = self.chiamata.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict) -> RunTally:
        chiamata = ChiamataTally.from_dict(data["chiamata"]) if "chiamata" in data else None
        return cls(len(data["sides"]), [SideTally(**side) for side in data["sides"]], data["deals_played"], chiamata)

    def add_counts(self, counts: np.ndarray, deals_played: int) -> None:
        """Adds a batch's deals counted by ``kernels.tally_nb.tally_results_nb``: a row per
        side of wins, draws, losses and points."""
        for tally, (wins, draws, losses, points) in zip(self.sides, counts.tolist()):
            tally.wins += wins
            tally.draws += draws
            tally.losses += losses
            tally.points += points
        self.deals_played += deals_played

    def add_game_points(self, game_points: np.ndarray) -> None:
        """Adds Briscola Chiamata deals, every seat a side of its own on its game points
        (a row per deal): won when positive, drawn when nil (a deal thrown in), lost when
        negative, as ``kernels.tally_nb`` counts them while a run plays."""
        for tally, points in zip(self.sides, game_points.T.astype(np.int64)):
            tally.wins += int(np.count_nonzero(points > 0))
            tally.draws += int(np.count_nonzero(points == 0))
            tally.losses += int(np.count_nonzero(points < 0))
            tally.points += int(points.sum())

    def add_outcomes(self, winner: np.ndarray, points: np.ndarray, standing: np.ndarray) -> None:
        """Adds games (deals or matches): the winning side (-1: drawn), points per side,
        and the standing that decided them (a drawn game is drawn by the sides sharing
        the top standing)."""
        drawn = np.flatnonzero(winner < 0)  # a few percent: the top standing only where needed
        drawn_standing = standing[drawn]
        top = drawn_standing.max(axis=1) if len(drawn) else drawn_standing[:, 0]
        for side, tally in enumerate(self.sides):
            won = int(np.count_nonzero(winner == side))
            shared = int(np.count_nonzero(drawn_standing[:, side] == top))
            tally.wins += won
            tally.draws += shared
            tally.losses += len(winner) - won - shared
            tally.points += int(points[:, side].sum(dtype=np.int64))


def score_against_copies(standing: np.ndarray, a: np.ndarray) -> np.ndarray:
    """With 3 players (and 5): A's score against each copy of B apart (a higher standing
    wins, equal ones draw), averaged; ``a`` is A's column in each row of ``standing``."""
    mine = standing[np.arange(len(a)), a][:, None]
    copies = standing.shape[1] - 1
    return (((mine > standing) + 0.5 * (mine == standing)).sum(axis=1) - 0.5) / copies  # A's tie with itself out


def mean_interval(values, ddof: int = 1) -> tuple[float, float, float]:
    """The mean of independent values (one per deal: the unit) and its 95% normal
    interval; NaN where there are too few values."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    mean = float(values.mean()) if n else float("nan")
    half = Z_95 * float(values.std(ddof=ddof)) / np.sqrt(n) if n > 1 else float("nan")
    return mean, mean - half, mean + half


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def elo_from_score(score: float) -> float | None:
    """Logistic Elo difference of an expected score; None (no finite value) at 0 and 1.

    >>> round(elo_from_score(0.64), 1)
    100.0
    """
    if not 0.0 < score < 1.0:
        return None
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def sprt_llr(counts, values, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (logistic Elo ``elo1``) against H0 (``elo0``) for
    independent outcomes: ``counts[i]`` of them scored ``values[i]`` (in [0, 1]).

    The generalized SPRT of fishtest: each hypothesis fixes the expected score, and the
    outcome distribution is the one closest to the observed frequencies with that
    expectation (a maximum-likelihood fit), so no model of draws is assumed. Empty
    categories get a tiny count, as fishtest does, so the fit always exists.
    """
    counts = np.asarray(counts, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    n = counts.sum()
    if n == 0:
        return 0.0
    freqs = np.where(counts > 0, counts, 1e-3)
    freqs /= freqs.sum()
    fit0 = _closest_with_mean(freqs, values, score_from_elo(elo0))
    fit1 = _closest_with_mean(freqs, values, score_from_elo(elo1))
    return float(n * (freqs * (np.log(fit1) - np.log(fit0))).sum())


def _closest_with_mean(freqs: np.ndarray, values: np.ndarray, mean: float) -> np.ndarray:
    """The distribution over ``values`` of expectation ``mean`` that maximizes the
    likelihood of ``freqs``: ``freqs / (1 + lam (values - mean))``, with ``lam`` the root
    of its (decreasing) expectation condition, found by bisection."""
    shifted = values - mean
    low = -1.0 / shifted.max() if shifted.max() > 0 else -1e12
    high = -1.0 / shifted.min() if shifted.min() < 0 else 1e12
    low, high = low + 1e-12 * abs(low), high - 1e-12 * abs(high)
    for _ in range(200):
        lam = 0.5 * (low + high)
        if (freqs * shifted / (1.0 + lam * shifted)).sum() > 0:
            low = lam
        else:
            high = lam
    return freqs / (1.0 + lam * shifted)


# ------------------------------------------------------------------ compare: duplicate deals


A, B = "A", "B"


def seatings(players: int) -> list[tuple[str, ...]]:
    """Who sits where in each game of a deal: 'A' or 'B' per seat. With 3 players and at
    Briscola Chiamata (5), A sits in each seat in turn against copies of B."""
    if players in (3, 5):
        return [tuple(A if seat == a_seat else B for seat in range(players)) for a_seat in range(players)]
    return [tuple(A if seat % 2 == a_side else B for seat in range(players)) for a_side in range(2)]


def game_scores(points: np.ndarray, winner: np.ndarray, standing: np.ndarray, seating: tuple[str, ...]):
    """Per game of one seating (a deal, or a match): A's score, A's result (1 win, 0 draw,
    -1 loss) and A's point margin. ``points`` and ``standing`` are per side (what decides
    the game: points, or deals won in a best-of match), ``winner`` the winning side or -1.
    With 3 players A plays each copy of B apart, by standing: its results are two per
    game (shape (games, 2)), its score their mean, its margin its points less the mean
    of B's; so the results count what the score measures. At Briscola Chiamata (5) the
    same against four copies, on game points (``deal_games``)."""
    points, standing = points.astype(np.int64), standing.astype(np.int64)
    if len(seating) in (3, 5):
        a = seating.index(A)
        score = score_against_copies(standing, np.full(len(standing), a))
        result = np.sign(standing[:, [a]] - np.delete(standing, a, axis=1))
        return score, result, points[:, a] - np.delete(points, a, axis=1).mean(axis=1)
    a = seating.index(A) % 2
    result = np.where(winner == a, 1, np.where(winner < 0, 0, -1))
    return (result + 1) / 2.0, result, (points[:, a] - points[:, 1 - a]).astype(np.float64)


def deal_games(results: np.ndarray, sides: int):
    """``game_scores``' inputs for single deals: side points, winner, standing. At
    Briscola Chiamata (a side per seat) both points and standing are game points."""
    if sides == 5:
        points = results["game_points"][:, :5]
        return points, results["winner_side"], points
    points = results["side_points"][:, :sides]
    return points, results["winner_side"], points


@dataclass
class CompareTally:
    """Deal scores (as a histogram over their possible values) and game counts, in
    constant memory. Everything is counted in integers, so the figures are exact and do
    not depend on how the deals were cut into batches (a float sum would)."""

    n_games: int  # games per deal
    score_counts: np.ndarray = field(default=None)  # deals by score, in steps of 1 / (steps n_games)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    # Deal margins in units of 1 / (2 n_games): a game's margin is a multiple of 1/2.
    margin_units: int = 0
    margin_unit_squares: int = 0

    def __post_init__(self):
        if self.score_counts is None:
            self.score_counts = np.zeros(self.steps * self.n_games + 1, dtype=np.int64)

    @property
    def steps(self) -> int:
        """A game's score is a multiple of 1 / steps: of 1/4, or of 1/8 at Briscola
        Chiamata (5 games a deal: A against four copies of B, each win, draw or loss);
        its margin a multiple of 2 / steps."""
        return max(4, 2 * (self.n_games - 1))

    @property
    def units(self) -> int:
        """Duplicate units tallied: deals, or matches with a match format."""
        return int(self.score_counts.sum())

    @property
    def score_values(self) -> np.ndarray:
        return np.arange(len(self.score_counts)) / (self.steps * self.n_games)

    @property
    def margin_unit(self) -> float:
        return 2.0 / (self.steps * self.n_games)

    def mean_sd(self) -> tuple[float, float]:
        """Mean and standard deviation of the deal scores."""
        p = self.score_counts / self.units
        mean = float((p * self.score_values).sum())
        return mean, math.sqrt(float((p * (self.score_values - mean) ** 2).sum()))

    def add_scores(self, scores: np.ndarray) -> None:
        """Adds deals' scores: shape (deals, games per deal)."""
        steps = np.rint(scores.sum(axis=1) * self.steps).astype(np.int64)
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

    def add_games(self, per_seating: list) -> None:
        """Adds units from the ``game_scores`` of each seating (in seating order, each over
        the same units)."""
        self.add(*(np.stack([game[k] for game in per_seating], axis=1) for k in range(3)))

    def add(self, scores: np.ndarray, results: np.ndarray, margins: np.ndarray) -> None:
        """Adds deals: arrays of shape (deals, games per deal)."""
        self.add_scores(scores)
        self.wins += int((results == 1).sum())
        self.draws += int((results == 0).sum())
        self.losses += int((results == -1).sum())
        units = np.rint(margins.sum(axis=1) * (self.steps // 2)).astype(np.int64)  # a deal's margin / margin_unit
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
    n = tally.units
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


# ------------------------------------------------------------------ tournament: ratings


ELO_SCALE = math.log(10) / 400  # d/dr of the logistic in Elo units


@dataclass
class PairResult:
    i: int  # index of A among the strategies
    j: int  # index of B
    tally: CompareTally

    @property
    def games(self) -> int:
        return self.tally.units * self.tally.n_games

    @property
    def score(self) -> float:
        return self.tally.mean_sd()[0]

    @property
    def fit_score(self) -> float:
        """The score the ratings are fitted to: kept half a game away from 0 and 1, so
        that a pair won every time still gets a finite rating difference."""
        half_game = 0.5 / self.games
        return min(max(self.score, half_game), 1.0 - half_game)

    @property
    def score_variance(self) -> float:
        """Variance of the pair's mean score, from the spread of its deal scores; for a
        pair won (or lost) every time, that of a coin with the fitted score instead of 0."""
        measured = self.tally.mean_sd()[1] ** 2 / self.tally.units
        if self.fit_score != self.score:
            return max(measured, self.fit_score * (1 - self.fit_score) / self.games)
        return measured


def score_matrix(n: int, pairs: list[PairResult]) -> list[list[float | None]]:
    """Score of the row strategy against the column strategy; None on the diagonal."""
    matrix = [[None] * n for _ in range(n)]
    for pair in pairs:
        matrix[pair.i][pair.j] = pair.score
        matrix[pair.j][pair.i] = 1.0 - pair.score
    return matrix


def fit_ratings(names: list[str], pairs: list[PairResult]) -> list[dict]:
    """Bradley-Terry ratings with 95% intervals, anchored (see the module's docstring).
    A strategy with no games linking it to the anchor (a tournament stopped early) has
    no rating: None."""
    n = len(names)
    anchor = names.index(anchor_of(names))
    linked = _linked_to(anchor, pairs)
    free = [k for k in range(n) if k != anchor and k in linked]
    pairs = [pair for pair in pairs if pair.i in linked and pair.games > 0]
    ratings = np.zeros(n)
    for _ in range(100 if free else 0):  # Newton's method on the free ratings
        gradient, hessian = _derivatives(ratings, pairs, n)
        step = np.linalg.solve(hessian[np.ix_(free, free)] + 1e-12 * np.eye(len(free)), gradient[free])
        ratings[free] += step
        if np.abs(step).max() < 1e-9:
            break
    covariance = _sandwich(ratings, pairs, n, free) if free else np.zeros((0, 0))
    rows = []
    for k, name in enumerate(names):
        if k not in linked:
            rows.append({"strategy": name, "rating": None, "ci95": None})
            continue
        half = 0.0 if k == anchor else Z_95 * math.sqrt(max(0.0, covariance[free.index(k), free.index(k)]))
        rows.append(
            {
                "strategy": name,
                "rating": float(ratings[k]),
                "ci95": [float(ratings[k] - half), float(ratings[k] + half)],
            }
        )
    return rows


def anchor_of(names: list[str]) -> str:
    """The strategy rated 0: ``random`` when it plays, else the first named."""
    return "random" if "random" in names else names[0]


def _linked_to(anchor: int, pairs: list[PairResult]) -> set[int]:
    """The strategies joined to ``anchor`` by pairs that played."""
    linked, grew = {anchor}, True
    while grew:
        grew = False
        for pair in pairs:
            if pair.games > 0 and (pair.i in linked) != (pair.j in linked):
                linked |= {pair.i, pair.j}
                grew = True
    return linked


def _expected(ratings: np.ndarray, pair: PairResult) -> float:
    return 1.0 / (1.0 + 10.0 ** ((ratings[pair.j] - ratings[pair.i]) / 400.0))


def _derivatives(ratings, pairs, n):
    """Gradient of the log-likelihood and minus its Hessian (the information)."""
    gradient, information = np.zeros(n), np.zeros((n, n))
    for pair in pairs:
        expected = _expected(ratings, pair)
        direction = _direction(pair, n)
        gradient += ELO_SCALE * pair.games * (pair.fit_score - expected) * direction
        information += ELO_SCALE**2 * pair.games * expected * (1 - expected) * np.outer(direction, direction)
    return gradient, information


def _sandwich(ratings, pairs, n, free):
    """Covariance of the free ratings: H^-1 J H^-1, with J from the measured score spread."""
    _, information = _derivatives(ratings, pairs, n)
    spread = np.zeros((n, n))
    for pair in pairs:
        direction = _direction(pair, n)
        spread += (ELO_SCALE * pair.games) ** 2 * pair.score_variance * np.outer(direction, direction)
    inverse = np.linalg.pinv(information[np.ix_(free, free)])
    return inverse @ spread[np.ix_(free, free)] @ inverse


def _direction(pair: PairResult, n: int) -> np.ndarray:
    direction = np.zeros(n)
    direction[pair.i], direction[pair.j] = 1.0, -1.0
    return direction
