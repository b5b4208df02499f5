"""Strategies from outside the package: a --strategy-file, an installed entry point, and
the worked example of the author's guide; parameters on the command line."""

import json
import re

import numpy as np
import pytest
from numba import njit

from sim.base.results import read_results
from strategies.api import Param, Strategy, parse_spec
from strategies.errors import StrategyError
from tests.helpers import OUTSIDER, REPO, run_cli, run_here

GUIDE = REPO / "docs" / "strategies.md"


# A strategy that lives outside the package: plays its last card, or its first when
# ``first`` is set. Deterministic, so its games can be checked.
def guide_example() -> str:
    """The first Python block of docs/strategies.md: the complete worked example."""
    return re.search(r"```python\n(.*?)```", GUIDE.read_text(), re.S).group(1)


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory):
    """A folder holding a strategy file and an installed package (a dist-info folder
    with entry_points.txt, as pip writes it) that declares a strategy by entry point."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "edge_file.py").write_text(OUTSIDER)
    package = folder / "briscola_demo_bots"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "saver.py").write_text(guide_example())
    info = folder / "briscola_demo_bots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: briscola-demo-bots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[briscola.strategies]\nsaver = briscola_demo_bots.saver:SAVER\n")
    return folder


def cli_in(folder, *args):
    """The command in ``folder``, in a fresh process that finds the folder's package."""
    return run_cli(*args, env={"PYTHONPATH": f"{REPO}:{folder}"}, cwd=folder)


def test_a_strategy_file_plays_with_its_parameters_recorded(plugin_dir):
    out = plugin_dir / "edge.parquet"
    result = run_here("simulate", "--strategy-file", "edge_file.py", "--players", "2", "--strategies",
                      "edge:first=true,greedy", "--deals", "300", "--seed", "3", "--out", out, cwd=plugin_dir)  # fmt: skip
    assert result.returncode == 0, result.stderr
    run = read_results(out)
    assert list(run.deals["strategy_0"].unique()) == ["edge:first=true"]
    seat0 = run.config["strategies"][0]
    fingerprint = seat0.pop("fingerprint")  # of its code and data: the same file, the same print
    assert seat0 == {"seat": 0, "side": 0, "name": "edge", "version": 3, "params": {"first": True}}
    assert len(fingerprint) == 16 and int(fingerprint, 16) >= 0
    assert run.config["strategy_files"] == [str((plugin_dir / "edge_file.py").resolve())]


def test_the_parameter_changes_the_play(plugin_dir):
    margins = []
    for first in ("true", "false"):
        result = run_here("simulate", "--strategy-file", "edge_file.py", "--players", "2", "--strategies",
                          f"edge:first={first},greedy", "--deals", "2000", "--seed", "3", "--summary-only", "--json",
                          cwd=plugin_dir)  # fmt: skip
        assert result.returncode == 0, result.stderr
        margins.append(json.loads(result.stdout)["sides"][0]["mean_points"])
    assert margins[0] != margins[1]


def test_an_installed_entry_point_is_listed_and_plays(plugin_dir):
    listed = cli_in(plugin_dir, "strategies", "--json")
    assert listed.returncode == 0, listed.stderr
    saver = next(s for s in json.loads(listed.stdout) if s["name"] == "saver")
    assert "entry point 'saver'" in saver["source"]
    assert saver["params"] == [{"name": "threshold", "type": "int", "default": 10, "low": 0, "high": 120,
                                "help": "table points worth a trump"}]  # fmt: skip
    played = cli_in(plugin_dir, "simulate", "--players", "4", "--strategies", "saver:threshold=4,random",
                    "--deals", "2000", "--seed", "5", "--summary-only", "--json")  # fmt: skip
    assert played.returncode == 0, played.stderr
    sides = json.loads(played.stdout)["sides"]
    assert sides[0]["strategy"] == "saver:threshold=4" and sides[0]["win_rate"] > sides[1]["win_rate"]


def test_the_guides_example_runs_as_the_guide_says(tmp_path):
    (tmp_path / "saver.py").write_text(guide_example())
    commands = re.findall(r"^briscola (.+)$", GUIDE.read_text(), re.M)
    assert any(c.startswith("simulate") for c in commands)
    assert any(c.startswith("check") and "--deals" not in c for c in commands)  # check's default 1,000 deals
    for command in commands:
        args = command.replace("--deals 100000", "--deals 2000").split() + ["--quiet"] * command.startswith("simulate")
        args += ["--deals", "30"] * (command.startswith("check") and "--deals" not in command)  # as test_check's
        result = run_cli(*args, env={"PYTHONPATH": str(REPO)}, cwd=tmp_path)  # as the guide's reader: a fresh start
        assert result.returncode == 0, (command, result.stderr)
        assert "saver" in result.stdout


