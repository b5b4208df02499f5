"""Backends: where a run's chunks are played. Each is a ``Backend`` (``base.py``) that owns
its options and their checks and plays a study's pending chunks (``sim.pipeline.chunks.run_chunk``),
handing each result to ``study.record``; the study verifies and keeps it, whatever played
it. ``sim.pipeline.running`` runs commands and plans on any of them.

- ``local``: this process, chunk after chunk; a command here writes its own file.
- ``dask``: a Dask cluster (Dask imported only when asked for: an optional extra).

A new backend is a module here with a ``Backend`` subclass, and a line in ``BACKENDS``:
the command line's ``--backend`` then takes it, with its options.
"""

from __future__ import annotations

from sim.base.config import ConfigError
from sim.pipeline.backends.base import Backend, BackendOption
from sim.pipeline.backends.dask import DASK
from sim.pipeline.backends.local import LOCAL

BACKENDS: dict[str, Backend] = {backend.name: backend for backend in (LOCAL, DASK)}

__all__ = ["BACKENDS", "Backend", "BackendOption", "checked_backend"]


def checked_backend(name: str, options: dict) -> tuple[Backend, dict]:
    """The backend of that name and its options that were given (not None), checked: an
    unknown backend, an option of another's or of none, or options that do not go
    together, is a ConfigError in the command line's words."""
    if name not in BACKENDS:
        raise ConfigError(f"--backend {name!r} is not a backend; valid: {', '.join(BACKENDS)}")
    backend = BACKENDS[name]
    given = {key: value for key, value in options.items() if value is not None}
    owners = {option.name: other for other in BACKENDS.values() for option in other.options}
    for key in given:
        if key not in owners:
            known = ", ".join(owners) or "none"
            raise ConfigError(f"{key!r} is not an option of any backend; their options: {known}")
        if owners[key] is not backend:
            flags = [option.flag for option in owners[key].options]
            verb = "is" if len(flags) == 1 else "are"
            raise ConfigError(f"{' and '.join(flags)} {verb} for --backend {owners[key].name}")
    backend.check(given)
    return backend, given
