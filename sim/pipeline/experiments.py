"""An experiment: one ``simulate``, ``compare`` or ``tournament`` run, checked, as the
command line or a study plan (``sim.pipeline.plan``) describes it.

>>> exp = make_experiment("compare", players=2, strategies=["expert", "greedy"], deals=1000, seed=1, sprt="0,10")
>>> exp.strategies, exp.sprt.elo1, exp.units
(('expert', 'greedy'), 10.0, 1000)
>>> make_experiment("tournament", players=2, strategies=["greedy", "greedy"], deals=10, seed=1)
Traceback (most recent call last):
...
sim.base.config.ConfigError: a tournament takes two or more different strategies, not greedy, greedy
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from functools import cached_property

from sim.base.config import ConfigError, RunConfig, check_players, default_threads, parse_rules
from sim.base.stats import Sprt
from sim.pipeline.kinds import KINDS, kind_of
from sim.runtime.play import canonical_strategies, check_tables, idle_param_notes
from strategies.registry import resolve_aliases


class IdleParameter(UserWarning):
    """A strategy parameter set away from its default at a table where it changes nothing."""


@dataclass(frozen=True)
class Experiment:
    """A checked run. ``config`` is the run itself for ``simulate``; for ``compare`` and
    ``tournament`` it holds the settings every pair shares (its seats all play the first
    strategy). ``strategies``: per seat (simulate), A and B (compare), or every one in
    order (tournament), as canonical labels."""

    kind: str
    config: RunConfig
    strategies: tuple[str, ...]
    sprt: object = None  # sim.base.stats.Sprt, for a comparison that stops on its own
    name: str = ""
    trace: bool = False  # a study also keeps every deal move by move (simulate and compare)
    factors: tuple = ()  # a plan's grid: (key, value) of each axis, as its name shows them (a rule by its name)

    @property
    def run_kind(self):
        """Its kind (``sim.pipeline.kinds``): what it plays and how."""
        return KINDS[self.kind]

    @cached_property
    def parts(self) -> list:
        """What it plays apart, each over all its deals: ``[None]``, or a tournament's
        pairs (indices into ``strategies``)."""
        return self.run_kind.parts(self)

    @property
    def units(self) -> int:
        """Deals (or matches) it plays in all: a tournament plays them for every pair."""
        return self.config.deals * len(self.parts)


def make_experiment(
    kind: str, *, players: int, strategies, deals: int, seed: int, rules=(), threads: int | None = None,
    strategy_files=(), match: str = "deal", sprt=None, alpha: float = 0.05, beta: float = 0.05, name: str = "",
    trace: bool = False,
) -> Experiment:  # fmt: skip
    """Checks the options of one run and makes its Experiment; ConfigError names what is
    wrong in the words of the command line. ``strategies``: ``simulate``'s comma list (or
    a list of names), ``[A, B]``, or a tournament's list; ``rules``: ``KEY=VALUE`` items;
    ``sprt``: ``ELO0,ELO1`` or a pair of numbers."""
    run_kind = kind_of(kind)
    check_players(players)
    files = tuple(str(path) for path in strategy_files)
    texts, resolved = resolve_aliases(run_kind.strategy_texts(strategies, players), players)
    labels = canonical_strategies(texts, files)
    check_tables(labels, files, players)
    parsed_rules = parse_rules(list(rules), players)
    for note in idle_param_notes(labels, files, players, parsed_rules):  # it runs, but says so: a plan may span tables
        warnings.warn(note, IdleParameter, stacklevel=2)
    config = RunConfig(
        players=players, strategies=run_kind.seat_labels(labels, players), deals=deals, seed=seed,
        rules=parsed_rules, threads=default_threads() if threads is None else threads,
        strategy_files=files, match=match, resolved=resolved,
    )  # fmt: skip
    run_kind.check(labels, sprt)
    if trace and run_kind.trace_refusal(config):
        raise ConfigError(run_kind.trace_refusal(config))
    if sprt is None and (alpha, beta) != (0.05, 0.05):
        raise ConfigError("--alpha and --beta set the SPRT's errors: give them with --sprt ELO0,ELO1")
    test = parse_sprt(sprt, alpha, beta) if sprt is not None else None
    return Experiment(kind, config, labels, test, name, bool(trace))


def parse_sprt(value, alpha: float = 0.05, beta: float = 0.05):
    """A Sprt from ``ELO0,ELO1`` (or a pair of numbers) and its error rates."""
    text = value if isinstance(value, str) else ",".join(map(str, value))
    try:
        elo0, elo1 = (float(part) for part in text.split(","))
    except (TypeError, ValueError):
        raise ConfigError(f"--sprt {text!r} is not ELO0,ELO1 (two numbers, e.g. 0,10)") from None
    if not elo0 < elo1:
        raise ConfigError(f"--sprt {text!r}: ELO0 must be below ELO1")
    for option, rate in (("--alpha", alpha), ("--beta", beta)):
        if not 0 < rate < 0.5:
            raise ConfigError(f"{option} {rate} must be between 0 and 0.5")
    return Sprt(elo0, elo1, alpha, beta)


def with_threads(experiment: Experiment, threads: int) -> Experiment:
    """The same experiment on another number of threads (its results do not change)."""
    return replace(experiment, config=replace(experiment.config, threads=threads))
