"""A study plan: one TOML file describing many experiments (``briscola batch PLAN.toml``).

    seed = 2026                          # every entry's seed unless it gives its own
    out = "results/pimc-study"           # the study's folder (``--out`` overrides it)
    strategy_files = ["bots.py"]         # plug-ins, relative to the plan's folder

    [[compare]]
    name = "pimc-vs-expert"
    a = ["pimc:samples=16", "pimc:samples=64"]   # a list where one value is expected: a grid axis
    b = "expert"
    players = [2, 4]
    deals = 20_000
    sprt = [0, 10]

Every option of ``simulate``, ``compare`` and ``tournament`` is a key, named as on the
command line (``strategies``, ``a``, ``b``, ``players``, ``deals``, ``seed``, ``match``,
``sprt``, ``alpha``, ``beta``; rules as ``rules = {trump_redeal = "ace-three"}`` or
``rule = ["trump_redeal=ace-three"]``). A list where one value is expected is a grid
axis; for the keys that take a list (``strategies``, ``sprt``, ``rule``) an axis is a list
of lists. An entry expands into the Cartesian product of its axes, in the order they
appear, each experiment named ``NAME/key=value,key=value`` (a list value joined by
``+``). The whole plan is checked before anything runs; every mistake is one line naming
the plan, the entry and the key.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

from sim.base.config import BAD_INPUT, ConfigError, parse_count
from sim.pipeline.experiments import Experiment, make_experiment
from sim.pipeline.kinds import KINDS
from sim.runtime.play import seat_specs

TOP_KEYS = ("seed", "out", "strategy_files", *KINDS)
COMMON_KEYS = ("name", "players", "deals", "seed", "match", "rules", "rule")
KEYS = {  # ``trace``: on every kind that keeps traces
    name: (*COMMON_KEYS, *kind.strategy_keys, *kind.plan_keys, *(("trace",) if kind.traces else ()))
    for name, kind in KINDS.items()
}
LIST_VALUED = ("strategies", "sprt", "rule")  # keys whose one value is a list: an axis is a list of lists
REQUIRED = {
    name: ("name", *(("players",) if kind.players_required else ()), *kind.strategy_keys, "deals")
    for name, kind in KINDS.items()
}
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_EXPERIMENTS = 10_000  # experiments a plan may expand into: a larger grid is refused before it is listed
MAX_FOLDER_NAME = 255  # bytes of a file name on common file systems: an experiment's folder must fit


class PlanError(ConfigError):
    """A mistake in a plan: one line naming the plan, the entry and the key."""


@dataclass(frozen=True)
class Plan:
    path: Path
    text: str  # the plan as written, copied into the study
    out: str | None
    experiments: tuple[Experiment, ...]


def read_plan(path: str | Path) -> Plan:
    """Reads, expands and checks a plan; PlanError for any mistake, before anything runs."""
    path = Path(path)
    if not path.is_file():
        raise PlanError(f"{path}: no such plan file")
    text = path.read_text()
    try:
        data = _toml().loads(text)
    except Exception as error:  # noqa: BLE001 - tomllib's errors differ by version
        raise PlanError(f"{path} is not valid TOML: {error}") from None
    unknown = [key for key in data if key not in TOP_KEYS]
    if unknown:
        raise PlanError(f"{path}: unknown key or section {unknown[0]!r}; valid: seed, out, strategy_files, "
                        "[[simulate]], [[compare]], [[tournament]]")  # fmt: skip
    files = [
        str((path.parent / file).resolve())
        for file in _list_of_strings(data.get("strategy_files", []), path, "strategy_files")
    ]
    try:
        from strategies.registry import available_strategies

        available_strategies(tuple(files))  # every plug-in loads, and no name is taken twice
    except BAD_INPUT as error:
        raise PlanError(f"{path}: key 'strategy_files': {error}") from None
    experiments = []
    entries = []
    for kind in KINDS:
        listed = data.get(kind, [])
        if not isinstance(listed, list):
            raise PlanError(f"{path}: {kind} must be an array of tables, written [[{kind}]]")
        entries += [_checked_entry(path, kind, number, entry, data.get("seed")) for number, entry in
                    enumerate(listed, start=1)]  # fmt: skip
    _check_grid_size(path, entries)
    for entry in entries:
        experiments += _expand(path, entry, files)
    if not experiments:
        raise PlanError(f"{path}: the plan has no experiment; add a [[simulate]], [[compare]] or [[tournament]] entry")
    seen = {}
    for experiment in experiments:
        if experiment.name in seen:
            raise PlanError(f"{path}: the experiment name {experiment.name!r} is used twice ({seen[experiment.name]} "
                            f"and {experiment.kind}); give each entry its own name")  # fmt: skip
        seen[experiment.name] = experiment.kind
    out = data.get("out")
    if out is not None and not isinstance(out, str):
        raise PlanError(f"{path}: out must be a folder path (a string), not {out!r}")
    return Plan(path, text, out, tuple(experiments))


def _toml():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib


def experiment_folder(name: str) -> str:
    """An experiment's folder in a study: ``experiment=NAME``, NAME percent-encoded (as
    Parquet readers decode hive partitions, so the ``experiment`` column reads NAME)."""
    return f"experiment={quote(name, safe='')}"


@dataclass(frozen=True)
class _Entry:
    """One entry of a plan, checked: where it is, its name, its values and grid axes."""

    kind: str
    where: str
    name: str
    values: dict
    axes: list  # (key, its values), in the order they appear

    @property
    def size(self) -> int:
        return math.prod(len(options) for _, options in self.axes)


def _check_grid_size(path: Path, entries: list[_Entry]) -> None:
    """Refuses a plan that would expand into more than MAX_EXPERIMENTS experiments, by
    counting its axes before any experiment is made."""
    total = sum(entry.size for entry in entries)
    if total > MAX_EXPERIMENTS:
        largest = max(entries, key=lambda entry: entry.size)
        sizes = [len(options) for _, options in largest.axes]
        raise PlanError(f"{path}: the plan expands into {total:,} experiments ({largest.where}: {largest.size:,}, "
                        f"{' x '.join(map(str, sizes))} over {len(sizes)} axes); a plan holds at most "
                        f"{MAX_EXPERIMENTS:,}: split it into several plans, or give fewer values")  # fmt: skip


def _checked_entry(path: Path, kind: str, number: int, entry, seed) -> _Entry:
    """An entry's keys, name and axes checked (its values are checked as it expands)."""
    where = f"[[{kind}]] entry {number}"
    if not isinstance(entry, dict):
        raise PlanError(f"{path}: {where} is not a table")
    entry = {key.replace("-", "_"): value for key, value in entry.items()}
    if "name" in entry:
        where += f" ({entry['name']!r})"
    for key in entry:
        if key not in KEYS[kind]:
            raise PlanError(f"{path}: {where}: unknown key {key!r}; valid keys: {', '.join(KEYS[kind])}")
    for key in REQUIRED[kind]:
        if key not in entry:
            raise PlanError(f"{path}: {where}: key {key!r} is missing")
    if "seed" not in entry and seed is None:
        raise PlanError(f"{path}: {where}: key 'seed' is missing (give it in the entry or at the top of the plan)")
    name = entry["name"]
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise PlanError(f"{path}: {where}: name {name!r} must be letters, digits, '.', '-' and '_'")
    values = {"seed": seed, **entry}
    return _Entry(kind, where, name, values, _axes(path, where, values))


