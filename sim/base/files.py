"""What briscola writes on disk, and the rules it keeps there.

- **Whole or not at all.** Every file and folder is written under a temporary name beside
  it, then renamed (``write_atomically``, ``temporary_path``). A temporary name says who
  wrote it: ``.NAME.HOST-PID-TOKEN.tmp``, HOST a tag of the machine's name.
- **What a killed run left is cleared, and nothing else**: a temporary name of this
  machine whose process is gone (``temporary_path``).
- **``--overwrite`` replaces only what briscola wrote**: a result file (Parquet with
  briscola's metadata), or a folder of a ``Layout`` (a tournament's dataset, a study, a
  report) holding nothing but briscola's own files. Anything else is refused,
  naming the file (``check_output_path``); a folder is replaced by renaming, and what it
  held is removed file by file, only what briscola wrote (``replace_folder``).
- **Through a symbolic link**: an output that is a link is written where it points
  (``through_link``), as any program writes through one; the link stays, and nothing is
  ever renamed or emptied through it.

>>> bool(OWN_TEMPORARY.fullmatch(temporary_path(Path("results/run.parquet")).name))
True
>>> STUDY.owns("experiment=pimc%2Fa%3D1/_chunks/part-000000001000.json"), STUDY.owns("notes/todo.txt")
(True, False)
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import socket
import tempfile
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path

from sim.base.config import ConfigError

METADATA_KEY = "briscola"  # the key of a result file's metadata (sim/base/results.py)
PEOPLE_MARKER = "_people.json"  # marks a folder of deals people played (sim/web/people.py)


@dataclass(frozen=True)
class Layout:
    """A kind of folder briscola writes: its name (in messages) and the paths of its
    files, relative to the folder, as patterns. A study and a report are here; a run
    kind that writes a folder holds its own (``sim.pipeline.kinds``)."""

    name: str
    patterns: tuple[str, ...]

    @functools.cached_property
    def _pattern(self) -> re.Pattern:
        return re.compile("|".join(f"(?:{p})" for p in self.patterns))

    def owns(self, relative: str) -> bool:
        """Whether a path of such a folder (relative, with ``/``) is one briscola writes there."""
        return bool(self._pattern.fullmatch(relative)) or is_temporary(relative.rsplit("/", 1)[-1])


STUDY = Layout("study", (
    r"_plan\.toml", r"_study\.json", r"\.lock", r"experiment=[^/]+/_summary\.json",
    r"experiment=[^/]+/(pair=\d+_\d+/)?part-\d{12}\.parquet",
    r"experiment=[^/]+/_chunks/(pair=\d+_\d+-)?part-\d{12}\.json",
    r"experiment=[^/]+/_traces/part-\d{12}\.parquet",
))  # fmt: skip
REPORT = Layout("report", (r"index\.html", r"(margin|scores|first_lead|heatmap|ratings|caller_strength)\.png"))
OWN_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[0-9a-f]{8}\.tmp")
# Names of earlier versions: ``.NAME.PID.tmp``, and ``.NAME.HOSTNAME-PID-TOKEN.tmp`` in studies.
_EARLIER_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.tmp")
_EARLIER_STUDY_TEMPORARY = re.compile(r"\..+\.[^/]+-\d+-[0-9a-f]{8}\.tmp")


@functools.cache
def host_tag() -> str:
    """This machine, in a temporary name: 8 hex digits of its host name."""
    return hashlib.sha1(socket.gethostname().encode()).hexdigest()[:8]


def temporary_path(path: Path, layout: Layout | None = None) -> Path:
    """Where ``path`` is written until it is complete, beside it (a folder of ``layout``,
    or a file). The temporaries a killed run of this machine left for the same path
    (their process is gone) are removed first; others are left alone."""
    path = Path(path)
    for stale in _stale_temporaries(path):
        _remove_stale(stale, layout)
    return path.with_name(f".{path.name}.{host_tag()}-{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")


def _stale_temporaries(path: Path) -> list[Path]:
    if not path.parent.is_dir():
        return []
    stale = []
    for entry in path.parent.iterdir():
        own, earlier = OWN_TEMPORARY.fullmatch(entry.name), _EARLIER_TEMPORARY.fullmatch(entry.name)
        if own and own["name"] == path.name and own["host"] == host_tag() and not _process_alive(int(own["pid"])):
            stale.append(entry)
        elif earlier and earlier["name"] == path.name and not _process_alive(int(earlier["pid"])):
            stale.append(entry)
    return stale


def _remove_stale(stale: Path, layout: Layout | None) -> None:
    """A temporary file or folder a killed run left: a folder loses only the files of
    its ``layout`` (one set aside by a replacement may hold a stranger's); a link goes,
    never what it points to."""
    if stale.is_symlink() or not stale.is_dir():
        stale.unlink(missing_ok=True)
        return
    for root, _, files in os.walk(stale, topdown=False):
        for name in files:
            relative = (Path(root) / name).relative_to(stale).as_posix()
            if layout is not None and layout.owns(relative):
                (Path(root) / name).unlink(missing_ok=True)
        try:
            Path(root).rmdir()
        except OSError:
            pass


def is_temporary(name: str) -> bool:
    """Whether a file name is one of briscola's temporary names (of any machine, any version)."""
    return any(p.fullmatch(name) for p in (OWN_TEMPORARY, _EARLIER_TEMPORARY, _EARLIER_STUDY_TEMPORARY))


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: alive
        return True
    return True


def through_link(path: Path | None) -> Path | None:
    """Where writing ``path`` lands: where it points if it is a symbolic link (a chain of
    them followed to its end, a dangling one to the path it names), else ``path``. A
    file or folder replaced there leaves the link as it was."""
    if path is None or not Path(path).is_symlink():
        return path
    return Path(os.path.realpath(path))


def write_atomically(path: Path, write) -> None:
    """Calls ``write(temporary_path)``, then renames it to ``path``: the file appears
    whole or not at all. A failure to write names the path (a full disk says which)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = temporary_path(path)
    try:
        write(temporary)
        os.replace(temporary, path)
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        if isinstance(error, OSError) and not isinstance(error, WriteFailed):
            raise WriteFailed(path, error) from error
        raise


def write_json(path: Path, data) -> None:
    write_atomically(path, lambda temporary: temporary.write_text(json.dumps(data, indent=1, allow_nan=False)))


class WriteFailed(OSError):
    """A file could not be written (a full disk, say): the message names it."""

    def __init__(self, path: Path, error: OSError):
        super().__init__(error.errno, f"cannot write {path}: {error.strerror or error}")
        self.path = path

    def __str__(self) -> str:
        return self.args[1]


# ------------------------------------------------------------------ what briscola wrote


def is_result_file(path: Path) -> bool:
    """A Parquet file with briscola's metadata: a result or trace file of a command."""
    import pyarrow.parquet as pq

    try:
        return METADATA_KEY.encode() in (pq.read_metadata(path).metadata or {})
    except (OSError, ValueError):
        return False


def foreign_files(folder: Path, layout: Layout) -> list[Path]:
    """The files in ``folder`` that briscola did not write there (as a ``layout`` folder)."""
    foreign = []
    for root, _, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            if not layout.owns(path.relative_to(folder).as_posix()):
                foreign.append(path)
    return sorted(foreign)


def refuse_foreign(folder: Path, layout: Layout, option: str) -> None:
    """ConfigError naming the first file of ``folder`` that briscola did not write."""
    foreign = foreign_files(folder, layout)
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise ConfigError(f"{option} {folder} holds {foreign[0]}{more}, which briscola did not write: --overwrite "
                          "replaces only briscola's own results; move it away, or choose another path")  # fmt: skip


def replace_folder(staging: Path, target: Path, layout: Layout, option: str = "--out") -> None:
    """Puts the complete folder ``staging`` at ``target`` (made beside it: ``target`` is
    no link, see ``through_link``). What ``target`` held (checked again to be briscola's
    own) is set aside by a rename, then removed file by file."""
    if target.is_symlink():  # renamed, the link would go; emptied, the folder it names
        raise ValueError(f"{target} is a link: replace what it points to (through_link)")
    if not target.exists():
        os.replace(staging, target)
        return
    refuse_foreign(target, layout, option)
    aside = temporary_path(target, layout)
    os.replace(target, aside)
    try:
        os.replace(staging, target)
    except BaseException:
        os.replace(aside, target)  # the old one back where it was
        raise
    left = remove_own(aside, layout)
    if left:  # appeared while it was replaced: kept, and said where
        warnings.warn(f"{left[0]} (and {len(left) - 1} more) appeared in {target} as it was replaced: kept in {aside}",
                      stacklevel=2)  # fmt: skip


def remove_own(folder: Path, layout: Layout, keep: tuple[str, ...] = ()) -> list[Path]:
    """Removes the files briscola wrote in ``folder`` (a ``layout`` folder; not those named
    in ``keep``, relative), and the folders left empty; returns what it left of the files
    it did not write. ``folder`` is no link (``through_link``): a link is never emptied."""
    if folder.is_symlink():
        raise ValueError(f"{folder} is a link: remove what it points to (through_link)")
    left = []
    for root, _, files in os.walk(folder, topdown=False):
        for name in files:
            path = Path(root) / name
            relative = path.relative_to(folder).as_posix()
            if relative in keep:
                continue
            if layout.owns(relative):
                path.unlink(missing_ok=True)
            else:
                left.append(path)
        try:
            Path(root).rmdir()
        except OSError:  # not empty: it holds a file briscola did not write
            pass
    return left


# ------------------------------------------------------------------ output paths


def check_output_path(path: Path, overwrite: bool, option: str, layout: Layout | None = None) -> None:
    """Refuses, before anything runs, a path that cannot or must not be written: a file,
    or a folder of ``layout``. With ``overwrite`` an existing one is replaced only if
    briscola wrote it. Missing folders above it are fine: the run makes them once
    everything else is known to be good (``make_parent``)."""
    folder = layout is not None
    if path.exists() and path.is_dir() != folder:
        wanted = "a folder path (a tournament writes a Parquet dataset)" if folder else "a file path"
        raise ConfigError(f"{option} {path} is a {'file' if folder else 'directory'}; give {wanted}")
    if path.exists() and not overwrite:
        raise ConfigError(f"{option} {path} already exists; pass --overwrite to replace it")
    if path.exists() and folder:
        refuse_foreign(path, layout, option)
    elif path.exists() and not is_result_file(path):
        raise ConfigError(f"{option} {path} is not a file briscola wrote (no briscola metadata): --overwrite "
                          "replaces only briscola's own results; move it away, or choose another path")  # fmt: skip
    check_writable(path, option)


def check_writable(path: Path, option: str) -> None:
    """Refuses a path whose folder cannot be written: the nearest folder above it that
    exists must be a folder this process can write in (it makes the missing ones)."""
    existing = path.absolute().parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(f"{option} {path}: {existing} is a file, not a directory")
    try:  # os.access says yes to root everywhere: only writing tells
        tempfile.TemporaryFile(dir=existing).close()
    except OSError as error:
        raise ConfigError(f"{option} {path}: cannot write in {existing} ({error.strerror or error})") from None


def make_parent(path: Path | None) -> None:
    """Makes the folders above an output path (checked by ``check_output_path``)."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
