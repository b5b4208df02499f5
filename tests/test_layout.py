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
    (tmp_path / "kernels" / "probe.py").write_text("import sim.config  # noqa: F401\n")
    result = lint_copy(tmp_path)
    assert result.returncode != 0 and "kernels.probe -> sim.config" in result.stdout, result.stdout


def test_the_floors_of_sim_would_catch_an_import_upwards(tmp_path):
    """Inside sim/, a summary (pure data) importing the presentation breaks the floors, and
    so does a run kind importing a study: in a copy of the packages."""
    for package in ("kernels", "strategies", "sim"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    assert lint_copy(tmp_path).returncode == 0
    with open(tmp_path / "sim" / "summaries.py", "a") as module:
        module.write("\nimport sim.report  # noqa: E402, F401\n")
    with open(tmp_path / "sim" / "kinds" / "simulate.py", "a") as module:
        module.write("\nimport sim.study  # noqa: E402, F401\n")
    result = lint_copy(tmp_path)
    assert result.returncode != 0, result.stdout
    assert "sim.summaries -> sim.report" in result.stdout and "sim.kinds.simulate -> sim.study" in result.stdout


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