def _expand(path: Path, entry: _Entry, files) -> list[Experiment]:
    """The experiments of one entry: the product of its axes, each checked."""
    expanded = []
    for choice in itertools.product(*(options for _, options in entry.axes)):
        chosen = dict(entry.values, **{key: option for (key, _), option in zip(entry.axes, choice)})
        factors = tuple((key.removeprefix("rules."), _factor(option)) for (key, _), option in zip(entry.axes, choice))
        label = ",".join(f"{key}={value}" for key, value in factors)
        full = f"{entry.name}/{label}" if label else entry.name
        folder = experiment_folder(full)
        if len(folder.encode()) > MAX_FOLDER_NAME:
            raise PlanError(f"{path}: {entry.where}: the experiment name {full!r} makes a folder name of "
                            f"{len(folder.encode())} bytes ({folder[:40]}...), more than the {MAX_FOLDER_NAME} a "
                            "file system takes: give the entry a shorter name, or fewer axes")  # fmt: skip
        expanded.append(replace(_experiment(path, entry.where, entry.kind, full, chosen, files), factors=factors))
    return expanded


def _axes(path: Path, where: str, values: dict) -> list[tuple[str, list]]:
    """The grid axes of an entry, in the order they appear: (key, its values)."""
    axes = []
    for key, value in values.items():
        if key == "rules":
            if not isinstance(value, dict):
                raise PlanError(
                    f"{path}: {where}, key 'rules': give a table, e.g. rules = {{ trump_redeal = \"ace-three\" }}"
                )
            axes += [(f"rules.{rule}", option) for rule, option in value.items() if isinstance(option, list)]
        elif key in LIST_VALUED:
            if isinstance(value, list) and value and all(isinstance(item, list) for item in value):
                axes.append((key, value))
        elif isinstance(value, list):
            axes.append((key, value))
    for key, options in axes:
        if not options:
            raise PlanError(f"{path}: {where}, key {key!r}: an empty list gives no experiment")
    return axes


