"""The Dask backend: a study's chunks played on a Dask cluster, a running one
(``--scheduler ADDRESS``) or a local one started for the run (``--workers N``). A command
on it runs as a study of one experiment. This module is what the command line reads as
it starts; the cluster's code, which imports Dask, is in ``dask_cluster.py``."""

from __future__ import annotations

from sim.base.config import ConfigError
from sim.pipeline.backends.base import Backend, BackendOption


class Dask(Backend):
    name = "dask"
    about = "a Dask cluster: --scheduler or --workers"
    options = (
        BackendOption("scheduler", str, "With --backend dask: the address of a running scheduler.", "ADDRESS"),
        BackendOption("workers", int, "With --backend dask: start a local cluster of N worker processes.", "N"),
    )

    def check(self, given: dict) -> None:
        scheduler, workers = given.get("scheduler"), given.get("workers")
        if bool(scheduler) == bool(workers):
            raise ConfigError(
                "--backend dask takes --scheduler ADDRESS (a running cluster) or --workers N (a local one), one of them"
            )
        if workers is not None and workers < 1:
            raise ConfigError(f"--workers {workers} must be at least 1")

    def reach(self, given: dict) -> None:
        """Dask is installed, and a running scheduler answers at its address."""
        _cluster()
        scheduler = given.get("scheduler")
        if scheduler is None:
            return
        from distributed import Client

        try:
            Client(scheduler, timeout="10s").close()
        except (OSError, TimeoutError, ValueError, TypeError) as error:  # ValueError: not an address at all
            raise ConfigError(f"--scheduler {scheduler}: no Dask scheduler answers there ({error}); "
                              "give its address, e.g. tcp://HOST:8786") from None  # fmt: skip

    def run(self, study, stop, progress, given: dict, threads: int | None) -> None:
        _cluster().run(study, stop, progress, scheduler=given.get("scheduler"), workers=given.get("workers"),
                       threads=threads, on_status=progress.status, on_note=progress.note)  # fmt: skip


def _cluster():
    """The cluster's code (``dask_cluster``), or a ConfigError saying how to install Dask."""
    try:
        from sim.pipeline.backends import dask_cluster
    except ImportError as error:
        raise ConfigError(f"--backend dask needs Dask ({error}): pip install \"briscola-sim[dask]\", "
                          "or pip install -e \".[dask]\" in a clone") from None  # fmt: skip
    return dask_cluster


DASK = Dask()
