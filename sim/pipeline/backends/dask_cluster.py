"""A study on Dask (``briscola batch PLAN --backend dask``): its chunks sent to the
workers of a cluster with ``client.map``, their results written here.

- ``--scheduler ADDRESS`` uses a running cluster; ``--workers N`` starts a LocalCluster of
  N worker processes on this machine, one Dask thread each and this machine's cores
  shared out to Numba's threads.
- Workers need this project and its dependencies installed (``pip install
  "briscola-sim[dask]"``). ``--strategy-file`` plug-ins travel with the chunks, with the
  files they need (their author's modules and data files beside them): each worker
  writes them into a folder of its own user's, private, and checks what it finds there
  against what was sent, so nobody else's file runs in their place. No shared file
  system is assumed: rows come back to this machine, which writes the study.
- Each worker readies the kernels (compiles them, or loads them from Numba's cache) as it
  joins, on a thread of its own: its event loop keeps answering the scheduler.
- A chunk is a pure function of its range, so a worker that dies costs only its chunk:
  Dask plays it again elsewhere (and the run says so). If Dask gives up on one, or the
  scheduler is lost, the chunks done are kept and the run ends with ChunkFailed;
  ``--resume`` finishes the study.
- Each chunk's task key names it: ``briscola-chunk|EXPERIMENT|LABEL|RUN`` (``chunk_key``),
  as in ``briscola-chunk|league|pair=0_1/part-000000001000|3f2a9c1d``: the experiment,
  the chunk's name in the study's folder (its first deal), and a token of this run's, so
  that two studies on one scheduler never share a task. A worker plug-in or preload of the
  user's (Dask's ``distributed.worker.preload``) can watch chunks by these keys; the tests
  kill a worker that way.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import os
import stat
import tempfile
import threading
import uuid
from concurrent.futures import CancelledError
from dataclasses import replace
from pathlib import Path

from distributed import Client, LocalCluster, WorkerPlugin, wait
from distributed.comm.core import CommClosedError

from sim.base.config import ChunkFailed, IllegalDecisionError, default_threads
from sim.base.files import WriteFailed, write_atomically
from sim.base.version import __version__
from sim.pipeline.chunks import Chunk, ChunkResult, run_chunk
from sim.pipeline.experiments import Experiment, with_threads
from sim.runtime.play import loaded_strategies
from strategies.errors import StrategyError

POLL_SECONDS = 0.2  # how often the waiting loop looks at Ctrl-C
CHUNKS_PER_THREAD = 4  # chunks in flight per thread of the cluster: none idles, memory stays flat
CLOSE_SECONDS = 30  # at most, for the client and a local cluster to close
READYING = "readying the kernels on the workers (compiling them on a first run)"


def run(study, stop, on_progress=None, scheduler: str | None = None, workers: int | None = None,
                threads: int | None = None, on_status=None, on_note=None) -> None:  # fmt: skip
    """Plays the study's pending chunks on a Dask cluster and records each as it comes.
    ``threads``: Numba's threads per worker (default: a local cluster shares this
    machine's cores among its workers; a remote worker uses its own machine's).
    ``on_progress(n, experiment)``: n more units of the experiment done;
    ``on_status(text or None)``: what the run waits for, for the progress line;
    ``on_note(text)``: what happened to the cluster (a worker lost), for the user."""
    pending = study.pending()
    if not pending:
        return
    if scheduler is None:
        threads = threads or max(1, default_threads() // workers)
    ready = [_payload(e, Chunk(e.name, pair, 0, 1), False, threads) for e, pair in _kernels_to_ready(pending)]
    payloads = [_payload(e, c, study.rows, threads) for e, c in pending]  # plug-ins read before a cluster starts
    quieted = _quiet_dask_logs()  # what goes wrong reaches the user as one line of ours
    cluster = client = registering = None
    try:
        if scheduler is None:
            # Workers restarted after a death log to stderr unless told not to from their start:
            # their failures reach the user as one line of ours.
            os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",  # any free port
                                   silence_logs=logging.CRITICAL)  # fmt: skip
        client = Client(scheduler or cluster)
        members = _workers(client)  # from before readying: a worker that dies meanwhile is said too
        registering = _ready_workers(client, KernelsReady(ready), stop, on_status)
        _collect(study, client, payloads, stop, on_progress, on_note, members)
    except (OSError, CancelledError) as error:
        if not _lost_scheduler(error):  # this machine's own (a file), not the cluster's
            raise
        if not stop.is_set():
            reason = (str(error).splitlines() or [""])[0].rstrip(":")
            raise ChunkFailed(f"lost the Dask scheduler ({type(error).__name__}: {reason}); "
                              "the chunks done are kept") from None  # fmt: skip
    finally:
        _close(client, cluster, registering, workers)
        for logger, level in quieted.items():
            logger.setLevel(level)


def _lost_scheduler(error: BaseException) -> bool:
    """Whether an error says the scheduler is gone: comms closed, a connection that timed
    out or was refused, futures cancelled; not an error of a file of this machine's."""
    if isinstance(error, (CommClosedError, CancelledError)):
        return True
    return isinstance(error, OSError) and not isinstance(error, WriteFailed) and error.filename is None


