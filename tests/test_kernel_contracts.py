"""Contracts of the jitted code that no behaviour test would catch: a strategy reads each
parameter from the slot its declaration puts it in, and no jitted function takes more
than MAX_ARGUMENTS arguments without saying why."""

from __future__ import annotations

import ast
import importlib

import pytest

from strategies.library import BUILTIN
from tests.helpers import REPO

MAX_ARGUMENTS = 8

# The strategies whose jitted module names a slot per parameter (NAME = its index).
SLOTTED = {"expert": "strategies.expert_nb", "pimc": "strategies.pimc_nb", "ismcts": "strategies.ismcts_nb"}


@pytest.mark.parametrize("name", sorted(SLOTTED))
def test_parameter_slots_follow_the_declarations(name):
    """``params[SAMPLES]`` must be the value of the declared ``samples``: the slot
    constants of the jitted module are the positions of the Param declarations."""
    strategy = next(s for s in BUILTIN if s.name == name)
    module = importlib.import_module(SLOTTED[name])
    slots = {p.name.upper(): k for k, p in enumerate(strategy.params)}
    assert {slot: getattr(module, slot, None) for slot in slots} == slots


def _jitted_functions():
    for path in sorted([*REPO.glob("kernels/*.py"), *REPO.glob("strategies/*.py")]):
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.FunctionDef) and any("njit" in ast.unparse(d) for d in node.decorator_list):
                first = min(d.lineno for d in node.decorator_list)
                yield f"{path.relative_to(REPO)}:{node.name}", len(node.args.args), lines[first - 2].strip()


def test_no_jitted_function_takes_many_arguments_without_a_reason():
    """Over MAX_ARGUMENTS, the line above the decorator says ``# N arguments: why``."""
    unexplained = [
        f"{where} ({n} arguments)"
        for where, n, above in _jitted_functions()
        if n > MAX_ARGUMENTS and not above.startswith(f"# {n} arguments:")
    ]
    assert not unexplained


def _prange_bodies():
    for path in sorted([*REPO.glob("kernels/*.py"), *REPO.glob("strategies/*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.For)
                and isinstance(node.iter, ast.Call)
                and ast.unparse(node.iter.func) == "prange"
            ):
                yield f"{path.relative_to(REPO)}:{node.lineno}", node


def test_no_prange_body_writes_into_a_field_of_a_context():
    """Numba drops a write like ``env.restart[i] = True`` made in a prange body itself
    (a namedtuple's array; it broke the environments' reset): the body only calls."""
    writes = [
        f"{where}: {ast.unparse(target)}"
        for where, loop in _prange_bodies()
        for node in ast.walk(loop)
        if isinstance(node, ast.Assign | ast.AugAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute)
    ]
    assert list(_prange_bodies()) and not writes
