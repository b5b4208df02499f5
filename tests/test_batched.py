"""Batched strategies (Python callables over many decisions, played in lock-step): the
same deals as the jitted strategy they mirror, whatever the batch and thread count; at
every table, Briscola Chiamata's bids and calls included; in every command; and their
mistakes named in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import sim.runtime.lockstep
from sim.base.config import IllegalDecisionError, RunConfig
from sim.runtime.play import play_batch
from strategies.errors import StrategyError
from tests.helpers import REPO, run_cli, run_here

FILE = str(REPO / "tests" / "batched_strategies.py")


def played(players, strategies, deals=400, seed=5, threads=1):
    config = RunConfig(players=players, strategies=strategies, deals=deals, seed=seed, threads=threads,
                       strategy_files=(FILE,))  # fmt: skip
    return play_batch(config, 0, deals, trace=True)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_batched_strategy_plays_the_deals_its_jitted_twin_plays(players):
    """``brandom`` draws its card from the key the kernels give it as ``random`` (or, at
    5 players, ``jrandom`` with the same default auction) draws from its stream: every
    card, trick and score must be the same."""
    twin = "jrandom" if players == 5 else "random"
    jitted = played(players, (twin,) * players)
    batched = played(players, ("brandom",) + (twin,) * (players - 2) + ("brandom",))
    assert batched.results.tobytes() == jitted.results.tobytes()
    assert batched.records.tobytes() == jitted.records.tobytes()


def test_results_do_not_depend_on_the_batch_or_the_threads(monkeypatch):
    first = played(4, ("bbidder", "random", "brandom", "greedy"), deals=300, threads=1)
    monkeypatch.setattr(sim.runtime.lockstep, "LANES", 7)  # many waves, the last one short
    again = played(4, ("bbidder", "random", "brandom", "greedy"), deals=300, threads=2)
    assert again.results.tobytes() == first.results.tobytes()
    assert again.records.tobytes() == first.records.tobytes()


@pytest.mark.parametrize("kind", ["simulate", "compare"])
def test_the_clock_does_not_choose_which_deals_share_a_batched_call(monkeypatch, kind):
    """A run is cut into batches timed on the machine's speed; with a batched strategy the
    cuts fall on the lock-step waves' grid instead, so a strategy whose answer depends on
    what shares its call (``crowd``; a float network at a near-tie) plays the same deals
    on a fast or a slow machine (the same command once gave other rows after a resume)."""
    import sim.app.api
    import sim.pipeline.chunks

    def run(batch_size):
        monkeypatch.setattr(
            sim.pipeline.chunks, "next_batch_size", lambda *_: batch_size
        )  # how fast the machine seemed
        if kind == "simulate":
            return sim.app.api.simulate("crowd,greedy", deals=3000, seed=2, threads=1, strategy_files=(FILE,)).results
        return sim.app.api.compare("crowd", "greedy", deals=3000, seed=2, threads=1, strategy_files=(FILE,)).results

    monkeypatch.setattr(sim.runtime.lockstep, "LANES", 512)  # several waves in 3,000 deals
    fast, slow = run(2000), run(100)
    assert fast.deals.equals(slow.deals)


@pytest.mark.parametrize("match", ["deal", "best-of-3"])
def test_a_chunk_off_the_grid_plays_the_same_calls_at_any_pace(monkeypatch, match):
    """A study's chunk that starts and ends off the grid (--chunk-deals 700): its waves
    still end on the grid's multiples, whatever batches the clock cuts it in."""
    import sim.pipeline.chunks
    from sim.pipeline.experiments import make_experiment

    monkeypatch.setattr(sim.runtime.lockstep, "LANES", 256)
    experiment = make_experiment("simulate", players=2, strategies=["crowd", "greedy"], deals=3000, seed=3, threads=1,
                                 strategy_files=(FILE,), match=match)  # fmt: skip
    chunk = sim.pipeline.chunks.chunks_of(experiment, 700)[1]  # units 700 .. 1399

    def rows(batch_size):
        monkeypatch.setattr(sim.pipeline.chunks, "FIRST_BATCH", batch_size)
        monkeypatch.setattr(sim.pipeline.chunks, "next_batch_size", lambda *_: batch_size)
        return sim.pipeline.chunks.run_chunk(experiment, chunk, rows=True).table

    assert rows(600).equals(rows(90))