def _quiet_dask_logs() -> dict:
    """Silences Dask's loggers in this process (a lost scheduler logs tracebacks), and
    asyncio's (a local scheduler's message to a worker that died is a future whose error
    asyncio would print); returns their levels before, to restore."""
    names = ["distributed", "asyncio", *(n for n in logging.root.manager.loggerDict if n.startswith("distributed."))]
    loggers = [logging.getLogger(name) for name in names]
    levels = {logger: logger.level for logger in loggers}
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    return levels


def _ready_workers(client: Client, plugin: KernelsReady, stop, on_status) -> threading.Thread:
    """Registers the plug-in that readies every worker, waiting (and watching for Ctrl-C)
    while the workers compile; a worker that cannot ready the kernels ends the run, one
    that dies meanwhile does not. Returns the thread that registers it (still going after
    a Ctrl-C)."""
    if on_status is not None:
        on_status(READYING)
    outcome = {}

    def register():
        try:
            client.register_plugin(plugin)
        except BaseException as error:  # noqa: BLE001 - raised again below, in the main thread
            outcome["error"] = error

    registering = threading.Thread(target=register, name="briscola-ready-workers", daemon=True)
    registering.start()  # watched from here: a Ctrl-C is heard while workers compile
    while registering.is_alive() and not stop.is_set():
        registering.join(POLL_SECONDS)
    error = outcome.get("error")
    if error is not None and not (_lost_scheduler(error) and _answers(client)):
        # (a comms error while the scheduler answers: a worker died while readying; the plug-in is
        # registered all the same, and a worker that joins readies with it; the run says who left)
        if _lost_scheduler(error):
            raise error
        reason = str(error) if isinstance(error, StrategyError) else f"{type(error).__name__}: {error}"
        raise ChunkFailed(f"a Dask worker could not ready the kernels: {reason}") from None
    if on_status is not None:
        on_status(None)
    return registering


def _answers(client: Client) -> bool:
    """Whether the scheduler still answers (a comms error was a worker's, not its)."""
    try:
        client.scheduler_info()
    except (OSError, CancelledError, TimeoutError):
        return False
    return True


def _workers(client: Client) -> set[str]:
    return set(client.scheduler_info()["workers"])


def _close(client: Client | None, cluster, registering: threading.Thread | None, workers: int | None) -> None:
    """Leaves a shared cluster as it was (once its plug-in is registered, it is removed)
    and closes a local one; a scheduler already lost makes this fail, which must not hide
    why the run ended."""
    try:
        if client is not None and cluster is None:
            if registering is not None:
                registering.join(CLOSE_SECONDS)
            client.unregister_worker_plugin(KernelsReady.name)
        elif client is not None:
            _settle(client, workers)
    except Exception:  # noqa: BLE001, S110 - nothing to tidy on a lost scheduler
        pass
    finally:
        for closing in (client, cluster):
            try:
                if closing is not None:
                    closing.close(timeout=CLOSE_SECONDS)  # a worker restarting under load must not hold up the exit
            except Exception:  # noqa: BLE001, S110 - closing anyway
                pass


