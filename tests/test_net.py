"""Strategies that play with data, and ``net``: weights reach the kernels as read-only
arrays (new weights, no new compile), the network the kernels run is the one trained
(its logits against numpy's on the same observations), and ``net`` at every table."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from kernels.engine_nb import simulate_nb
from sim.app.check import view_record
from sim.base.config import RunConfig
from sim.base.trace import trace_rows
from sim.rl.learn import forward, save_networks
from sim.runtime.play import play_batch, views_along_plays
from strategies.errors import StrategyError
from strategies.library import NET
from strategies.net_nb import HEAD_OFFSETS, HEAD_VERSION, new_work_nb, policy_logits_nb
from strategies.nets import (
    WEIGHTS,
    WEIGHTS_HASH,
    layers,
    net_data,
    pack,
    provenance,
    provenance_path,
    shipped_tables,
    weights_hash,
    weights_path,
    weights_version,
)
from strategies.observation import FLAT_VERSIONS, encode_flat, flat_offsets, flat_size
from tests.helpers import REPO, deal_views, run_here

DATA_FILE = str(REPO / "tests" / "data_strategies.py")


def config(strategies, players=2, deals=300, seed=5):
    return RunConfig(players=players, strategies=tuple(strategies), deals=deals, seed=seed, threads=1,
                     strategy_files=(DATA_FILE,))  # fmt: skip


def played(strategies, players=2):
    return play_batch(config(strategies, players), 0, 300, trace=True).records["plays"]


def decision_views(cfg: RunConfig) -> list:
    """The view of every card played in ``cfg``'s deals (``deal_views``), one list."""
    return [view for deal in deal_views(cfg) for view in deal]


def test_data_reaches_the_decision_and_new_data_does_not_recompile():
    by_data = played(["ranked-lowest", "random"])
    compiled = len(simulate_nb.overloads)
    assert np.array_equal(by_data, played(["lowest-code", "random"]))  # the data decided every card
    assert not np.array_equal(played(["ranked", "random"]), by_data)  # other data, other cards
    assert len(simulate_nb.overloads) == compiled  # and the engine was not compiled again


def test_data_is_per_table():
    from tests.data_strategies import RANKED

    assert RANKED.data_for(2)[1] == 2 and RANKED.data_for(4)[1] == 4
    assert not RANKED.data_for(2).flags.writeable


def test_a_strategy_cannot_write_into_its_data():
    result = run_here("simulate", "--strategies", "scribbler,random", "--players", "2", "--deals", "10", "--seed", "1",
                      "--strategy-file", DATA_FILE)  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "strategy 'scribbler'" in result.stderr and "setitem(readonly array(float32" in result.stderr


@pytest.mark.parametrize("players", shipped_tables())
def test_the_kernels_run_the_trained_network(players):
    """The jitted policy's logits, against numpy's forward pass over the npz's layers, on
    the views of real deals."""
    cfg = RunConfig(players=players, strategies=("greedy",) * players, deals=5, seed=3, threads=1)
    views = np.concatenate(decision_views(cfg))
    with np.load(weights_path(players)) as weights:
        network, version = layers(weights, "policy"), weights_version(weights, players)
    hidden = encode_flat(views, version=version).astype(np.float64)
    for k, (weight, bias) in enumerate(network):
        hidden = hidden @ weight + bias
        hidden = np.maximum(hidden, 0) if k < len(network) - 1 else hidden
    data = net_data(players)
    for i, view in enumerate(views):
        logits = np.empty(40)
        policy_logits_nb(view, data, logits, new_work_nb(data))
        hand = view["hand"][: view["n_hand"]]
        np.testing.assert_allclose(logits[: view["n_hand"]], hidden[i, hand], rtol=1e-4, atol=1e-4)


def test_the_shipped_networks_read_version_1_of_the_flat_encoding():
    """They were trained on it: their data says so, and their inputs are its width."""
    for players in shipped_tables():
        data = net_data(players)
        assert int(data[HEAD_VERSION]) == 1 and int(data[1]) == flat_size(players, 1)
        offsets = data[HEAD_OFFSETS : HEAD_OFFSETS + len(flat_offsets(players))].astype(int)
        assert offsets.tolist() == flat_offsets(players, 1).tolist()


