"""Dask, as a cluster user meets it: plug-ins with data files, a plug-in planted on a
shared node, a start that fails, a worker and then the scheduler lost on a cluster
started by hand, and workers that compile without blocking their event loop."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim
from tests.helpers import REPO, SLOW_FILE, dataset

pytest.importorskip("distributed")

DATA_BOT = """
from pathlib import Path

import numpy as np
from numba import njit

from strategies.api import Strategy

HERE = Path(__file__).parent
ORDER = np.load(HERE / "order.npy")  # opened by Python: shipped without being declared
BONUS = np.fromfile(HERE / "bonus.bin", dtype=np.float64)  # read by numpy's C code: declared below


@njit
def ordered_nb(view, params, rng):
    best = view.hand[0]
    for k in range(view.n_hand):
        if ORDER[view.hand[k]] + BONUS[view.hand[k]] > ORDER[best] + BONUS[best]:
            best = view.hand[k]
    return best


BOT = Strategy("bot", 1, "Plays the card its data files rank first.", ordered_nb, files=("bonus.bin",))
"""

PLAN = 'seed = 4\nstrategy_files = ["bot.py"]\n[[compare]]\nname = "bot"\na = "bot"\nb = "greedy"\ndeals = 600\n'


def briscola(folder: Path, *args, env=None, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim.app.cli", *args], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})}, timeout=timeout)  # fmt: skip


@pytest.fixture()
def data_bot(tmp_path):
    (tmp_path / "bot.py").write_text(DATA_BOT)
    np.save(tmp_path / "order.npy", np.arange(40.0))
    np.linspace(0, 3, 40).tofile(tmp_path / "bonus.bin")
    (tmp_path / "plan.toml").write_text(PLAN)
    local = briscola(tmp_path, "batch", "plan.toml", "--out", "local", "--chunk-deals", "200", "--quiet")
    assert local.returncode == 0, local.stderr
    return tmp_path


def test_a_plug_in_with_data_files_plays_on_dask_as_here(data_bot):
    there = briscola(data_bot, "batch", "plan.toml", "--out", "dask", "--chunk-deals", "200", "--backend", "dask",
                     "--workers", "1")  # fmt: skip
    assert there.returncode == 0, there.stderr
    assert "readying the kernels on the workers" in there.stderr  # what the workers were doing, said
    pd.testing.assert_frame_equal(dataset(data_bot / "dask"), dataset(data_bot / "local"))
    described = json.loads(briscola(data_bot, "strategies", "--strategy-file", "bot.py", "--json").stdout)
    bot = next(s for s in described if s["name"] == "bot")
    assert sorted(Path(f).name for f in bot["files"]) == ["bonus.bin", "order.npy"]


def test_a_planted_plug_in_is_not_run_in_place_of_the_users(data_bot, tmp_path):
    """Workers write plug-ins into their user's private folder and check what they find
    there: another user's folder, or a file that is not what was sent, is not used."""
    from sim.pipeline.backends.dask_cluster import bundle_folder
    from sim.runtime.play import loaded_strategies
    from strategies.registry import plug_in_bundle

    temporary = tmp_path / "shared-tmp"
    temporary.mkdir()
    planted = DATA_BOT.replace("ORDER[view.hand[k]] + BONUS", "-ORDER[view.hand[k]] + BONUS")
    source = str(data_bot / "bot.py")
    bundle = plug_in_bundle(source, [s for s in loaded_strategies((source,)).values() if s.source == f"file {source}"])
    import hashlib

    earlier = temporary / "briscola-plugins" / hashlib.sha1(DATA_BOT.encode()).hexdigest()[:16] / "bot.py"
    private = temporary / f"briscola-plugins-{os.getuid()}"
    for path in (earlier, private / bundle_folder(bundle) / "bot.py"):  # where earlier versions and this one look
        path.parent.mkdir(parents=True)
        path.write_text(planted)
    for name in ("order.npy", "bonus.bin"):
        (private / bundle_folder(bundle) / name).write_bytes((data_bot / name).read_bytes())
    for sharing in ("another user's folder", "a private folder holding a planted file"):
        if sharing == "another user's folder":
            os.chmod(private, 0o777)  # open to anyone: someone else may have put files there
            if os.getuid() == 0:
                os.chown(private, 12345, 12345)
        else:
            os.chown(private, os.getuid(), os.getgid())
            os.chmod(private, 0o700)
        out = f"dask-{sharing.split()[0]}"
        there = briscola(data_bot, "batch", "plan.toml", "--out", out, "--chunk-deals", "200", "--backend", "dask",
                         "--workers", "1", "--quiet", env={"TMPDIR": str(temporary)})  # fmt: skip
        assert there.returncode == 0, there.stderr
        pd.testing.assert_frame_equal(dataset(data_bot / out), dataset(data_bot / "local"))


