"""Result files: one Parquet row per deal, the run's configuration in the file's metadata.

Files are written under a temporary name beside the target and renamed only when
closed, so a reader never meets a half-written file. A run stopped with Ctrl-C still
closes its files, marked ``"status": "partial"`` in the metadata.

>>> run = read_results("results/run.parquet")   # doctest: +SKIP
>>> run.deals.groupby("winner_side").size()      # doctest: +SKIP
>>> run.config["strategies"]                     # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.base.config import CHIAMATA, Rules, RunConfig, n_sides
from sim.base.files import METADATA_KEY, WriteFailed, temporary_path

if TYPE_CHECKING:  # pandas only where a notebook reads results: runs start faster without it
    import pandas

FORMAT_VERSION = 1


MATCH_FIELDS = (("match", pa.int64()), ("match_deal", pa.int8()), ("match_winner_side", pa.int8()))


def arrow_column(values: np.ndarray) -> pa.Array:
    """A NumPy column as an Arrow array. ``pa.array`` would do, but it imports pandas
    (a quarter of a second at every start) to check what it was given."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def numpy_column(column: pa.ChunkedArray) -> np.ndarray:
    """An Arrow column without nulls as a NumPy array, without pandas (``to_numpy``
    imports it, as ``pa.array`` does: see ``arrow_column``); dictionary-encoded strategy
    names as strings."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(array.type):
        return np.array(array.dictionary.to_pylist(), dtype=object)[numpy_column(array.indices)]
    dtype = np.dtype(array.type.to_pandas_dtype())
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def arrow_strings(texts: list[str]) -> pa.Array:
    """Python strings as an Arrow string array (as ``arrow_column``, without pandas)."""
    encoded = [text.encode() for text in texts]
    offsets = np.cumsum([0, *map(len, encoded)]).astype(np.int32)
    return pa.Array.from_buffers(
        pa.string(), len(texts), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )


# Briscola Chiamata's columns, after winner_side (side 0 is the caller's, 1 the defenders'):
# the auction's result and each seat's game points. A deal thrown in has caller -1.
CHIAMATA_FIELDS = (
    ("bid", pa.int8()), ("caller", pa.int8()), ("called", pa.int8()), ("partner", pa.int8()),
    ("target", pa.int8()), ("made", pa.int8()), ("cappotto", pa.int8()), ("caller_strength", pa.int16()),
)  # fmt: skip


def point_sides(players: int) -> int:
    """Sides whose card points a result row holds: at Briscola Chiamata the caller's (0)
    and the defenders' (1)."""
    return 2 if players == CHIAMATA else n_sides(players)


DECK_SIZE = 40  # the deck column's width: the whole pack, -1 after its last card


def hand_size(players: int) -> int:
    """Cards dealt to each seat: 3, or the whole pack at Briscola Chiamata (8 each)."""
    return DECK_SIZE // CHIAMATA if players == CHIAMATA else 3


def results_schema(config: RunConfig) -> pa.Schema:
    """Column order: deal, strategy per seat, briscola, points per seat and side, winner;
    at Briscola Chiamata (no briscola) then CHIAMATA_FIELDS and game points per seat; then
    the deal's cards: the deck as dealt and each seat's dealt hand (``deal_columns``);
    with a match format, then the match, the deal's place in it and the match's winner."""
    chiamata = config.players == CHIAMATA
    strategy = pa.dictionary(pa.int8(), pa.string())
    fields = [pa.field("deal", pa.int64())]
    fields += [pa.field(f"strategy_{seat}", strategy) for seat in range(config.players)]
    if not chiamata:
        fields.append(pa.field("briscola", pa.int8()))
    fields += [pa.field(f"points_{seat}", pa.int16()) for seat in range(config.players)]
    fields += [pa.field(f"side_points_{side}", pa.int16()) for side in range(point_sides(config.players))]
    fields.append(pa.field("winner_side", pa.int8()))
    if chiamata:
        fields += [pa.field(name, kind) for name, kind in CHIAMATA_FIELDS]
        fields += [pa.field(f"game_points_{seat}", pa.int8()) for seat in range(config.players)]
    # The deck in 40 bytes (as 40 list items Parquet wrote it 9 times slower); the hands as
    # lists of any length (a study's tables share one schema; Briscola Chiamata's hold 8)
    fields.append(pa.field("deck", pa.binary(DECK_SIZE)))
    fields += [pa.field(f"hand_{seat}", pa.list_(pa.int8())) for seat in range(config.players)]
    if config.match != "deal":
        fields += [pa.field(name, kind) for name, kind in MATCH_FIELDS]
    return pa.schema(fields)