def test_builtin_list_names_every_strategy_with_versions_and_parameters():
    result = run_here("strategies", "--json")
    listed = {s["name"]: s for s in json.loads(result.stdout)}
    assert {"random", "greedy", "highest", "lowest", "hoarder", "expert", "net", "pimc", "ismcts"} <= set(listed)
    assert [p["name"] for p in listed["pimc"]["params"]] == [
        "samples", "rollouts", "points_weight", "opponent_random", "signals", "partner_view", "inference", "adapt",
        "bid_threshold", "value_tricks", "playout_policy", "policy_prior", "policy_inference", "auction_inference",
    ]  # fmt: skip
    assert listed["net"]["provenance"] == listed["pimc"]["provenance"]  # the one set of weights, per table
    assert all(s["version"] >= 1 and s["description"] for s in listed.values())


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "pimc:depth=3",
            "strategy pimc: unknown parameter 'depth'; valid parameters: samples, rollouts, points_weight, opponent_random",
        ),
        ("pimc:samples=many", "parameter pimc:samples='many' is not an int; valid: int in [1, 4096]"),
        ("pimc:samples=0", "parameter pimc:samples=0 is out of range; valid: int in [1, 4096]"),
        ("pimc:samples", "strategy pimc: 'samples' is not key=value"),
        ("greedy:x=1", "valid parameters: none"),
        ("nosuch:x=1", "unknown strategy 'nosuch'; valid strategies: best, expert, greedy"),
    ],
)
def test_bad_parameters_get_one_line_and_exit_2(tmp_path, monkeypatch, spec, message):
    monkeypatch.chdir(tmp_path)  # in this process: the same main() a fresh one runs, without its start
    code, _, err = run_here("simulate", "--players", "2", "--strategies", f"{spec},random", "--deals", "10",
                            "--seed", "1")  # fmt: skip
    assert code == 2
    assert err.count("\n") == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_bad_strategy_files_are_named(tmp_path):
    (tmp_path / "empty.py").write_text("x = 1\n")
    (tmp_path / "broken.py").write_text("import no_such_module\n")
    (tmp_path / "clash.py").write_text(OUTSIDER.replace('"edge"', '"greedy"'))
    for name, message in [("missing.py", "no such file"), ("empty.py", "defines no Strategy object"),
                          ("broken.py", "failed to load: ModuleNotFoundError"), ("clash.py", "is taken twice")]:  # fmt: skip
        result = run_here("strategies", "--strategy-file", name, cwd=tmp_path)
        assert result.returncode == 2 and message in result.stderr, (name, result.stderr)


def test_spec_labels_keep_only_changed_parameters_in_declared_order():
    strategy = Strategy("s", 1, "d", choose=None, params=(Param("a", int, 1, 0, 9), Param("b", float, 0.5, 0, 1)))
    assert parse_spec("s:b=0.25:a=1", {"s": strategy}).label == "s:b=0.25"
    assert parse_spec("s:a=2:b=0.5", {"s": strategy}).label == "s:a=2"
    assert list(parse_spec("s:a=3", {"s": strategy}).param_vector()[:3]) == [3.0, 0.5, 0.0]
    with pytest.raises(StrategyError):
        parse_spec("s:a=1.5", {"s": strategy})


BROKEN_BODIES = [
    ("return helper(view)", "NameError: name 'helper' is not defined"),
    ("return view.hands[0]", "the view has no field 'hands'; its fields: seat, players, "),
    (
        'return view.hand["x"]',
        "No implementation of function Function(<built-in function getitem>) found for signature",
    ),
]


@pytest.mark.parametrize("body, reason", BROKEN_BODIES)
def test_a_strategy_that_does_not_compile_is_named_with_its_file_line_and_reason(tmp_path, body, reason):
    source = OUTSIDER.replace("return view.hand[0] if params[0] else view.hand[view.n_hand - 1]", body)
    (tmp_path / "broken_edge.py").write_text(source)
    line = source.splitlines().index(f"    {body}") + 1
    args = ("simulate", "--strategy-file", "broken_edge.py", "--players", "2", "--strategies", "edge,random",
            "--deals", "10", "--seed", "1")  # fmt: skip
    result = run_cli(*args, env={"PYTHONPATH": str(REPO)}, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"strategy 'edge' (broken_edge.py, line {line}) does not compile for the kernels: {reason}" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".pyc" and p.name != "__pycache__") == [
        "broken_edge.py"
    ]
    debug = run_cli(*args, env={"PYTHONPATH": str(REPO), "BRISCOLA_DEBUG": "1"}, cwd=tmp_path)
    assert debug.returncode == 2 and "The above exception was the direct cause" in debug.stderr
    assert debug.stderr.strip().splitlines()[-1] == result.stderr.strip()  # the traceback, then the same line


