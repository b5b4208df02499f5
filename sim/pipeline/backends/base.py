"""What a backend is: a ``Backend`` object, light to import (the command line reads every
backend's options as it starts, so a backend imports what it runs on only when it runs)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BackendOption:
    """One option of a backend's own: ``--NAME VALUE`` on the command line (on every
    command that runs experiments), ``NAME=VALUE`` in ``sim.app.api``."""

    name: str  # a Python name: scheduler
    type: type  # what its value is: str, int
    help: str  # for --help, saying which backend takes it
    metavar: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


class Backend:
    """Where a run's chunks are played. A subclass fills in its name, ``about`` (for
    ``--backend``'s help), its ``options``, their ``check`` and ``run``; ``given`` is
    always a dict of its options that were given (not None)."""

    name: str
    about: str  # what it is, after its name in --backend's help: "this machine"
    options: tuple[BackendOption, ...] = ()
    in_this_process = False  # a command is played here into its own file, not as a study of one experiment

    def check(self, given: dict) -> None:
        """Refuses (ConfigError, in the command line's words) options that do not go together."""

    def reach(self, given: dict) -> None:
        """Makes sure what it runs on is there (installed, answering), before anything is written."""

    def resume_options(self, given: dict) -> tuple[str, ...]:
        """The command-line options that run a study here again, for its ``--resume`` command."""
        flags = [(option.flag, str(given[option.name])) for option in self.options if option.name in given]
        return ("--backend", self.name, *(word for flag in flags for word in flag))

    def run(self, study, stop, progress, given: dict, threads: int | None) -> None:
        """Plays the study's pending chunks (``sim.pipeline.chunks.run_chunk``), handing each result
        to ``study.record`` (which verifies and keeps it), until they are done or ``stop``
        is set. ``progress``: called with (units done, experiment's name), ``.status(text)``
        shows what the run waits for (None clears it), ``.note(text)`` tells people.
        ``threads``: as asked for (None: the backend's default)."""
        raise NotImplementedError
