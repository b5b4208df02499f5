"""Numba's disk cache never serves stale code: a cached function's key holds the files it
depends on (kernels/caching.py), so an edit to a helper in another file recompiles."""

from __future__ import annotations

import json
import shutil
import sys

from kernels.caching import authors_files, digest_of, library_files
from tests.helpers import REPO, run_cli

BOT = """
from numba import njit

from helper import pick_nb
from strategies.api import Strategy


@njit
def bot_nb(view, params, rng):
    return pick_nb(view, params, rng)


BOT = Strategy("bot", 1, "Plays the card its helper picks.", bot_nb)
"""
FIRST = "from numba import njit\n\n@njit\ndef pick_nb(view, params, rng):\n    return view.hand[0]\n"
LAST = "from numba import njit\n\n@njit\ndef pick_nb(view, params, rng):\n    return view.hand[view.n_hand - 1]\n"


def play_bot(folder) -> float:
    result = run_cli(
        "simulate", "--strategy-file", "bot.py", "--players", "2", "--strategies", "bot,random",
        "--deals", "3000", "--seed", "1", "--summary-only", "--json", "--quiet",
        cwd=folder, env={"PYTHONPATH": str(REPO)},  # its helper modules beside it import without help
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["sides"][0]["win_rate"]


def test_an_edited_helper_in_another_file_is_compiled_again(tmp_path):
    (tmp_path / "bot.py").write_text(BOT)
    (tmp_path / "helper.py").write_text(FIRST)
    first = play_bot(tmp_path)
    (tmp_path / "helper.py").write_text(LAST)  # bot.py unchanged: Numba alone keys by it
    edited = play_bot(tmp_path)
    for cache in tmp_path.rglob("__pycache__"):
        shutil.rmtree(cache)
    assert edited == play_bot(tmp_path) != first  # the edit is played, as from a cold cache


CONSTANT_BOT = """
from numba import njit

from slots import SLOT
from strategies.api import Strategy


@njit
def slot_nb(view, params, rng):
    return view.hand[min(SLOT, view.n_hand - 1)]


SLOT_BOT = Strategy("bot", 1, "Plays the card at a slot its helper module sets.", slot_nb)
"""


def test_an_edited_constant_imported_from_another_file_is_compiled_again(tmp_path):
    (tmp_path / "bot.py").write_text(CONSTANT_BOT)
    (tmp_path / "slots.py").write_text("SLOT = 0\n")
    first = play_bot(tmp_path)
    (tmp_path / "slots.py").write_text("SLOT = 2\n")  # only the value: no function of slots.py is used
    assert play_bot(tmp_path) != first


def test_a_plug_ins_dependencies_are_its_authors_files_only(tmp_path, monkeypatch):
    (tmp_path / "helper.py").write_text(FIRST + "import numpy\nimport strategies.api\n")
    (tmp_path / "bot.py").write_text(BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("helper", "bot"):
        sys.modules.pop(name, None)
    import bot  # the module made above

    # Not numpy, not the library (keyed apart, as a whole).
    assert authors_files(bot.bot_nb.py_func) == {str(tmp_path / "bot.py"), str(tmp_path / "helper.py")}
    assert authors_files(bot.pick_nb.py_func) == {str(tmp_path / "helper.py")}


def test_the_library_stamp_is_every_kernel_and_strategy_file_by_content(tmp_path):
    assert library_files() == sorted(str(p) for d in ("kernels", "strategies") for p in (REPO / d).glob("*.py"))
    assert str(REPO / "kernels" / "rules_nb.py") in library_files()
    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    before = digest_of([str(source)])
    source.write_text("x = 2\n")
    assert digest_of([str(source)]) != before


DATA_BOT = """
from pathlib import Path

import numpy as np
from numba import njit

from strategies.api import Strategy

ORDER = np.load(Path(__file__).parent / "order.npy")  # its data: which card it prefers


@njit
def ordered_nb(view, params, rng):
    best = view.hand[0]
    for k in range(view.n_hand):
        if ORDER[view.hand[k]] > ORDER[best]:
            best = view.hand[k]
    return best


BOT = Strategy("bot", 1, "Plays the card its data file ranks first.", ordered_nb)
"""


def play_bot_file(folder, out) -> float:
    result = run_cli(
        "simulate", "--strategy-file", "bot.py", "--players", "2", "--strategies", "bot,random",
        "--deals", "3000", "--seed", "1", "--out", str(out), "--json", "--quiet",
        cwd=folder, env={"PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["sides"][0]["win_rate"]


def test_new_data_in_a_plug_ins_file_is_played_and_fingerprinted(tmp_path):
    """Numba freezes a global array into the compiled code: the cache is keyed on its
    values, and a result file's fingerprint of the strategy says which data played."""
    import numpy as np

    from sim.base.results import read_config

    (tmp_path / "bot.py").write_text(DATA_BOT)
    np.save(tmp_path / "order.npy", np.arange(40.0))  # the card codes' order: highest code first
    first = play_bot_file(tmp_path, tmp_path / "first.parquet")
    again = play_bot_file(tmp_path, tmp_path / "again.parquet")
    np.save(tmp_path / "order.npy", -np.arange(40.0))  # the same file rewritten: lowest code first
    rewritten = play_bot_file(tmp_path, tmp_path / "rewritten.parquet")
    for cache in tmp_path.rglob("__pycache__"):
        shutil.rmtree(cache)
    assert rewritten == play_bot_file(tmp_path, tmp_path / "cold.parquet") != first == again
    prints = {name: read_config(tmp_path / f"{name}.parquet")["strategies"][0]["fingerprint"]
              for name in ("first", "again", "rewritten", "cold")}  # fmt: skip
    assert prints["first"] == prints["again"] != prints["rewritten"] == prints["cold"]
    random_prints = {read_config(tmp_path / f"{name}.parquet")["strategies"][1]["fingerprint"] for name in prints}
    assert len(random_prints) == 1  # the opponent's did not change


def test_the_frozen_digest_follows_called_functions_and_modules(tmp_path, monkeypatch):
    from kernels.caching import frozen_digest

    (tmp_path / "tables.py").write_text("import numpy as np\nWEIGHTS = np.zeros(3)\nLIMIT = 2\n")
    (tmp_path / "deep.py").write_text(
        "from numba import njit\nimport tables\n\n@njit\ndef inner_nb(x):\n    return tables.WEIGHTS[x] + tables.LIMIT\n\n"
        "@njit\ndef outer_nb(x):\n    return inner_nb(x)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("tables", "deep"):
        sys.modules.pop(name, None)
    import deep
    import tables

    before = frozen_digest(deep.outer_nb.py_func)
    assert frozen_digest(deep.outer_nb.py_func) == before
    tables.WEIGHTS[1] = 5.0  # a value of a module read by a function the outer one calls
    changed = frozen_digest(deep.outer_nb.py_func)
    tables.LIMIT = 3
    assert len({before, changed, frozen_digest(deep.outer_nb.py_func)}) == 3


class Renamed:
    """A type a cached signature named, later renamed away (as a namedtuple of a kernel's)."""


def test_an_index_naming_a_type_since_gone_is_stale_not_an_error(tmp_path):
    """Numba unpickles an index's entries before it compares their stamp: an index an older
    library wrote, whose signatures name a type renamed since, is read as empty (the
    function is compiled again), where it stopped the run."""
    import pickle

    from numba.core import caching

    index = caching.IndexDataCacheFile(str(tmp_path), "f-1.py311", "stamp")
    with open(index._index_path, "wb") as handle:
        pickle.dump(index._version, handle)
        handle.write(pickle.dumps(("old stamp", {("signature", Renamed()): "f-1.py311.1.nbc"})))
    del globals()["Renamed"]
    try:
        assert index._load_index() == {}
    finally:
        globals()["Renamed"] = type("Renamed", (), {})
