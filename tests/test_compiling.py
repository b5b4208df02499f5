"""Readying a run on cold caches (sim/runtime/compiling.py): the strategies missing from Numba's
disk cache are compiled by a second process, and this one then finds them there."""

import os
import subprocess
import sys
import textwrap

from sim.base.config import RunConfig
from sim.runtime.compiling import _cold_strategies, warm_up
from sim.runtime.play import play_batch
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
    command = [sys.executable, "-m", "sim.runtime.compiling", "--strategy-file", str(path), "first"]
    subprocess.run(command, check=True, cwd=REPO, capture_output=True)
    assert _cold_strategies(config) == []  # found in the disk cache, without compiling here


def test_built_ins_are_not_compiled_aside_and_warm_up_readies_the_run():
    config = RunConfig(players=4, strategies=("greedy", "highest", "random", "highest"), deals=50, seed=3)
    warm_up(config)
    assert _cold_strategies(config) == []
    results = play_batch(config, 0, 50).results
    assert (results["side_points"][:, :2].sum(axis=1) == 120).all()


def test_a_run_compiles_aside_only_its_own_strategies_not_every_built_in(monkeypatch):
    """A first run used to compile every built-in (pimc, ismcts, ...) in the second
    process, whatever it played: a greedy run paid for pimc."""
    import sim.runtime.compiling

    asked = []
    monkeypatch.setattr(sim.runtime.compiling, "_is_ready", lambda strategy: False)  # as on a fresh clone
    monkeypatch.setattr(sim.runtime.compiling, "_compile_aside", lambda cold, auction, files: asked.append(cold))
    warm_up(RunConfig(players=2, strategies=("hoarder", "random"), deals=10, seed=1))
    assert [[s.name for s in cold] for cold in asked] == [["hoarder"]]


def test_a_run_compiles_the_engine_path_it_plays_and_no_other():
    """The fast path (random and greedy at 2 players, untraced) and the general engine
    are kernels of their own: a run loads (or compiles) only the one it plays."""
    script = textwrap.dedent(
        """
        from kernels.engine_nb import simulate_duels_nb, simulate_nb
        from sim.runtime.compiling import warm_up
        from sim.base.config import RunConfig
        warm_up(RunConfig(players=PLAYERS, strategies=STRATEGIES, deals=10, seed=1))
        print(len(simulate_duels_nb.overloads), len(simulate_nb.overloads))
        """
    )
    for players, strategies, loaded in ((2, ("greedy", "random"), "1 0"), (2, ("hoarder", "random"), "0 1"),
                                        (4, ("greedy",) * 4, "0 1")):  # fmt: skip
        code = script.replace("PLAYERS", str(players)).replace("STRATEGIES", repr(strategies))
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
        assert done.stdout.split()[-2:] == loaded.split(), (players, strategies)


def test_a_kernel_is_cold_only_where_nothing_is_cached(tmp_path):
    check = [sys.executable, "-c", "from kernels.engine_nb import simulate_nb\nfrom sim.runtime.compiling import is_cold\n"
             "print(is_cold(simulate_nb))"]  # fmt: skip
    here = subprocess.run(check, cwd=REPO, capture_output=True, text=True)
    empty = subprocess.run(check, cwd=REPO, capture_output=True, text=True,
                           env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})  # fmt: skip
    assert here.stdout.strip() == "False" and empty.stdout.strip() == "True"


def test_a_first_run_says_what_it_compiles_before_it_waits(tmp_path, monkeypatch):
    import sim.runtime.compiling
    from tests.helpers import run_here

    cold = {"simulate_duels_nb", "simulate_nb"}
    monkeypatch.setattr(sim.runtime.compiling, "is_cold", lambda kernel: kernel.__name__ in cold)  # as on a fresh clone
    monkeypatch.setattr(sim.runtime.compiling, "_is_ready", lambda strategy: strategy.is_compiled())
    run = ["simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "10", "--seed", "1", "--out"]
    code, _, err = run_here(*run, str(tmp_path / "first.parquet"))
    assert code == 0 and "compiling the engine's 2-player fast path into" in err.splitlines()[0]
    code, _, err = run_here(*run, str(tmp_path / "quiet.parquet"), "--quiet")
    assert code == 0 and "compiling" not in err
    fresh = tmp_path / "fresh_strategy.py"
    fresh.write_text(FRESH)
    run = [
        "compare",
        "first",
        "greedy",
        "--players",
        "4",
        "--deals",
        "10",
        "--seed",
        "1",
        "--strategy-file",
        str(fresh),
        "--out",
    ]
    code, _, err = run_here(*run, str(tmp_path / "compare.parquet"))
    assert code == 0 and "compiling the engine and the strategy first into" in err.splitlines()[0]
    cold.clear()  # the engine cached: a new strategy alone compiles in seconds, and says nothing
    code, _, err = run_here(*run, str(tmp_path / "again.parquet"))
    assert code == 0 and "compiling" not in err