def test_a_start_that_fails_on_the_workers_leaves_no_study_folder(tmp_path):
    (tmp_path / "bot.py").write_text(
        "if 'briscola-plugins' in __file__:\n    raise FileNotFoundError('weights.npz, which was not sent')\n"
        + DATA_BOT.replace("ORDER = np.load", "ORDER = np.zeros(40)  # np.load").replace(
            'BONUS = np.fromfile(HERE / "bonus.bin", dtype=np.float64)', "BONUS = np.zeros(40)"
        ).replace(', files=("bonus.bin",)', "")
    )  # fmt: skip
    (tmp_path / "plan.toml").write_text(PLAN)
    failed = briscola(
        tmp_path, "batch", "plan.toml", "--out", "study", "--backend", "dask", "--workers", "1", "--quiet"
    )
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1, failed.stderr
    assert "could not ready the kernels" in failed.stderr and "FileNotFoundError: weights.npz" in failed.stderr
    assert not (tmp_path / "study").exists()


def test_a_worker_readies_its_kernels_without_blocking_its_event_loop():
    """The first compile takes a minute: the worker must keep answering the scheduler."""
    from sim.pipeline.backends.dask_cluster import KernelsReady, _payload
    from sim.pipeline.chunks import Chunk
    from sim.pipeline.experiments import make_experiment

    experiment = make_experiment("compare", players=2, strategies=["slow:seconds=0.02", "random"], deals=1, seed=1,
                                 strategy_files=[SLOW_FILE], name="slow")  # fmt: skip
    plugin = KernelsReady([_payload(experiment, Chunk("slow", None, 0, 1), False, 1)])  # about a second of work

    async def setup_while_ticking() -> int:
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.create_task(tick())
        await plugin.setup(worker=None)
        ticker.cancel()
        return ticks

    assert asyncio.run(setup_while_ticking()) > 20  # the loop ran all along


def slow_plan(seed: int, seconds: float, deals: int) -> str:
    """A plan comparing ``slow`` (each decision ``seconds`` long) with ``random``."""
    return f"""
seed = {seed}
strategy_files = ["{SLOW_FILE}"]

[[compare]]
name = "slow"
a = "slow:seconds={seconds}"
b = "random"
deals = {deals}
"""


QUICK_RECONNECT = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"}  # the client gives up on a lost scheduler sooner


