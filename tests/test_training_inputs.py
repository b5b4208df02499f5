"""The training scripts (examples/) refuse bad input before any work, as the briscola
command does: every option and output checked before the first step, one line on stderr,
exit code 2, nothing written. Each fault refused here used to train first (for as long as
25 minutes) and then lose the network in a traceback, or write where it should not."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pytest

from strategies.nets import WEIGHTS
from tests.helpers import REPO

FOLDER_SCRIPTS = ("train_net.py", "tune_net.py", "train_value.py", "train_auction.py")
# What each script needs besides the option under test, kept small: a refusal that came
# too late would train briefly, not for minutes.
NEEDS = {
    "train_net.py": ["--players", "2", "--study", "{tmp}/no-study", "--epochs", "1"],
    "tune_net.py": ["--players", "2", "--rounds", "1", "--warm-up", "0", "--lanes", "4", "--pool", "random"],
    "train_value.py": ["--players", "2", "--deals", "256", "--lanes", "256"],
    "train_auction.py": ["--study", "{tmp}/no-study", "--epochs", "1"],
    "train_policy.py": ["--deals", "64", "--envs", "64"],
}


def run_script(tmp_path, script: str, *args: str, out: str | None = "{tmp}/out") -> subprocess.CompletedProcess:
    """``script`` with its small needs, then ``args`` (later options win), ``{tmp}`` the
    test's folder; ``--out`` as given (None: none)."""
    default_out = "{tmp}/out/numpy_mlp.npz" if script == "train_policy.py" and out == "{tmp}/out" else out
    argv = NEEDS[script] + ([] if default_out is None else ["--out", default_out]) + list(args)
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    return subprocess.run([sys.executable, str(REPO / "examples" / script), *argv], capture_output=True, text=True,
                          cwd=tmp_path, timeout=900)  # fmt: skip


def contents(*folders) -> dict:
    """Every file under ``folders``, with a hash of its bytes."""
    return {path: hashlib.sha256(path.read_bytes()).hexdigest() for folder in folders
            for path in sorted(folder.rglob("*")) if path.is_file()}  # fmt: skip


def assert_refused(done: subprocess.CompletedProcess, script: str, message: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"{script}: error: ") and len(done.stderr.splitlines()) == 1, done.stderr
    assert message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("script, args, message", [
    ("train_value.py", ["--deals", "nan"], "argument --deals: 'nan' is not a whole number"),
    ("train_value.py", ["--deals", "inf"], "argument --deals: 'inf' is not a whole number"),
    ("train_value.py", ["--lanes", "0"], "argument --lanes: 0 is out of range; valid: a whole number, 1 or more"),
    ("train_net.py", ["--epochs", "0"], "argument --epochs: 0 is out of range; valid: a whole number, 1 or more"),
    ("train_net.py", ["--rate", "nan"], "argument --rate: 'nan' is not a finite number above 0"),
    ("train_net.py", ["--augment", "1000000"], "argument --augment: 1,000,000 is out of range; valid: 0 to 23"),
    ("train_net.py", ["--seed", "-1"], "argument --seed: -1 is out of range; valid: 0 to 4,294,967,295"),
    ("train_auction.py", ["--epochs", "0"], "argument --epochs: 0 is out of range"),
    ("train_auction.py", ["--rate=-1e-3"], "argument --rate: '-1e-3' is not a finite number above 0"),
    ("tune_net.py", ["--minutes", "0"], "argument --minutes: '0' is not a finite number above 0"),
    ("tune_net.py", ["--lanes", "0"], "argument --lanes: 0 is out of range"),
    ("train_policy.py", ["--envs", "0"], "argument --envs: 0 is out of range"),
    ("train_policy.py", ["--deals", "nan"], "argument --deals: 'nan' is not a whole number"),
    ("train_policy.py", ["--minutes", "10"], "unrecognized arguments: --minutes 10"),  # a deal budget instead
], ids=lambda value: value if isinstance(value, str) and value.endswith(".py") else None)  # fmt: skip
def test_a_number_that_cannot_be_trained_with_is_refused_in_one_line(tmp_path, script, args, message):
    """Not a number, not finite, or outside what the option can take (``--augment``: the
    4 suits have 24 orders, so 23 renamed copies at most; it grew without bound)."""
    assert_refused(run_script(tmp_path, script, *args), script, message)
    assert contents(tmp_path) == {}