def results_table(results: np.ndarray, config: RunConfig, schema: pa.Schema) -> pa.Table:
    """RESULT_DTYPE rows as an Arrow table; strategy names dictionary-encoded."""
    n = len(results)
    chiamata = config.players == CHIAMATA
    names = sorted(set(config.strategies))
    dictionary = arrow_strings(names)
    columns = [arrow_column(results["deal"])]
    for name in config.strategies:
        indices = arrow_column(np.full(n, names.index(name), dtype=np.int8))
        columns.append(pa.DictionaryArray.from_arrays(indices, dictionary))
    if not chiamata:
        columns.append(arrow_column(results["briscola"]))
    columns += [arrow_column(results["seat_points"][:, seat]) for seat in range(config.players)]
    columns += [arrow_column(results["side_points"][:, side]) for side in range(point_sides(config.players))]
    columns.append(arrow_column(results["winner_side"]))
    if chiamata:
        columns += [arrow_column(results[name]) for name, _ in CHIAMATA_FIELDS]
        columns += [arrow_column(results["game_points"][:, seat]) for seat in range(config.players)]
    columns += deal_columns(results["deal"], config)
    return pa.Table.from_arrays(columns, schema=pa.schema(list(schema)[: len(columns)]))


def deal_columns(deals: np.ndarray, config: RunConfig) -> list[pa.Array]:
    """The cards of deals ``deals`` (their indices in ``config``'s run), dealt again as the
    engine dealt them (kernels/decks_nb.py): the deck in dealing order, a byte per card
    (the hands round by round, then the stock in drawing order, the face-up briscola
    last; -1 after the pack's last card), then each seat's hand as dealt."""
    from kernels.decks_nb import dealt_decks_nb
    from kernels.rng_nb import seed_key_nb

    decks = np.empty((len(deals), DECK_SIZE), dtype=np.int8)
    indices = np.ascontiguousarray(deals, dtype=np.int64)
    seed_key = np.uint64(seed_key_nb(config.seed))  # as the engine takes it: a plain int may type int64
    dealt_decks_nb(seed_key, indices, config.players, config.rules.as_codes(), decks)
    size, players = hand_size(config.players), config.players
    columns = [pa.FixedSizeBinaryArray.from_buffers(pa.binary(DECK_SIZE), len(decks), [None, pa.py_buffer(decks)])]
    for seat in range(players):
        columns.append(_card_lists(decks[:, seat : size * players : players]))
    return columns


def misdealt_row(deals: pandas.DataFrame, config: dict) -> str | None:
    """Where the card columns of result rows (a file's, its metadata ``config``) are not
    their deals' cards, dealt again from the run's seed (``deal_columns``): the first such
    row and column, or None. Rows from before rows carried their cards pass."""
    players = int(config["players"])
    named = [name for name in card_columns(players) if name in deals]
    if not named or not len(deals):
        return None
    run = RunConfig(players=players, strategies=("random",) * players, deals=1, seed=int(config["seed"]),
                    rules=Rules(**config.get("rules", {})))  # fmt: skip
    dealt = dict(zip(card_columns(players), deal_columns(deals["deal"].to_numpy(), run)))
    for name in named:
        differs = np.flatnonzero((card_matrix(deals[name]) != card_matrix(dealt[name])).any(axis=1))
        if differs.size:
            row = int(differs[0])
            return (
                f"row {row} ({name}) does not hold the cards of deal {int(deals['deal'].iloc[row])} of seed {run.seed}"
            )
    return None


def parquet_options(schema: pa.Schema) -> dict:
    """How every result file and study part is written: zstd, and no dictionary for the
    deck, whose values hardly repeat (trying one made writing it 4 times slower)."""
    return {"compression": "zstd", "use_dictionary": [name for name in schema.names if name != "deck"]}


def card_columns(players: int) -> list[str]:
    """The names of the card columns of a table's rows: the deck, then each seat's hand."""
    return ["deck", *(f"hand_{seat}" for seat in range(players))]


def _card_lists(cards: np.ndarray) -> pa.Array:
    """An int8 matrix as an Arrow list column, a list per row."""
    n, width = cards.shape
    offsets = arrow_column(np.arange(0, (n + 1) * width, width, dtype=np.int32))
    return pa.ListArray.from_arrays(offsets, arrow_column(cards.ravel()))


RESULT_ROW_GROUP = 1 << 20  # rows per row group of a result file
TRACE_ROW_GROUP = 1 << 16  # a trace row is a hundred times larger


