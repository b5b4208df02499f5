"""The plug-in API: what a strategy is, and how its parameters are given and checked.

A strategy is a ``Strategy`` object: a name, a version (bump it when its play changes),
a one-line description, typed parameters, and a decision function::

    choose_nb(view, params, rng) -> card

- ``view``: a VIEW_DTYPE record (kernels/enums.py), everything its player may see and
  nothing more, copied for this one decision: what the strategy writes there, nobody
  else sees.
- ``params``: a float64 array, the strategy's parameters in the order they are declared.
- ``rng``: the strategy's own counter-based random stream, keyed by (seed, deal, seat):
  draw from it with ``rng_below_nb(rng, n)`` or ``rng_uniform_nb(rng)``.

Authors import all they need from ``strategies.toolkit``.

At Briscola Chiamata (5 players) a strategy may also make the auction's decisions with
two more functions of the same signature: ``bid`` (a level above ``view.bid``, at most
``view.max_bid``, or -1 to pass) and ``call`` (the caller's card, of the bid's face);
without them it follows the default auction policy (``kernels/inlined_strategies_nb.py``).

A strategy that plays with data (a network's weights, a table) gives ``data``: a function
of the table, ``data(players) -> float32 vector``. Its decision functions then take that
vector, read-only, as a fourth argument, ``choose_nb(view, params, rng, data)``: weights
passed as an array, never frozen into the compiled code, so new weights recompile nothing.

It returns the code of a card in ``view.hand``. It is compiled by Numba with exactly
that signature (a plain Python function is compiled too), cached on disk where its
source file's folder allows, and called by the kernels through a function pointer: no
change to the engine is needed to add one. The strategy author's guide is
docs/strategies.md.

>>> spec = parse_spec("pimc:samples=32", {"pimc": Strategy(
...     "pimc", 1, "search", choose=None,
...     params=(Param("samples", int, 64, 1, 4096), Param("rollouts", int, 4, 1, 256)))})
>>> spec.label, spec.values
('pimc:samples=32', {'samples': 32, 'rollouts': 4})
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from strategies.errors import StrategyError

MAX_PARAMS = 16  # parameter slots per seat in the kernels' float64 ``params`` array
KINDS = {int: "int", float: "float", bool: "bool"}
DATA_TABLES = (2, 3, 4, 5, 6)  # the tables whose data a strategy's fingerprint covers


@dataclass(frozen=True)
class Param:
    """A typed strategy parameter: ``kind`` is int, float or bool; ``low``/``high`` bound
    numbers (inclusive; None for no bound). Where it can change play, so that a run told
    to change it where it cannot says so: ``tables``, the numbers of players (empty:
    every table); ``rule``, a rule option and the value under which alone it acts
    (``("signals", "trumps")``); ``requires``, another parameter of the strategy and the
    value it must have (``("adapt", False)``)."""

    name: str
    kind: type
    default: Any
    low: float | None = None
    high: float | None = None
    help: str = ""
    tables: tuple[int, ...] = ()
    rule: tuple[str, str] | None = None
    requires: tuple[str, Any] | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise TypeError(f"parameter {self.name!r}: kind must be int, float or bool, not {self.kind!r}")
        self.check(self.default)

    def parse(self, text: str, strategy: str):
        """The value of ``text``, or StrategyError naming what is valid."""
        try:
            if self.kind is bool:
                lowered = text.strip().lower()
                if lowered not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                    raise ValueError
                value = lowered in ("true", "1", "yes", "on")
            else:
                value = self.kind(text)
        except ValueError:
            raise StrategyError(
                f"parameter {strategy}:{self.name}={text!r} is not {'an' if self.kind is int else 'a'} "
                f"{KINDS[self.kind]}; valid: {self.describe_range()}"
            ) from None
        return self.check(value, strategy)

    def check(self, value, strategy: str = "?"):
        if self.kind is float and not math.isfinite(value):  # NaN passes every comparison, and JSON holds neither
            raise StrategyError(
                f"parameter {strategy}:{self.name}={value} is not a finite number; valid: {self.describe_range()}"
            )
        too_low = self.low is not None and value < self.low
        too_high = self.high is not None and value > self.high
        if too_low or too_high:
            raise StrategyError(
                f"parameter {strategy}:{self.name}={value} is out of range; valid: {self.describe_range()}"
            )
        return value

    def acts_at(self, players: int) -> bool:
        """Whether it can change play at a table of ``players``."""
        return not self.tables or players in self.tables

    def idle_reason(self, players: int, rules, values: dict) -> str | None:
        """Why it cannot change play in a run at ``players`` under ``rules`` (a Rules)
        with these parameter ``values``, in a few words; None where it can."""
        if not self.acts_at(players):
            return f"at {players} players (only at {', '.join(map(str, self.tables))})"
        if self.rule is not None and getattr(rules, self.rule[0]) != self.rule[1]:
            key, value = self.rule
            return f"under the rule {key}={getattr(rules, key)} (only with --rule {key}={value})"
        if self.requires is not None and values[self.requires[0]] != self.requires[1]:
            other, value = self.requires
            return f"while {other}={_format(values[other])} (only with {other}={_format(value)})"
        return None

    def describe_range(self) -> str:
        if self.kind is bool:
            return "true or false"
        low = "-inf" if self.low is None else f"{self.kind(self.low)}"
        high = "inf" if self.high is None else f"{self.kind(self.high)}"
        return f"{KINDS[self.kind]} in [{low}, {high}]"

    def to_dict(self) -> dict:
        return {"name": self.name, "type": KINDS[self.kind], "default": self.default,
                "low": self.low, "high": self.high, "help": self.help}  # fmt: skip


@dataclass(frozen=True)
class Strategy:
    """A strategy: see the module's docstring. ``inline_id`` is for the engine's own
    fast path (``random`` and ``greedy`` only); ``source`` says where it came from."""

    name: str
    version: int
    description: str
    choose: Any  # the decision function: a Numba dispatcher or a plain Python function
    params: tuple[Param, ...] = ()
    inline_id: int | None = None
    source: str = "built-in"
    bid: Any = None  # Briscola Chiamata's bid and call; None: the default auction policy
    call: Any = None
    # Data files it plays with (weights, tables): given relative to its plug-in file's folder,
    # absolute once loaded, with the files it opened from its folder as it loaded. They travel
    # with it to Dask workers and enter its fingerprint.
    files: tuple[str, ...] = ()
    # A batched strategy: ``choose`` (and ``bid``, ``call``) are Python callables over many
    # decisions at once, ``choose(views, legal, params, keys) -> cards`` (see docs/agents.md).
    batched: bool = False
    # What its decision functions play with, per table: ``data(players) -> float32 vector``
    # (None: they take three arguments). It enters the fingerprint.
    data: Any = None
    # Where its data comes from, per table: ``provenance(players) -> dict`` ({} where it has
    # none): shown by ``briscola strategies`` and stored in every result file that uses it.
    provenance: Any = None
    # The tables it plays (numbers of players; empty: every table). A run at another table
    # is refused in one line, and ``briscola check`` passes those tables by.
    tables: tuple[int, ...] = ()
    # What is compiled and fingerprinted, per object: a copy made with dataclasses.replace
    # (another strategy built on this one) starts afresh.
    _compiled: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self):
        if not self.name or not self.name.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"strategy name {self.name!r}: use letters, digits, '-' and '_'")
        if len(self.params) > MAX_PARAMS:
            raise ValueError(f"strategy {self.name!r} declares {len(self.params)} parameters; at most {MAX_PARAMS}")
        if not set(self.tables) <= set(DATA_TABLES):
            raise ValueError(f"strategy {self.name!r}: tables={self.tables!r}; valid tables are numbers of players "
                             f"among {', '.join(map(str, DATA_TABLES))}")  # fmt: skip
        if self.batched and self.data is not None:
            raise ValueError(f"strategy {self.name!r}: a batched strategy holds its data itself (its Python "
                             "callables read what they like); data= is for jitted decision functions")  # fmt: skip

    def compiled(self):
        """The decision function as the kernels call it (strategies/seam.py), compiled once
        per process (Numba's disk cache makes later processes fast)."""
        if "fn" not in self._compiled:
            from strategies.seam import compiled_decision

            self._compiled["fn"] = compiled_decision(self, "play")
        return self._compiled["fn"]

    def compiled_auction(self):
        """The bid and call functions as the kernels call them: the strategy's own, or the
        default auction policy's."""
        if "auction" not in self._compiled:
            from strategies.seam import compiled_decision

            self._compiled["auction"] = (compiled_decision(self, "bid"), compiled_decision(self, "call"))
        return self._compiled["auction"]

    @property
    def takes_data(self) -> bool:
        return self.data is not None

    def decides_with_data(self, decision: str) -> bool:
        """Whether its function for ``decision`` ("play", "bid" or "call") takes its data:
        its own functions do; the default auction policy, where it has no bid or call, does not."""
        own = {"play": self.choose, "bid": self.bid, "call": self.call}[decision]
        return self.takes_data and own is not None

    def data_for(self, players: int) -> np.ndarray:
        """Its data at a table of ``players``, as the kernels take it (float32, read-only);
        an empty vector for a strategy without data. StrategyError if it has none there."""
        if self.data is None:
            return np.zeros(0, dtype=np.float32)
        key = ("data", players)
        if key not in self._compiled:
            vector = np.ascontiguousarray(self.data(players), dtype=np.float32).ravel()
            vector.flags.writeable = False
            self._compiled[key] = vector
        return self._compiled[key]

    def plays_at(self, players: int) -> bool:
        return not self.tables or players in self.tables

    def not_played_text(self, players: int) -> str:
        """What a run at a table it does not play says."""
        return (f"strategy {self.name!r} is not played at {players} players: it plays at "
                f"{', '.join(map(str, sorted(self.tables)))} (its declared tables)")  # fmt: skip

    def is_compiled(self) -> bool:
        return "fn" in self._compiled

    def fingerprint(self) -> str:
        """What it plays with, as 16 hex digits: the source of every function it runs and
        the values they freeze (kernels/caching.py), and the bytes of its data files. Two
        runs whose strategies have the same fingerprint played the same strategy."""
        if "fingerprint" not in self._compiled:
            import hashlib

            from kernels.caching import authors_files, code_and_data_digest
            from kernels.inlined_strategies_nb import default_bid_nb, default_call_nb

            functions = [getattr(f, "py_func", f) for f in (self.choose, self.bid or default_bid_nb,
                                                              self.call or default_call_nb)]  # fmt: skip
            digest = hashlib.sha256(code_and_data_digest(functions).encode())
            if self.batched:  # plain Python: its helpers are outside the jitted call graph, so its files count
                own = [getattr(f, "py_func", f) for f in (self.choose, self.bid, self.call) if f is not None]
                for path in sorted(set().union(*(authors_files(f) for f in own)), key=os.path.basename):
                    digest.update(f"{os.path.basename(path)}:".encode() + _file_bytes(path))
            for path in self.files:
                digest.update(f"{os.path.basename(path)}:".encode() + _file_bytes(path))
            if self.data is not None:
                for players in DATA_TABLES:
                    try:
                        digest.update(f"{players}:".encode() + self.data_for(players).tobytes())
                    except StrategyError:  # none at this table
                        pass
            self._compiled["fingerprint"] = digest.hexdigest()[:16]
        return self._compiled["fingerprint"]

    def describe(self) -> dict:
        return {"name": self.name, "version": self.version, "description": self.description,
                "source": self.source, "batched": self.batched, "params": [p.to_dict() for p in self.params],
                "files": list(self.files), "fingerprint": self.fingerprint(),
                "tables": list(self.tables or DATA_TABLES),
                **({"provenance": self.provenances()} if self.provenance else {})}  # fmt: skip

    def provenances(self) -> dict:
        """Table -> where its data there comes from, for the tables that have any."""
        found = {f"{players}p": self.provenance(players) for players in DATA_TABLES}
        return {table: facts for table, facts in found.items() if facts}


@dataclass(frozen=True)
class StrategySpec:
    """A strategy with values for its parameters, as one seat plays it."""

    strategy: Strategy
    values: dict

    @property
    def label(self) -> str:
        """``name`` plus the parameters given away from their defaults, in declared order."""
        changed = [f"{p.name}={_format(self.values[p.name])}" for p in self.strategy.params
                   if self.values[p.name] != p.default]  # fmt: skip
        return ":".join([self.strategy.name, *changed])

    def idle_params(self, players: int, rules) -> list[str]:
        """What this spec sets away from the defaults that cannot change play at a table of
        ``players`` under ``rules``: one line each, naming where it would."""
        reasons = [(p, p.idle_reason(players, rules, self.values)) for p in self.strategy.params
                   if self.values[p.name] != p.default]  # fmt: skip
        return [f"{self.label}: {p.name} changes nothing {reason}" for p, reason in reasons if reason]

    def param_vector(self) -> np.ndarray:
        vector = np.zeros(MAX_PARAMS, dtype=np.float64)
        for k, p in enumerate(self.strategy.params):
            vector[k] = float(self.values[p.name])
        return vector

    def to_dict(self, players: int | None = None) -> dict:
        """What a result file records of the seat (with ``players``, its data's provenance there)."""
        described = {"name": self.strategy.name, "version": self.strategy.version, "params": dict(self.values),
                     "fingerprint": self.strategy.fingerprint()}  # fmt: skip
        if players is not None and self.strategy.provenance:
            described["provenance"] = self.strategy.provenance(players)
        return described


@dataclass(frozen=True)
class Alias:
    """A name that stands for a setting of a built-in strategy chosen per table (``best``).
    A run resolves it before it starts: it then plays, names and records that setting
    (``NAME[:key=value...]``), and keeps beside it the name it was given."""

    name: str
    version: int  # bumped when a table's setting changes
    description: str
    settings: dict  # number of players -> the setting's NAME[:key=value...]

    def resolve(self, text: str, players: int) -> str:
        """The setting ``text`` (the alias's name) stands for at a table of ``players``;
        StrategyError for parameters given to it or a table it names no setting for."""
        if text.strip() != self.name:
            raise StrategyError(
                f"strategy {self.name} takes no parameters: it stands for a setting chosen per table "
                f"({self.setting_text(players)}); give that setting's name with your parameters instead"
            )
        if players not in self.settings:
            raise StrategyError(f"strategy {self.name} names a setting at {self._tables()} players, not at {players}")
        return self.settings[players]

    def setting_text(self, players: int) -> str:
        """``pimc:samples=4 at 2 players``, or every table's where ``players`` has none."""
        if players in self.settings:
            return f"{self.settings[players]} at {players} players"
        return "; ".join(f"{self.settings[p]} at {p} players" for p in sorted(self.settings))

    def _tables(self) -> str:
        tables = [str(p) for p in sorted(self.settings)]
        return ", ".join(tables[:-1]) + f" and {tables[-1]}" if len(tables) > 1 else tables[0]

    def describe(self) -> dict:
        return {"name": self.name, "version": self.version, "alias": True, "description": self.description,
                "settings": {f"{p}p": self.settings[p] for p in sorted(self.settings)}}  # fmt: skip


def parse_spec(text: str, strategies: dict) -> StrategySpec:
    """``NAME[:key=value...]`` against the available ``strategies`` (name -> Strategy)."""
    name, *items = [part.strip() for part in text.split(":")]
    if name not in strategies:
        from strategies.registry import builtin_aliases  # best, resolved before specs are parsed, is valid too

        valid = sorted({*strategies, *builtin_aliases()})
        raise StrategyError(f"unknown strategy {name!r}; valid strategies: {', '.join(valid)}")
    strategy = strategies[name]
    declared = {p.name: p for p in strategy.params}
    values = {p.name: p.default for p in strategy.params}
    given = {}
    for item in items:
        key, sep, raw = (part.strip() for part in item.partition("="))
        if not sep or key not in declared:
            valid = ", ".join(declared) if declared else "none"
            what = f"unknown parameter {key!r}" if sep else f"{item!r} is not key=value"
            raise StrategyError(f"strategy {name}: {what}; valid parameters: {valid}")
        if key in given:
            raise StrategyError(
                f"strategy {name}: parameter {key} is given twice ({given[key]} and {raw}); give it once"
            )
        given[key] = raw
        values[key] = declared[key].parse(raw, name)
    return StrategySpec(strategy, values)


def _file_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise StrategyError(f"a data file of a strategy cannot be read: {path} ({error.strerror or error})") from None


def _format(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)
