"""Every row of the memory, table by table: what a lossless backup reads and
restores. Which tables are the memory and which are derived from it is
decided here, once, and a test holds every table of the schema to it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...errors import InvalidInput
from ..records import TableInfo
from .connections import Connected

# The memory, in the order a restore inserts it (references are checked at
# commit, so the order only keeps a reader's diff readable).
BACKED_UP = (
    "settings",
    "nodes",
    "node_versions",
    "node_tags",
    "relations",
    "contradictions",
    "snapshots",
    "captured",
    "accesses",
    "usage_batches",
    "usage",
    "consolidation_runs",
    "judgements",
    "purges",
)
# Only when asked: key hashes (never a secret) and vectors (otherwise the
# restored database embeds every node again).
KEYS, VECTORS = "api_keys", "vectors"
# Made from the tables above by triggers or by the store, or bookkeeping the
# header and the target database keep themselves.
DERIVED = {
    "artifacts": "made from node metadata by a trigger",
    "vector_queue": "nodes waiting for a vector: refilled after a restore",
    "vector_tombstones": "deleted vector ids, for in-memory indexes of this file",
    "schema_migrations": "the header records the schema version",
    "sqlite_sequence": "SQLite's own AUTOINCREMENT counters",
}
DERIVED_PREFIXES = ("nodes_fts",)  # the full-text index, kept by triggers on nodes
# Settings that describe this file rather than the memory: the target keeps its own.
# A database's own settings, never copied: its identity, its models, and the
# progress of a migration into it.
OWN_SETTINGS = frozenset(
    {"database_id", "tokenizer", "embedder", "passage_words", "migration_progress"}
)


class BackupQueries(Connected):
    """Mixed into SQLiteStore: read and restore whole tables."""

    def backup_tables(self, *, keys: bool, vectors: bool) -> list[str]:
        """The tables a backup holds, in restore order."""
        return [*BACKED_UP, *([KEYS] if keys else []), *([VECTORS] if vectors else [])]

    def schema_tables(self) -> list[str]:
        """Every table of the schema (virtual and shadow tables included)."""
        sql = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        return [r[0] for r in self._db.execute(sql)]

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One consistent view of the whole database for the calls inside
        (a backup's counts and rows agree while others write)."""
        db = self._db
        if db.in_transaction:  # already inside one of ours
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            db.execute("COMMIT")

    def table_info(self, tables: Sequence[str]) -> list[TableInfo]:
        out = []
        for table in tables:
            columns = [r[1] for r in self._db.execute(f"PRAGMA table_info({_quoted(table)})")]
            rows = self._db.execute(f"SELECT count(*) FROM {_quoted(table)}").fetchone()[0]
            if table == "settings":
                rows -= self._own_settings()
            out.append(TableInfo(table, tuple(columns), int(rows)))
        return out

    def _own_settings(self) -> int:
        marks = ",".join("?" * len(OWN_SETTINGS))
        sql = f"SELECT count(*) FROM settings WHERE key IN ({marks})"
        return int(self._db.execute(sql, sorted(OWN_SETTINGS)).fetchone()[0])

    def table_rows(self, table: TableInfo) -> Iterator[tuple[Any, ...]]:
        """The table's rows, in its primary-key (or insertion) order."""
        columns = ", ".join(_quoted(c) for c in table.columns)
        sql = f"SELECT {columns} FROM {_quoted(table.name)}"
        if table.name == "settings":
            marks = ",".join("?" * len(OWN_SETTINGS))
            where = f"WHERE key NOT IN ({marks}) ORDER BY key"
            yield from self._db.execute(f"{sql} {where}", sorted(OWN_SETTINGS))
            return
        yield from self._db.execute(sql)

    def restore_rows(self, table: TableInfo, rows: Iterable[Sequence[Any]]) -> int:
        """Insert rows as they were (ids, timestamps, sequence numbers);
        inside a transaction, whose references are checked at its commit."""
        self._db.execute("PRAGMA defer_foreign_keys = ON")
        return insert_rows(self._db, table, rows)

    def restored(self) -> None:
        """Nothing to derive: the FTS5 index and derived text follow the rows."""

    def check_references(self) -> None:
        """Every restored row's references lead somewhere (else InvalidInput
        naming the first that does not): what the commit would refuse."""
        broken = self._db.execute("PRAGMA foreign_key_check").fetchone()
        if broken is not None:
            table, rowid, parent, _ = broken
            raise InvalidInput(
                f"rows that refer to missing ones: a {table} row (rowid {rowid}) names "
                f"a {parent} row that is not there",
                table,
            )

    def is_empty(self) -> bool:
        """No memory and no history of one (settings aside)."""
        sql = "SELECT 1 FROM nodes UNION ALL SELECT 1 FROM node_versions LIMIT 1"
        return self._db.execute(sql).fetchone() is None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def insert_rows(db: sqlite3.Connection, table: TableInfo, rows: Iterable[Sequence[Any]]) -> int:
    """Rows of `table` inserted verbatim (settings replace the same key)."""
    known = {r[1] for r in db.execute(f"PRAGMA table_info({_quoted(table.name)})")}
    unknown = [c for c in table.columns if c not in known]
    if unknown:
        raise InvalidInput(
            f"table {table.name!r} has no column {unknown[0]!r} in this schema", unknown[0]
        )
    columns = ", ".join(_quoted(c) for c in table.columns)
    marks = ", ".join("?" * len(table.columns))
    verb = "INSERT OR REPLACE" if table.name == "settings" else "INSERT"
    sql = f"{verb} INTO {_quoted(table.name)} ({columns}) VALUES ({marks})"
    try:
        cursor = db.executemany(sql, rows)
    except sqlite3.IntegrityError as exc:
        raise InvalidInput(f"table {table.name!r}: {exc}", table.name) from None
    return max(0, cursor.rowcount)