class AtomicParquetWriter:
    """Streams row groups to a temporary file beside ``path``; ``commit`` renames it.

    Row groups hold exactly ``row_group`` rows (the last one fewer), whatever the
    batches written: a file's data then depends on its rows alone, not on how a run was
    cut into batches, so two files of the same run are identical byte for byte up to
    the footer (which holds the metadata, with its timings).
    """

    def __init__(self, path: Path, schema: pa.Schema, row_group: int | None = None):
        self.path = path
        self.tmp_path = temporary_path(path)
        self.row_group = row_group or RESULT_ROW_GROUP
        self._pending: list[pa.Table] = []
        self._pending_rows = 0
        self.rows = 0  # written in all: the metadata says it, so a reader can tell a file that lost rows
        self._writer = pq.ParquetWriter(self.tmp_path, schema, **parquet_options(schema))

    def write(self, table: pa.Table) -> None:
        self.rows += table.num_rows
        self._pending.append(table)
        self._pending_rows += table.num_rows
        if self._pending_rows >= self.row_group:
            with self._naming_failures():
                self._flush(whole_groups_only=True)

    @contextmanager
    def _naming_failures(self):
        """An OSError of the file system (a full disk) as one naming this file."""
        try:
            yield
        except OSError as error:
            raise WriteFailed(self.path, error) from error

    def _flush(self, whole_groups_only: bool) -> None:
        """Writes the pending rows as row groups of ``row_group`` rows (keeping back the
        rows short of a whole group, unless this is the end of the file)."""
        table = pa.concat_tables(self._pending).unify_dictionaries().combine_chunks()
        keep = table.num_rows % self.row_group if whole_groups_only else 0
        if table.num_rows > keep:
            self._writer.write_table(table.slice(0, table.num_rows - keep), row_group_size=self.row_group)
        self._pending = [table.slice(table.num_rows - keep)] if keep else []
        self._pending_rows = keep

    def close(self, metadata: dict) -> None:
        """Completes the temporary file, with ``metadata`` as JSON in its footer."""
        with self._naming_failures():
            if self._pending:
                self._flush(whole_groups_only=False)
            self._writer.add_key_value_metadata({METADATA_KEY: json.dumps({**metadata, "rows": self.rows})})
            self._writer.close()

    def commit(self) -> None:
        """Puts the completed file in place, atomically."""
        os.replace(self.tmp_path, self.path)

    def abort(self) -> None:
        try:
            self._writer.close()
        finally:
            self.tmp_path.unlink(missing_ok=True)


@dataclass
class RunResults:
    """A result file read back: one row per deal, and the run's configuration."""

    deals: pandas.DataFrame
    config: dict

    @property
    def partial(self) -> bool:
        return self.config.get("status") != "complete"


def read_config(path: str | os.PathLike) -> dict:
    """The run configuration stored in a result or trace file's metadata."""
    metadata = pq.read_metadata(path).metadata or {}
    raw = metadata.get(METADATA_KEY.encode())
    if raw is None:
        raise ValueError(f"{path} is not a briscola result file (no '{METADATA_KEY}' metadata)")
    return json.loads(raw)


def read_results(path: str | os.PathLike) -> RunResults:
    """Loads a result (or trace) file with its configuration, ready for pandas."""
    return RunResults(deals=rows_frame(pq.read_table(path)), config=read_config(path))


def rows_frame(table: pa.Table) -> pandas.DataFrame:
    """Result rows as pandas reads them, but the card columns (``deck``, ``hand_*``) kept
    in Arrow (``pandas.ArrowDtype``): as numpy objects they would cost a Python array per
    row and cell (1,000,000 rows of 2 players: 7 s to read, against 0.03 s).
    ``card_matrix`` turns one into a numpy matrix."""
    import pandas  # here, not at the top: a run writes files without it, and starts faster

    cards = [name for name in table.column_names if name == "deck" or name.startswith("hand_")]
    frame = table.drop_columns(cards).to_pandas()
    for name in cards:
        frame[name] = pandas.Series(pandas.arrays.ArrowExtensionArray(table[name]), index=frame.index)
    return frame[table.column_names]


def card_matrix(cards) -> np.ndarray:
    """A card column (``deck``, ``hand_0``, ...) of a frame as an int8 matrix, a row per
    deal (copy-free where it can be)."""
    import pyarrow.compute as pc

    lists = pa.array(cards)  # a Series of ArrowDtype, or Arrow's own array
    lists = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    if pa.types.is_fixed_size_binary(lists.type):  # the deck: a byte per card
        width = lists.type.byte_width
        data = np.frombuffer(lists.buffers()[1], dtype=np.int8)
        return data[lists.offset * width : (lists.offset + len(lists)) * width].reshape(len(lists), width)
    lengths = pc.list_value_length(lists).to_numpy(zero_copy_only=False)
    if len(lists) and (lengths != lengths[0]).any():
        raise ValueError("these rows hold hands of several sizes (tables of a study): take one table's rows first")
    return lists.flatten().to_numpy(zero_copy_only=False).reshape(len(lists), lengths[0] if len(lists) else 0)