def test_a_studys_chunks_end_where_the_waves_do(monkeypatch):
    """A study's chunk size, measured on the machine's speed, is a multiple of the
    lock-step grid with a batched strategy (else its chunks' edges would cut waves where
    the clock said), and stays as measured without one."""
    from sim.pipeline.experiments import make_experiment
    from sim.pipeline.study import calibrate

    monkeypatch.setattr(sim.runtime.lockstep, "LANES", 96)
    batched = make_experiment("simulate", players=2, strategies=["brandom", "greedy"], deals=10**8, seed=1,
                              threads=1, strategy_files=(FILE,))  # fmt: skip
    jitted = make_experiment("simulate", players=2, strategies=["random", "greedy"], deals=10**8, seed=1, threads=1)
    assert calibrate(batched).units % 96 == 0
    assert calibrate(jitted).units % 96 != 0  # 1, 2 or 5 times a power of ten


def test_bids_and_calls_are_batched_at_briscola_chiamata():
    batch = played(5, ("bbidder", "random", "random", "random", "random"), deals=300)
    seat0 = batch.records["auction_seats"] == 0
    bids = batch.records["auction_bids"][seat0]
    assert (bids == -1).any() and (bids >= 0).any()  # it passes and bids, on its keys
    called = batch.results[batch.results["caller"] == 0]["called"]
    assert called.size and all(c < 10 for c in called)  # the lowest legal call: the Denari card of the bid's face


