"""Helper for test_view.py, run as a script with NUMBA_DISABLE_JIT=1: plays traced deals
through the real engine code with a spy in place of the strategy dispatch, and prints
every view a strategy was given, with the trace, as JSON."""

import json
import sys
import warnings

import kernels.chiamata_nb as chiamata_nb
import kernels.engine_nb as engine_nb
from sim.base.config import Rules, RunConfig
from sim.base.trace import trace_rows
from sim.runtime.play import play_batch


def spy_on_views(players: int, partner_view: str, n_deals: int, signals: str = "none") -> dict:
    views = []

    def spy_on(module, name, phase):
        real = getattr(module, name)

        def spy(strategy_id, view, params, rng, plugins):
            seen = {name: _plain(view[name]) for name in view.dtype.names}
            seen["rng_shape"] = list(rng.shape)  # its own stream only, not the dealer's or others'
            seen["phase"] = phase
            views.append(seen)
            return real(strategy_id, view, params, rng, plugins)

        setattr(module, name, spy)

    spy_on(engine_nb, "choose_card_nb", "play")
    spy_on(chiamata_nb, "bid_nb", "bid")
    spy_on(chiamata_nb, "call_nb", "call")
    rules = Rules(partner_view=partner_view, signals=signals) if players in (4, 6) else Rules()
    # Inlined strategies see the engine's view; plug-ins (highest) the copy made for them.
    strategies = tuple(("highest", "greedy", "random")[seat % 3] for seat in range(players))
    config = RunConfig(players=players, strategies=strategies, deals=n_deals, seed=8, rules=rules, threads=1)
    batch = play_batch(config, 0, n_deals, trace=True)
    return {"views": views, "traces": trace_rows(batch)}


def _plain(value):
    return value.tolist() if hasattr(value, "tolist") else value


if __name__ == "__main__":
    warnings.simplefilter("ignore", RuntimeWarning)  # uint64 wrap-around is intended in rng_nb
    json.dump(spy_on_views(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), *sys.argv[4:]), sys.stdout)
