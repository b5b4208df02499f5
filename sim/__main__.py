"""``python -m sim``: the ``briscola`` command line."""

from sim.app.cli import run

run()
