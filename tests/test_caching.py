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
