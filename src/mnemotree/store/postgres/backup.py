"""Every row of the memory on Postgres, table by table: what a lossless
backup reads and restores. The tables and their columns are the SQLite
store's, so a backup is the same file whichever store wrote it; columns
Postgres derives itself (the tsvectors) are left out, and values are read
back in each column's type (0/1 for a boolean, bytes for a blob)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ...errors import InvalidInput, StorageError
from ..records import TableInfo
from .connections import Connections

BACKED_UP = (
    "settings", "nodes", "node_versions", "node_tags", "relations", "contradictions",
    "snapshots", "captured", "accesses", "usage_batches", "usage", "consolidation_runs",
    "judgements", "purges",
)  # fmt: skip
KEYS, VECTORS = "api_keys", "vectors"
# A database's own settings, never copied: its identity, its models, and the
# progress of a migration into it.
OWN_SETTINGS = frozenset(
    {"database_id", "tokenizer", "embedder", "passage_words", "migration_progress"}
)
# The SQLite schema whose tables (and columns) these tables keep: a backup of
# either store restores into the other. A test holds the columns equal.
BACKUP_FORMAT = 20
# Columns Postgres keeps itself: the text index, and row order where SQLite
# has a rowid (a backup lists those rows in that order).
_OWN_COLUMNS = {
    "nodes": frozenset({"words", "name_words", "word_total"}),
    "node_versions": frozenset({"seq"}),
    "accesses": frozenset({"seq"}),
    "vectors": frozenset({"indexed"}),
}
_ROW_ORDER = {"node_versions": " ORDER BY seq", "accesses": " ORDER BY seq"}
_SERIALS = {"nodes": "seq", "usage": "seq", "vectors": "id", "accesses": "seq"}


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class BackupQueries:
    """Mixed into PostgresStore."""

    _db: Connections

    def backup_tables(self, *, keys: bool, vectors: bool) -> list[str]:
        """The tables a backup holds, in restore order."""
        return [*BACKED_UP, *([KEYS] if keys else []), *([VECTORS] if vectors else [])]

    def schema_tables(self) -> list[str]:
        found = self._db.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY table_name"
        )
        return [r[0] for r in found]

    def _columns(self, table: str) -> list[tuple[str, str]]:
        """(column, type) of a table as a backup holds it, in table order."""
        found = self._db.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = %s ORDER BY ordinal_position",
            (table,),
        )
        own = _OWN_COLUMNS.get(table, frozenset())
        return [(c, t) for c, t in found if c not in own]

    def table_info(self, tables: Sequence[str]) -> list[TableInfo]:
        out = []
        for table in tables:
            columns = tuple(c for c, _ in self._columns(table))
            if not columns:
                raise InvalidInput(f"no table {table!r} in this schema", table)
            where, args = _settings_filter(table)
            ((rows,),) = self._db.execute(f"SELECT count(*) FROM {_quoted(table)}{where}", args)
            out.append(TableInfo(table, columns, int(rows)))
        return out

    def table_rows(self, table: TableInfo) -> Iterator[tuple[Any, ...]]:
        """The table's rows as SQLite holds them (booleans as 0/1)."""
        types = dict(self._columns(table.name))
        columns = ", ".join(_quoted(c) for c in table.columns)
        where, args = _settings_filter(table.name)
        order = " ORDER BY key" if table.name == "settings" else _ROW_ORDER.get(table.name, "")
        read = [_reader(types.get(c, "")) for c in table.columns]
        for row in self._db.execute(
            f"SELECT {columns} FROM {_quoted(table.name)}{where}{order}", args
        ):
            yield tuple(f(v) for f, v in zip(read, row, strict=True))

    def restore_rows(self, table: TableInfo, rows: Iterable[Sequence[Any]]) -> int:
        """Insert rows as they were, inside a transaction (references checked
        at its commit); a serial column continues above the restored values."""
        types = dict(self._columns(table.name))
        unknown = [c for c in table.columns if c not in types]
        if unknown:
            raise InvalidInput(
                f"table {table.name!r} has no column {unknown[0]!r} in this schema", unknown[0]
            )
        self._db.execute("SET CONSTRAINTS ALL DEFERRED")
        write = [_writer(types[c]) for c in table.columns]
        batch = [tuple(f(v) for f, v in zip(write, row, strict=True)) for row in rows]
        columns = ", ".join(_quoted(c) for c in table.columns)
        marks = ", ".join(["%s"] * len(table.columns))
        conflict = (
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            if table.name == "settings"
            else ""
        )
        try:
            self._db.executemany(
                f"INSERT INTO {_quoted(table.name)} ({columns}) VALUES ({marks}){conflict}", batch
            )
        except StorageError as exc:
            raise InvalidInput(f"table {table.name!r}: {exc.message}", table.name) from None
        serial = _SERIALS.get(table.name)
        if serial in table.columns and batch:
            self._db.execute(
                f"SELECT setval(pg_get_serial_sequence(%s, %s), "
                f"(SELECT max({_quoted(serial)}) FROM {_quoted(table.name)}))",
                (table.name, serial),
            )
        return len(batch)

    def check_references(self) -> None:
        """Every restored row's references lead somewhere (else InvalidInput)."""
        try:
            self._db.execute("SET CONSTRAINTS ALL IMMEDIATE")
        except StorageError as exc:
            raise InvalidInput(f"rows that refer to missing ones: {exc.message}", None) from None

    def is_empty(self) -> bool:
        """No memory and no history of one (settings aside)."""
        return not self._db.execute(
            "SELECT 1 FROM nodes UNION ALL SELECT 1 FROM node_versions LIMIT 1"
        )

    @property
    def backup_format(self) -> int:
        return BACKUP_FORMAT


def _settings_filter(table: str) -> tuple[str, tuple[Any, ...]]:
    if table != "settings":
        return "", ()
    return " WHERE NOT key = ANY(%s)", (sorted(OWN_SETTINGS),)


def _reader(kind: str) -> Callable[[Any], Any]:
    if kind == "boolean":
        return lambda v: None if v is None else int(v)
    if kind == "bytea":
        return lambda v: None if v is None else bytes(v)
    return lambda v: v


def _writer(kind: str) -> Callable[[Any], Any]:
    if kind == "boolean":
        return lambda v: None if v is None else bool(v)
    return lambda v: v