def _factor(value):
    """An axis's value as a study's frame holds it: a list (of strategies, rules, SPRT
    bounds) as its name shows it, joined by ``+``; a number or text as it is."""
    return "+".join(map(str, value)) if isinstance(value, list) else value


def _experiment(path: Path, where: str, kind: str, name: str, values: dict, files) -> Experiment:
    """One checked experiment; a mistake names its key."""
    _check_types(path, where, kind, values)
    rules = [f"{rule}={values.get(f'rules.{rule}', value)}" for rule, value in values.get("rules", {}).items()]
    rules += values.get("rule", [])
    keys = KINDS[kind].strategy_keys
    strategies = [values[key] for key in keys] if len(keys) > 1 else values[keys[0]]
    try:
        return make_experiment(
            kind, players=values.get("players", 2), strategies=strategies, deals=values["deals"], seed=values["seed"],
            rules=rules, strategy_files=files, match=values.get("match", "deal"), sprt=values.get("sprt"),
            alpha=values.get("alpha", 0.05), beta=values.get("beta", 0.05), name=name, trace=values.get("trace", False),
        )  # fmt: skip
    except BAD_INPUT as error:
        raise PlanError(f"{path}: {where}, key {_key_of(str(error), kind, values)!r}: {error}") from None


def _check_types(path: Path, where: str, kind: str, values: dict) -> None:
    """Each key's value of the right type (once the axes have chosen theirs)."""

    def is_number(value, whole=False):
        return isinstance(value, int if whole else (int, float)) and not isinstance(value, bool)

    def is_names(value):
        return isinstance(value, list) and value and all(isinstance(item, str) for item in value)

    one_string = KINDS[kind].takes_one_string  # "a,b" as well as a list

    for key in ("deals", "seed"):  # counts as on the command line: 1_000_000, "1e6", 1e6
        value = values.get(key)
        if isinstance(value, float) and abs(value) >= 2**53:  # TOML read it as a float: it may be rounded
            raise PlanError(f"{path}: {where}, key {key!r}: {value!r} is a float, which cannot hold every whole "
                            f"number above 2**53; write it as an integer, or as a string such as \"{value:.0e}\"")  # fmt: skip
        if isinstance(value, (str, float)):
            try:
                values[key] = parse_count(value if isinstance(value, str) else repr(value))
            except ConfigError as error:
                raise PlanError(f"{path}: {where}, key {key!r}: {error}") from None
    checks = {
        "players": (lambda v: is_number(v, whole=True), "a whole number"),
        "deals": (lambda v: is_number(v, whole=True), "a whole number"),
        "seed": (lambda v: is_number(v, whole=True), "a whole number"),
        "a": (lambda v: isinstance(v, str), "a strategy (a string)"), "b": (lambda v: isinstance(v, str), "a strategy (a string)"),
        "match": (lambda v: isinstance(v, str), "a match format (a string)"),
        "alpha": (is_number, "a number"), "beta": (is_number, "a number"),
        "trace": (lambda v: isinstance(v, bool), "true or false"),
        "sprt": (lambda v: isinstance(v, str) or (isinstance(v, list) and len(v) == 2 and all(map(is_number, v))),
                 "two numbers, e.g. [0, 10]"),
        "rule": (lambda v: isinstance(v, list) and all(isinstance(item, str) for item in v), 'a list like ["trump_redeal=ace-three"]'),
        "strategies": ((lambda v: isinstance(v, str) or is_names(v)) if one_string else is_names,
                       "a list of strategies" + (' (or one string "a,b")' if one_string else "")),
    }  # fmt: skip
    for key, (valid, expected) in checks.items():
        if key in values and not valid(values[key]):
            raise PlanError(f"{path}: {where}, key {key!r}: {values[key]!r} is not {expected}")
    for rule, value in values.get("rules", {}).items():
        value = values.get(f"rules.{rule}", value)
        if not isinstance(value, str):
            raise PlanError(f"{path}: {where}, key 'rules': {rule} = {value!r} is not a rule value (a string)")


