"""A Dask worker preload for the tests: the worker exits (``os._exit``, as if killed) as
the task of a chosen chunk starts executing on it. It finds the chunk by its task key
(``sim.pipeline.backends.dask_cluster.chunk_key``), so the code under test holds no hook of its own.

Dask's own configuration points every worker at it, the CLI's LocalCluster's included
(``dying_worker`` in tests/helpers.py spells it)::

    DASK_DISTRIBUTED__WORKER__PRELOAD="['.../tests/dying_worker.py']"
    DASK_DISTRIBUTED__WORKER__PRELOAD_ARGV="[['--chunk', 'teams|2000', '--once', '/tmp/killed']]"

``--chunk EXPERIMENT|FIRST``: the chunk of that experiment starting at that deal (every
pair's, in a tournament). ``--once MARKER``: only the first worker to start it dies, and
makes MARKER (holding the chunk's key); without it, every worker that starts it dies.
"""

from __future__ import annotations

import os
from pathlib import Path

import click
from distributed import WorkerPlugin


class DieOnChunk(WorkerPlugin):
    name = "briscola-test-die-on-chunk"

    def __init__(self, experiment: str, first: int, once: Path | None):
        self.experiment, self.first, self.once = experiment, first, once

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish != "executing" or not isinstance(key, str) or not key.startswith("briscola-chunk|"):
            return
        experiment, label, _run = key.split("|", 1)[1].rsplit("|", 2)
        if experiment != self.experiment or not label.endswith(f"part-{self.first:012d}"):
            return
        if self.once is not None:
            try:
                with open(self.once, "x") as marker:  # made by one worker only, however many race
                    marker.write(key)
            except FileExistsError:
                return
        os._exit(1)


@click.command()
@click.option("--chunk", required=True, help="EXPERIMENT|FIRST: the chunk whose worker dies")
@click.option("--once", type=click.Path(), default=None, help="a marker file: die the first time only")
async def dask_setup(worker, chunk: str, once: str | None) -> None:
    experiment, first = chunk.rsplit("|", 1)
    await worker.plugin_add(DieOnChunk(experiment, int(first), Path(once) if once else None))
