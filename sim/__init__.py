"""Briscola simulator: the Python side (configuration, runner, results, CLI).

For notebooks (all return pandas objects; see ``sim.present.analysis`` and examples/)::

    import sim
    run = sim.load("results/compare_2p_expert-vs-greedy_seed1_10000deals.parquet")  # any result file or folder
    run.deals.head(), run.config, run.strategies, run.rules
    sim.side_strategy_scores(run), sim.first_lead(run), sim.intervals(run, by="game")   # each takes the run
    sim.compare_summary(run), sim.score_matrix(run), sim.ratings(run)
    sim.first_lead(run.where(run.deals["deal"] < 1000))          # the same run over some of its rows
    sim.paired("results/one.parquet", "results/other.parquet")   # two runs of one seed, deal by deal
    sim.caller_by_strength(run)   # Briscola Chiamata: the caller's game points by hand strength
    sim.plot_names(run), sim.plot(run, "heatmap")              # the report's plots, as matplotlib figures
    sim.deal_features(run)        # what each deal dealt: trumps, honours, points per seat and side
    sim.luck(run)                 # a comparison: how much the cards decide, and what they are worth
    sim.moves("trace.parquet")    # a --trace file: a row per card played, joined to its deal's outcome
    sim.move_costs(sim.analyse("trace.parquet"))   # every move valued by the search: where A loses to B
    sim.par_shortfall(moves)      # the points each strategy gives up against the face-up par, last tricks
    sim.par(run)                  # 2 players: each deal's exact par, every hand face up
    sim.people("results/people"), sim.person_ratings("results/people")   # deals played on the page (briscola play)
    run = sim.compare("expert", "greedy", players=4, deals=3000, seed=1)   # the commands, in process
    sim.simulate(...), sim.tournament(...), sim.batch("plan.toml")           # (sim.app.api)
"""

from sim.base.version import __version__ as __version__  # re-exported: sim.__version__

_RESULTS = ("read_results", "read_config", "RunResults", "card_matrix")
_ANALYSIS = (
    "load", "Results", "seat_scores", "side_scores", "side_strategy_scores", "first_lead", "margins",
    "compare_summary", "score_matrix", "ratings", "intervals", "unit_figures", "paired", "caller_by_strength",
)  # fmt: skip
_FEATURES = {
    "deal_features": "features",
    "luck": "luck",
    "luck_games": "luck",
    "moves": "moves",
    "analyse": "analyse",
    "move_costs": "analyse",
    "par_shortfall": "analyse",
    "par": "par",
}
_PEOPLE = ("people", "person_ratings")
_PLOTS = ("plot", "plot_names")
_COMMANDS = ("simulate", "compare", "tournament", "batch")
__all__ = [*_RESULTS, *_ANALYSIS, *_FEATURES, *_PEOPLE, *_PLOTS, *_COMMANDS]


def __getattr__(name):  # keeps ``import sim`` light: the CLI's --help must start fast
    if name in _RESULTS:
        from sim.base import results

        return getattr(results, name)
    if name in _ANALYSIS:
        from sim.present import analysis

        return getattr(analysis, name)
    if name in _FEATURES:
        import importlib

        return getattr(importlib.import_module(f"sim.present.{_FEATURES[name]}"), name)
    if name in _PEOPLE:
        from sim.web import people

        return getattr(people, name)
    if name in _PLOTS:
        from sim.present import plots

        return getattr(plots, name)
    if name in _COMMANDS:
        from sim.app import api

        return getattr(api, name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")


def __dir__():  # tab completion shows the lazy names too
    return sorted([*globals(), *__all__])