@pytest.mark.parametrize("version", FLAT_VERSIONS)
@pytest.mark.parametrize("players", [2, 4, 5])
def test_a_network_of_either_version_is_run_by_the_kernels_as_numpy_runs_it(players, version):
    """Random networks taking each version's width: the kernels read the version from it
    (the packed offsets) and give numpy's logits and value on the views of real deals."""
    from strategies.net_nb import value_nb

    rng = np.random.default_rng(version)
    width = flat_size(players, version)
    policy = [(rng.normal(0, 0.3, (width, 16)).astype(np.float32), rng.normal(0, 0.1, 16).astype(np.float32)),
              (rng.normal(0, 0.3, (16, 40)).astype(np.float32), np.zeros(40, np.float32))]  # fmt: skip
    value = [(rng.normal(0, 0.3, (width, 8)).astype(np.float32), np.zeros(8, np.float32)),
             (rng.normal(0, 0.3, (8, 1)).astype(np.float32), np.zeros(1, np.float32))]  # fmt: skip
    data = pack(policy, value, players)
    cfg = RunConfig(players=players, strategies=("greedy",) * players, deals=3, seed=4, threads=1)
    views = np.concatenate(decision_views(cfg))
    obs = encode_flat(views, version=version).astype(np.float64)
    logits, values = forward(policy, obs), forward(value, obs)[:, 0]
    for i, view in enumerate(views):
        got = np.empty(40)
        policy_logits_nb(view, data, got, new_work_nb(data))
        hand = view["hand"][: view["n_hand"]]
        np.testing.assert_allclose(got[: view["n_hand"]], logits[i, hand], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(value_nb(view, data, new_work_nb(data)), values[i], rtol=1e-4, atol=1e-4)


def test_net_has_no_weights_for_a_table_without_them(tmp_path):
    with pytest.raises(StrategyError, match="net has no weights for 2 players"):
        net_data(2, folder=tmp_path)


def rehashed(folder, players: int = 2) -> None:
    """The provenance in ``folder`` made to vouch for the table's weights as they are now."""
    path = provenance_path(players, folder)
    facts = json.loads(path.read_text())
    path.write_text(json.dumps({**facts, WEIGHTS_HASH: weights_hash(weights_path(players, folder).read_bytes())}))


def with_nan(folder) -> None:
    with np.load(weights_path(2, folder)) as saved:
        weights = dict(saved)
    weights["policy.0.weight"][3, 5] = np.nan
    np.savez(weights_path(2, folder), **weights)


def tampered(folder) -> None:
    with np.load(weights_path(2, folder)) as saved:
        weights = dict(saved)
    weights["policy.2.bias"] = weights["policy.2.bias"] + 1.0  # finite: it would play, as another network
    np.savez(weights_path(2, folder), **weights)


def copy_of_the_shipped_networks(tmp_path, damage) -> tuple[Path, Path]:
    """A copy of strategies/weights damaged by ``damage(folder)``, and a plug-in file beside
    it whose ``mine`` and ``mine-pimc`` are ``net`` and ``pimc`` playing that copy."""
    folder = tmp_path / "weights"
    shutil.copytree(WEIGHTS, folder)
    damage(folder)
    plugin = tmp_path / "mine.py"
    plugin.write_text("from strategies.library import PIMC, net_from, with_networks\n"
                      f"MINE = net_from({str(folder)!r}, 'mine')\n"
                      f"MINE_PIMC = with_networks(PIMC, {str(folder)!r}, 'mine-pimc')\n")  # fmt: skip
    return folder, plugin


@pytest.mark.parametrize("damage, message", [
    (tampered, "net-2p.npz is not the file its provenance net-2p.json describes"),
    (lambda folder: (with_nan(folder), rehashed(folder)), "holds values that are not finite numbers (NaN"),
    (lambda folder: (weights_path(2, folder).write_bytes(weights_path(2).read_bytes()[:1000]), rehashed(folder)),
     "net-2p.npz are damaged: not an .npz numpy can read (BadZipFile"),
    (lambda folder: (weights_path(2, folder).write_bytes(b""), rehashed(folder)), "net-2p.npz are damaged"),
    (lambda folder: provenance_path(2, folder).write_text('{"table": "2 players"}'), "records no weights_sha256"),
    (lambda folder: provenance_path(2, folder).write_text('{"table": '), "net-2p.json cannot be read"),
], ids=["tampered", "nan", "cut-short", "empty", "no-hash", "provenance-cut-short"])  # fmt: skip
def test_networks_that_are_not_what_their_provenance_describes_are_refused_in_one_line(tmp_path, damage, message):
    """Weights changed under their provenance, weights that are not finite (a NaN played on
    as some card), a damaged file (cut short: a numpy traceback; empty: "interrupted"), a
    provenance that vouches for no file in particular: each is one line naming the file."""
    folder, plugin = copy_of_the_shipped_networks(tmp_path, damage)
    done = run_here("compare", "mine", "random", "--players", "2", "--deals", "20", "--seed", "1", "--strategy-file",
                    plugin, "--out", tmp_path / "r.parquet")  # fmt: skip
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert message in done.stderr and str(folder / "net-2p.") in done.stderr
    assert not (tmp_path / "r.parquet").exists()


def test_a_damaged_table_leaves_the_others_playing(tmp_path):
    """One table's damaged weights (Briscola Chiamata's) stop only the runs at that table:
    ``net`` and ``pimc`` read each table's networks alone."""
    folder, plugin = copy_of_the_shipped_networks(
        tmp_path, lambda folder: weights_path(5, folder).write_bytes(weights_path(5).read_bytes()[:1000])
    )
    for spec in ("mine", "mine-pimc:samples=2"):
        done = run_here("compare", spec, "random", "--players", "2", "--deals", "20", "--seed", "1",
                        "--strategy-file", plugin, cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
    at_five = run_here("compare", "mine", "random", "--players", "5", "--deals", "20", "--seed", "1",
                       "--strategy-file", plugin, cwd=tmp_path)  # fmt: skip
    assert at_five.returncode == 2 and len(at_five.stderr.splitlines()) == 1, at_five.stderr
    assert str(folder / "net-5p.npz") in at_five.stderr


@pytest.mark.parametrize("players", shipped_tables())
def test_each_shipped_provenance_vouches_for_its_weights(players):
    facts = json.loads(provenance_path(players).read_text())
    assert facts[WEIGHTS_HASH] == hashlib.sha256(weights_path(players).read_bytes()).hexdigest()
    assert provenance(players) == facts


def test_results_record_the_networks_provenance(tmp_path):
    players = shipped_tables()[0]
    out = tmp_path / "r.parquet"
    result = run_here("simulate", "--strategies", ",".join(["net"] + ["random"] * (players - 1)), "--players",
                      str(players), "--deals", "50", "--seed", "1", "--out", out)  # fmt: skip
    assert result.returncode == 0, result.stderr
    seats = json.loads(pq.read_metadata(out).metadata[b"briscola"])["strategies"]
    assert seats[0]["provenance"] == json.loads(weights_path(players).with_suffix(".json").read_text())
    assert seats[0]["fingerprint"] == NET.fingerprint()


def example_module(name: str):
    """A script of examples/, imported."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("players", [2, 4, 5])
def test_training_from_a_studys_traces_writes_weights_the_kernels_take(tmp_path, players):
    """The retraining recipe, small: a study whose plan keeps traces, then train_net.py;
    its weights pack for the kernels and its provenance names the data."""
    plan = tmp_path / "plan.toml"
    plan.write_text(f"[[simulate]]\nname = 'data'\nplayers = {players}\nstrategies = ['greedy']\ndeals = 40\n"
                    "seed = 9\ntrace = true\n[[simulate]]\nname = 'other'\nplayers = 2\nstrategies = ['random']\n"
                    "deals = 10\nseed = 9\n")  # fmt: skip
    made = run_here("batch", plan, "--out", tmp_path / "study", "--quiet")
    assert made.returncode == 0, made.stderr
    train = [sys.executable, str(REPO / "examples" / "train_net.py"), "--players", str(players), "--study",
             str(tmp_path / "study"), "--epochs", "1", "--augment", "1", "--out", str(tmp_path / "w")]  # fmt: skip
    done = subprocess.run(train, capture_output=True, text=True, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    facts = json.loads((tmp_path / "w" / f"net-{players}p.json").read_text())
    assert provenance(players, tmp_path / "w") == facts  # bound to the weights written beside it
    data = facts["data"]
    assert (
        data["deals"] == 40 and data["seed"] == 9 and data["strategies"] == ["greedy"] and data["experiment"] == "data"
    )
    per_deal = 40 - players  # the decisions with two or more cards in hand: all but the last trick's
    played = data["decisions"] // per_deal  # at 5 players a deal all pass on is thrown in
    assert data["decisions"] == played * per_deal and (played == 40 or players == 5 and played > 0)
    with np.load(tmp_path / "w" / f"net-{players}p.npz") as weights:
        assert len(pack(layers(weights, "policy"), layers(weights, "value"), players)) > 10_000
        assert weights["policy.0.weight"].shape[0] == facts["flat_encoding_width"] == flat_size(players)
    assert facts["flat_encoding_version"] == 2  # the newest, by default
    again = subprocess.run(train[:-1] + [str(tmp_path / "w2")], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert again.returncode == 0, again.stderr
    with (
        np.load(tmp_path / "w" / f"net-{players}p.npz") as first,
        np.load(tmp_path / "w2" / f"net-{players}p.npz") as second,
    ):
        assert all(np.array_equal(first[key], second[key]) for key in first.files)  # reproducible from its seed
    assert (
        json.loads((tmp_path / "w2" / f"net-{players}p.json").read_text())["data"]["deals_sha256"]
        == data["deals_sha256"]
    )
    wrong = subprocess.run(train[:3] + ["3"] + train[4:], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert wrong.returncode == 2 and "one experiment at 3 players with trace = true" in wrong.stderr
    nowhere = subprocess.run(train[:5] + [str(tmp_path / "none")] + train[6:], capture_output=True, text=True,
                             cwd=REPO, timeout=600)  # fmt: skip
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "_study.json").write_text("someone else's")
    foreign = subprocess.run(train[:5] + [str(tmp_path / "foreign")] + train[6:], capture_output=True, text=True,
                             cwd=REPO, timeout=600)  # fmt: skip
    assert foreign.returncode == 2 and foreign.stderr.startswith(f"train_net.py: error: --study {tmp_path / 'foreign'}")
    assert (
        len(foreign.stderr.splitlines()) == 1 and (tmp_path / "foreign" / "_study.json").read_text() == "someone else's"
    )
    one = subprocess.run(train + ["--max-deals", "1"], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert one.returncode == 2 and len(one.stderr.splitlines()) == 1 and "a study of 40 deals or more" in one.stderr
    assert nowhere.returncode == 2 and nowhere.stderr.splitlines() == [
        f"train_net.py: error: --study {tmp_path / 'none'} is not a study's folder (no _study.json); valid: the out "
        "folder of briscola batch PLAN"
    ]
    assert "networks" not in data  # greedy reads none
    if players == 2:  # the version the shipped networks read, asked for
        old = subprocess.run(train[:-1] + [str(tmp_path / "v1"), "--flat-version", "1"], capture_output=True, text=True,
                             cwd=REPO, timeout=600)  # fmt: skip
        assert old.returncode == 0, old.stderr
        assert json.loads((tmp_path / "v1" / "net-2p.json").read_text())["flat_encoding_version"] == 1
        assert [int(net_data(2, tmp_path / f)[HEAD_VERSION]) for f in ("v1", "w")] == [1, 2]


def test_a_second_rounds_networks_name_the_networks_their_data_was_played_with(tmp_path):
    """Expert iteration's provenance: a study of strategies that read networks (net, as
    pimc:policy_prior does, and a plug-in's copy of them with its own record) records
    their provenance beside their fingerprints; the networks trained on it name them, and
    their one-line provenance names the shipped ones'."""
    import shutil

    from sim.present.report import _provenance_line
    from strategies.nets import provenance, provenance_path

    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(weights_path(2), copy / weights_path(2).name)
    provenance_path(2, copy).write_text(json.dumps({"table": "2 players", "note": "a copy"}))
    rehashed(copy)
    own = provenance(2, copy)
    (tmp_path / "mine.py").write_text(
        f"from strategies.library import net_from\nMINE = net_from({str(copy)!r}, 'mine')\n"
    )
    plan = tmp_path / "plan.toml"
    plan.write_text(f"strategy_files = [{str(tmp_path / 'mine.py')!r}]\n[[simulate]]\nname = 'data'\nplayers = 2\n"
                    "strategies = ['net', 'mine']\ndeals = 30\nseed = 9\ntrace = true\n")  # fmt: skip
    made = run_here("batch", plan, "--out", tmp_path / "study", "--quiet")
    assert made.returncode == 0, made.stderr
    recorded = json.loads((tmp_path / "study" / "_study.json").read_text())["experiments"][0]["provenance"]
    assert recorded == {"net": provenance(2), "mine": own}
    train = [sys.executable, str(REPO / "examples" / "train_net.py"), "--players", "2", "--study",
             str(tmp_path / "study"), "--epochs", "1", "--out", str(tmp_path / "w")]  # fmt: skip
    done = subprocess.run(train, capture_output=True, text=True, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    facts = json.loads((tmp_path / "w" / "net-2p.json").read_text())
    teachers = facts["data"]["networks"]
    assert teachers["net"] == {"fingerprint": NET.fingerprint(), "provenance": provenance(2)}
    assert teachers["mine"]["provenance"] == own
    assert teachers["mine"]["fingerprint"] != NET.fingerprint()
    line = _provenance_line(facts)
    assert f"the data's net read networks {NET.fingerprint()}, whose policy imitates" in line
    assert f"made by plan {tmp_path / 'study' / '_plan.toml'}, experiment data;" in line  # what made the data


def test_renamed_suits_keep_every_decision_true():
    """Suits renamed at random: the chosen card stays in the hand, who played each card
    stays, the trump stays the briscola's suit, the points do not move."""
    train_net = example_module("train_net")
    batch = play_batch(RunConfig(players=4, strategies=("greedy",) * 4, deals=20, seed=2, threads=1), 0, 20, True)
    cfg = RunConfig(players=4, strategies=("greedy",) * 4, deals=20, seed=2, threads=1)
    views, cards = [], []
    for i in range(20):
        plays = batch.records[i]["plays"]
        plays = plays[plays >= 0]
        for view, card in zip(views_along_plays(cfg, batch.deals[i], plays), plays):
            views.append(view_record(view, 4, batch.deals[i]))
            cards.append(card)
    views, cards = np.concatenate(views), np.array(cards)
    renamed, renamed_cards = train_net.with_suits_permuted(views, cards, np.random.default_rng(0))
    cards_face_up = views["face_up"] % 10
    assert not np.array_equal(renamed["hand"], views["hand"])
    for i in range(len(views)):
        assert renamed_cards[i] in renamed["hand"][i][: renamed["n_hand"][i]]
        assert renamed_cards[i] % 10 == cards[i] % 10  # the same face
        for k in range(views["n_played"][i]):
            assert renamed["played_by"][i][renamed["history"][i][k]] == views["played_by"][i][views["history"][i][k]]
        if renamed["briscola"][i] >= 0:
            assert renamed["briscola"][i] == renamed["face_up"][i]
        assert (
            renamed["face_up"][i] // 10 == renamed["trump_suit"][i] and renamed["face_up"][i] % 10 == cards_face_up[i]
        )
    assert np.array_equal(renamed["points"], views["points"])


def test_net_from_another_folder_plays_its_networks_and_records_them(tmp_path):
    """Retrained networks in a folder of their own, as a one-line plug-in: another
    fingerprint, their own provenance in the result file, the shipped net unchanged."""
    import shutil

    for players in (2, 4):
        for path in (weights_path(players), weights_path(players).with_suffix(".json")):
            shutil.copy(path, tmp_path / path.name)
    with np.load(tmp_path / "net-2p.npz") as saved:
        weights = dict(saved)
    weights["policy.2.bias"] = weights["policy.2.bias"] + np.arange(40, dtype=np.float32)  # prefers high codes
    np.savez(tmp_path / "net-2p.npz", **weights)
    (tmp_path / "net-2p.json").write_text(json.dumps({"table": "2 players", "note": "edited"}))
    rehashed(tmp_path)
    plugin = tmp_path / "mine.py"
    plugin.write_text(f"from strategies.library import net_from\nMINE = net_from({str(tmp_path)!r}, 'mine')\n")
    out = tmp_path / "r.parquet"
    result = run_here("simulate", "--strategies", "mine,net", "--players", "2", "--deals", "200", "--seed", "1",
                      "--out", out, "--strategy-file", plugin)  # fmt: skip
    assert result.returncode == 0, result.stderr
    seats = json.loads(pq.read_metadata(out).metadata[b"briscola"])["strategies"]
    assert seats[0]["provenance"] == provenance(2, tmp_path) and seats[0]["provenance"]["note"] == "edited"
    assert seats[0]["fingerprint"] != seats[1]["fingerprint"] == NET.fingerprint()
    missing = run_here("simulate", "--strategies", "mine,random,random", "--players", "3", "--deals", "10", "--seed",
                       "1", "--strategy-file", plugin)  # fmt: skip
    assert missing.returncode == 2 and "mine has no weights for 3 players" in missing.stderr


def run_example(script, *args):
    return subprocess.run([sys.executable, str(REPO / "examples" / script), *map(str, args)], capture_output=True,
                          text=True, cwd=REPO, timeout=900)  # fmt: skip


def test_tuning_by_play_changes_the_policy_alone_reproducibly(tmp_path):
    tune = ["--players", 2, "--rounds", 3, "--warm-up", 1, "--lanes", 16, "--pool", "random", "net"]
    for out in ("a", "b"):
        done = run_example("tune_net.py", *tune, "--out", tmp_path / out)
        assert done.returncode == 0, done.stderr
    with np.load(weights_path(2)) as shipped, np.load(tmp_path / "a" / "net-2p.npz") as a:
        with np.load(tmp_path / "b" / "net-2p.npz") as b:
            assert all(np.array_equal(a[key], b[key]) for key in a.files)  # the same seed and rounds
            assert all(np.array_equal(a[key], shipped[key]) == key.startswith("value.") for key in a.files)
    shipped_tuning = json.loads(weights_path(2).with_suffix(".json").read_text()).get("tuning", [])
    *earlier, tuning = json.loads((tmp_path / "a" / "net-2p.json").read_text())["tuning"]
    assert earlier == shipped_tuning  # this tuning is added to the record, the earlier ones kept
    assert tuning["rounds"] == 3 and tuning["deals"] == 3 * 16 * 2 and tuning["pool"] == ["random", "net"]
    assert tuning["pool_networks"] == {"net": NET.fingerprint()}  # which networks the pool's net played


def test_saving_networks_is_whole_or_not_at_all(tmp_path, monkeypatch):
    """A save that fails part-way (a full disk, a kill) leaves the weights it would have
    replaced, and no half-written file beside them; the provenance it writes vouches for
    the weights it wrote, by their hash."""
    with np.load(weights_path(2)) as shipped:
        weights = dict(shipped)
    save_networks(tmp_path, 2, weights, {"note": "before"})
    before = weights_path(2, tmp_path).read_bytes()
    assert provenance(2, tmp_path) == {"note": "before", WEIGHTS_HASH: weights_hash(before)}

    def savez_then_fail(file, **arrays):
        file.write(b"half a file")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", savez_then_fail)
    with pytest.raises(OSError, match="No space left"):
        save_networks(tmp_path, 2, weights, {"note": "after"})
    assert weights_path(2, tmp_path).read_bytes() == before
    assert provenance(2, tmp_path) == {"note": "before", WEIGHTS_HASH: weights_hash(before)}
    assert sorted(path.name for path in tmp_path.iterdir()) == ["net-2p.json", "net-2p.npz"]


def test_value_training_from_self_play_changes_the_value_alone(tmp_path):
    refused = run_example("train_value.py", "--players", 4, "--lanes", 64, "--out", tmp_path)  # 1,280 rows a round
    assert refused.returncode == 2 and "fewer than a minibatch of 4,096; valid: --lanes 205 or more" in refused.stderr
    few = ["train_value.py", "--players", 4, "--deals", 1024, "--lanes", 256, "--out", tmp_path]  # 4 steps
    worse = run_example(*few)  # 1,024 deals teach less than the shipped value knows: it is kept
    assert worse.returncode == 1 and "is no better than the one it replaces" in worse.stderr
    assert not (tmp_path / "net-4p.npz").exists()
    done = run_example(*few, "--even-if-worse")
    assert done.returncode == 0, done.stderr
    losses = [
        float(line.split("log-loss ")[1].split()[0]) for line in done.stdout.splitlines() if "deals: held-out" in line
    ]
    assert len(losses) == 4 and losses[-1] < losses[0]  # it learnt from its rounds
    with np.load(weights_path(4)) as shipped, np.load(tmp_path / "net-4p.npz") as trained:
        assert all(np.array_equal(trained[key], shipped[key]) == key.startswith("policy.") for key in trained.files)
    facts = json.loads((tmp_path / "net-4p.json").read_text())["value_training"]
    assert facts["deals"] == 1024
    assert facts["held_out"]["replaced_network_log_loss"] < np.log(2) - 0.05  # the shipped one knows more than chance


def test_the_kernels_read_a_contract_as_the_auction_trainer_does():
    """The auction network's inputs, built by the jitted bidder and by train_auction.py's
    numpy, for random hands, calls and seats."""
    from strategies.net_nb import CONTRACT_INPUTS, contract_inputs_nb

    train_auction = example_module("train_auction")
    rng = np.random.default_rng(4)
    hands = np.array([rng.choice(40, 8, replace=False) for _ in range(200)])
    seats, called = rng.integers(0, 5, 200), rng.integers(0, 40, 200)
    called[:50] = hands[:50, 0]  # some callers call their own card: alone
    expected = train_auction.contract_inputs(hands, seats, called)
    x = np.zeros(CONTRACT_INPUTS, dtype=np.float32)
    for i in range(200):
        contract_inputs_nb(hands[i].astype(np.int8), 8, called[i], called[i] in hands[i], seats[i], x)
        np.testing.assert_array_equal(x, expected[i])


@pytest.mark.parametrize("sure_up_to, bid", [(120, 68), (66, 14), (60, None)])
def test_net_bids_by_its_auction_network(tmp_path, sure_up_to, bid):
    """An auction network sure of every target up to some points and of none above: every
    seat bids up to the level promising those points (61 for a rank, level + 52 for a
    points bid); sure of none, every seat passes."""
    from strategies.net_nb import CONTRACT_INPUTS, FIRST_TARGET, N_TARGETS

    with np.load(weights_path(5)) as saved:
        weights = {key: saved[key] for key in saved.files if not key.startswith("auction.")}
    weights["auction.0.weight"] = np.zeros((CONTRACT_INPUTS, N_TARGETS), np.float32)
    weights["auction.0.bias"] = np.where(FIRST_TARGET + np.arange(N_TARGETS) <= sure_up_to, 10.0, -10.0).astype(
        np.float32
    )
    np.savez(tmp_path / "net-5p.npz", **weights)  # and no provenance: it comes from nowhere
    (tmp_path / "sure.py").write_text(
        f"from strategies.library import net_from\nSURE = net_from({str(tmp_path)!r}, 'sure')\n"
    )
    out = tmp_path / "r.parquet"
    result = run_here("simulate", "--strategies", "sure", "--players", "5", "--deals", "40", "--seed", "1", "--out", out,
                      "--strategy-file", tmp_path / "sure.py")  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = pq.read_table(out).to_pandas()
    if bid is None:
        assert (rows["caller"] == -1).all()  # every deal thrown in
    else:
        assert (rows["bid"] == bid).all() and (rows["caller"] >= 0).all()


def test_auction_training_adds_the_network_and_keeps_the_others(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(
        "[[simulate]]\nname = 'bids'\nplayers = 5\nstrategies = ['expert']\ndeals = 300\nseed = 3\ntrace = true\n"
    )
    made = run_here("batch", plan, "--out", tmp_path / "study", "--quiet")
    assert made.returncode == 0, made.stderr
    study = ["--study", tmp_path / "study", "--epochs", 2]
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "net-5p.npz").write_bytes(weights_path(5).read_bytes()[:1000])  # cut short
    for refused, message in ((["--out", tmp_path / "w"], "--batch 1024 does not fit the"),  # no step would run
                             (["--batch", 64, "--weights", tmp_path], "holds no net-5p.npz"),
                             (["--batch", 64, "--weights", tmp_path / "damaged", "--out", tmp_path / "w"],
                              "net-5p.npz are damaged")):  # fmt: skip
        done = run_example("train_auction.py", *study, *refused)
        assert done.returncode == 2 and message in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
        assert not (tmp_path / "w").exists() and not (tmp_path / "net-5p.npz").exists()
    done = run_example("train_auction.py", *study, "--batch", 64, "--out", tmp_path / "w")
    assert done.returncode == 0, done.stderr
    with np.load(weights_path(5)) as shipped, np.load(tmp_path / "w" / "net-5p.npz") as trained:
        assert {key for key in trained.files if key.startswith("auction.")} == {
            f"auction.{k}.{part}" for k in range(3) for part in ("weight", "bias")
        }
        assert all(
            np.array_equal(trained[key], shipped[key]) for key in shipped.files if not key.startswith("auction.")
        )
    record = json.loads((tmp_path / "w" / "net-5p.json").read_text())
    facts = record["auction_training"]
    assert facts["data"]["experiments"] == ["bids"] and 0 < facts["data"]["contracts"] <= 300
    from sim.present.report import _provenance_line

    assert (f"auction from {facts['data']['contracts']:,} contracts of expert (seed 3, data {facts['data']['sha256']}), "
            f"made by plan {tmp_path / 'study' / '_plan.toml'}" in _provenance_line(record))  # fmt: skip
    shipped = weights_path(5).read_bytes()
    again = run_example("train_auction.py", *study, "--batch", 64, "--seed", 2, "--weights", tmp_path / "w")
    assert again.returncode == 0 and f"wrote {tmp_path / 'w'}/net-5p.npz" in again.stdout  # --out: where it read
    assert weights_path(5).read_bytes() == shipped


def _replayed(players, row, first):
    """The reference engine's game after a traced deal's first ``first`` cards, and the
    view of the seat to play next."""
    from sim.base.reference import Game, views_along

    hands = [list(row["hands"][3 * s : 3 * (s + 1)]) for s in range(players)]
    plays = list(row["plays"])
    game = Game(players, hands, row["briscola"], row["stock"])
    for card in plays[:first]:
        game.play(card)
        if len(game.table) == players:
            game.end_trick()
    *_, before = views_along(players, hands, row["briscola"], row["stock"], plays[:first] + [None])
    return game, view_record(before, players, {"removed": [-1]})[0]


@pytest.mark.parametrize("players", [2, 4])
def test_a_playout_cut_short_values_the_view_its_seat_would_have(players):
    """pimc:value_tricks: from the true state of a deal, a playout of random cards cut
    after a trick hands the value network the view the reference engine gives the seat at
    that point, played out with the same cards."""
    from kernels.enums import MAX_HAND, MAX_PLAYERS, VIEW_DTYPE
    from sim.base.reference import views_along
    from strategies.net_nb import new_work_nb
    from strategies.playout_nb import Learned, new_playout_nb, play_out_nb

    cfg = RunConfig(players=players, strategies=("greedy",) * players, deals=3, seed=8, threads=1)
    for row in trace_rows(play_batch(cfg, 0, 3, trace=True)):
        hands = [list(row["hands"][3 * s : 3 * (s + 1)]) for s in range(players)]
        plays = list(row["plays"])
        first = players + 1  # a decision in the second trick, with a trick and more of stock ahead
        game, view = _replayed(players, row, first)
        playout = new_playout_nb()
        for seat in range(players):
            playout.n_hand[seat] = len(game.hands[seat])
            playout.hands[seat, : len(game.hands[seat])] = game.hands[seat]
            playout.points[seat] = game.points[seat]
        table = game.table + [game.hands[game.to_play][0]]  # the seat's card tried, as pimc tries it
        playout.hands[game.to_play, : MAX_HAND + 1] = np.r_[game.hands[game.to_play][1:], [-1] * (MAX_HAND + 2)][
            : MAX_HAND + 1
        ]
        playout.n_hand[game.to_play] -= 1
        playout.plays[: len(table)] = table
        sides = np.arange(MAX_PLAYERS) % (2 if players != 3 else MAX_PLAYERS)
        playout.sides[:], playout.search_sides[:] = sides, (sides != sides[view.seat]).astype(np.int64)
        data = net_data(players)
        cut = Learned(1, False, np.empty(1, dtype=VIEW_DTYPE), data, new_work_nb(data), np.empty(40), False, False)
        stock = np.array(game.draw_pile, dtype=np.int64)
        rng = np.array([1, 2, 3, 4], dtype=np.uint64)
        score = play_out_nb(view, playout.hands, playout.n_hand, playout.plays, len(table), game.leader, stock, 0,
                            len(stock), playout.points, 0.0, playout.stack, playout.sides, playout.search_sides,
                            np.ones(MAX_PLAYERS), rng, cut)  # fmt: skip
        assert 0.0 < score < 1.0
        cut_view = cut.position[0]
        played = list(cut_view["history"][: cut_view["n_played"]])
        assert played[:first] == plays[:first] and len(played) >= first + 1  # the tried card, and on
        *_, expected = views_along(players, hands, row["briscola"], row["stock"], played + [None])
        expected = view_record(expected, players, {"removed": [-1]})[0]
        assert cut_view["seat"] == view.seat == expected["seat"]
        assert sorted(cut_view["hand"]) == sorted(expected["hand"])  # each n_hand cards, then -1
        for field in ("table", "history", "played_by", "trick_winners", "points", "partner_hands", "partner_trumps"):
            assert np.array_equal(cut_view[field], expected[field]), field
        for field in ("n_table", "n_played", "trick", "leader", "stock_size", "briscola", "trump_suit"):
            assert cut_view[field] == expected[field], field


@pytest.mark.parametrize("players", [2, 4])
def test_a_learned_playout_past_the_last_draw_shows_who_took_the_face_up_card(players):
    """pimc:playout_policy: the views the policy is shown in a playout that goes past the
    stock's last draw show the face-up card's holder as the reference engine does, played
    out with the same cards (a version 2 network reads it)."""
    from kernels.enums import MAX_PLAYERS, VIEW_DTYPE
    from sim.base.reference import views_along
    from strategies.playout_nb import Learned, new_playout_nb, play_out_nb

    cfg = RunConfig(players=players, strategies=("greedy",) * players, deals=3, seed=8, threads=1)
    for row in trace_rows(play_batch(cfg, 0, 3, trace=True)):
        hands = [list(row["hands"][3 * s : 3 * (s + 1)]) for s in range(players)]
        first = (len(row["stock"]) + 1 - players) // players * players  # the trick the last draw follows
        game, view = _replayed(players, row, first)
        assert view["stock_size"] == players and view["face_up_holder"] == -1
        playout = new_playout_nb()
        for seat in range(players):
            playout.n_hand[seat] = len(game.hands[seat])
            playout.hands[seat, : len(game.hands[seat])] = game.hands[seat]
            playout.points[seat] = game.points[seat]
        sides = np.arange(MAX_PLAYERS) % 2
        playout.sides[:], playout.search_sides[:] = sides, (sides != sides[view.seat]).astype(np.int64)
        data = net_data(players)
        learned = Learned(0, True, np.empty(1, dtype=VIEW_DTYPE), data, new_work_nb(data), np.empty(40), False, False)
        stock = np.array(game.draw_pile, dtype=np.int64)
        play_out_nb(view, playout.hands, playout.n_hand, playout.plays, 0, game.leader, stock, 0, len(stock),
                    playout.points, 0.0, playout.stack, playout.sides, playout.search_sides, np.zeros(MAX_PLAYERS),
                    np.array([1, 2, 3, 4], dtype=np.uint64), learned)  # fmt: skip
        shown = learned.position[0]
        played = [int(c) for c in shown["history"][: shown["n_played"]]]
        assert len(played) >= first + players  # the trick that ends with the last draw
        *_, expected = views_along(players, hands, row["briscola"], row["stock"], played + [None])
        assert expected["face_up_holder"] >= 0 and shown["face_up_holder"] == expected["face_up_holder"]
        assert shown["face_up"] == row["briscola"]


def test_a_batched_strategy_cannot_take_data():
    from strategies.api import Strategy

    with pytest.raises(ValueError, match="a batched strategy holds its data itself"):
        Strategy("b", 1, "batched with data", lambda *a: None, batched=True, data=lambda players: np.zeros(3))


@pytest.mark.parametrize("change, message", [
    (lambda w: w.update({"policy.1.weight": w["policy.1.weight"][:, :10]}), "layer 1 has weights (128, 10) and biases (64,)"),
    (lambda w: w.update({"policy.2.bias": w["policy.2.bias"][:39]}), "layer 2 has weights (64, 40) and biases (39,)"),
    (lambda w: w.update({"value.2.weight": np.zeros((64, 2), np.float32), "value.2.bias": np.zeros(2, np.float32)}),
     "the value network maps 207 inputs to 2 outputs; it must map 207 to 1"),
])  # fmt: skip
def test_weights_of_the_wrong_shape_are_refused_in_one_line(tmp_path, change, message):
    """The kernels read networks by offsets: a layer of the wrong size would read another's weights."""
    with np.load(weights_path(2)) as saved:
        weights = dict(saved)
    change(weights)
    np.savez(tmp_path / "net-2p.npz", **weights)
    with pytest.raises(StrategyError, match=re.escape(message)):
        net_data(2, folder=tmp_path)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_kernels_value_a_view_as_the_trained_value_network_does(players):
    from strategies.net_nb import value_nb

    cfg = RunConfig(players=players, strategies=("greedy",) * players, deals=3, seed=6, threads=1)
    views = np.concatenate(decision_views(cfg))
    with np.load(weights_path(players)) as weights:
        obs = encode_flat(views, version=weights_version(weights, players)).astype(np.float64)
        expected = forward(layers(weights, "value"), obs)[:, 0]
    data = net_data(players)
    got = [value_nb(view, data, new_work_nb(data)) for view in views]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_the_policy_prior_makes_the_search_play_the_policys_card_where_it_is_sure():
    """pimc:policy_prior: 10 times the policy's probabilities outweighs any gap of the
    playouts' mean results (a win and the points: at most 3) where the policy's first card
    leads its second by more than 0.3; without it the search plays otherwise somewhere."""
    from strategies.api import parse_spec
    from strategies.net_nb import net_nb
    from strategies.pimc_nb import pimc_nb
    from strategies.registry import builtin_strategies

    cfg = RunConfig(players=2, strategies=("greedy", "greedy"), deals=6, seed=11, threads=1)
    views = [v for v in np.concatenate(decision_views(cfg)) if v["stock_size"] > 2 and v["n_hand"] > 1]  # searched
    data, strategies, seed = net_data(2), builtin_strategies(), np.array([1, 2, 3, 4], dtype=np.uint64)

    def choices(spec):
        params = parse_spec(spec, strategies).param_vector()
        return [pimc_nb(view.copy(), params, seed.copy(), data) for view in views]

    logits, sure = np.empty(40), []
    for view in views:
        policy_logits_nb(view, data, logits, new_work_nb(data))
        odds = np.sort(np.exp(logits[: view["n_hand"]] - logits[: view["n_hand"]].max()))
        sure.append((odds[-1] - odds[-2]) / odds.sum() > 0.3)
    policy = [net_nb(view.copy(), np.zeros(16), seed.copy(), data) for view in views]
    prior, searched = choices("pimc:samples=2:policy_prior=10"), choices("pimc:samples=2")
    assert sum(sure) >= 10
    assert all(card == wanted for card, wanted, is_sure in zip(prior, policy, sure) if is_sure)
    assert any(card != wanted for card, wanted in zip(searched, policy))
