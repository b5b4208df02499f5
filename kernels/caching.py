"""Numba's disk cache, keyed so that it cannot run stale code or stale data.

Numba keys a cached function by its own source file only. Kernels inline helpers and
read constant tables from other files, and a plug-in calls the library's helpers and
perhaps its author's own modules: an edit to any of those would leave the cache serving
the old machine code. And Numba freezes the global values a function reads (arrays,
numbers, tuples) into that code: a plug-in that loads its weights from a file at import
would play the first weights it was compiled with forever. Here every cached function's
key also holds

- the contents of every source file of ``kernels/`` and ``strategies/`` (the library:
  any edit to it recompiles what depends on it, which is everything jitted);
- for a function outside the library (a plug-in, a notebook cell), the files of the
  modules it uses outside the standard library and installed packages (its author's
  helpers, whether it imports a module, a function or a value from them), followed
  through their own imports; and
- the values it freezes (``frozen_digest``): every global or closure value its code reads
  that Numba compiles in as a constant, however it was made, followed into the jitted
  functions it calls and the attributes of the modules it reads.

``code_and_data_digest`` gives the same walk as a strategy's identity: the source of
every function it runs and every value they freeze (``Strategy.fingerprint``).

``install()`` (run by ``import kernels``, before any kernel is decorated) puts these keys
in front of Numba's own cache locators. This is not the place for jitted code, but it
must run before any of it is compiled, so it lives with it.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import inspect
import os
import pickle
import sys
import sysconfig
import types
import warnings
from pathlib import Path

import numpy as np
from numba.core import caching, config

LIBRARY = Path(__file__).resolve().parents[1]  # the folder holding kernels/ and strategies/
LIBRARY_PACKAGES = ("kernels", "strategies")


@functools.cache
def _file_digest(path: str, mtime_ns: int, size: int) -> bytes:
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).digest()


def digest_of(files) -> str:
    digest = hashlib.sha256()
    for path in sorted(files):
        stat = os.stat(path)
        digest.update(path.encode() + _file_digest(path, stat.st_mtime_ns, stat.st_size))
    return digest.hexdigest()


def library_files() -> list[str]:
    return sorted(str(path) for package in LIBRARY_PACKAGES for path in (LIBRARY / package).glob("*.py"))


@functools.cache
def library_stamp() -> str:
    """The contents of every library source file (read once per process)."""
    return digest_of(library_files())


@functools.cache
def _installed_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple({os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib")})


def in_library(path: str) -> bool:
    return os.path.realpath(path).startswith(tuple(str(LIBRARY / package) + os.sep for package in LIBRARY_PACKAGES))


def in_numba_cache(path: str) -> bool:
    """A file of Numba's disk cache: in a ``__pycache__`` folder, or under the
    ``NUMBA_CACHE_DIR`` a user set (a cache file loads as a strategy first decides)."""
    real = Path(os.path.realpath(path))
    in_cache_dir = bool(config.CACHE_DIR) and real.is_relative_to(os.path.realpath(config.CACHE_DIR))
    return "__pycache__" in real.parts or in_cache_dir


@functools.lru_cache(maxsize=4096)
def is_authors(path: str) -> bool:
    """A source file of the user's own, not of Python, an installed package or the library."""
    real = os.path.realpath(path)
    return real.endswith(".py") and not real.startswith(_installed_roots()) and not in_library(real)


def _authors_modules() -> list[types.ModuleType]:
    return [m for m in list(sys.modules.values()) if is_authors(getattr(m, "__file__", None) or "")]


def _modules_used(namespace: dict, candidates: list[types.ModuleType]) -> list[types.ModuleType]:
    """The modules whose contents ``namespace`` uses: modules it imported, the modules of
    the functions it holds, and the modules a value was imported from (found by
    identity: ``from helper import TABLE`` leaves only the array)."""
    found = []
    for name, value in list(namespace.items()):
        if name.startswith("__"):  # the module's own attributes (__doc__ is None in many)
            continue
        if isinstance(value, types.ModuleType):
            found.append(value)
            continue
        home = sys.modules.get(getattr(value, "__module__", None) or "")
        if home is not None:  # a function or a class
            found.append(home)
        else:  # data: the author's modules holding it under the same name
            found += [m for m in candidates if vars(m).get(name, namespace) is value]
    return found


def authors_files(py_func) -> set[str]:
    """The files of the author's modules a function uses, its own included, followed
    through their globals."""
    files, seen, namespaces = set(), set(), [py_func.__globals__]
    own = py_func.__globals__.get("__file__")
    if own:
        files.add(own)
    candidates = _authors_modules()
    while namespaces:
        for module in _modules_used(namespaces.pop(), candidates):
            path = getattr(module, "__file__", None)
            if module.__name__ in seen or not path or not is_authors(path):
                continue
            seen.add(module.__name__)
            files.add(path)
            namespaces.append(vars(module))
    return files


# ------------------------------------------------------------------ what a function freezes

FROZEN_DEPTH = 4  # how deep tuples of frozen values are followed


