"""The strategies the engine knows, by name.

A strategy is a name, an integer id for the kernels' dispatch (strategies/dispatch_nb.py),
a version that is bumped whenever its play changes, and a one-line description.
"""

from __future__ import annotations

from dataclasses import dataclass

from strategies.dispatch_nb import GREEDY_ID, RANDOM_ID


@dataclass(frozen=True)
class Strategy:
    name: str
    strategy_id: int
    version: int
    description: str

    def to_dict(self) -> dict:
        return {"name": self.name, "version": self.version, "params": {}}


BUILTIN_STRATEGIES = {
    s.name: s
    for s in (
        Strategy("random", RANDOM_ID, 1, "Plays any card of its hand, uniformly at random."),
        Strategy(
            "greedy",
            GREEDY_ID,
            1,
            "The C yardstick's heuristic: lead the cheapest non-trump; take a trick cheaply "
            "without trumping, or trump when the table holds 10+ points; else throw the cheapest card.",
        ),
    )
}


def get_strategy(name: str) -> Strategy:
    """The strategy called ``name``; KeyError if there is none."""
    return BUILTIN_STRATEGIES[name]