@pytest.mark.parametrize(
    "name, message",
    [
        ("wrong-shape", "returned int64 of shape (400, 2) for 400 views deciding a play; it must return one integer"),
        ("raising", "strategy 'raising' raised ValueError deciding a play: the model is not loaded"),
        ("exiting", "strategy 'exiting' raised SystemExit deciding a play: 0"),
        ("closing", "strategy 'closing' raised GeneratorExit deciding a play"),
    ],
)
def test_a_batched_strategy_breaking_its_contract_is_named(name, message):
    with pytest.raises(StrategyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        played(2, (name, "random"))


def test_a_card_not_in_hand_is_an_illegal_decision_with_its_view():
    with pytest.raises(
        IllegalDecisionError, match=r"strategy 'not-in-hand' \(seat 0\) returned card .* not in its hand"
    ):
        played(2, ("not-in-hand", "random"))


def test_compare_takes_a_batched_strategy_and_records_its_identity(tmp_path):
    done = run_here("compare", "brandom", "random", "--players", "2", "--deals", "300", "--seed", "3",
                    "--strategy-file", FILE, "--out", tmp_path / "c.parquet", "--json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert abs(summary["score"] - 0.5) < 0.1  # random against random
    same = run_here("compare", "random", "random", "--players", "2", "--deals", "300", "--seed", "3",
                    "--out", tmp_path / "r.parquet", "--json", cwd=tmp_path)  # fmt: skip
    assert json.loads(same.stdout)["score"] == summary["score"]  # keyed alike: the same games


def test_a_broken_batched_strategy_exits_2_in_one_line(tmp_path):
    done = run_here("simulate", "--strategies", "raising,random", "--players", "2", "--deals", "50", "--seed", "1",
                    "--strategy-file", FILE,
                    "--out", tmp_path / "x.parquet", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "the model is not loaded" in done.stderr
    assert not (tmp_path / "x.parquet").exists()


@pytest.mark.parametrize("name", ["exiting", "closing"])
@pytest.mark.parametrize("command", ["simulate", "compare", "batch"])
def test_a_batched_strategy_that_exits_or_closes_fails_the_run_in_one_line(tmp_path, name, command):
    """SystemExit(0) from a strategy ended the run with exit 0, no file, no word."""
    out = tmp_path / "x.parquet"
    runs = {
        "simulate": ("simulate", "--strategies", f"{name},random", "--out", out),
        "compare": ("compare", name, "random", "--out", out, "--json"),
        "batch": ("batch", tmp_path / "plan.toml"),
    }
    (tmp_path / "plan.toml").write_text(
        f'out = "{tmp_path / "study"}"\nstrategy_files = ["{FILE}"]\n[[compare]]\nname = "e"\n'
        f'a = "{name}"\nb = "random"\nplayers = 2\ndeals = 50\nseed = 1\n'
    )
    arguments = runs[command] if command == "batch" else (*runs[command], "--players", "2", "--deals", "50",
                                                          "--seed", "1", "--strategy-file", FILE)  # fmt: skip
    done = run_here(*arguments, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"strategy {name!r} raised" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


def test_a_batched_strategy_is_told_where_each_decision_was_taken():
    """A callable with a ``where`` argument gets each decision's deal and seat."""
    seen = []

    def logging_random(views, legal, params, keys, where):
        seen.append(where.copy())
        return original(views, legal, params, keys)

    config = RunConfig(players=3, strategies=("brandom", "random", "brandom"), deals=30, seed=2, threads=1,
                       strategy_files=(FILE,))  # fmt: skip
    plain = play_batch(config, 10, 30).results
    spec = sim.runtime.play.lineup(config).batched[0].spec
    original = spec.strategy.choose
    object.__setattr__(spec.strategy, "choose", logging_random)
    try:
        assert play_batch(config, 10, 30).results.tobytes() == plain.tobytes()
    finally:
        object.__setattr__(spec.strategy, "choose", original)
    where = np.concatenate(seen)
    assert set(where["seat"].tolist()) == {0, 2}
    assert sorted(set(where["deal"].tolist())) == list(range(10, 40))
    assert len(where) == 30 * 2 * 13  # 13 cards per seat at 3 players, for both batched seats


def test_a_batched_strategys_start_up_is_not_called_compiling(tmp_path):
    """Its first decisions' time was printed as "compiled the kernels in ... s"."""
    arguments = ("simulate", "--strategies", "slow-start,random", "--players", "2", "--deals", "20", "--seed", "1",
                 "--strategy-file", FILE, "--summary-only")  # fmt: skip
    run_cli(*arguments, cwd=tmp_path, env={"PYTHONPATH": str(REPO)})  # the caches filled, if they were not
    done = run_cli(*arguments, cwd=tmp_path, env={"PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    noted = [line for line in done.stderr.splitlines() if "first decisions took" in line]
    assert len(noted) == 1 and float(noted[0].split(" took ")[1].split(" s")[0]) >= 2.5
    assert "compiled the kernels" not in done.stderr


def test_check_passes_a_batched_strategy_at_every_table(tmp_path):
    done = run_here("check", "bbidder", "--strategy-file", FILE, "--deals", "30", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] and {t["players"] for t in report["tables"]} == {2, 3, 4, 5, 6}


def test_batched_views_are_sealed():
    """What a batched strategy writes into its views changes nothing."""
    config = RunConfig(players=2, strategies=("brandom", "random"), deals=50, seed=2, threads=1,
                       strategy_files=(FILE,))  # fmt: skip
    clean = play_batch(config, 0, 50).results
    spec = sim.runtime.play.lineup(config).batched[0].spec
    original = spec.strategy.choose

    def scribbling(views, legal, params, keys):
        cards = original(views, legal, params, keys)
        views["hand"], views["points"], legal[:] = 0, 99, False
        return cards

    object.__setattr__(spec.strategy, "choose", scribbling)
    try:
        assert play_batch(config, 0, 50).results.tobytes() == clean.tobytes()
    finally:
        object.__setattr__(spec.strategy, "choose", original)


def test_each_decision_gets_a_fresh_key():
    keys = []
    config = RunConfig(players=2, strategies=("brandom", "brandom"), deals=20, seed=2, threads=1,
                       strategy_files=(FILE,))  # fmt: skip
    spec = sim.runtime.play.lineup(config).batched[0].spec
    original = spec.strategy.choose
    object.__setattr__(spec.strategy, "choose", lambda v, m, p, k: keys.append(k.copy()) or original(v, m, p, k))
    try:
        play_batch(config, 0, 20)
    finally:
        object.__setattr__(spec.strategy, "choose", original)
    every = np.concatenate(keys)
    assert every.size == 20 * 40 and np.unique(every).size == every.size


def test_a_ctrl_c_on_the_main_thread_is_not_blamed_on_the_strategy():
    """A training loop's step asks on the main thread, where a Ctrl-C lands: it goes on as
    KeyboardInterrupt. On the kernel thread (a command's run) no signal lands: a
    KeyboardInterrupt there is the strategy's own, and named."""
    import threading

    from sim.runtime.lockstep import WHERE_DTYPE, ask

    def interrupted(views, legal, params, keys):
        raise KeyboardInterrupt

    config = RunConfig(players=2, strategies=("brandom", "random"), deals=1, seed=2, strategy_files=(FILE,))
    spec = sim.runtime.play.lineup(config).batched[0].spec
    views = np.zeros(1, dtype=sim.runtime.lockstep.VIEW_DTYPE)
    question = (spec, interrupted, "play", views, np.zeros(1, dtype=np.uint64), np.zeros(1, dtype=WHERE_DTYPE))
    with pytest.raises(KeyboardInterrupt):
        ask(*question)
    raised = []
    thread = threading.Thread(target=lambda: raised.append(pytest.raises(StrategyError, ask, *question)))
    thread.start()
    thread.join()
    assert "raised KeyboardInterrupt deciding a play" in str(raised[0].value)