def test_every_link_of_the_readme_and_docs_leads_somewhere():
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target:
                assert (page.parent / target).exists(), (page.name, target)


@njit(fastmath=True, error_model="numpy")
def fast_first_nb(view, params, rng):
    return view.hand[0]


@njit(parallel=True)
def parallel_first_nb(view, params, rng):
    return view.hand[0]


def test_the_authors_njit_options_are_kept():
    compiled = Strategy("fast", 1, "Plays its first card.", fast_first_nb).compiled()
    assert compiled.targetoptions["fastmath"] is True and compiled.targetoptions["error_model"] == "numpy"
    assert compiled.targetoptions["nogil"] is True  # and the engine's own
    parallel = Strategy("par", 1, "Plays its first card.", parallel_first_nb).compiled()
    assert "parallel" not in parallel.targetoptions  # the kernels run a thread per block already


def test_the_guide_and_the_toolkit_agree():
    """The guide's example imports only from the toolkit; every helper the guide lists,
    and every name the example imports, is in it."""
    import strategies.toolkit as toolkit

    example = guide_example()
    modules = re.findall(r"^(?:from|import) (\S+)", example, re.M)
    assert set(modules) == {"numba", "strategies.toolkit"}
    imported = re.search(r"from strategies\.toolkit import \((.*?)\)", example, re.S).group(1)
    guide = GUIDE.read_text()
    table = guide[guide.index("| helper | gives |") :].split("\n\n")[0]
    listed = [name for row in table.splitlines()[2:] for name in re.findall(r"`(\w+)", row.split(" | ")[0])]
    names = [name.strip() for name in imported.split(",") if name.strip()]
    assert names and listed and set(names) <= set(listed)
    assert set(listed) <= set(toolkit.__all__), set(listed) - set(toolkit.__all__)
    assert set(toolkit.__all__) <= set(dir(toolkit))


BOLD = """
from numba import njit

from strategies.library import EXPERT  # built on: a file's imports are not its strategies
from strategies.toolkit import Strategy, bid_at_threshold_nb, expert_call_nb, expert_play_nb


@njit
def bold_play_nb(view, params, rng):
    return expert_play_nb(view, True)


@njit
def bold_bid_nb(view, params, rng):
    return bid_at_threshold_nb(view, -1.0)


BOLD = Strategy("bold", 1, f"{EXPERT.name}'s play, bolder bids", bold_play_nb, bid=bold_bid_nb, call=expert_call_nb)
"""


