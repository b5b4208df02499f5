"""Figures in words for people: what every kind's tables and the report say of a run
(its seed and rules, units, speeds, intervals, Elo)."""

from __future__ import annotations


def side_word(players: int) -> str:
    """What a side is called at a table: a ``team`` at 4 and 6 players (two teams of
    alternate seats), else a ``side`` (each player alone)."""
    return "team" if players in (4, 6) else "side"


def rules_text(rules: dict) -> str:
    """Rules for people: ``trump_redeal=ace-three, partner_view=last3``."""
    return ", ".join(f"{key}={value}" for key, value in rules.items()) or "-"


def run_facts(summary: dict) -> str:
    """The run keys of a summary for people: ``seed 1, rules: trump_redeal=off``, then
    what a name such as ``best`` resolved to (``; best is pimc``)."""
    match = f", {summary['match']} matches" if summary.get("match", "deal") != "deal" else ""
    resolved = "".join(f"; {name} is {setting}" for name, setting in summary.get("resolved", {}).items())
    return f"seed {summary['seed']}, rules: {rules_text(summary.get('rules', {}))}{match}{resolved}"


def units(row: dict) -> tuple[int, str]:
    """A comparison's or tournament's unit count and its name for people, from its JSON
    (files written before the units were named say ``deals`` for matches too)."""
    if "match" in row:
        return row.get("matches", row.get("deals")), f"{row['match']} matches"
    return row["deals"], "deals"


def speed(count: int, unit: str, seconds: float | None, per_second: float | None = None) -> str:
    """The speed line; ``per_second``: the one the JSON holds (from the unrounded seconds)."""
    if not seconds:
        return ""
    return f"; {rate(per_second or count / seconds)} {unit}/s in {seconds:.2f} s"


def rate(per_second: float) -> str:
    """A speed for people: ``1.4``, ``27.3``, ``1,234`` (a slow strategy's is not ``1``)."""
    return f"{per_second:,.0f}" if per_second >= 100 else f"{per_second:.3g}"


def interval(bounds, form: str) -> str:
    return f"{form.format(bounds[0])} to {form.format(bounds[1])}"


def elo(value, score: float) -> str:
    """An Elo figure; None is the infinite one of a score of 0 (-inf) or 1 (+inf)."""
    if value is None:
        return "-inf" if score < 0.5 else "+inf"
    return f"{value:+.1f}"
