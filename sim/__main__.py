"""``python -m sim``: the ``briscola`` command line."""

from sim.cli import run

run()
