"""Plug-ins for the Briscola Chiamata rule cases: ``scripted`` bids up to a level of its
parameters and calls the card they name, so that a test sets up any auction and call."""

from numba import njit

from strategies.toolkit import PASS, Param, Strategy


@njit
def first_card_nb(view, params, rng):
    return view.hand[0]


@njit
def scripted_bid_nb(view, params, rng):
    """Bids the next level while it is at most ``params[0]`` (a negative value: always
    pass); returns ``params[2]`` instead when that is not -99 (to test illegal bids)."""
    if params[2] != -99.0:
        return int(params[2])
    level = view.bid + 1
    return level if level <= params[0] else PASS


@njit
def scripted_call_nb(view, params, rng):
    return int(params[1])


SCRIPTED = Strategy(
    "scripted", 1, "Bids up to a level, calls a given card, plays its first card.", first_card_nb,
    params=(Param("top", int, -1, -1, 68), Param("card", int, 0, -1, 60), Param("raw", int, -99, -99, 100)),
    bid=scripted_bid_nb, call=scripted_call_nb,
)  # fmt: skip


@njit
def king_of_bastoni_nb(view, params, rng):
    return 39  # in one hand only: every other seat plays a card it does not hold


GRABBER = Strategy("grabber", 1, "Bids as scripted, then always plays the King of Bastoni.", king_of_bastoni_nb,
                   params=SCRIPTED.params, bid=scripted_bid_nb, call=scripted_call_nb)  # fmt: skip