def start(*args, folder: Path, log: str) -> subprocess.Popen:
    dask = str(Path(sys.executable).parent / "dask")
    return subprocess.Popen([dask, *args], cwd=folder, stdout=open(folder / log, "w"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip


def records(study: Path) -> int:
    return len(list(study.rglob("_chunks/*.json")))


def wait_until(condition, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


@pytest.mark.slow  # a Dask fault: workers or a scheduler killed and waited for; CI runs it (-m slow)
def test_a_hand_started_cluster_loses_a_worker_then_its_scheduler_and_the_study_resumes(tmp_path):
    (tmp_path / "plan.toml").write_text(slow_plan(seed=5, seconds=0.01, deals=36))
    scheduler = start("scheduler", "--scheduler-file", "scheduler.json", "--port", "0", "--dashboard-address", ":0",
                      folder=tmp_path, log="scheduler.log")  # fmt: skip
    processes = [scheduler]
    try:
        wait_until(lambda: (tmp_path / "scheduler.json").exists(), "the scheduler started")
        address = json.loads((tmp_path / "scheduler.json").read_text())["address"]
        worker_args = ("worker", "--scheduler-file", "scheduler.json", "--nworkers", "1", "--nthreads", "1")
        processes.append(start(*worker_args, folder=tmp_path, log="worker1.log"))
        run = subprocess.Popen([sys.executable, "-m", "sim.app.cli", "batch", "plan.toml", "--out", "study", "--chunk-deals",
                                "3", "--backend", "dask", "--scheduler", address], cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": str(REPO), **QUICK_RECONNECT}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
        processes.append(run)
        wait_until(lambda: records(tmp_path / "study") >= 2, "chunks were played")
        processes[1].send_signal(signal.SIGKILL)  # its worker, killed
        processes[1].wait()
        processes.append(start(*worker_args, folder=tmp_path, log="worker2.log"))
        done = records(tmp_path / "study")
        wait_until(lambda: records(tmp_path / "study") >= done + 2, "a new worker took over")
        scheduler.send_signal(signal.SIGKILL)  # then the scheduler
        _, err = run.communicate(timeout=180)
    finally:
        for process in processes:
            process.kill()
            process.wait()
    assert "a Dask worker left the cluster" in err and "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert run.returncode == 1 and last.startswith("briscola: error: lost the Dask scheduler"), err
    assert (
        "to finish the study: briscola batch plan.toml --out study --resume --backend dask --scheduler tcp://" in last
    )
    resumed = briscola(tmp_path, "batch", "plan.toml", "--out", "study", "--resume", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    deals = sim.load(tmp_path / "study").experiment("slow").deals
    assert sorted(deals["deal"].unique()) == list(range(36)) and len(deals) == 72


@pytest.mark.slow  # a Dask fault: workers or a scheduler killed and waited for; CI runs it (-m slow)
def test_a_worker_killed_while_the_kernels_are_readied_is_said_once_and_the_study_goes_on(tmp_path):
    """Readying plays a deal of every experiment on each worker (seconds, with this plug-in):
    a worker killed meanwhile is one line, its nanny's next worker readies as it joins,
    and the study ends complete (it ended in "lost the Dask scheduler", after a traceback)."""

    (tmp_path / "plan.toml").write_text(slow_plan(seed=6, seconds=0.3, deals=4))
    run = subprocess.Popen([sys.executable, "-m", "sim.app.cli", "batch", "plan.toml", "--out", "study", "--chunk-deals",
                            "2", "--backend", "dask", "--workers", "2"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    try:
        said = [run.stderr.readline()]
        assert "readying the kernels on the workers" in said[0], said
        wait_until(lambda: len(dask_workers(run.pid)) == 2, "the workers started")
        time.sleep(1.0)  # well into readying: a deal of slow takes seconds
        dask_workers(run.pid)[0].kill()
        _, rest = run.communicate(timeout=240)
    finally:
        run.kill()
    err = said[0] + rest
    assert run.returncode == 0, err
    # Each departure said once (it was said three times); on a loaded machine a nanny may
    # also give up on a slow new worker, a departure of its own, named by its own address.
    left = re.findall(r"a Dask worker left the cluster \((\S+)\)", err)
    assert left and len(left) == len(set(left)), err
    assert "Traceback" not in err and "never retrieved" not in err and "lost the Dask scheduler" not in err, err
    assert not sim.load(tmp_path / "study").partial


def dask_workers(pid: int) -> list:
    """The worker processes of a briscola run's LocalCluster (its children that run Dask's
    worker, not multiprocessing's resource tracker)."""
    import psutil

    children = psutil.Process(pid).children()
    return [p for p in children if "resource_tracker" not in " ".join(p.cmdline())]


def test_a_strategy_that_raises_on_dask_is_named_as_here_and_resumed_alike(tmp_path):
    """It said "Dask gave up on 1 chunk(s)", exit 1, as if the cluster had failed; and the
    resume command it printed dropped --backend dask."""
    (tmp_path / "plan.toml").write_text(
        f'seed = 4\nstrategy_files = ["{REPO / "tests" / "batched_strategies.py"}"]\n[[compare]]\nname = "late"\n'
        'a = "late-raising"\nb = "random"\nplayers = 2\ndeals = 600\n'
    )
    here = briscola(tmp_path, "batch", "plan.toml", "--out", "here", "--chunk-deals", "100", "--quiet")
    there = briscola(tmp_path, "batch", "plan.toml", "--out", "there", "--chunk-deals", "100", "--backend", "dask",
                     "--workers", "1", "--quiet")  # fmt: skip
    for done in (here, there):
        assert done.returncode == 2, done.stderr
        assert "strategy 'late-raising' raised ValueError deciding a play: the model ran out of memory" in done.stderr
        assert "gave up" not in done.stderr and "Traceback" not in done.stderr
    status = briscola(tmp_path, "status", "there", "--json")
    assert json.loads(status.stdout)["resume"].endswith("--resume --backend dask --workers 1")
