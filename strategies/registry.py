"""Every strategy a run may use, by name: the built-ins, those of installed packages
(entry-point group ``briscola.strategies``), and those of ``--strategy-file`` files.

An entry point names a ``Strategy`` object, or a list or tuple of them; a strategy file
is a Python file whose module-level ``Strategy`` objects are all taken.

>>> sorted(available_strategies())[:3]
['expert', 'greedy', 'highest']
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from importlib.metadata import entry_points
from pathlib import Path

from strategies.api import Strategy
from strategies.errors import StrategyError

ENTRY_POINT_GROUP = "briscola.strategies"


def builtin_strategies() -> dict[str, Strategy]:
    from strategies.library import BUILTIN

    return {s.name: s for s in BUILTIN}


def available_strategies(strategy_files: tuple[str, ...] | list[str] = ()) -> dict[str, Strategy]:
    """Name -> Strategy. A name taken twice is an error that names both sources."""
    found = dict(builtin_strategies())
    for strategy in _entry_point_strategies():
        _add(found, strategy)
    for path in strategy_files:
        for strategy in load_strategy_file(path):
            _add(found, strategy)
    return found


def _add(found: dict, strategy: Strategy) -> None:
    if strategy.name in found:
        raise StrategyError(
            f"strategy name {strategy.name!r} is taken twice: by {found[strategy.name].source} "
            f"and by {strategy.source}; rename one"
        )
    found[strategy.name] = strategy


def _entry_point_strategies():
    for point in entry_points(group=ENTRY_POINT_GROUP):
        source = f"entry point {point.name!r} ({point.value})"
        try:
            loaded = point.load()
        except Exception as error:  # noqa: BLE001 - a broken plug-in is named, not a traceback
            raise StrategyError(f"{source} failed to load: {type(error).__name__}: {error}") from None
        yield from _strategies_in(loaded, source)


def load_strategy_file(path: str | Path) -> list[Strategy]:
    """The module-level Strategy objects of a Python file."""
    path = Path(path)
    if not path.is_file():
        raise StrategyError(f"--strategy-file {path}: no such file")
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:16]
    module_name = f"briscola_strategy_file_{digest}"  # stable: Numba's cache finds it again by name
    folder = str(path.resolve().parent)
    if folder not in sys.path:  # the file's own helper modules, beside it, import as they would in a script
        sys.path.append(folder)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # Numba's cache and pickling look modules up by name
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001
        raise StrategyError(f"--strategy-file {path} failed to load: {type(error).__name__}: {error}") from None
    found = [value for value in vars(module).values() if isinstance(value, Strategy)]
    if not found:
        raise StrategyError(f"--strategy-file {path} defines no Strategy object")
    return [_with_source(s, f"file {path}") for s in found]


def _strategies_in(loaded, source: str) -> list[Strategy]:
    items = loaded if isinstance(loaded, (list, tuple)) else [loaded]
    if not items or not all(isinstance(item, Strategy) for item in items):
        raise StrategyError(f"{source} is not a Strategy object or a list of them")
    return [_with_source(s, source) for s in items]


def _with_source(strategy: Strategy, source: str) -> Strategy:
    from dataclasses import replace

    return replace(strategy, source=source, inline_id=None)  # only built-ins take the inline path
