"""Every strategy a run may use, by name: the built-ins, those of installed packages
(entry-point group ``briscola.strategies``), and those of ``--strategy-file`` files.

An entry point names a ``Strategy`` object, or a list or tuple of them; a strategy file
is a Python file whose module-level ``Strategy`` objects are all taken.

>>> sorted(available_strategies())[:3]
['expert', 'greedy', 'highest']
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import threading
from contextlib import contextmanager
from importlib.metadata import entry_points
from pathlib import Path

from strategies.api import Alias, Strategy
from strategies.errors import StrategyError

ENTRY_POINT_GROUP = "briscola.strategies"


def builtin_strategies() -> dict[str, Strategy]:
    from strategies.library import BUILTIN

    return {s.name: s for s in BUILTIN}


def builtin_aliases() -> dict[str, Alias]:
    """Name -> Alias: the names that stand for a built-in setting chosen per table (``best``)."""
    from strategies.library import ALIASES

    return {alias.name: alias for alias in ALIASES}


def resolve_aliases(texts, players: int) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """``texts`` (``NAME[:key=value...]`` each) with every alias replaced by the setting it
    stands for at a table of ``players``, and the aliases resolved, as (name, setting)
    pairs in order of first use; StrategyError for an alias given parameters.

    >>> resolve_aliases(["best", "expert"], 6)
    (('pimc', 'expert'), (('best', 'pimc'),))
    """
    aliases = builtin_aliases()
    resolved, used = [], {}
    for text in texts:
        alias = aliases.get(text.split(":")[0].strip())
        setting = alias.resolve(text, players) if alias is not None else text
        if alias is not None:
            used.setdefault(alias.name, setting)
        resolved.append(setting)
    return tuple(resolved), tuple(used.items())


STRENGTH_FILE = Path(__file__).with_name("strength.json")  # benchmarks/bench_against_expert.py writes it


def measured_strength(path: Path = STRENGTH_FILE) -> list[dict]:
    """The built-ins' measured scores against ``expert`` (each: ``name``, the ``strategy``
    played, its ``version``, ``players``, ``seed``, ``deals``, ``score``, ``score_ci95``,
    ``seconds``, ...); none when the file is absent."""
    import json

    if not path.is_file():
        return []
    return json.loads(path.read_text())["measurements"]


def described_strategies(strategy_files: tuple[str, ...] = ()) -> list[dict]:
    """What ``briscola strategies`` shows: every strategy's and alias's description, each
    with the measurements of its strength against ``expert`` (``strength``: none for a
    plug-in)."""
    measured = measured_strength()
    described = [s.describe() for s in available_strategies(strategy_files).values()]
    described += [alias.describe() for alias in builtin_aliases().values()]
    for item in described:  # no plug-in takes a built-in's name, so a name is a built-in's measurement
        item["strength"] = [m for m in measured if m["name"] == item["name"]]
    return described


def available_strategies(strategy_files: tuple[str, ...] | list[str] = ()) -> dict[str, Strategy]:
    """Name -> Strategy. A name taken twice is an error that names both sources."""
    found = dict(builtin_strategies())
    for strategy in _entry_point_strategies():
        _add(found, strategy)
    for path in strategy_files:
        for strategy in load_strategy_file(path):
            _add(found, strategy)
    return found


def _add(found: dict, strategy: Strategy) -> None:
    if strategy.name in builtin_aliases():
        raise StrategyError(f"strategy name {strategy.name!r} (by {strategy.source}) is a built-in name that stands "
                            "for a setting chosen per table; rename it")  # fmt: skip
    if strategy.name in found:
        raise StrategyError(
            f"strategy name {strategy.name!r} is taken twice: by {found[strategy.name].source} "
            f"and by {strategy.source}; rename one"
        )
    found[strategy.name] = strategy


def _entry_point_strategies():
    for point in entry_points(group=ENTRY_POINT_GROUP):
        source = f"entry point {point.name!r} ({point.value})"
        try:
            loaded = point.load()
        except Exception as error:  # noqa: BLE001 - a broken plug-in is named, not a traceback
            raise StrategyError(f"{source} failed to load: {type(error).__name__}: {error}") from None
        yield from _strategies_in(loaded, source)


def load_strategy_file(path: str | Path) -> list[Strategy]:
    """The Strategy objects a Python file defines at module level (not those it imports
    from the library, such as ``EXPERT`` to build on), each with its data files: those it
    declares (``files``, relative to the file's folder) and those it reads from its
    folder while it loads. Data must sit in the file's folder or below (a link there to
    a file elsewhere counts, as the bytes it leads to): a file read from anywhere else
    would neither count in its fingerprint nor travel to Dask workers, so it is refused."""
    path = Path(path)
    if not path.is_file():
        raise StrategyError(f"--strategy-file {path}: no such file")
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:16]
    module_name = f"briscola_strategy_file_{digest}"  # stable: Numba's cache finds it again by name
    folder = path.resolve().parent
    if str(folder) not in sys.path:  # the file's own helper modules, beside it, import as they would in a script
        sys.path.append(str(folder))
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # Numba's cache and pickling look modules up by name
    try:
        with files_read() as opened:
            spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001
        raise StrategyError(f"--strategy-file {path} failed to load: {type(error).__name__}: {error}") from None
    library = {id(s) for s in builtin_strategies().values()}
    found = [value for value in vars(module).values() if isinstance(value, Strategy) and id(value) not in library]
    if not found:
        raise StrategyError(f"--strategy-file {path} defines no Strategy object")
    loaded = _data_files(opened, folder, path)
    strategies = [_with_source(s, f"file {path}", _declared_files(s, folder, path) | loaded) for s in found]
    for strategy in strategies:  # now, while its files hold what it loaded: a later edit is a new strategy
        strategy.fingerprint()
    return strategies


def plug_in_bundle(path: str | Path, strategies) -> dict[str, bytes]:
    """What a plug-in file needs on another machine, by path relative to its folder: the
    file itself, its author's modules in that folder (or below), and the data files of
    its ``strategies`` (those loaded from it; a link is sent as the bytes it leads to)."""
    from kernels.caching import authors_files

    path = Path(path).resolve()
    folder = path.parent
    files = {path}
    for strategy in strategies:
        files |= {Path(f) for f in strategy.files}
        for function in (strategy.choose, strategy.bid, strategy.call):
            if function is not None:
                files |= {Path(f).resolve() for f in authors_files(getattr(function, "py_func", function))}
    return {f.relative_to(folder).as_posix(): f.read_bytes() for f in sorted(files) if f.is_relative_to(folder)}


def data_file_in(folder: Path, name: str | os.PathLike) -> Path | None:
    """``name`` (absolute, or relative to the working folder) as a path in ``folder`` or
    below, links left as they are (a link in the folder to a file elsewhere is in it);
    None if it is not there."""
    given = Path(os.path.abspath(name))
    for candidate in (given, given.parent.resolve() / given.name):
        if candidate.is_relative_to(folder):
            return folder / candidate.relative_to(folder)
    return None


def _declared_files(strategy: Strategy, folder: Path, path: Path) -> set[str]:
    declared = set()
    for name in strategy.files:
        file = data_file_in(folder, folder / name)
        if file is None or not file.is_file():
            raise StrategyError(f"--strategy-file {path}: strategy {strategy.name!r} declares the data file {name!r}, "
                                f"which is not a file in {folder}: data files sit in the plug-in file's folder or below, "
                                "so that they travel with it")  # fmt: skip
        declared.add(str(file))
    return declared


CODE_SUFFIXES = (".py", ".pyc", ".pyo")  # modules, not data: Python opens a .py only while its .pyc is missing


def _data_files(opened: list[str], folder: Path, plug_in: Path) -> set[str]:
    """The data files a plug-in read as it loaded: in its folder or below (they travel
    with it), or the library's own (its networks: on every worker already); not code (its
    helper modules travel as code, by ``authors_files``), Numba's caches, nor what Python
    and the installed packages read of their own. StrategyError for a file read from
    anywhere else."""
    from kernels.caching import in_library, in_numba_cache

    found = set()
    for name in opened:
        if not os.path.isfile(name) or Path(name).suffix in CODE_SUFFIXES or in_numba_cache(name):
            continue
        file = data_file_in(folder, name)
        if file is None and in_library(name):
            found.add(os.path.realpath(name))
        elif file is None:
            if not _installed(name):
                raise StrategyError(
                    f"--strategy-file {plug_in}: it read {os.path.abspath(name)} as it loaded, outside its folder "
                    f"{folder}: a plug-in's data files sit in its folder or below (copy the file there, or link it), "
                    "so that they count in its fingerprint and travel with it to Dask workers"
                )
        elif file.resolve() != plug_in.resolve():
            found.add(str(file))
    return found


def check_read_while_deciding(strategy: Strategy, opened: list[str]) -> None:
    """StrategyError if a batched strategy read a data file while deciding that is not
    one of its own (read as it loaded, or declared): that file would count in no
    fingerprint, so a change to it would go unseen."""
    from kernels.caching import in_library, in_numba_cache

    own = {os.path.realpath(f) for f in strategy.files}
    for name in opened:
        real = os.path.realpath(name)
        if (real in own or not os.path.isfile(real) or Path(real).suffix in CODE_SUFFIXES
                or in_numba_cache(real) or in_library(real) or _installed(real)):  # fmt: skip
            continue
        raise StrategyError(
            f"strategy {strategy.name!r} read {name} while deciding: a plug-in reads its data files as its file "
            "loads (or declares them with files=), so that they count in its fingerprint and travel with it"
        )


SYSTEM_FOLDERS = ("/proc/", "/sys/", "/dev/", "/etc/", "/usr/share/")  # what libraries read of the machine


def _installed(name: str) -> bool:
    """A file of Python's, of an installed package, or of the machine's."""
    import site
    import sysconfig

    real = os.path.realpath(name)
    roots = (sys.prefix, sys.base_prefix, site.getusersitepackages(), *sysconfig.get_paths().values())
    return real.startswith(SYSTEM_FOLDERS) or any(real.startswith(os.path.realpath(r) + os.sep) for r in roots)


_recording = threading.local()  # per thread, while plug-ins load: the files they read, innermost last
_hooked: list[bool] = []  # whether the audit hook is installed (once a process: hooks cannot be removed)
WRITING = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT


def _audit(event: str, args) -> None:
    reading = getattr(_recording, "stack", None)
    if event == "open" and reading and isinstance(args[0], (str, bytes, os.PathLike)):
        mode, flags = args[1], args[2]
        writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & WRITING)
        if not writes and _read_by_the_author(sys._getframe(1)):  # a log it writes is not data it plays with
            reading[-1].append(os.path.abspath(os.fsdecode(args[0])))


def _read_by_the_author(frame) -> bool:
    """Whether the author's code asked for the file (``np.load(path)`` in its module or
    its function), rather than a library as it imports (matplotlib reading its font
    cache): the innermost frame that is the author's, or a module being imported,
    tells."""
    from kernels.caching import is_authors

    while frame is not None:
        code = frame.f_code
        if is_authors(code.co_filename):
            return True
        if code.co_name == "<module>":
            return False
        frame = frame.f_back
    return False


@contextmanager
def files_read():
    """Records the files Python opens for reading inside the block, on this thread
    (``open``, numpy's ``load``, ...; not a C library's own ``fopen``: such files are
    declared with ``files``), as absolute paths."""
    if not _hooked:
        sys.addaudithook(_audit)  # it stays for the process, and records only inside this block
        _hooked.append(True)
    stack = _recording.__dict__.setdefault("stack", [])
    stack.append([])
    try:
        yield stack[-1]
    finally:
        stack.pop()


def _strategies_in(loaded, source: str) -> list[Strategy]:
    items = loaded if isinstance(loaded, (list, tuple)) else [loaded]
    if not items or not all(isinstance(item, Strategy) for item in items):
        raise StrategyError(f"{source} is not a Strategy object or a list of them")
    return [_with_source(s, source) for s in items]


def _with_source(strategy: Strategy, source: str, files: set[str] = frozenset()) -> Strategy:
    from dataclasses import replace

    files = tuple(sorted(files)) if files else strategy.files
    return replace(strategy, source=source, inline_id=None, files=files)  # only built-ins take the inline path