def _code_names(code: types.CodeType) -> set[str]:
    """The global and attribute names a function's code reads, nested code included."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _code_names(constant)
    return names


def _is_jitted(value) -> bool:
    return callable(value) and isinstance(getattr(value, "py_func", None), types.FunctionType)


def _read_values(py_func) -> list[tuple[str, object]]:
    """(name, value) of what a function's code reads from its globals and closure; for a
    module it reads, the attributes of that module its code names (``tables.ORDER``)."""
    names, namespace = _code_names(py_func.__code__), py_func.__globals__
    found = []
    for name in sorted(names & namespace.keys()):
        value = namespace[name]
        if isinstance(value, types.ModuleType):
            for attribute in sorted(names - {name}):
                try:
                    with warnings.catch_warnings():  # a name the code reads elsewhere (``object``): np.object warns
                        warnings.simplefilter("ignore")
                        found.append((f"{name}.{attribute}", getattr(value, attribute)))
                except Exception:  # noqa: BLE001, S112 - a lazy module's attribute that fails: not frozen
                    continue
        else:
            found.append((name, value))
    cells = zip(py_func.__code__.co_freevars, py_func.__closure__ or ())
    found += [(f"<closure {name}>", cell.cell_contents) for name, cell in cells]
    return found


def _feed_value(digest, name: str, value, depth: int = 0) -> None:
    """Adds a value Numba would compile in as a constant (others add nothing)."""
    if isinstance(value, np.ndarray) and not value.dtype.hasobject:
        digest.update(f"{name}:{value.dtype.str}:{value.shape}:".encode())
        digest.update(np.ascontiguousarray(value).view(np.uint8).data if value.size else b"")
    elif isinstance(value, (bool, int, float, complex, str, bytes, np.generic, enum.Enum)) or value is None:
        digest.update(f"{name}={value!r}:{type(value).__name__};".encode())
    elif isinstance(value, tuple) and depth < FROZEN_DEPTH:
        digest.update(f"{name}=({len(value)};".encode())
        for k, item in enumerate(value):
            _feed_value(digest, f"{name}[{k}]", item, depth + 1)


def jitted_call_graph(py_func) -> list[types.FunctionType]:
    """``py_func`` and the Python functions of every jitted function it reads, followed
    through their own globals, closures and modules (each once), in a stable order."""
    seen, order, stack = set(), [], [py_func]
    while stack:
        function = stack.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        order.append(function)
        stack += [value.py_func for _, value in reversed(_read_values(function)) if _is_jitted(value)]
    return order


def _feed_frozen(digest, function) -> None:
    """Adds every value one function freezes."""
    for name, value in _read_values(function):
        _feed_value(digest, name, value)


def frozen_digest(py_func) -> str:
    """A digest of every value ``py_func`` and the jitted functions it calls freeze."""
    digest = hashlib.sha256()
    for function in jitted_call_graph(py_func):
        digest.update(f"{function.__module__}.{function.__qualname__}:".encode())
        _feed_frozen(digest, function)
    return digest.hexdigest()


def code_and_data_digest(py_funcs) -> str:
    """What functions play with: the source of each function they run (their call graph)
    and every value those freeze, as one digest (a module's name is left out: the same
    file loaded from two folders is the same code)."""
    digest = hashlib.sha256()
    for py_func in py_funcs:
        for function in jitted_call_graph(py_func):
            try:
                source = inspect.getsource(function)
            except (OSError, TypeError):  # no source (a notebook cell gone): its bytecode
                source = function.__code__.co_code.hex()
            digest.update(f"{function.__qualname__}\n{source}".encode())
            _feed_frozen(digest, function)
    return digest.hexdigest()


class _DependencyStamp:
    """Mixed into Numba's locators: the source stamp also holds what the function uses
    (its files) and what it freezes (the values it compiles in)."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._py_func = py_func

    def get_source_stamp(self):
        own = super().get_source_stamp()
        authors = "" if in_library(self._py_file) else digest_of(authors_files(self._py_func))
        return own, library_stamp(), authors, frozen_digest(self._py_func)


def _numba_locator(name: str):
    """One of Numba's locator classes: public names from Numba 0.62, ``_Name`` before."""
    return getattr(caching, name, None) or getattr(caching, "_" + name)


_LOCATORS = [
    type(f"Keyed{name}", (_DependencyStamp, _numba_locator(name)), {"__module__": __name__})
    for name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator", "IPythonCacheLocator")
]


def _load_index_or_nothing(self):
    """Numba's ``IndexDataCacheFile._load_index``, for which an index that cannot be read
    back is stale, not an error: Numba unpickles an index's entries before it compares
    their stamp, and an index written by an older library names the types of its
    signatures then (a namedtuple since renamed raises AttributeError)."""
    try:
        return _numba_load_index(self)
    except (AttributeError, ImportError, EOFError, pickle.UnpicklingError):
        return {}


_numba_load_index = caching.IndexDataCacheFile._load_index


def install() -> None:
    """Puts the dependency-keyed locators first, and reads a stale index as empty (once)."""
    if config.CACHE_LOCATOR_CLASSES:
        warnings.warn(
            "NUMBA_CACHE_LOCATOR_CLASSES is set: Numba's cache may serve stale code after an edit", stacklevel=2
        )
    locators = caching.CacheImpl._locator_classes
    if _LOCATORS[0] not in locators:
        locators[:0] = _LOCATORS
    caching.IndexDataCacheFile._load_index = _load_index_or_nothing
