"""Readying a run on cold caches (sim/compiling.py): the strategies missing from Numba's
disk cache are compiled by a second process, and this one then finds them there."""

import os
import subprocess
import sys
import textwrap

from sim.compiling import _cold_strategies, warm_up
from sim.config import RunConfig
from sim.play import play_batch
from tests.helpers import REPO

FRESH = textwrap.dedent(
    """
    from numba import njit
    from strategies.api import Strategy

    @njit
    def first_nb(view, params, rng):
        return view.hand[0]

    FIRST = Strategy("first", 1, "Plays its first card.", first_nb)
    """
)


def test_second_process_fills_the_cache_this_one_reads(tmp_path):
    path = tmp_path / "fresh_strategy.py"
    path.write_text(FRESH)
    config = RunConfig(
        players=2,
        strategies=(
            "first",
            "random",
        ),
        deals=10,
        seed=1,
        strategy_files=(str(path),),
    )
    assert [s.name for s in _cold_strategies(config)] == ["first"]  # a new file: nothing cached
    command = [sys.executable, "-m", "sim.compiling", "--strategy-file", str(path), "first"]
    subprocess.run(command, check=True, cwd=REPO, capture_output=True)
    assert _cold_strategies(config) == []  # found in the disk cache, without compiling here


def test_built_ins_are_not_compiled_aside_and_warm_up_readies_the_run():
    config = RunConfig(players=4, strategies=("greedy", "highest", "random", "highest"), deals=50, seed=3)
    warm_up(config)
    assert _cold_strategies(config) == []
    results = play_batch(config, 0, 50).results
    assert (results["side_points"][:, :2].sum(axis=1) == 120).all()


def test_a_first_run_compiles_every_built_in_aside_so_a_new_opponent_starts_at_once(monkeypatch):
    """Each built-in used to compile on its first use: a researcher comparing a plug-in
    against expert, then hoarder, then highest waited 3-5 s each time, as if the plug-in
    recompiled. While the engine compiles, the second process compiles them all."""
    import sim.compiling

    config = RunConfig(players=2, strategies=("hoarder", "random"), deals=10, seed=1)
    monkeypatch.setattr(sim.compiling, "_is_ready", lambda strategy: strategy.name not in ("hoarder", "expert", "pimc"))
    monkeypatch.setattr(sim.compiling, "engine_is_cold", lambda: True)
    assert [s.name for s in sim.compiling._to_compile_aside(config)] == ["hoarder", "expert", "pimc"]  # its own first
    monkeypatch.setattr(sim.compiling, "engine_is_cold", lambda: False)  # a later run: only what it needs
    assert [s.name for s in sim.compiling._to_compile_aside(config)] == ["hoarder"]


def test_theengine_is_cold_only_where_nothing_is_cached(tmp_path):
    check = [sys.executable, "-c", "from sim.compiling import engine_is_cold; print(engine_is_cold())"]
    here = subprocess.run(check, cwd=REPO, capture_output=True, text=True)
    empty = subprocess.run(check, cwd=REPO, capture_output=True, text=True,
                           env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})  # fmt: skip
    assert here.stdout.strip() == "False" and empty.stdout.strip() == "True"


def test_a_first_run_starts_once_its_own_strategies_are_compiled_not_every_built_in(tmp_path, monkeypatch):
    """The other built-ins (pimc and ismcts among them) take longer than the engine: the
    run waits for its own strategies only, and the second process goes on compiling the
    rest. Here a stand-in for that process says it is ready, then keeps working."""
    import sim.compiling

    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text("import time\nprint('ready', flush=True)\ntime.sleep(60)\n")
    started = []

    def compile_aside(cold, own, strategy_files):
        helper = subprocess.Popen([sys.executable, str(stand_in)], stdout=subprocess.PIPE, text=True)
        started.append(helper)
        return helper

    monkeypatch.setattr(sim.compiling, "_to_compile_aside", lambda config: ["others"])
    monkeypatch.setattr(sim.compiling, "_compile_aside", compile_aside)
    try:
        warm_up(RunConfig(players=2, strategies=("greedy", "random"), deals=10, seed=1))
        assert started and started[0].poll() is None  # returned while the second process works on
    finally:
        for helper in started:
            helper.kill()
            helper.wait()


def test_the_second_process_says_ready_after_the_runs_own_strategies(tmp_path):
    path = tmp_path / "fresh_strategy.py"
    path.write_text(FRESH)
    command = [sys.executable, "-m", "sim.compiling", "--strategy-file", str(path), "--own", "1", "first", "random"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["ready"]
    assert _cold_strategies(RunConfig(players=2, strategies=("first", "random"), deals=1, seed=1,
                                      strategy_files=(str(path),))) == []  # fmt: skip


def test_a_first_run_says_it_is_compiling_before_its_silent_minute(tmp_path, monkeypatch):
    import sim.compiling
    from tests.helpers import run_here

    monkeypatch.setattr(sim.compiling, "engine_is_cold", lambda: True)  # as on a fresh clone
    run = ["simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "10", "--seed", "1", "--out"]
    code, _, err = run_here(*run, str(tmp_path / "first.parquet"))
    assert code == 0 and "a first run compiles the kernels" in err.splitlines()[0]
    code, _, err = run_here(*run, str(tmp_path / "quiet.parquet"), "--quiet")
    assert code == 0 and "compiles" not in err
