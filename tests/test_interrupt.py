"""Stopping a run: Ctrl-C leaves a complete file of the deals done, marked partial;
a killed run leaves nothing at --out."""

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from sim.base.results import read_results
from tests.helpers import REPO, SLOW_FILE


def start_long_run(tmp_path, out):
    return subprocess.Popen(
        [sys.executable, "-m", "sim.app.cli", "simulate", "--players", "2", "--strategies", "random",
         "--deals", "1000000000", "--seed", "1", "--out", str(out), "--quiet"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def wait_for_rows(tmp_path, seconds=120):
    """Waits until the run has written its first batches to its temporary file."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        tmp_files = list(tmp_path.glob(".*.tmp"))
        if tmp_files and tmp_files[0].stat().st_size > 100_000:
            return
        time.sleep(0.2)
    raise AssertionError("the run wrote nothing")


def test_ctrl_c_leaves_a_complete_partial_file(tmp_path):
    out = tmp_path / "run.parquet"
    process = start_long_run(tmp_path, out)
    wait_for_rows(tmp_path)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted" in stdout
    run = read_results(out)
    assert run.partial and run.config["status"] == "partial"
    assert run.config["deals_completed"] == len(run.deals) > 0
    assert list(run.deals["deal"]) == list(range(len(run.deals)))  # a prefix of the run, no gaps
    assert list(tmp_path.glob(".*.tmp")) == []


def test_sigterm_stops_a_run_as_one_ctrl_c_does(tmp_path):
    """What SLURM, systemd and docker send: the deals done are kept, and a second SIGTERM
    changes nothing (the kill that may follow is theirs)."""
    out = tmp_path / "run.parquet"
    process = start_long_run(tmp_path, out)
    wait_for_rows(tmp_path)
    process.send_signal(signal.SIGTERM)
    time.sleep(0.1)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 143 and "Traceback" not in stderr, stderr
    assert "briscola: SIGTERM: stopping" in stderr and "Ctrl-C" not in stderr
    run = read_results(out)
    assert run.config["status"] == "partial" and run.config["deals_completed"] == len(run.deals) > 0
    assert list(tmp_path.glob(".*.tmp")) == []


def test_a_killed_run_leaves_nothing_at_out(tmp_path):
    out = tmp_path / "run.parquet"
    process = start_long_run(tmp_path, out)
    wait_for_rows(tmp_path)
    process.kill()
    process.communicate(timeout=30)
    assert not out.exists()


def test_partial_results_match_a_complete_run_deal_for_deal(tmp_path):
    out = tmp_path / "run.parquet"
    process = start_long_run(tmp_path, out)
    wait_for_rows(tmp_path)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=30)
    partial = pd.read_parquet(out)
    from sim.base.config import RunConfig
    from sim.runtime.play import play_batch

    n = min(len(partial), 50_000)
    config = RunConfig(players=2, strategies=("random", "random"), deals=n, seed=1)
    fresh = play_batch(config, 0, n).results
    assert (partial["points_0"].to_numpy()[:n] == fresh["seat_points"][:, 0]).all()


def test_ctrl_c_stops_a_comparison_with_a_partial_file(tmp_path):
    out = tmp_path / "cmp.parquet"
    process = subprocess.Popen(
        [sys.executable, "-m", "sim.app.cli", "compare", "greedy", "random", "--deals", "1000000000", "--seed", "1",
         "--out", str(out), "--quiet", "--json"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    wait_for_rows(tmp_path)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130 and "Traceback" not in stderr
    run = read_results(out)
    assert run.config["status"] == "partial" and run.config["compare"]["a"] == "greedy"
    per_game = run.deals.groupby("game")["deal"]
    assert (per_game.count() == run.config["deals_completed"]).all()  # every deal from both seatings
    assert f'"deals": {run.config["deals_completed"]}' in stdout


@pytest.mark.slow  # 45 s each on a busy machine: rows reach the file a row group (2^20 games) at a time
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_batched_strategy_stops_as_a_jitted_one_does(tmp_path, signum):
    """Lock-step play (a numpy MLP deciding outside the kernels) keeps the deals done
    on Ctrl-C and SIGTERM: whole duplicate deals, marked partial, the exit as always."""
    out = tmp_path / "cmp.parquet"
    process = subprocess.Popen(
        [sys.executable, "-m", "sim.app.cli", "compare", "numpy-mlp", "random", "--deals", "100000000", "--seed", "1",
         "--strategy-file", str(REPO / "examples" / "agents" / "numpy_mlp.py"), "--out", str(out), "--quiet"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    wait_for_rows(tmp_path, seconds=600)  # a cold cache compiles the engine and the lock-step kernels first
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == (130 if signum == signal.SIGINT else 143) and "Traceback" not in stderr, stderr
    run = read_results(out)
    assert run.config["status"] == "partial" and run.config["deals_completed"] > 0
    assert (run.deals.groupby("game")["deal"].count() == run.config["deals_completed"]).all()


def stall_and_signal(tmp_path, signum, stall_at_deal: int):
    """Runs ``stalling`` (random until deal ``stall_at_deal`` is asked of it, then never
    answering), signals it once it stalls; (seconds to the exit, exit code, stderr)."""
    out, flag = tmp_path / "stall.parquet", tmp_path / "stalled"
    process = subprocess.Popen(
        [sys.executable, "-m", "sim.app.cli", "simulate", "--strategies", "stalling,random", "--players", "2",
         "--deals", "1000000", "--seed", "1", "--strategy-file", str(REPO / "tests" / "batched_strategies.py"),
         "--out", str(out), "--quiet"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "STALL_FLAG": str(flag), "STALL_AT_DEAL": str(stall_at_deal)},
    )  # fmt: skip
    deadline = time.monotonic() + 600  # a cold cache compiles the engine and the lock-step kernels first
    while not flag.exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.1)
    signalled = time.monotonic()
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=30)
    return time.monotonic() - signalled, process.returncode, stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_batched_strategy_that_stalls_stops_like_any_other(tmp_path, signum):
    """Its call never returns: one SIGTERM or Ctrl-C still ends the run in about a
    second (STOP_WAIT), keeping every deal finished before the stall, as a slow jitted
    strategy's run is kept."""
    seconds, code, stderr = stall_and_signal(tmp_path, signum, stall_at_deal=20_000)
    assert seconds < 5
    assert code == (143 if signum == signal.SIGTERM else 130) and "Traceback" not in stderr, stderr
    run = read_results(tmp_path / "stall.parquet")
    assert run.config["status"] == "partial" and 0 < run.config["deals_completed"] <= 20_000
    assert list(run.deals["deal"]) == list(range(len(run.deals)))
    assert list(tmp_path.glob(".*.tmp")) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_a_batched_strategy_warms_up_is_named(tmp_path, signum):
    """Stopped before the run began (typer turned it into a silent exit 130)."""
    seconds, code, stderr = stall_and_signal(tmp_path, signum, stall_at_deal=0)
    assert seconds < 5 and code == (143 if signum == signal.SIGTERM else 130)
    said = "terminated (SIGTERM)" if signum == signal.SIGTERM else "interrupted"
    assert stderr.strip().splitlines() == [f"briscola: error: {said}"]
    assert list(tmp_path.glob("*.parquet")) == list(tmp_path.glob(".*.tmp")) == []


def interrupt_slow_run(tmp_path, out, presses: int, decision_seconds: float = 20, gap: float = 0.3):
    """Starts a run whose every decision of seat 0 takes ``decision_seconds`` (by default
    far longer than a stop may take), presses Ctrl-C ``presses`` times ``gap`` apart once
    it plays; returns the seconds from the first press to the exit, the exit code and
    stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "sim.app.cli", "simulate", "--strategy-file", SLOW_FILE, "--players", "2",
         "--strategies", f"slow:seconds={decision_seconds},random", "--deals", "1000", "--seed", "1", "--out", str(out)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 180
    while not list(tmp_path.glob(".*.tmp")):  # its temporary file: compiling is over, play began
        assert time.monotonic() < deadline, "the run never started playing"
        time.sleep(0.1)
    time.sleep(0.5)
    pressed = time.monotonic()
    for press in range(presses):
        time.sleep(gap if press else 0)
        process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    return time.monotonic() - pressed, process.returncode, stderr


def test_a_first_ctrl_c_is_acknowledged_and_honoured_promptly_whatever_the_strategy(tmp_path):
    from sim.base.interrupt import STOPPING

    out = tmp_path / "slow.parquet"
    seconds, code, stderr = interrupt_slow_run(tmp_path, out, presses=1)
    assert seconds < 5  # about a second; the decision in progress had 19 s left
    assert code == 130 and "Traceback" not in stderr
    assert stderr.splitlines()[0] == STOPPING
    run = read_results(out)
    assert run.config["status"] == "partial" and run.config["deals_completed"] == len(run.deals) == 0
    assert list(tmp_path.glob(".*.tmp")) == []


def test_a_second_ctrl_c_quits_at_once_and_keeps_nothing(tmp_path):
    from sim.base.interrupt import QUITTING

    out = tmp_path / "slow.parquet"
    seconds, code, stderr = interrupt_slow_run(tmp_path, out, presses=2)
    assert seconds < 5
    assert code == 130 and "Traceback" not in stderr and QUITTING in stderr
    assert not out.exists() and list(tmp_path.glob(".*.tmp")) == []


@pytest.mark.parametrize("gap", [0.05, 0.15, 0.3])
def test_a_second_ctrl_c_after_a_quick_stop_still_exits_with_130(tmp_path, gap):
    """The first press stops a run of short decisions at once; the second then lands while
    it closes its file or exits, and must not kill it by signal (exit -2)."""
    out = tmp_path / "quick.parquet"
    _, code, stderr = interrupt_slow_run(tmp_path, out, presses=2, decision_seconds=0.02, gap=gap)
    assert code == 130 and "Traceback" not in stderr, stderr
    assert list(tmp_path.glob(".*.tmp")) == []
    assert not out.exists() or read_results(out).config["status"] == "partial"  # kept whole, or not at all


def stopped_after(seconds: float):
    """A StopFlag that sets itself after ``seconds``, as a Ctrl-C would."""
    import threading

    from sim.base.interrupt import StopFlag

    stop = StopFlag()
    threading.Timer(seconds, stop.set).start()
    return stop


def slow_config(players=2, match="deal"):
    """Deals of about a fifth of a second each (ten decisions of 20 ms)."""
    from sim.base.config import RunConfig
    from sim.runtime.play import lineup

    config = RunConfig(players=players, strategies=("slow:seconds=0.02", "random") * (players // 2), deals=1, seed=1,
                       threads=2, strategy_files=(SLOW_FILE,), match=match)  # fmt: skip
    lineup(config)  # compiled before any clock starts
    return config


def test_a_stop_cuts_a_batch_to_the_deals_finished_from_the_first():
    from sim.runtime.play import play_batch

    config = slow_config()
    batch = play_batch(config, 0, 64, stop=stopped_after(0.6))
    done = batch.completed
    assert 0 < done < 64
    assert list(batch.results["deal"][:done]) == list(range(done))  # a prefix, each deal marked when it ended
    kept = batch.head(done)
    again = play_batch(config, 0, done)  # the same deals, played to the end
    assert (kept.results["seat_points"] == again.results["seat_points"]).all() and len(kept.results) == done


def test_a_stop_keeps_whole_matches_and_whole_duplicate_deals_only():
    from sim.pipeline.kinds.compare import DuplicatesPlayer
    from sim.pipeline.matches import play_matches

    matches = play_matches(slow_config(match="best-of-3"), 0, 32, stop=stopped_after(0.8))
    done = matches.completed
    assert 0 <= done < 32 and matches.played.shape[0] == matches.points.shape[0] == matches.standing.shape[0] == done
    assert all(len(b.results) == done and (b.results["deal"] >= 0).all() for b in matches.batches)
    player = DuplicatesPlayer(slow_config(), "slow:seconds=0.02", "random")
    tally = player.new_tally()
    played = player.play(0, 24, tally, stopped_after(2.5))  # during the second seating
    assert 0 <= played < 24 and tally.units == played


def test_a_ctrl_c_handled_inside_an_exec_does_not_turn_the_exit_into_a_death_by_signal(tmp_path):
    """A press that lands in code run by exec() (a dataclass made by a first import) is
    turned into exit 130 by typer; under ``python -m`` CPython would still kill the
    process by SIGINT at exit (exit -2) unless the run clears that mark."""
    (tmp_path / "pressed_in_exec.py").write_text(
        "import sim.app.cli\n"
        "def main():\n"
        "    try:\n"
        "        exec('raise KeyboardInterrupt')\n"
        "    except KeyboardInterrupt:\n"
        "        return 130\n"
        "sim.app.cli.main = main\n"
        "sim.app.cli.run()\n"
    )
    done = subprocess.run([sys.executable, "-m", "pressed_in_exec"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{tmp_path}"})  # fmt: skip
    assert done.returncode == 130, done.stderr
