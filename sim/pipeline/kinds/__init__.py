"""Run kinds: what ``simulate``, ``compare`` and ``tournament`` each are, registered in
one place. A kind says what it plays (its parts: one, or a tournament's pairs), how a
part plays a batch of deals, the columns of its rows, its tally and how tallies merge,
its summary and its default name; how its files are read and checked; its tables, its
headline and what a report shows of it; its output (a file, or a folder's layout).
Everything else (the chunks, a command's file, a study, the backends, ``sim.load``,
``report``) asks the kind and never switches on its name; a file of a kind not here is
refused.

A new kind is a module here with a ``RunKind`` subclass (``base.py``), added to ``KINDS``.

>>> [kind.name for kind in KINDS.values()]
['simulate', 'compare', 'tournament']
>>> kind_of("compare").strategy_keys
('a', 'b')
"""

from __future__ import annotations

from pathlib import Path

from sim.base.config import ConfigError
from sim.pipeline.kinds.base import RefusedRun, RunKind
from sim.pipeline.kinds.compare import Compare
from sim.pipeline.kinds.simulate import Simulate
from sim.pipeline.kinds.tournament import Tournament

KINDS: dict[str, RunKind] = {kind.name: kind for kind in (Simulate(), Compare(), Tournament())}


def kind_of(name: str) -> RunKind:
    """The kind of that name; ConfigError for another."""
    kind = KINDS.get(name)
    if kind is None:
        raise ConfigError(f"unknown kind of run {name!r}; valid: {', '.join(KINDS)}")
    return kind


def file_kind(path: Path, config: dict) -> RunKind:
    """The kind of a result file, as its metadata names it; RefusedRun for a kind not here.
    Files of earlier versions name none: theirs is a comparison's if it holds its keys,
    else a simulation's (the only kinds that wrote one file then)."""
    name = config.get("kind") or ("compare" if "compare" in config else "simulate")
    kind = KINDS.get(name)
    if kind is None or kind.file_kind != name:
        known = ", ".join(dict.fromkeys(kind.file_kind for kind in KINDS.values()))
        raise RefusedRun(f"{path} is a result file of kind {name!r}, which this version of briscola does not read "
                         f"(it reads {known}): read it with the version that wrote it")  # fmt: skip
    return kind


def trace_kind(path: Path, config: dict) -> RunKind:
    """The kind of a trace file: as a result file's (``file_kind``), or the kind of a
    folder whose one trace it is (a tournament's)."""
    kind = KINDS.get(config.get("kind"))
    return kind if kind is not None and kind.folder is not None else file_kind(path, config)


def folder_kind(path: Path) -> RunKind:
    """The kind whose folder ``path`` is, by the index file it holds; RefusedRun for none."""
    folders = [kind for kind in KINDS.values() if kind.folder is not None]
    for kind in folders:
        if (path / kind.index_file).exists():
            return kind
    raise RefusedRun(f"{path} is a folder without {' or '.join(kind.index_file for kind in folders)}: not a "
                     f"{' or '.join(kind.name for kind in folders)} dataset")  # fmt: skip
