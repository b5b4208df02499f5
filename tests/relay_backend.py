"""A backend of the tests' own, registered as a new backend would be: ``relay`` plays a
study's chunks here (through the local backend), and takes an option of its own,
``--hops N``, which it checks. Run as ``python -m tests.relay_backend ARGS``, it is the
``briscola`` command with the relay registered."""

from __future__ import annotations

import sys

from sim.base.config import ConfigError
from sim.pipeline.backends import BACKENDS, Backend, BackendOption
from sim.pipeline.backends.local import LOCAL


class Relay(Backend):
    name = "relay"
    about = "this machine, relayed"
    options = (BackendOption("hops", int, "With --backend relay: how many hops.", "N"),)

    def check(self, given: dict) -> None:
        if given.get("hops", 1) < 1:
            raise ConfigError(f"--hops {given['hops']} must be at least 1")

    def run(self, study, stop, progress, given: dict, threads: int | None) -> None:
        progress.note(f"relayed over {given.get('hops', 1)} hops")
        LOCAL.run(study, stop, progress, {}, threads)


BACKENDS["relay"] = Relay()  # the registry line

if __name__ == "__main__":
    from sim.app.cli import main

    sys.exit(main())