def _key_of(message: str, kind: str, values: dict) -> str:
    """Which key a configuration error is about, from the option or thing it names."""
    for option in ("players", "deals", "seed", "match", "sprt", "alpha", "beta"):
        if f"--{option}" in message:
            return option
    if "rule" in message:
        return "rule" if "rule" in values and "rules" not in values else "rules"
    keys = KINDS[kind].strategy_keys
    if len(keys) > 1:  # a key per strategy: the one named
        named = re.search(r"(?:strategy|parameter) '?([\w-]+)", message)
        for key in keys:
            if named and values[key].split(":")[0] == named.group(1):
                return key
        return ", ".join(keys)
    return keys[0]


def _list_of_strings(value, path: Path, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise PlanError(f"{path}: {key} must be a list of strings")
    return value


def plan_text(experiment: Experiment, comment: str) -> str:
    """A plan of this one experiment, which ``read_plan`` reads back to the same (so
    that a one-experiment study can be resumed with ``briscola batch``)."""
    config = experiment.config
    lines = [f"# {comment}", f"seed = {config.seed}", f"strategy_files = {json.dumps(list(config.strategy_files))}", "",
             f"[[{experiment.kind}]]", f"name = {json.dumps(experiment.name)}", f"players = {config.players}",
             f"deals = {config.deals}", f"match = {json.dumps(config.match)}",
             "rules = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in config.rules.for_table(config.players).items()) + " }"]  # fmt: skip
    keys = experiment.run_kind.strategy_keys
    if len(keys) > 1:  # a key per strategy
        lines += [f"{key} = {json.dumps(name)}" for key, name in zip(keys, experiment.strategies)]
    else:
        lines.append(f"{keys[0]} = {json.dumps(list(experiment.strategies))}")
    if experiment.sprt is not None:
        sprt = experiment.sprt
        lines += [f"sprt = [{sprt.elo0}, {sprt.elo1}]", f"alpha = {sprt.alpha}", f"beta = {sprt.beta}"]
    return "\n".join(lines) + "\n"


def fingerprint(experiment: Experiment) -> dict:
    """Everything that decides an experiment's results, as JSON: a study remembers it,
    and a resumed study checks that it has not changed. A strategy counts with its
    version and its fingerprint (the code and data it plays with), a plug-in file by its
    contents."""
    config = experiment.config
    strategies = _strategies(experiment)
    versions = {strategy.name: strategy.version for strategy in strategies}
    prints = {strategy.name: strategy.fingerprint() for strategy in strategies}
    return {
        "kind": experiment.kind, "strategies": list(experiment.strategies), "players": config.players,
        "deals": config.deals, "seed": config.seed, "rules": config.rules.for_table(config.players),
        "match": config.match,
        "sprt": None if experiment.sprt is None else [experiment.sprt.elo0, experiment.sprt.elo1,
                                                      experiment.sprt.alpha, experiment.sprt.beta],
        "strategy_files": [hashlib.sha1(Path(file).read_bytes()).hexdigest() for file in config.strategy_files],
        "versions": dict(sorted(versions.items())), "fingerprints": dict(sorted(prints.items())),
        **({"trace": True} if experiment.trace else {}),  # what is kept, not what is played: absent when off
    }  # fmt: skip


def networks_provenance(experiment: Experiment) -> dict:
    """Where the trained networks each strategy plays with at the experiment's table come
    from (strategy name -> its provenance there), as a command's result file records them
    per seat: a study records them beside its fingerprint, which covers their files."""
    players = experiment.config.players
    found = {s.name: s.provenance(players) for s in _strategies(experiment) if s.provenance}
    return {name: facts for name, facts in found.items() if facts}


def _strategies(experiment: Experiment) -> list:
    """The experiment's strategies (each ``Strategy`` once, in its order)."""
    config = experiment.config
    found = [seat_specs(replace(config, strategies=(label,) * config.players))[0].strategy
             for label in experiment.strategies]  # fmt: skip
    return list({strategy.name: strategy for strategy in found}.values())


def plan_hash(fingerprints) -> str:
    """One hash of every experiment's (name, fingerprint)."""
    canonical = json.dumps([[name, print_] for name, print_ in fingerprints], sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
