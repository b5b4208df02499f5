"""Briscola simulator: the Python side (configuration, runner, results, CLI).

For notebooks::

    from sim import read_results
    run = read_results("results/run.parquet")
    run.deals.head(), run.config
"""

__version__ = "0.1.0"


def __getattr__(name):  # keeps ``import sim`` light: the CLI's --help must start fast
    if name in ("read_results", "read_config", "RunResults"):
        from sim import results

        return getattr(results, name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