@pytest.mark.parametrize("script, args, message", [
    ("tune_net.py", ["--rounds", "2", "--warm-up", "2"], "--warm-up 2 leaves none of the 2 --rounds to tune"),
    ("tune_net.py", ["--pool", "random", "nosuch"], "--pool: unknown strategy 'nosuch'"),
    ("train_value.py", ["--deals", "100"], "--deals 100 is less than a round of --lanes 256 deals"),
    ("train_policy.py", ["--deals", "63"], "--deals 63 is less than a round of --envs 64 deals"),
], ids=lambda value: value if isinstance(value, str) and value.endswith(".py") else None)  # fmt: skip
def test_options_that_leave_nothing_to_train_are_refused_in_one_line(tmp_path, script, args, message):
    """Options each valid that together would train nothing (and write the network as
    trained), or name no strategy."""
    assert_refused(run_script(tmp_path, script, *args), script, message)
    assert contents(tmp_path) == {}


@pytest.mark.parametrize("script", FOLDER_SCRIPTS)
def test_an_out_that_cannot_take_the_networks_is_refused_before_any_work(tmp_path, script):
    """``--out`` an existing file (tune_net trained 25 minutes, then lost the network in a
    traceback), a path under a file, and no ``--out`` where the default would overwrite the
    shipped networks."""
    (tmp_path / "file").write_text("the user's")
    shipped = contents(WEIGHTS)
    for out, message in ((str(tmp_path / "file"), f"--out {tmp_path / 'file'} is a file; valid: a folder"),
                         (str(tmp_path / "file" / "sub"), f"{tmp_path / 'file'} is a file, not a directory"),
                         (None, "--out is needed: by default a run writes where --weights reads, here the shipped")):  # fmt: skip
        assert_refused(run_script(tmp_path, script, out=out), script, message)
    assert contents(tmp_path) == {tmp_path / "file": hashlib.sha256(b"the user's").hexdigest()}
    assert contents(WEIGHTS) == shipped


def test_train_policy_refuses_an_out_it_must_not_write(tmp_path):
    """A folder (it wrote ``DIR.npz`` beside it), a name numpy would add ``.npz`` to, an
    existing file without ``--overwrite``, and with it a file that is not its policy."""
    (tmp_path / "folder").mkdir()
    np.savez(tmp_path / "policy.npz", **{key: np.zeros(2, np.float32) for key in ("w1", "b1", "w2", "b2")})
    np.savez(tmp_path / "other.npz", weights=np.zeros(2))
    before = contents(tmp_path)
    for out, more, message in (
        ("{tmp}/folder", [], f"--out {tmp_path / 'folder'} does not end in .npz"),
        ("{tmp}/policy", [], "does not end in .npz"),
        ("{tmp}/policy.npz", [], f"--out {tmp_path / 'policy.npz'} already exists; pass --overwrite to replace it"),
        ("{tmp}/other.npz", ["--overwrite"], "is not a policy this script wrote (arrays w1, b1, w2, b2)"),
    ):
        assert_refused(run_script(tmp_path, "train_policy.py", *more, out=out), "train_policy.py", message)
    (tmp_path / "dir.npz").mkdir()
    assert_refused(run_script(tmp_path, "train_policy.py", out="{tmp}/dir.npz"), "train_policy.py", "is a folder")
    assert contents(tmp_path) == before and not (tmp_path / "folder.npz").exists()


def test_train_policy_is_reproducible_from_its_deal_budget_and_replaces_only_its_own_policy(tmp_path):
    """The same ``--deals``, ``--envs`` and ``--seed`` make the same policy (the rate falls
    with the deals done, not the clock); ``--overwrite`` replaces a policy it wrote."""
    for out in ("{tmp}/a/numpy_mlp.npz", "{tmp}/b/numpy_mlp.npz"):
        done = run_script(tmp_path, "train_policy.py", "--deals", "128", out=out)
        assert done.returncode == 0, done.stderr
    again = run_script(tmp_path, "train_policy.py", "--deals", "128", "--seed", "2", "--overwrite",
                       out="{tmp}/a/numpy_mlp.npz")  # fmt: skip
    assert again.returncode == 0, again.stderr
    with np.load(tmp_path / "b" / "numpy_mlp.npz") as b:
        policy = {key: b[key] for key in b.files}
    assert sorted(policy) == ["b1", "b2", "w1", "w2"]
    with np.load(tmp_path / "a" / "numpy_mlp.npz") as a:  # the --overwrite run: another seed
        assert not np.array_equal(a["w1"], policy["w1"])
    done = run_script(tmp_path, "train_policy.py", "--deals", "128", "--overwrite", out="{tmp}/a/numpy_mlp.npz")
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "a" / "numpy_mlp.npz") as a:
        assert all(np.array_equal(a[key], policy[key]) for key in policy)
    assert sorted(path.name for path in (tmp_path / "a").iterdir()) == ["numpy_mlp.npz"]  # no temporary left
