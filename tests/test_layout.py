"""The house's rules, checked like behaviour: the layers go one way (kernels, then
strategies, then sim), and the code passes the linter and the formatter."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO


def tool(name: str) -> str:
    """A tool installed beside this Python (the test extra installs them)."""
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True)


def test_layers_go_one_way():
    result = run(tool("lint-imports"), "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_layer_contract_would_catch_an_import_upwards(tmp_path):
    """The contract names the real packages: in a copy of them, a kernel importing sim
    breaks it."""
    for package in ("kernels", "strategies", "sim"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    (tmp_path / "kernels" / "probe.py").write_text("import sim.base.config  # noqa: F401\n")
    result = lint_copy(tmp_path)
    assert result.returncode != 0 and "kernels.probe -> sim.base.config" in result.stdout, result.stdout


def test_the_floors_of_sim_would_catch_an_import_upwards(tmp_path):
    """Inside sim/, a summary (sim.base) importing the presentation breaks the packages'
    layers, and a run kind importing a study breaks the pipeline's floors: in a copy of
    the packages."""
    for package in ("kernels", "strategies", "sim"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    assert lint_copy(tmp_path).returncode == 0
    with open(tmp_path / "sim" / "base" / "summaries.py", "a") as module:
        module.write("\nimport sim.present.report  # noqa: E402, F401\n")
    with open(tmp_path / "sim" / "pipeline" / "kinds" / "simulate.py", "a") as module:
        module.write("\nimport sim.pipeline.study  # noqa: E402, F401\n")
    result = lint_copy(tmp_path)
    assert result.returncode != 0, result.stdout
    assert (
        "sim.base.summaries -> sim.present.report" in result.stdout
        and "sim.pipeline.kinds.simulate -> sim.pipeline.study" in result.stdout
    )


def lint_copy(folder):
    return subprocess.run([tool("lint-imports"), "--no-cache"], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(folder)})  # fmt: skip


def test_the_kernels_strategy_tables_are_made_in_one_place():
    """The run context and its plug-in tables are built by strategies/seam.py alone: no
    kernel takes the context apart to build it again, no other module lays it out."""
    kinds = {"RunContext", "Plugins", "PluginData"}
    builders = set()
    for package in ("kernels", "strategies", "sim"):
        for path in (REPO / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in kinds:
                    builders.add(str(path.relative_to(REPO)))
    assert builders == {"strategies/seam.py"}


def test_lint_passes():
    result = run(tool("ruff"), "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_code_is_formatted():
    result = run(tool("ruff"), "format", "--check", ".")
    assert result.returncode == 0, "run `ruff format .`:\n" + result.stdout


# ------------------------------------------------------------------ run kinds

KIND_NAMES = (
    "simulate",
    "compare",
    "tournament",
)  # every kind's name (a test below ties it to sim.pipeline.kinds.KINDS)


def kind_switches(source: str) -> list[str]:
    """The places in ``source`` that decide by a run kind's name: a comparison with it
    (``kind == "compare"``, ``"compare" in config``, ``kind in ("simulate", ...)``), or a
    dict keyed by it. Naming a kind to run one (``make_experiment("compare", ...)``) is
    no switch."""

    def names_a_kind(node) -> bool:
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(names_a_kind(item) for item in node.elts)
        return isinstance(node, ast.Constant) and node.value in KIND_NAMES

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(names_a_kind(side) for side in (node.left, *node.comparators)):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict) and any(key is not None and names_a_kind(key) for key in node.keys):
            found.append(f"line {node.lineno}: a dict keyed by kind names")
        elif isinstance(node, ast.MatchValue) and names_a_kind(node.value):
            found.append(f"line {node.lineno}: case {ast.unparse(node.value)}")
    return found


def test_the_scan_knows_every_kind():
    from sim.pipeline.kinds import KINDS

    assert set(KIND_NAMES) == set(KINDS)


def test_the_scan_finds_a_switch_on_a_kind_name():
    assert kind_switches('if run.kind == "tournament":\n    pass\n') == ["line 1: run.kind == 'tournament'"]
    assert len(kind_switches('count = a if "compare" in config else b\nSHOWN = {"simulate": 1}\n')) == 2
    assert kind_switches('experiment = make_experiment("compare", players=2)\n') == []


def test_nothing_outside_the_run_kinds_switches_on_a_kind_name():
    """A kind owns what depends on it (``sim/pipeline/kinds``): how it plays, reads, shows and
    writes. Elsewhere the code asks the kind, so a new kind is one module there."""
    kinds = REPO / "sim" / "pipeline" / "kinds"
    found = {}
    for package in ("sim", "strategies", "kernels"):
        for path in sorted((REPO / package).rglob("*.py")):
            if kinds not in path.parents:
                switches = kind_switches(path.read_text())
                if switches:
                    found[str(path.relative_to(REPO))] = switches
    assert found == {}
