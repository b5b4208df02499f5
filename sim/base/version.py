"""The version of briscola: results record it, and a study refuses another version's chunks."""

__version__ = "0.1.0"  # as in pyproject.toml
