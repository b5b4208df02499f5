"""A strategy whose decision raises, as an author's own check might (test_cli)."""

from numba import njit

from strategies.toolkit import Strategy, StrategyError


@njit(cache=True)
def raiser_nb(view, params, rng):
    if view.trick == 3:
        raise StrategyError("raiser gives up at trick 3")
    return view.hand[0]


RAISER = Strategy(name="raiser", version=1, description="Gives up at trick 3.", choose=raiser_nb, params=())