def test_a_plug_in_builds_on_experts_play_and_auction(tmp_path):
    (tmp_path / "bold.py").write_text(BOLD)
    listed = cli_in(tmp_path, "strategies", "--strategy-file", "bold.py", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [s["name"] for s in json.loads(listed.stdout)].count("expert") == 1
    duel = cli_in(tmp_path, "compare", "bold", "expert:bid_threshold=-1", "--strategy-file", "bold.py", "--players",
                  "5", "--deals", "300", "--seed", "2", "--summary-only", "--json")  # fmt: skip
    assert duel.returncode == 0, duel.stderr
    figures = json.loads(duel.stdout)  # the same play and bids as expert's at that threshold: every game even
    assert figures["score"] == 0.5 and figures["mean_margin"] == 0.0 and figures["score_ci95"] == [0.5, 0.5]
    bolder = json.loads(cli_in(tmp_path, "compare", "bold", "expert", "--strategy-file", "bold.py", "--players", "5",
                               "--deals", "300", "--seed", "2", "--summary-only", "--json").stdout)  # fmt: skip
    assert bolder["score_ci95"] != [0.5, 0.5]  # against expert's own threshold, the bids differ


LOADS_WEIGHTS = """
import numpy as np
from pathlib import Path
from strategies.api import Strategy

W = np.load(WHERE)


def choose(views, legal, params, keys):
    return np.where(legal, W[None, :], -np.inf).argmax(axis=1)


WEIGHTED = Strategy("weighted", 1, "plays by its weights", choose=choose, batched=True)
"""


def weighted_plug_in(folder, where: str):
    folder.mkdir(exist_ok=True)
    (folder / "weighted.py").write_text(LOADS_WEIGHTS.replace("WHERE", where))
    return folder / "weighted.py"


def test_weights_read_from_outside_the_plug_ins_folder_are_refused_in_one_line(tmp_path):
    """They would count in no fingerprint and travel to no Dask worker: a study resumed
    after they changed played another network under the same fingerprint."""
    from strategies.registry import load_strategy_file

    np.save(tmp_path / "w.npy", np.arange(40.0))
    plug_in = weighted_plug_in(tmp_path / "bot", repr(str(tmp_path / "w.npy")))
    with pytest.raises(
        StrategyError, match=r"it read .*w\.npy as it loaded, outside its folder .*: .* \(copy the file"
    ):
        load_strategy_file(plug_in)
    done = run_here("strategies", "--strategy-file", plug_in, cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "outside its folder" in done.stderr


def test_weights_reached_through_a_link_in_the_folder_count_and_travel(tmp_path):
    from strategies.registry import load_strategy_file, plug_in_bundle

    elsewhere = tmp_path / "models"
    elsewhere.mkdir()
    np.save(elsewhere / "w.npy", np.arange(40.0))
    plug_in = weighted_plug_in(tmp_path / "bot", 'Path(__file__).parent / "w.npy"')
    (tmp_path / "bot" / "w.npy").symlink_to(elsewhere / "w.npy")
    (first,) = load_strategy_file(plug_in)
    assert first.files == (str(tmp_path / "bot" / "w.npy"),)
    bundle = plug_in_bundle(plug_in, [first])
    assert bundle["w.npy"] == (elsewhere / "w.npy").read_bytes()  # the bytes the link leads to, under its name
    np.save(elsewhere / "w.npy", -np.arange(40.0))  # another network behind the same link
    (second,) = load_strategy_file(plug_in)
    assert second.fingerprint() != first.fingerprint()


def test_a_declared_data_file_may_be_a_link_to_elsewhere(tmp_path):
    from strategies.registry import load_strategy_file

    (tmp_path / "book.bin").write_bytes(b"opening book")
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "book.bin").symlink_to(tmp_path / "book.bin")
    (folder / "declares.py").write_text(OUTSIDER + '\nEDGE_BOOK = Strategy("edge-book", 1, "with a book", '
                                        'choose=EDGE.choose, files=("book.bin",))\n')  # fmt: skip
    strategies = {s.name: s for s in load_strategy_file(folder / "declares.py")}
    assert strategies["edge-book"].files == (str(folder / "book.bin"),)


def test_a_batched_strategy_reading_data_while_deciding_is_refused(tmp_path):
    """Read lazily, the file would count in no fingerprint."""
    np.save(tmp_path / "w.npy", np.arange(40.0))
    plug_in = tmp_path / "lazy.py"
    plug_in.write_text(LOADS_WEIGHTS.replace("W = np.load(WHERE)", "").replace(
        "return np.where(legal, W", f"return np.where(legal, np.load({str(tmp_path / 'w.npy')!r})"))  # fmt: skip
    done = run_here("simulate", "--strategies", "weighted,random", "--players", "2", "--deals", "10", "--seed", "1",
                    "--strategy-file", plug_in, "--summary-only", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2 and "read " in done.stderr and "while deciding" in done.stderr, done.stderr


def test_numbas_cache_files_are_not_data_a_strategy_reads_wherever_the_cache_is(tmp_path, monkeypatch):
    """A batched strategy's first decision may load a kernel from Numba's cache; with
    NUMBA_CACHE_DIR set, those files sit outside any __pycache__ (a plug-in was refused
    for it). A data file read while deciding is still refused."""
    import kernels.caching
    from strategies.api import Strategy
    from strategies.errors import StrategyError
    from strategies.registry import check_read_while_deciding

    cache, data = tmp_path / "numba-cache", tmp_path / "w.npy"
    (cache / "kernels_0").mkdir(parents=True)
    (cache / "kernels_0" / "observe_nb.legal_masks_nb-118.py311.nbi").write_bytes(b"index")
    data.write_bytes(b"weights")
    monkeypatch.setattr(kernels.caching.config, "CACHE_DIR", str(cache))
    strategy = Strategy("lazy", 1, "reads as it decides", choose=lambda views, legal, params, keys: None, batched=True)
    check_read_while_deciding(strategy, [str(cache / "kernels_0" / "observe_nb.legal_masks_nb-118.py311.nbi")])
    with pytest.raises(StrategyError, match="read .*w.npy while deciding"):
        check_read_while_deciding(strategy, [str(data)])


def test_the_fingerprint_walk_warns_of_nothing():
    import warnings

    from kernels.caching import code_and_data_digest

    def as_objects(x):
        return np.asarray(x, dtype=object)  # reads ``object``, which np.object warns of

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code_and_data_digest([as_objects])
    assert [str(w.message) for w in caught] == []
