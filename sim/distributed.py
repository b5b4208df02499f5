"""A study on Dask (``briscola batch PLAN --backend dask``): its chunks sent to the
workers of a cluster with ``client.map``, their results written here.

- ``--scheduler ADDRESS`` uses a running cluster; ``--workers N`` starts a LocalCluster of
  N worker processes on this machine, one Dask thread each and this machine's cores
  shared out to Numba's threads.
- Workers need this project and its dependencies installed (``pip install
  "briscola-sim[dask]"``); ``--strategy-file`` plug-ins travel with the chunks. No shared
  file system is assumed: rows come back to this machine, which writes the study.
- A chunk is a pure function of its range, so a worker that dies costs only its chunk:
  Dask plays it again elsewhere. If Dask gives up on one, the chunks done are kept and
  the run ends with ChunkFailed; ``--resume`` finishes the study.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from dataclasses import replace
from pathlib import Path

from distributed import Client, LocalCluster, WorkerPlugin, wait

from sim import __version__
from sim.chunks import Chunk, ChunkResult, run_chunk
from sim.config import ChunkFailed, default_threads
from sim.experiments import Experiment, with_threads

POLL_SECONDS = 0.2  # how often the waiting loop looks at Ctrl-C
CHUNKS_PER_THREAD = 4  # chunks in flight per thread of the cluster: none idles, memory stays flat
KILL_CHUNK = "BRISCOLA_TEST_KILL_CHUNK"  # tests: "EXPERIMENT|FIRST": the worker playing it exits,
KILL_ONCE = "BRISCOLA_TEST_KILL_ONCE"  # once if this file does not exist yet (it is made then); always without it


def run_on_dask(study, stop, on_progress=None, scheduler: str | None = None, workers: int | None = None,
                threads: int | None = None) -> None:  # fmt: skip
    """Plays the study's pending chunks on a Dask cluster and records each as it comes.
    ``threads``: Numba's threads per worker (default: a local cluster shares this
    machine's cores among its workers; a remote worker uses its own machine's)."""
    pending = study.pending()
    if not pending:
        return
    cluster = None
    if scheduler is None:
        # Workers restarted after a death log to stderr unless told not to from their start:
        # their failures reach the user as one line of ours.
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",  # any free port
                               silence_logs=logging.CRITICAL)  # fmt: skip
        threads = threads or max(1, default_threads() // workers)
    client = Client(scheduler or cluster)
    plugin = KernelsReady(
        [_payload(e, Chunk(e.name, pair, 0, 1), False, threads) for e, pair in _kernels_to_ready(pending)]
    )
    try:
        client.register_plugin(plugin)
        _collect(study, client, [_payload(e, c, study.rows, threads) for e, c in pending], stop, on_progress)
    finally:
        if cluster is None:
            client.unregister_worker_plugin(plugin.name)  # a shared cluster is left as it was
        if cluster is not None:
            _settle(client, workers)
        client.close()
        if cluster is not None:
            cluster.close()


def _settle(client: Client, workers: int) -> None:
    """Waits (a little) for the local cluster's workers restarted after a death: a worker
    closed while it starts prints Dask's traceback on the user's terminal."""
    try:
        client.wait_for_workers(workers, timeout=10)
    except Exception:  # noqa: BLE001 - closing anyway: nothing to report
        pass


def _collect(study, client: Client, payloads: list[dict], stop, on_progress) -> None:
    """Keeps a window of chunks in flight (a few per thread of the cluster: memory stays
    flat however large the study), records results as they come, submits the next, and
    skips the chunks an SPRT no longer needs. A chunk that fails or is cancelled by Dask
    (the scheduler lost, say) ends the run with ChunkFailed once the others are in."""
    waiting = list(reversed(payloads))  # popped from the end: in the plan's order
    in_flight, failures = {}, []

    def submit():
        window = max(8, CHUNKS_PER_THREAD * sum(client.nthreads().values()))
        while waiting and len(in_flight) < window:
            payload = waiting.pop()
            chunk = payload["chunk"]
            if study.by_name[chunk.experiment].wants(chunk):
                future = client.submit(play_chunk, payload, pure=False)
                in_flight[future.key] = (chunk, future)

    submit()
    while in_flight and not stop.is_set():
        try:  # wakes at the first result, or to look at Ctrl-C and new workers
            wait([future for _, future in in_flight.values()], timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
        except TimeoutError:
            submit()
            continue
        for key, (chunk, future) in list(in_flight.items()):
            if future.done():
                del in_flight[key]
                _take(study, chunk, future, failures, on_progress)
        submit()
    client.cancel([future for _, future in in_flight.values()])  # stopped: what is still playing is not kept
    if failures and not stop.is_set():
        _raise_failures(failures)


def _take(study, chunk: Chunk, future, failures: list, on_progress) -> None:
    """Records a finished chunk, or notes its failure; the cluster may then forget it."""
    try:
        result: ChunkResult | None = None if future.cancelled() else future.result()
    except Exception as error:  # noqa: BLE001 - the worker's error, or KilledWorker
        failures.append((chunk, error))
    else:
        if result is None:
            failures.append((chunk, RuntimeError("cancelled by Dask")))
        else:
            study.record(result)
            if on_progress is not None:
                on_progress(result.completed)
    future.release()


def _raise_failures(failures) -> None:
    chunk, error = failures[0]
    reason = str(error).split(". ")[0].strip()
    experiments = ", ".join(dict.fromkeys(repr(c.experiment) for c, _ in failures))
    raise ChunkFailed(f"Dask gave up on {len(failures)} chunk(s) of {experiments} (first {chunk.label} of {chunk.experiment!r}: "
                      f"{type(error).__name__}: {reason}); the chunks done are kept: run the batch again with --resume "
                      "to finish the study")  # fmt: skip


def _kernels_to_ready(pending) -> list:
    """One (experiment, pair) of every kind of game the pending chunks play: every pair
    of a tournament (its strategies differ), one of anything else."""
    seen = {}
    for experiment, chunk in pending:
        seen.setdefault((experiment.name, chunk.pair), (experiment, chunk.pair))
    return list(seen.values())


def _payload(experiment: Experiment, chunk: Chunk, rows: bool, threads: int | None) -> dict:
    """What a worker needs to play a chunk: the experiment (with its plug-in files'
    sources, as the worker may not see this machine's files) and the chunk."""
    sources = {path: Path(path).read_text() for path in experiment.config.strategy_files}
    return {"experiment": experiment, "chunk": chunk, "rows": rows, "threads": threads, "sources": sources,
            "version": __version__}  # fmt: skip


def play_chunk(payload: dict) -> ChunkResult:
    """Runs on a worker: plays one chunk (with the same version of briscola as the study)."""
    if payload["version"] != __version__:
        raise RuntimeError(
            f"this worker has briscola {__version__}, the study {payload['version']}: install the same on every worker"
        )
    chunk = payload["chunk"]
    _maybe_die_for_a_test(chunk)
    experiment = _on_this_worker(payload)
    return run_chunk(experiment, chunk, payload["rows"])


def _on_this_worker(payload: dict) -> Experiment:
    """The experiment with its plug-in files written here and this worker's threads."""
    experiment = payload["experiment"]
    if payload["sources"]:
        files = tuple(_local_copy(path, payload["sources"][path]) for path in experiment.config.strategy_files)
        experiment = replace(experiment, config=replace(experiment.config, strategy_files=files))
    return with_threads(experiment, payload["threads"] or default_threads())


def _local_copy(path: str, source: str) -> str:
    """A plug-in file's source written on this worker, once per content (the same path
    for the same content, so Numba's cache finds its compiled functions again)."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    local = Path(tempfile.gettempdir()) / "briscola-plugins" / digest / Path(path).name
    if not local.exists():
        local.parent.mkdir(parents=True, exist_ok=True)
        temporary = local.with_name(f".{local.name}.{os.getpid()}.tmp")
        temporary.write_text(source)
        os.replace(temporary, local)
    return str(local)


def _maybe_die_for_a_test(chunk: Chunk) -> None:
    """Fault injection for the tests: the worker playing the chosen chunk exits (once, or
    every time)."""
    target, marker = os.environ.get(KILL_CHUNK), os.environ.get(KILL_ONCE)
    if target != f"{chunk.experiment}|{chunk.first}" or (marker and os.path.exists(marker)):
        return
    if marker:
        Path(marker).write_text("killed once")
    os._exit(1)


class KernelsReady(WorkerPlugin):
    """Loads (or compiles) every experiment's kernels on each worker as it starts, before
    it gets chunks: one deal of each."""

    name = "briscola-kernels-ready"

    def __init__(self, payloads: list[dict]):
        self.payloads = payloads

    def setup(self, worker) -> None:
        for payload in self.payloads:
            run_chunk(_on_this_worker(payload), payload["chunk"], rows=False)
