"""Run kinds: what ``simulate``, ``compare`` and ``tournament`` each are, registered in
one place. A kind says what it plays (its parts: one, or a tournament's pairs), how a
part plays a batch of deals, the columns of its rows, its tally and how tallies merge,
its summary and its default name. Everything above (the chunks, a command's file, a
study, the Dask backend) asks the kind and never switches on its name.

A new kind is a module here with a ``RunKind`` subclass (``base.py``), added to ``KINDS``.

>>> [kind.name for kind in KINDS.values()]
['simulate', 'compare', 'tournament']
>>> kind_of("compare").strategy_keys
('a', 'b')
"""

from __future__ import annotations

from sim.config import ConfigError
from sim.kinds.base import RunKind
from sim.kinds.compare import Compare
from sim.kinds.simulate import Simulate
from sim.kinds.tournament import Tournament

KINDS: dict[str, RunKind] = {kind.name: kind for kind in (Simulate(), Compare(), Tournament())}


def kind_of(name: str) -> RunKind:
    """The kind of that name; ConfigError for another."""
    kind = KINDS.get(name)
    if kind is None:
        raise ConfigError(f"unknown kind of run {name!r}; valid: {', '.join(KINDS)}")
    return kind