def _settle(client: Client, workers: int) -> None:
    """Waits (a little) for the local cluster's workers restarted after a death: a worker
    closed while it starts prints Dask's traceback on the user's terminal."""
    try:
        client.wait_for_workers(workers, timeout=10)
    except Exception:  # noqa: BLE001 - closing anyway: nothing to report
        pass


def _collect(study, client: Client, payloads: list[dict], stop, on_progress, on_note, members: set[str]) -> None:
    """Keeps a window of chunks in flight (a few per thread of the cluster: memory stays
    flat however large the study), records results as they come, submits the next, and
    skips the chunks an SPRT no longer needs. A chunk that fails or is cancelled by Dask
    ends the run with ChunkFailed once the others are in; a worker that leaves (of
    ``members`` or any that joins) is said, once."""
    waiting = list(reversed(payloads))  # popped from the end: in the plan's order
    in_flight, failures, run, left = {}, [], uuid.uuid4().hex[:8], set()

    def submit():
        window = max(8, CHUNKS_PER_THREAD * sum(client.nthreads().values()))
        while waiting and len(in_flight) < window:
            payload = waiting.pop()
            chunk = payload["chunk"]
            if study.by_name[chunk.experiment].wants(chunk):
                future = client.submit(play_chunk, payload, key=chunk_key(chunk, run))
                in_flight[future.key] = (chunk, future)

    submit()
    while in_flight and not stop.is_set():
        study.play({chunk.experiment for chunk, _ in in_flight.values()})
        try:  # wakes at the first result, or to look at Ctrl-C and new workers
            wait([future for _, future in in_flight.values()], timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
        except TimeoutError:
            pass
        for key, (chunk, future) in list(in_flight.items()):
            if future.done():
                del in_flight[key]
                _take(study, chunk, future, failures, on_progress)
        members = _say_who_left(client, members, left, on_note)
        submit()
    client.cancel([future for _, future in in_flight.values()])  # stopped: what is still playing is not kept
    if failures and not stop.is_set():
        _raise_failures(failures)


def chunk_key(chunk: Chunk, run: str) -> str:
    """A chunk's Dask task key, ``briscola-chunk|EXPERIMENT|LABEL|RUN``, the same for every
    try of the chunk in this run; read it from the right (neither the label nor the run
    holds a ``|``).

    >>> chunk_key(Chunk("teams", None, 2000, 1000), "3f2a9c1d")
    'briscola-chunk|teams|part-000000002000|3f2a9c1d'
    """
    return f"briscola-chunk|{chunk.experiment}|{chunk.label}|{run}"


def _say_who_left(client: Client, members: set, left: set, on_note) -> set:
    """Says which workers left since ``members`` (each once: ``left``); returns those now."""
    now = _workers(client)
    for address in sorted(members - now - left):
        left.add(address)
        if on_note is not None:
            on_note(f"a Dask worker left the cluster ({address}); any chunk it was playing is played again elsewhere")
    return now


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
                on_progress(result.completed, chunk.experiment)
    future.release()


def _raise_failures(failures) -> None:
    """The strategy's own error when a strategy failed (the same here as on this machine:
    one line, exit 2, not a cluster's fault that another try might mend); else ChunkFailed."""
    chunk, error = failures[0]
    if isinstance(error, StrategyError | IllegalDecisionError):
        raise type(error)(f"{error} (experiment {chunk.experiment!r}, {chunk.label})") from None
    reason = str(error).split(". ")[0].strip()
    experiments = ", ".join(dict.fromkeys(repr(c.experiment) for c, _ in failures))
    raise ChunkFailed(f"Dask gave up on {len(failures)} chunk(s) of {experiments} (first {chunk.label} of {chunk.experiment!r}: "
                      f"{type(error).__name__}: {reason}); the chunks done are kept")  # fmt: skip


def _kernels_to_ready(pending) -> list:
    """One (experiment, pair) of every kind of game the pending chunks play: every pair
    of a tournament (its strategies differ), one of anything else."""
    seen = {}
    for experiment, chunk in pending:
        seen.setdefault((experiment.name, chunk.pair), (experiment, chunk.pair))
    return list(seen.values())


def _payload(experiment: Experiment, chunk: Chunk, rows: bool, threads: int | None) -> dict:
    """What a worker needs to play a chunk: the experiment, with every file its plug-ins
    need (as the worker may not see this machine's files), and the chunk."""
    return {"experiment": experiment, "chunk": chunk, "rows": rows, "threads": threads,
            "bundles": _bundles(experiment.config.strategy_files), "version": __version__}  # fmt: skip


@functools.cache
def _bundles(strategy_files: tuple[str, ...]) -> dict:
    """Each plug-in file's bundle (strategies/registry.py), read once a run."""
    from strategies.registry import plug_in_bundle

    strategies = loaded_strategies(strategy_files).values()
    return {
        path: plug_in_bundle(path, [s for s in strategies if s.source == f"file {path}"]) for path in strategy_files
    }


def play_chunk(payload: dict) -> ChunkResult:
    """Runs on a worker: plays one chunk (with the same version of briscola as the study)."""
    if payload["version"] != __version__:
        raise RuntimeError(
            f"this worker has briscola {__version__}, the study {payload['version']}: install the same on every worker"
        )
    chunk = payload["chunk"]
    experiment = _on_this_worker(payload)
    return run_chunk(experiment, chunk, payload["rows"])


def _on_this_worker(payload: dict) -> Experiment:
    """The experiment with its plug-in files written here and this worker's threads."""
    experiment = payload["experiment"]
    if payload["bundles"]:
        files = tuple(_local_copy(path, payload["bundles"][path]) for path in experiment.config.strategy_files)
        experiment = replace(experiment, config=replace(experiment.config, strategy_files=files))
    return with_threads(experiment, payload["threads"] or default_threads())


def _local_copy(path: str, bundle: dict[str, bytes]) -> str:
    """A plug-in's files written on this worker, in a folder of the bundle's own (the
    same path for the same contents, so Numba's cache finds its compiled functions
    again) inside this user's private folder; a file found there is used only if it holds
    exactly what was sent."""
    folder = _private_folder() / bundle_folder(bundle)
    for name, data in bundle.items():
        target = folder.joinpath(*_safe_parts(name))
        if target.is_file() and not target.is_symlink() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomically(target, lambda temporary, data=data: temporary.write_bytes(data))
    return str(folder / Path(path).name)


def bundle_folder(bundle: dict[str, bytes]) -> str:
    """The name of a bundle's folder on a worker: a digest of its files' names and bytes."""
    digest = hashlib.sha256()
    for name, data in sorted(bundle.items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:20]


def _safe_parts(name: str) -> list[str]:
    parts = name.split("/")
    if not parts or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"a plug-in's file name {name!r} leaves its folder")
    return parts


@functools.cache
def _private_folder() -> Path:
    """This user's folder for plug-ins on this machine: ``$TMPDIR/briscola-plugins-UID``,
    made private (0700). One that is not a folder of this user's, private to it, is not
    used: a fresh private folder is made for this process instead."""
    root = Path(tempfile.gettempdir()) / f"briscola-plugins-{os.getuid()}"
    try:
        root.mkdir(mode=0o700)
    except FileExistsError:
        pass
    found = os.lstat(root)
    if stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o077:
        return root
    return Path(tempfile.mkdtemp(prefix="briscola-plugins-"))


class KernelsReady(WorkerPlugin):
    """Loads (or compiles) every experiment's kernels on each worker as it joins, before
    it gets chunks: one deal of each, on a thread, so that the worker's event loop keeps
    answering (a first compile takes a minute)."""

    name = "briscola-kernels-ready"

    def __init__(self, payloads: list[dict]):
        self.payloads = payloads

    async def setup(self, worker) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self._ready)

    def _ready(self) -> None:
        for payload in self.payloads:
            run_chunk(_on_this_worker(payload), payload["chunk"], rows=False)
